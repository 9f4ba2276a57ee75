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
}  // namespace

float rayTriangle(const Ray& r, const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
    // Solve o + t d = a + u (b - a) + v (c - a) by Cramer's rule with scalar triple products.
    glm::vec3 e1 = b - a, e2 = c - a, p = glm::cross(r.dir, e2);
    float det = glm::dot(e1, p);
    if (std::fabs(det) < 1e-12f) return -1;
    float inv = 1 / det;
    glm::vec3 s = r.origin - a;
    float u = glm::dot(s, p) * inv;
    if (u < 0 || u > 1) return -1;
    glm::vec3 q = glm::cross(s, e1);
    float v = glm::dot(r.dir, q) * inv;
    if (v < 0 || u + v > 1) return -1;
    return glm::dot(e2, q) * inv;
}

namespace {

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

// Nearest hit of the particle surfaces; the grabbed particle is the hit triangle's vertex nearest to it.
void pickSurfaces(const vbd::World& world, const Ray& ray, PickHit& hit, float& best) {
    const auto& x = world.positions();
    for (const auto& s : world.surfaces())
        for (const auto& t : s.tris) {
            const glm::vec3 v[3] = {g(x[t[0]]), g(x[t[1]]), g(x[t[2]])};
            const float d = rayTriangle(ray, v[0], v[1], v[2]);
            if (d <= 0 || d >= best) continue;
            best = d;
            const glm::vec3 p = ray.origin + d * ray.dir;
            int k = 0;
            for (int j = 1; j < 3; ++j)
                if (glm::length(p - v[j]) < glm::length(p - v[k])) k = j;
            hit = {t[k], -1, d, p};
        }
}

}  // namespace

PickHit pick(const vbd::World& world, const Ray& ray) {
    PickHit hit;
    float best = std::numeric_limits<float>::max();
    pickSurfaces(world, ray, hit, best);
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
