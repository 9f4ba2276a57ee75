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
// The same with the particle surfaces' hit of this ray given (World::castSurfaceHit: cast where the World's
// state is, so that the pick reads no positions).
PickHit pick(const vbd::World& world, const Ray& ray, const vbd::SurfaceHit& surface);

// The ray in the engine's terms (World::surfaceHit, World::setSurfaceRay), and back.
vbd::SurfaceRay surfaceRay(const Ray& r);
Ray rayOf(const vbd::SurfaceRay& r);

}  // namespace vbdgui
