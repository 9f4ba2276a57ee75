#pragma once
// The issue-11 cantilever of the coarse-space tests and benchmarks: a 1 x 0.1 x 0.1 m bar along x, clamped
// at x = 0, E 1e6, nu 0.25, rho 1000, no ground, with the aggregate coarse space configured (enabled).
#include "scene/scene_desc.h"

namespace vbdtest {

inline vbd::SceneDesc aggregateCantilever(int nx, int ny, int nz) {
    using namespace vbd;
    SceneDesc sd;
    sd.ground.enabled = false;
    SoftBodyDesc b;
    b.min = Vec3(0, 0, 0);
    b.max = Vec3(1, 0.1f, 0.1f);
    b.cells = {nx, ny, nz};
    b.material.youngs = 1e6;
    b.material.poisson = 0.25;
    b.material.density = 1000;
    b.material.damping = 0;
    FixedDesc f;
    f.box = Box3{Vec3(-0.01f, -0.01f, -0.01f), Vec3(0.001f, 0.11f, 0.11f)};
    b.fixed.push_back(f);
    sd.softBodies.push_back(b);
    sd.solver.coarse.enabled = true;
    sd.solver.coarse.basis = CoarseBasis::Aggregate;
    return sd;
}

}  // namespace vbdtest
