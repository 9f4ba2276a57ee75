#pragma once
// Box sets for the device broad phase's checks (test_gpu_rigid_host, test_gpu_cuda_rigid): random boxes of
// mixed sizes with big slabs at random places (tested against all others), degenerate counts, boxes far out
// (past 2^20 cells: keys alias), huge, infinite and NaN corners, and the bounding boxes of a landed pile and
// the ramps scene from the solver's own detection. Each set's reference is the CPU's broadPhase.
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "rigid/collision.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"
#include "scene/scene.h"

namespace vbdtest {

struct BroadInput {
    std::string name;
    std::vector<vbd::Aabb> boxes;
};

inline std::vector<BroadInput> broadInputs() {
    using vbd::Aabb;
    using vbd::Vec3;
    std::vector<BroadInput> out;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> pos(0, 20), ext(0.1f, 0.8f);
    for (int n : {0, 1, 2, 700, 2500}) {
        BroadInput in{"random " + std::to_string(n), {}};
        for (int i = 0; i < n; ++i) {
            const Vec3 c(pos(rng), pos(rng) * 0.3f, pos(rng)), e(ext(rng), ext(rng), ext(rng));
            in.boxes.push_back({c - e, c + e});
        }
        for (int b = 0; n > 2 && b < 3; ++b)  // big slabs at random places in the list
            in.boxes.insert(in.boxes.begin() + long(rng() % in.boxes.size()),
                            {Vec3(-1, -1 + float(b), -1), Vec3(25, 0.5f + float(b), 25)});
        out.push_back(std::move(in));
    }
    BroadInput far{"far out (aliased cell keys)", {}};
    for (int i = 0; i < 400; ++i) {
        const Vec3 c(pos(rng) * 3e5f, pos(rng), pos(rng)), e(ext(rng), ext(rng), ext(rng));
        far.boxes.push_back({c - e, c + e});
        far.boxes.push_back({c - e * 0.5f, c + e * 0.5f});  // an overlapping twin
    }
    out.push_back(std::move(far));
    BroadInput hostile{"huge, infinite and NaN corners", {}};
    for (int i = 0; i < 200; ++i) {
        const Vec3 c(pos(rng), pos(rng), pos(rng)), e(ext(rng), ext(rng), ext(rng));
        hostile.boxes.push_back({c - e, c + e});
    }
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    hostile.boxes.insert(hostile.boxes.begin() + 11, {Vec3(-1e30f), Vec3(1e30f)});
    hostile.boxes.insert(hostile.boxes.begin() + 60, {Vec3(-inf), Vec3(inf)});
    hostile.boxes.insert(hostile.boxes.begin() + 99, {Vec3(nan, 1, 1), Vec3(2, 2, 2)});
    out.push_back(std::move(hostile));
    vbd::SceneDesc pile = vbd::rigidPileScene(3000);
    pile.solver.diagnostics = false;
    vbd::SceneDesc ramps =
        vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_ramps.json", {});
    for (const auto& [name, d] : {std::pair{"landed pile of 3,000", &pile}, std::pair{"ramps", &ramps}}) {
        vbd::RigidSolver s(*d);
        for (int k = 0; k < 40; ++k) s.step(float(d->dt / d->substeps));
        s.beginStepForDevice(float(d->dt / d->substeps));
        out.push_back({std::string(name), s.boxes()});
    }
    return out;
}

}  // namespace vbdtest
