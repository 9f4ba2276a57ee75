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

PickHit pick(const vbd::World& world, const Ray& ray) {
    PickHit hit;
    float best = std::numeric_limits<float>::max();
    const auto& x = world.positions();
    for (const auto& s : world.surfaces())
        for (const auto& t : s.tris) {
            glm::vec3 a = g(x[t[0]]), b = g(x[t[1]]), c = g(x[t[2]]);
            float d = rayTriangle(ray, a, b, c);
            if (d <= 0 || d >= best) continue;
            best = d;
            glm::vec3 p = ray.origin + d * ray.dir;
            int k = 0;
            float dk = glm::length(p - a);
            if (glm::length(p - b) < dk) k = 1, dk = glm::length(p - b);
            if (glm::length(p - c) < dk) k = 2;
            hit = {t[k], -1, d, p};
        }
    auto bodies = world.bodies();
    for (size_t i = 0; i < bodies.size(); ++i) {
        const auto& bd = bodies[i];
        if (bd.fixed) continue;
        // Ray in the body frame, then slab test (box) or quadratic (sphere; capsules use their bounding
        // sphere of radius r + h, close enough to grab).
        glm::vec3 o = rot(vbd::conjugate(bd.rotation), ray.origin - g(bd.position));
        glm::vec3 d = rot(vbd::conjugate(bd.rotation), ray.dir);
        float tHit = -1;
        if (bd.shape == vbd::ShapeType::Box) {
            glm::vec3 h = 0.5f * g(bd.size);
            float t0 = -std::numeric_limits<float>::max(), t1 = -t0;
            bool ok = true;
            for (int k = 0; k < 3 && ok; ++k) {
                if (std::fabs(d[k]) < 1e-12f) {
                    ok = std::fabs(o[k]) <= h[k];
                    continue;
                }
                float ta = (-h[k] - o[k]) / d[k], tb = (h[k] - o[k]) / d[k];
                t0 = std::max(t0, std::min(ta, tb));
                t1 = std::min(t1, std::max(ta, tb));
            }
            if (ok && t0 <= t1 && t1 > 0) tHit = t0 > 0 ? t0 : t1;
        } else {
            float r = bd.radius + (bd.shape == vbd::ShapeType::Capsule ? bd.halfHeight : 0.0f);
            float bq = glm::dot(o, d), cq = glm::dot(o, o) - r * r, disc = bq * bq - cq;
            if (disc >= 0) {
                float s = std::sqrt(disc);
                tHit = -bq - s > 0 ? -bq - s : -bq + s;
            }
        }
        if (tHit > 0 && tHit < best) {
            best = tHit;
            hit = {-1, int(i), tHit, ray.origin + tHit * ray.dir};
        }
    }
    return hit;
}

}  // namespace vbdgui
