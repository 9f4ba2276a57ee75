#pragma once
// Ray picking against what the renderer draws: particle surfaces (the nearest vertex of the hit
// triangle is grabbed) and rigid bodies (boxes as oriented boxes, spheres and capsules as spheres).
#include "render/camera.h"
#include "world/world.h"

namespace vbdgui {

struct PickHit {
    int particle = -1, body = -1;
    float t = 0;         // distance along the ray
    glm::vec3 point{0};  // world hit point
};

// Nearest hit of the ray (dir unit length), or particle = body = -1 for none.
PickHit pick(const vbd::World& world, const Ray& ray);

// Möller–Trumbore: t of the ray's hit with triangle (a, b, c), or a negative value for a miss.
float rayTriangle(const Ray& r, const glm::vec3& a, const glm::vec3& b, const glm::vec3& c);

}  // namespace vbdgui
