#pragma once
// Helpers for scene tests: load built-in scenes, run worlds, read state.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scene/scene.h"
#include "soft/soft_solver.h"
#include "world/world.h"

namespace vbdtest {

inline std::string scenePath(const std::string& name) {
    return std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + name;
}

inline vbd::SceneDesc loadScene(const std::string& name, const std::vector<std::string>& sets = {}) {
    return vbd::loadSceneFile(scenePath(name), sets);
}

// A 1 x 0.25 x 0.25 m bar from (0, 1, 0), E 1e5, clamped at its x = 0 face.
inline vbd::SoftBodyDesc clampedBar(int nx, int ny, int nz) {
    vbd::SoftBodyDesc b;
    b.min = vbd::Vec3(0, 1, 0);
    b.max = vbd::Vec3(1, 1.25f, 0.25f);
    b.cells = {nx, ny, nz};
    b.material.youngs = 1e5;
    vbd::FixedDesc f;
    f.box = {vbd::Vec3(-0.01f, 0.9f, -0.1f), vbd::Vec3(0.01f, 1.3f, 0.35f)};
    b.fixed.push_back(f);
    return b;
}

// clampedBar(nx, 3, 3) with damping 0.02 over the ground plane at `ground` (its bottom is at y = 1: a ground
// above that presses into its lower layer from the start): tets, every damping model, collider contact and
// friction in the same vertex sums (the SIMD-against-scalar and residual tests).
inline vbd::SceneDesc pressedBeam(vbd::Precision p, vbd::DampingModel damping, double ground = 1.001,
                                  int nx = 12) {
    vbd::SceneDesc s;
    s.ground.height = ground;
    s.solver.precision = p;
    s.solver.damping = damping;
    s.solver.diagnostics = false;
    vbd::SoftBodyDesc b = clampedBar(nx, 3, 3);
    b.material.damping = 0.02;
    s.softBodies.push_back(b);
    return s;
}

// The solver's iterate in T.
template <typename T>
const vbd::SoftState<T>& stateOf(vbd::SoftSolver& s) {
    if constexpr (std::is_same_v<T, double>)
        return s.doubleState();
    else
        return s.floatState();
}

// Every position equal to the bit (determinism across thread counts).
inline void expectBitIdentical(const std::vector<vbd::Vec3>& a, const std::vector<vbd::Vec3>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].x, b[i].x) << "vertex " << i;
        ASSERT_EQ(a[i].y, b[i].y) << "vertex " << i;
        ASSERT_EQ(a[i].z, b[i].z) << "vertex " << i;
    }
}

inline vbd::Vec3d centerOfMass(const vbd::SoftModel& m) {
    vbd::Vec3d c(0, 0, 0);
    double M = 0;
    for (int i = 0; i < m.numVertices(); ++i) {
        c += vbd::Vec3d(m.x[size_t(i)]) * double(m.mass[size_t(i)]);
        M += m.mass[size_t(i)];
    }
    return c / M;
}

inline double totalVolume(const vbd::SoftModel& m) {
    double v = 0;
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const auto& t = m.tets[e];
        vbd::Mat33d Ds =
            vbd::Mat33d::fromCols(vbd::Vec3d(m.x[t[1]] - m.x[t[0]]), vbd::Vec3d(m.x[t[2]] - m.x[t[0]]),
                                  vbd::Vec3d(m.x[t[3]] - m.x[t[0]]));
        v += Ds.det() / 6.0;
    }
    return v;
}

}  // namespace vbdtest
