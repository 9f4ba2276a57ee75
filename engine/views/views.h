#pragma once
// What a World shows, as plain data: drawable surfaces, rigid bodies, contacts, joints, per-vertex scalar
// fields and the inspected vertex's local system. These sit below the solvers (the rigid solver fills
// RigidBodyView and ContactView) and above nothing but math and the scene's shape types, so the dependency
// points one way: views <- soft, rigid <- world <- app.
#include <array>
#include <vector>

#include "math/mat33.h"
#include "math/quat.h"
#include "scene/scene_desc.h"

namespace vbd {

// Per-vertex scalar fields the app can draw as a heat map.
enum class ScalarField {
    None,
    Color,              // vertex color group index
    Residual,           // |grad_i G| of the last iteration
    VolumeRatio,        // mean det F of incident tets
    DiagonalDominance,  // ||D_i|| / max_j ||H_ij||: low where one neighbour's coupling rivals the block
    DominanceSum,       // ||D_i|| / sum_j ||H_ij||: below 1 the block row is not diagonally dominant
};

// A drawable triangle surface over the particle array (soft-body boundary or a cloth sheet).
struct SurfaceView {
    std::vector<std::array<int, 3>> tris;  // indices into World::positions()
    bool doubleSided = false;              // cloth
    int body = 0;                          // soft body or cloth index
};

struct RigidBodyView {
    ShapeType shape = ShapeType::Box;
    Vec3 size{1, 1, 1};
    float radius = 0.5f, halfHeight = 0.5f;
    Vec3 position;
    Quat rotation;
    Vec3 velocity, angularVelocity;  // world frame
    bool fixed = false;
};

// The local system of one particle, for the app's inspector.
struct VertexInspect {
    bool valid = false;
    int particle = -1;
    Mat33 block;             // D_i: inertia + elastic 3x3 block of its local Newton solve
    float dominance = 0;     // ||D_i|| / max_j ||H_ij||
    float dominanceSum = 0;  // ||D_i|| / sum_j ||H_ij||
};

// A joint as drawn: each body's center and its anchor point in world space (bodyA = -1: the world).
struct JointView {
    int bodyA = -1, bodyB = 0;
    Vec3 centerA, anchorA, centerB, anchorB;
};

struct ContactView {
    Vec3 point, normal;
};

}  // namespace vbd
