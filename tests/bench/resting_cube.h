#pragma once
// The benchmarks' World around a device step: a soft cube of 27^3 5-tet cells (21,952 vertices, 98,415 tets)
// resting on the ground, h = 1/120 s, 2 iterations, no diagnostics (bench_world, bench_snapshot).
#include "scene/scene_desc.h"

namespace vbdbench {

// cells: per side (27: the default cube; 52: the paper's 703k tets, 148,877 vertices).
inline vbd::SceneDesc restingCube(vbd::Precision precision, vbd::Backend backend, int cells = 27) {
    vbd::SceneDesc s;
    s.dt = 1.0 / 120.0;
    s.solver.iterations = 2;
    s.solver.diagnostics = false;
    s.solver.precision = precision;
    s.solver.backend = backend;
    vbd::SoftBodyDesc b;
    b.min = vbd::Vec3(0, 0.001f, 0);
    b.max = vbd::Vec3(1, 1.001f, 1);
    b.cells = {cells, cells, cells};
    s.softBodies.push_back(b);
    return s;
}

}  // namespace vbdbench
