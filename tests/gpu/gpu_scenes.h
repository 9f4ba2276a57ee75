#pragma once
// The built-in scenes the device step runs (gpu/step_plan.h: some particles),
// found by asking deviceStepUnsupported of each scene file, so that a scene added to assets/scenes/ is
// covered (or named as CPU-only) without editing the tests.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "coarse/coarse_hook.h"
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

// The sweep hook a World installs on the scene's solver (world.cpp setSolver): the coarse correction when
// solver.coarse.enabled, else none. The caller keeps it alive while the solver steps.
inline std::unique_ptr<vbd::CoarseHook> installHook(vbd::SoftSolver& s, const vbd::SceneDesc& d) {
    if (!d.solver.coarse.enabled) return nullptr;
    std::unique_ptr<vbd::CoarseHook> h = vbd::makeCoarseHook();
    h->configure(d.solver.coarse);
    s.setSweepHook(h.get());
    return h;
}

// Variants of the coarse-space bar (coarse_bar.json) for the device step's hook (gpu/pipeline.h): the
// scene (stiff_rigid basis, Hessian matrix), the Galerkin bases (element; aggregate with the rest matrix),
// Chebyshev, a tolerance stop, and the adaptive initial guess off; each in double and float.
struct CoarseCase {
    std::string name;
    vbd::SceneDesc desc;
};
inline std::vector<CoarseCase> coarseCases() {
    const std::vector<std::vector<std::string>> variants = {
        {},
        {"solver.coarse.basis=element"},
        {"solver.coarse.basis=aggregate", "solver.coarse.matrix=rest"},
        {"solver.chebyshev_rho=0.7"},
        {"solver.tolerance=1e-4"},
        {"solver.initial_guess=inertial"}};
    std::vector<CoarseCase> out;
    for (const auto& sets : variants)
        for (vbd::Precision prec : {vbd::Precision::Double, vbd::Precision::Float}) {
            CoarseCase c;
            c.desc = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/coarse_bar.json", sets);
            c.desc.solver.precision = prec;
            c.name = prec == vbd::Precision::Double ? "double" : "float";
            for (const auto& s : sets) c.name += " " + s;
            out.push_back(c);
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

// Scenes whose bodies touch from the first step, for the device step's collision (gpu/pipeline.h: detected
// on the host, bounded sweeps, contact forces, the snapshot for same-color partners):
//   cloth_cube, the soft cube lowered to 5 mm above the hammock (contact thickness 2 r = 25 mm) and moving
//     down at 0.5 m/s: cloth-soft vertex-triangle and edge-edge pairs;
//   soft_pile, its upper layer lowered to 5 mm above the lower one (2 r ~ 20 mm) and moving down at 0.5 m/s:
//     soft-soft pairs;
// each also with re-detection every 3 sweeps (collision_interval) and with Chebyshev (bounded after the
// extrapolation).
struct ContactCase {
    std::string name;
    vbd::SceneDesc desc;
};
inline std::vector<ContactCase> contactCases() {
    const std::string dir = std::string(VBD_SOURCE_DIR) + "/assets/scenes/";
    vbd::SceneDesc hammock = vbd::loadSceneFile(dir + "cloth_cube.json", {});
    auto& cube = hammock.softBodies.at(0);
    const float lower = cube.min.y - 0.505f;
    cube.min.y -= lower;
    cube.max.y -= lower;
    cube.velocity = vbd::Vec3(0, -0.5f, 0);
    vbd::SceneDesc pile = vbd::loadSceneFile(dir + "soft_pile.json", {});
    for (auto& b : pile.softBodies)
        if (b.min.y > 0.5f) {  // 0.60 -> 0.455, above 0.45, and pressing down
            b.min.y -= 0.145f, b.max.y -= 0.145f;
            b.velocity = vbd::Vec3(0, -0.5f, 0);
        }
    std::vector<ContactCase> out;
    for (const auto& [name, base] : {std::pair<std::string, vbd::SceneDesc>{"cube on hammock", hammock},
                                     std::pair<std::string, vbd::SceneDesc>{"stacked pile", pile}}) {
        out.push_back({name, base});
        vbd::SceneDesc redetect = base;
        for (auto& c : redetect.cloths) c.collisionInterval = 3;
        for (auto& b : redetect.softBodies) b.collisionInterval = 3;
        out.push_back({name + ", re-detected every 3 sweeps", redetect});
        vbd::SceneDesc cheb = base;
        cheb.solver.chebyshevRho = 0.6;
        out.push_back({name + ", Chebyshev", cheb});
    }
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
