#pragma once
// A contact manifold of the rigid narrow phase and its reduction to four points. VBD_HD: RigidSolver's narrow
// phase and the device's (gpu/rigid_stages.h RigidNarrowStage) run this one source.
#include <cmath>
#include <cstdint>

#include "math/hd.h"
#include "math/quat.h"

namespace vbd {

struct Pose {
    Vec3 p;
    Quat q;
};

struct ManifoldPoint {
    Vec3 pA, pB;       // world points on A and on B; separation = n . (pB - pA) (< 0: penetrating)
    uint32_t key = 0;  // feature key, unique inside one manifold
};

// Contact normal points from A to B.
struct Manifold {
    Vec3 normal{0, 1, 0};
    int count = 0;
    ManifoldPoint pts[4];
};

// Keeps the 4 points of a larger set that span the largest area (deepest first), used by the
// face clipper and the plane-box test. sep[i] is each point's separation.
VBD_HD_NOINLINE int reduceManifold(ManifoldPoint* pts, const float* sep, int count, const Vec3& n) {
    if (count <= 4) return count;
    int idx[4];
    // 1: the extreme point along a tangent of the normal; 2: farthest from it; 3: largest
    // triangle; 4: largest area added outside it. The choice is purely geometric on purpose:
    // starting from the deepest point (as many engines do) feeds back on itself -- the kept side
    // of an octagonal overlap (two boxes yawed against each other) is pushed up, the other side
    // sinks and becomes the deepest -- and a yawed 10-box stack rocked until it fell.
    (void)sep;
    const Vec3 u =
        std::fabs(n.x) < 0.6f ? normalized(cross(n, Vec3(1, 0, 0))) : normalized(cross(n, Vec3(0, 1, 0)));
    idx[0] = 0;
    for (int i = 1; i < count; ++i)
        if (dot(pts[i].pB, u) > dot(pts[idx[0]].pB, u) + 1e-6f) idx[0] = i;
    const Vec3 p0 = pts[idx[0]].pB;
    float best = -1;
    idx[1] = idx[0] == 0 ? 1 : 0;
    for (int i = 0; i < count; ++i) {
        float d = squaredNorm(pts[i].pB - p0);
        if (d > best) best = d, idx[1] = i;
    }
    const Vec3 p1 = pts[idx[1]].pB;
    best = -1;
    idx[2] = -1;
    float sgn = 1;
    for (int i = 0; i < count; ++i) {
        if (i == idx[0] || i == idx[1]) continue;
        float a = dot(cross(p1 - p0, pts[i].pB - p0), n);
        if (std::fabs(a) > best) best = std::fabs(a), idx[2] = i, sgn = a >= 0 ? 1.0f : -1.0f;
    }
    const Vec3 p2 = pts[idx[2]].pB;
    // Triangle (p0, p1, p2) has orientation sgn about n; the fourth point is the one with the most
    // negative signed area against one of the triangle's edges (farthest outside it).
    best = 0;
    idx[3] = -1;
    const Vec3 tri[3] = {p0, p1, p2};
    for (int i = 0; i < count; ++i) {
        if (i == idx[0] || i == idx[1] || i == idx[2]) continue;
        for (int e = 0; e < 3; ++e) {
            float a = -sgn * dot(cross(tri[(e + 1) % 3] - tri[e], pts[i].pB - tri[e]), n);
            if (a > best) best = a, idx[3] = i;
        }
    }
    ManifoldPoint out[4];
    int m = 0;
    for (int k = 0; k < 4; ++k)
        if (idx[k] >= 0) out[m++] = pts[idx[k]];
    for (int k = 0; k < m; ++k) pts[k] = out[k];
    return m;
}

}  // namespace vbd
