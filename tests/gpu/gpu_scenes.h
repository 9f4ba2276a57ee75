#pragma once
// The built-in scenes the device step runs (gpu/step_plan.h: no cloth, no self-collision, no coarse hook),
// found by asking deviceStepUnsupported of each scene file, so that a scene added to assets/scenes/ is
// covered (or named as CPU-only) without editing the tests.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gpu/backend_choice.h"
#include "gpu/step_plan.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

namespace vbdtest {

struct SceneSupport {
    std::string file;
    std::string unsupported;  // "" when the device step runs it
};

inline std::vector<SceneSupport> builtInSceneSupport() {
    std::vector<SceneSupport> out;
    const std::filesystem::path dir = std::filesystem::path(VBD_SOURCE_DIR) / "assets" / "scenes";
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        const vbd::SceneDesc d = vbd::loadSceneFile(f, {});
        vbd::SoftSolver s;
        s.build(d);
        out.push_back({f, vbd::deviceStepUnsupported(s.model(), d.solver)});
    }
    return out;
}

// The built-in scenes with rigid bodies and no particles (the ones the rigid device step runs alone).
inline std::vector<std::string> rigidOnlyScenes() {
    std::vector<std::string> out;
    const std::filesystem::path dir = std::filesystem::path(VBD_SOURCE_DIR) / "assets" / "scenes";
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().extension() != ".json") continue;
        const vbd::SceneDesc d = vbd::loadSceneFile(e.path().string(), {});
        if (!d.rigidBodies.empty() && d.softBodies.empty() && d.cloths.empty())
            out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Why the CUDA tests skip here ("" when a device is there).
inline std::string noCudaDevice() {
    const vbd::CudaProbe& p = vbd::probeCuda();
    if (!p.compiled) return "built without CUDA (nvcc was not found at configure time)";
    if (p.devices <= 0) return "no CUDA device: " + p.error;
    return "";
}

// The residual heat map's device checks: a beam (bending, fixed end) in double and float, a cube on the
// ground (collider), cloth without self-collision (membranes, bending).
struct FieldCase {
    const char* scene;
    vbd::Precision precision;
};
inline std::vector<FieldCase> residualFieldCases() {
    return {{"beam_sag.json", vbd::Precision::Double},
            {"beam_sag.json", vbd::Precision::Float},
            {"cube_drop.json", vbd::Precision::Double},
            {"cloth_hanging.json", vbd::Precision::Float}};
}
// The case's scene with the override `set` and self-collision off; `what` names it for failure messages.
inline vbd::SceneDesc residualFieldScene(const FieldCase& c, const char* set, std::string& what) {
    vbd::SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + c.scene, {set});
    for (auto& cl : d.cloths) cl.selfCollision = false;
    d.solver.precision = c.precision;
    what = std::string(c.scene) + " " + set + (c.precision == vbd::Precision::Double ? " double" : " float");
    return d;
}

}  // namespace vbdtest
