#pragma once
// A ray against the particles' surface triangles (World::surfaceHit): the app's picking and its hover
// readout. One source for the host's loop over the published positions and the device step's reduction
// over the triangles (gpu/pipeline.h, with the frame's measures), so that both name the same particle.
#include "math/hd.h"
#include "math/vec3.h"

namespace vbd {

// A ray o + t d, t > 0; d of unit length (t is then a distance).
struct SurfaceRay {
    Vec3 origin, dir;
    bool operator==(const SurfaceRay& o) const {
        return origin.x == o.origin.x && origin.y == o.origin.y && origin.z == o.origin.z &&
               dir.x == o.dir.x && dir.y == o.dir.y && dir.z == o.dir.z;
    }
    bool operator!=(const SurfaceRay& o) const { return !(*this == o); }
};

// Out of line on the host (VBD_HD_NOINLINE), so that the World's cast, the host executor's and the app's
// pick run the same instructions and agree to the bit.
// Möller–Trumbore: o + t d = a + u (b - a) + v (c - a) solved by Cramer's rule with scalar triple products
// (det = e1 . (d x e2)); t of the hit, or a negative value for a miss (outside the triangle, or a ray in its
// plane: |det| below 1e-12).
VBD_HD_NOINLINE float rayTriangle(const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 e1 = b - a, e2 = c - a, p = cross(d, e2);
    const float det = dot(e1, p);
    if ((det < 0 ? -det : det) < 1e-12f) return -1;
    const float inv = 1 / det;
    const Vec3 s = o - a;
    const float u = dot(s, p) * inv;
    if (u < 0 || u > 1) return -1;
    const Vec3 q = cross(s, e1);
    const float v = dot(d, q) * inv;
    if (v < 0 || u + v > 1) return -1;
    return dot(e2, q) * inv;
}

// The nearest hit of a set of triangles, as a reduction value: a + b is the nearer of the two, the lower
// triangle index on a tie, so any order of summing gives the same hit (a device's tree, the host's loop).
// The grabbed particle is the hit triangle's corner nearest to the hit point. Doubles only (the device's
// reductions keep their values in shared doubles); the default is the miss (the identity).
struct SurfaceHit {
    static constexpr double kMiss = 3.0e38;
    double t = kMiss;      // distance along the ray
    double triangle = -1;  // index in the triangle list cast against
    double particle = -1;  // the hit triangle's corner nearest to the hit point
    VBD_HD bool hit() const { return triangle >= 0; }
    VBD_HD SurfaceHit operator+(const SurfaceHit& o) const {
        if (!o.hit()) return *this;
        if (!hit()) return o;
        return (o.t < t || (o.t == t && o.triangle < triangle)) ? o : *this;
    }
};

// Triangle k (corners i0, i1, i2 at a, b, c) against the ray: a hit in front of the origin, or the miss.
VBD_HD_NOINLINE SurfaceHit triangleHit(const SurfaceRay& r, int k, const int (&corner)[3],
                                       const Vec3 (&x)[3]) {
    SurfaceHit h;
    const float t = rayTriangle(r.origin, r.dir, x[0], x[1], x[2]);
    if (!(t > 0)) return h;  // behind the origin, a miss, or NaN
    const Vec3 p = r.origin + t * r.dir;
    int near = 0;
    for (int j = 1; j < 3; ++j)
        if (squaredNorm(p - x[j]) < squaredNorm(p - x[near])) near = j;
    h.t = t;
    h.triangle = k;
    h.particle = corner[near];
    return h;
}

}  // namespace vbd
