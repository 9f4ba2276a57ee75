#pragma once
// The rigid narrow phase: one manifold per pair of shapes (plane, box, sphere, capsule), with normal from A
// to B and a feature key per point. Box-box is rigid/box_box.h. VBD_HD: RigidSolver::narrowPhase and the
// device stage (gpu/rigid_stages.h RigidNarrowStage) call the one collidePair. The entry points are
// VBD_HD_NOINLINE: every host caller runs the same instructions (math/hd.h says why).
#include <algorithm>
#include <cmath>

#include "math/hd.h"
#include "rigid/box_box.h"
#include "rigid/manifold.h"
#include "rigid/rigid_body.h"

namespace vbd {

namespace narrow_detail {

VBD_HD Vec3 capsuleAxis(const Pose& x) { return rotate(x.q, Vec3(0, 1, 0)); }

VBD_HD Vec3 closestOnSegment(const Vec3& a, const Vec3& b, const Vec3& p, float* tOut = nullptr) {
    Vec3 ab = b - a;
    float l2 = dot(ab, ab);
    float t = l2 > 1e-20f ? std::clamp(dot(p - a, ab) / l2, 0.0f, 1.0f) : 0.0f;
    if (tOut) *tOut = t;
    return a + ab * t;
}

// Closest points between segments p1q1 and p2q2 (Ericson, Real-Time Collision Detection 5.1.9).
VBD_HD void closestSegments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1,
                            Vec3& c2) {
    Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    float a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    float s = 0, t = 0;
    if (a <= 1e-12f && e <= 1e-12f) {
        c1 = p1;
        c2 = p2;
        return;
    }
    if (a <= 1e-12f) {
        t = std::clamp(f / e, 0.0f, 1.0f);
    } else {
        float c = dot(d1, r);
        if (e <= 1e-12f) {
            s = std::clamp(-c / a, 0.0f, 1.0f);
        } else {
            float b = dot(d1, d2), den = a * e - b * b;
            s = den > 1e-12f * a * e ? std::clamp((b * f - c * e) / den, 0.0f, 1.0f) : 0.0f;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = std::clamp(-c / a, 0.0f, 1.0f);
            } else if (t > 1) {
                t = 1;
                s = std::clamp((b - c) / a, 0.0f, 1.0f);
            }
        }
    }
    c1 = p1 + d1 * s;
    c2 = p2 + d2 * t;
}

// Sphere (center ca, radius ra) against sphere; normal from A to B.
VBD_HD bool sphereSphere(const Vec3& ca, float ra, const Vec3& cb, float rb, float margin, Vec3& n,
                         ManifoldPoint& p) {
    Vec3 d = cb - ca;
    float l = norm(d);
    if (l - ra - rb > margin) return false;
    n = l > 1e-9f ? d / l : Vec3(0, 1, 0);
    p.pA = ca + n * ra;
    p.pB = cb - n * rb;
    return true;
}

// Point c against box (A); normal from the box to the point's sphere of radius r.
VBD_HD bool boxSphere(const Vec3& h, const Pose& xa, const Vec3& c, float r, float margin, Vec3& n,
                      ManifoldPoint& p) {
    Vec3 lc = rotateInv(xa.q, c - xa.p);
    Vec3 cl = cwiseMax(cwiseMin(lc, h), -h);
    Vec3 ln;
    float dist;
    Vec3 onBox;
    if (cl.x == lc.x && cl.y == lc.y && cl.z == lc.z) {
        // Center inside: push out through the nearest face.
        float best = 1e30f;
        int axis = 0;
        for (int i = 0; i < 3; ++i) {
            float d = h[i] - std::fabs(lc[i]);
            if (d < best) best = d, axis = i;
        }
        ln = Vec3(0.0f);
        ln[axis] = lc[axis] >= 0 ? 1.0f : -1.0f;
        onBox = lc;
        onBox[axis] = ln[axis] * h[axis];
        dist = -best;
    } else {
        Vec3 d = lc - cl;
        dist = norm(d);
        ln = d / dist;
        onBox = cl;
    }
    if (dist - r > margin) return false;
    n = rotate(xa.q, ln);
    p.pA = xa.p + rotate(xa.q, onBox);
    p.pB = c - n * r;
    return true;
}

}  // namespace narrow_detail

// Against the ground plane y = height (A = the plane, normal +y). Returns the number of points with
// separation <= margin (0 = no contact).
VBD_HD_NOINLINE int collidePlane(float height, const Collider& c, const Pose& x, float margin, Manifold& m) {
    using namespace narrow_detail;
    m.count = 0;
    m.normal = Vec3(0, 1, 0);
    auto add = [&](const Vec3& pb, uint32_t key, float* sep) {
        float s = pb.y - height;
        if (s > margin) return;
        sep[m.count] = s;
        m.pts[m.count].pB = pb;
        m.pts[m.count].pA = Vec3(pb.x, height, pb.z);
        m.pts[m.count].key = key;
        ++m.count;
    };
    float sep[8];
    if (c.type == ShapeType::Box) {
        // Up to 8 corners; manifold keeps 4 (a resting box has exactly its 4 bottom corners).
        ManifoldPoint all[8];
        float s8[8];
        int k = 0;
        for (uint32_t i = 0; i < 8; ++i) {
            Vec3 l((i & 1) ? c.half.x : -c.half.x, (i & 2) ? c.half.y : -c.half.y,
                   (i & 4) ? c.half.z : -c.half.z);
            Vec3 pb = x.p + rotate(x.q, l);
            float s = pb.y - height;
            if (s > margin) continue;
            all[k].pB = pb;
            all[k].pA = Vec3(pb.x, height, pb.z);
            all[k].key = i;
            s8[k++] = s;
        }
        k = reduceManifold(all, s8, k, m.normal);
        for (int i = 0; i < k; ++i) m.pts[i] = all[i];
        m.count = k;
        return m.count;
    }
    if (c.type == ShapeType::Sphere) {
        add(x.p - Vec3(0, c.radius, 0), 0, sep);
        return m.count;
    }
    Vec3 a = capsuleAxis(x) * c.halfHeight;
    add(x.p + a - Vec3(0, c.radius, 0), 0, sep);
    add(x.p - a - Vec3(0, c.radius, 0), 1, sep);
    return m.count;
}

namespace narrow_detail {

// A one-point manifold (sphere pairs, box-sphere).
VBD_HD int singlePoint(const Vec3& n, const ManifoldPoint& p, Manifold& m) {
    m.normal = n;
    m.pts[0] = p;
    return m.count = 1;
}

// Segment against box: the two end spheres, plus the segment point closest to the box (alternating
// projections converge for a convex box and a segment) when it is interior. The manifold normal is
// that of the deepest point.
VBD_HD int collideBoxCapsule(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb,
                             float margin, Manifold& m) {
    Vec3 ax = capsuleAxis(xb) * b.halfHeight;
    Vec3 e0 = xb.p + ax, e1 = xb.p - ax;
    Vec3 s = xb.p;
    for (int it = 0; it < 8; ++it) {
        Vec3 l = rotateInv(xa.q, s - xa.p);
        Vec3 onBox = xa.p + rotate(xa.q, cwiseMax(cwiseMin(l, a.half), -a.half));
        s = closestOnSegment(e0, e1, onBox);
    }
    float t;
    closestOnSegment(e0, e1, s, &t);
    const Vec3 cand[3] = {e0, e1, s};
    const int nc = (t > 0.05f && t < 0.95f) ? 3 : 2;
    float bestSep = 1e30f;
    Vec3 n;
    ManifoldPoint p;
    for (int i = 0; i < nc; ++i) {
        if (!boxSphere(a.half, xa, cand[i], b.radius, margin, n, p)) continue;
        float sp = dot(n, p.pB - p.pA);
        p.key = uint32_t(i);
        m.pts[m.count++] = p;
        if (sp < bestSep) bestSep = sp, m.normal = n;
    }
    return m.count;
}

// Capsule-capsule: closest points of the core segments; near-parallel overlapping capsules get a
// second point from B's other end so they rest on a line instead of a pivot.
VBD_HD int collideCapsules(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb, float margin,
                           Manifold& m) {
    Vec3 aa = capsuleAxis(xa) * a.halfHeight, ab = capsuleAxis(xb) * b.halfHeight;
    Vec3 a0 = xa.p + aa, a1 = xa.p - aa, b0 = xb.p + ab, b1 = xb.p - ab;
    Vec3 c1, c2, n;
    ManifoldPoint p;
    closestSegments(a0, a1, b0, b1, c1, c2);
    if (!sphereSphere(c1, a.radius, c2, b.radius, margin, n, p)) return 0;
    m.normal = n;
    p.key = 0;
    m.pts[m.count++] = p;
    Vec3 da = normalized(aa), db = normalized(ab);
    if (!(a.halfHeight > 0 && b.halfHeight > 0 && std::fabs(dot(da, db)) > 0.995f)) return m.count;
    for (int e = 0; e < 2; ++e) {
        Vec3 be = e == 0 ? b0 : b1;
        Vec3 ca = closestOnSegment(a0, a1, be);
        if (squaredNorm(ca - c1) < 1e-4f * a.halfHeight * a.halfHeight) continue;
        ManifoldPoint q;
        Vec3 n2;
        if (!sphereSphere(ca, a.radius, be, b.radius, margin, n2, q)) continue;
        // Keep the first point's normal (one normal per manifold).
        q.pA = ca + n * a.radius;
        q.pB = be - n * b.radius;
        q.key = uint32_t(1 + e);
        m.pts[m.count++] = q;
        break;
    }
    return m.count;
}

// A pair in the canonical order box < sphere < capsule (int(a.type) <= int(b.type)).
VBD_HD int collideOrdered(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb, float margin,
                          Manifold& m) {
    m.count = 0;
    Vec3 n;
    ManifoldPoint p;
    if (a.type == ShapeType::Box && b.type == ShapeType::Box)
        return collideBoxBox(a.half, xa, b.half, xb, margin, m);
    if (a.type == ShapeType::Box && b.type == ShapeType::Sphere)
        return boxSphere(a.half, xa, xb.p, b.radius, margin, n, p) ? singlePoint(n, p, m) : 0;
    if (a.type == ShapeType::Box && b.type == ShapeType::Capsule)
        return collideBoxCapsule(a, xa, b, xb, margin, m);
    if (a.type == ShapeType::Sphere && b.type == ShapeType::Sphere)
        return sphereSphere(xa.p, a.radius, xb.p, b.radius, margin, n, p) ? singlePoint(n, p, m) : 0;
    if (a.type == ShapeType::Sphere && b.type == ShapeType::Capsule) {
        Vec3 ax = capsuleAxis(xb) * b.halfHeight;
        Vec3 c = closestOnSegment(xb.p + ax, xb.p - ax, xa.p);
        return sphereSphere(xa.p, a.radius, c, b.radius, margin, n, p) ? singlePoint(n, p, m) : 0;
    }
    return collideCapsules(a, xa, b, xb, margin, m);
}

}  // namespace narrow_detail

// Any pair of shapes: the pair is solved in the canonical order and flipped back. Returns the number of
// points with separation <= margin (0 = no contact).
VBD_HD_NOINLINE int collide(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb,
                            float margin, Manifold& m) {
    if (int(a.type) <= int(b.type)) return narrow_detail::collideOrdered(a, xa, b, xb, margin, m);
    const int k = narrow_detail::collideOrdered(b, xb, a, xa, margin, m);
    m.normal = -m.normal;
    for (int i = 0; i < k; ++i) {
        const Vec3 t = m.pts[i].pA;
        m.pts[i].pA = m.pts[i].pB;
        m.pts[i].pB = t;
    }
    return k;
}

// One candidate pair of RigidSolver's narrow phase: b a body, a a body or -1 for the ground plane at
// groundHeight; the bodies' states, rotation matrices toMatrix(rotation) (computed once per body: a box is in
// ~8 pairs of a pile), shapes and speculative margins (a body pair uses the sum of both).
VBD_HD_NOINLINE int collidePair(int a, int b, const RigidBodyState* state, const Mat33* rot,
                                const Collider* shape, const float* margin, float groundHeight, Manifold& m) {
    const RigidBodyState& sb = state[b];
    if (a < 0) return collidePlane(groundHeight, shape[b], {sb.position, sb.rotation}, margin[b], m);
    const RigidBodyState& sa = state[a];
    const Collider &ca = shape[a], &cb = shape[b];
    if (ca.type == ShapeType::Box && cb.type == ShapeType::Box)
        return collideBoxBox(ca.half, {sa.position, sa.rotation}, rot[a], cb.half, {sb.position, sb.rotation},
                             rot[b], margin[a] + margin[b], m);
    return collide(ca, {sa.position, sa.rotation}, cb, {sb.position, sb.rotation}, margin[a] + margin[b], m);
}

}  // namespace vbd
