#pragma once
// Rigid body data of the AVBD solver: world-frame state, collision shape, mass properties.
// Body frame = principal frame of the shape (box axes; a capsule's axis is its local y), so the
// body inertia tensor is diagonal and stored as a Vec3d.
#include <string>
#include <vector>

#include "math/quat.h"
#include "scene/scene_desc.h"

namespace vbd {

struct RigidBodyState {
    Vec3 position;                   // center of mass, world
    Quat rotation;                   // body -> world
    Vec3 velocity, angularVelocity;  // world frame
};

struct Collider {
    ShapeType type = ShapeType::Box;
    Vec3 half{0.5f, 0.5f, 0.5f};  // box half extents
    float radius = 0.5f;          // sphere / capsule radius
    float halfHeight = 0.5f;      // capsule: half length of the core segment along local y
};

struct MassProperties {
    double mass = 0;
    Vec3d inertia;  // principal moments (body frame)
};

// Uniform density solids:
//   box a x b x c:  I_x = m (b^2 + c^2) / 12, ...
//   sphere r:       I = 2/5 m r^2
//   capsule (cylinder of radius r, length 2 hh along y, plus two hemispheres):
//     m_c = rho pi r^2 2hh, m_h = rho 4/3 pi r^3 (both caps together),
//     I_y = m_c r^2/2 + m_h 2r^2/5,
//     I_x = m_c (r^2/4 + (2hh)^2/12) + m_h (2r^2/5 + hh^2 + 3 hh r/4)
//   (each cap's own inertia about its center of mass shifted by the parallel-axis theorem; the
//   3 hh r / 4 term is 2 * (3/8 r) * hh from the cap's centroid offset 3r/8).
MassProperties massProperties(const Collider& c, double density);

// A collider from a scene description (shape, size / radius / half height).
Collider colliderFromDesc(const RigidBodyDesc& d);

// Validates a scene's rigid bodies and joints, throwing InputError(file, key, why) on the first
// problem: non-positive or non-finite size, radius or density, a capsule half height below zero, a
// zero quaternion, joints naming bodies that do not exist, a zero hinge axis, inverted limits.
// Non-unit (but non-zero) quaternions are accepted; warnings receives one line each (they are
// normalized by the solver).
void validateRigidScene(const SceneDesc& scene, std::vector<std::string>* warnings);

// Bounding radius about the center of mass.
float boundingRadius(const Collider& c);

}  // namespace vbd
