#pragma once
// A square sheet of 1e5 Pa membrane with bending and internal damping of both, draped over a fixed sphere
// of radius 0.3 m at y = 0.5 (folds: hinges bent both ways), the ground below: the cloth scene of
// bench_cloth and test_cloth_simd.

#include "scene/scene.h"

namespace vbdtest {

inline vbd::SceneDesc clothOverSphere(float side, int cells, bool selfCollision) {
    using namespace vbd;
    SceneDesc s;
    s.solver.diagnostics = false;
    s.ground.enabled = true;
    ClothDesc c;
    c.min = Vec3(-0.5f * side, 0.9f, -0.5f * side);
    c.size = {side, side};
    c.cells = {cells, cells};
    c.material.youngs = 1e5;
    c.material.density = 200;
    c.material.thickness = 1e-3;
    c.material.bending = 1e-5;
    c.material.damping = 0.01;
    c.material.bendingDamping = 0.01;
    c.selfCollision = selfCollision;
    s.cloths.push_back(c);
    RigidBodyDesc sphere;
    sphere.shape = ShapeType::Sphere;
    sphere.radius = 0.3;
    sphere.position = Vec3(0, 0.5f, 0);
    sphere.fixed = true;
    s.rigidBodies.push_back(sphere);
    return s;
}

}  // namespace vbdtest
