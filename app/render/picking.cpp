#include "render/picking.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vbdgui {

namespace {
glm::vec3 g(const vbd::Vec3& v) { return {v.x, v.y, v.z}; }
glm::vec3 rot(const vbd::Quat& q, const glm::vec3& v) {
    vbd::Vec3 r = vbd::rotate(q, vbd::Vec3(v.x, v.y, v.z));
    return {r.x, r.y, r.z};
}

// Distance along a ray (origin o, direction d, in the box frame) to a box of half extents h: slab test;
// -1 for a miss.
float rayBox(const glm::vec3& o, const glm::vec3& d, const glm::vec3& h) {
    float t0 = -std::numeric_limits<float>::max(), t1 = -t0;
    for (int k = 0; k < 3; ++k) {
        if (std::fabs(d[k]) < 1e-12f) {
            if (std::fabs(o[k]) > h[k]) return -1;
            continue;
        }
        const float ta = (-h[k] - o[k]) / d[k], tb = (h[k] - o[k]) / d[k];
        t0 = std::max(t0, std::min(ta, tb));
        t1 = std::min(t1, std::max(ta, tb));
    }
    if (t0 > t1 || t1 <= 0) return -1;
    return t0 > 0 ? t0 : t1;
}

// Distance to a sphere of radius r about the origin; -1 for a miss.
float raySphere(const glm::vec3& o, const glm::vec3& d, float r) {
    const float bq = glm::dot(o, d), cq = glm::dot(o, o) - r * r, disc = bq * bq - cq;
    if (disc < 0) return -1;
    const float s = std::sqrt(disc);
    return -bq - s > 0 ? -bq - s : -bq + s;
}

}  // namespace

vbd::SurfaceRay surfaceRay(const Ray& r) {
    return {{r.origin.x, r.origin.y, r.origin.z}, {r.dir.x, r.dir.y, r.dir.z}};
}

Ray rayOf(const vbd::SurfaceRay& r) { return {g(r.origin), g(r.dir)}; }

PickHit pick(const vbd::World& world, const Ray& ray) {
    return pick(world, ray, world.surfaceHit(surfaceRay(ray)));
}

PickHit pick(const vbd::World& world, const Ray& ray, const vbd::SurfaceHit& surface) {
    PickHit hit;
    float best = std::numeric_limits<float>::max();
    // The particle surfaces: the hit triangle's corner nearest to the hit is grabbed.
    if (surface.hit()) {
        best = float(surface.t);
        hit = {int(surface.particle), -1, best, ray.origin + best * ray.dir};
    }
    const auto bodies = world.bodies();
    for (size_t i = 0; i < bodies.size(); ++i) {
        const auto& bd = bodies[i];
        if (bd.fixed) continue;
        // The ray in the body frame; capsules use their bounding sphere of radius r + h (close enough to
        // grab).
        const glm::vec3 o = rot(vbd::conjugate(bd.rotation), ray.origin - g(bd.position));
        const glm::vec3 d = rot(vbd::conjugate(bd.rotation), ray.dir);
        const float tHit =
            bd.shape == vbd::ShapeType::Box
                ? rayBox(o, d, 0.5f * g(bd.size))
                : raySphere(o, d, bd.radius + (bd.shape == vbd::ShapeType::Capsule ? bd.halfHeight : 0.0f));
        if (tHit > 0 && tHit < best) {
            best = tHit;
            hit = {-1, int(i), tHit, ray.origin + tHit * ray.dir};
        }
    }
    return hit;
}

}  // namespace vbdgui
