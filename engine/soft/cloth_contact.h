#pragma once
// Self-contact between cloth primitives (and cloth against soft-body surfaces): vertex-triangle (VT) and
// edge-edge (EE) proximity pairs, per-vertex force and 3x3 block (VBD_HD, one source for CPU and CUDA).
//
// A pair is four vertices with weights b_j that sum to zero: the closest-point difference
//   p - q = sum_j b_j x_j,   VT: b = (1, -beta0, -beta1, -beta2)   (vertex minus barycentric point),
//                            EE: b = (1 - s, s, -(1 - t), -t)       (point on edge 1 minus point on edge 2),
// with distance d = |p - q| and normal n = (p - q)/d; the closest-point parameters are recomputed from the
// current iterate at every evaluation (and held fixed in the derivative: at the closest point the
// derivative of d with respect to them vanishes, so dd/dx_j = b_j n exactly).
//
// Normal response: a quadratic penalty E = k/2 (r - d)^2 for d < r (r = contact thickness), not a log
// barrier. Reasons: (1) penetration freedom is guaranteed separately by the per-vertex displacement
// bound (cloth_collision.h), so the energy does not need to blow up at d = 0; (2) a barrier's stiffness
// grows without bound as d -> 0, which wrecks the block diagonal dominance the Gauss-Seidel sweep relies
// on (the seed's interface argument) and is the source of the barrier "pops" users of C2 barriers reported;
// (3) the penalty is C1 at d = r with a bounded, PSD Gauss-Newton block, as the VBD paper uses.
//   f_a = k (r - d) b_a n,   H_aa = k b_a^2 n n^T  (the -(k (r - d)/d) b_a^2 (I - n n^T) curvature term
//   is negative semidefinite and dropped).
// Damping (seed, "The Damping Trap": the gap is the internal variable): ddot = n . sum_j b_j (x_j -
// x_prev_j) / h is zero for a rigid translation because sum_j b_j = 0; while approaching (ddot < 0)
//   f_a += -c k ddot b_a n,   H_aa += (c k / h) b_a^2 n n^T       (c: damping time, s).
// Friction (IPC-style lagged, VBD paper sec. 3.7): tangential relative slip u = (I - n n^T) sum_j b_j
// (x_j - x_prev_j), normal force lambda = k (r - d), mollifier f1(y)/y = 2/e - y/e^2 below e = eps_v h,
//   f_a += -mu lambda f1(|u|)/|u| b_a u,   H_aa += mu lambda f1(|u|)/|u| b_a^2 (I - n n^T).
#include <cmath>

#include "energy/contact.h"
#include "math/mat33.h"

namespace vbd {

enum class ContactKind : int { VertexTriangle = 0, EdgeEdge = 1 };

// 32 bytes; a flat array of these lives on the device too.
struct SelfContact {
    int v[4];  // VT: vertex, triangle (3); EE: edge 1 (2), edge 2 (2)
    ContactKind kind = ContactKind::VertexTriangle;
    float radius = 0;  // contact thickness r
    float stiffness = 0;
    float friction = 0;
};

// Closest point of triangle (a, b, c) to p, as barycentric weights (Ericson, Real-Time Collision
// Detection 5.1.5: Voronoi regions of vertices, edges, face).
template <typename T>
VBD_HD void closestPointTriangle(const Vec3T<T>& p, const Vec3T<T>& a, const Vec3T<T>& b, const Vec3T<T>& c,
                                 T w[3]) {
    const Vec3T<T> ab = b - a, ac = c - a, ap = p - a;
    const T d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= T(0) && d2 <= T(0)) {
        w[0] = T(1), w[1] = T(0), w[2] = T(0);
        return;
    }
    const Vec3T<T> bp = p - b;
    const T d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= T(0) && d4 <= d3) {
        w[0] = T(0), w[1] = T(1), w[2] = T(0);
        return;
    }
    const T vc = d1 * d4 - d3 * d2;
    if (vc <= T(0) && d1 >= T(0) && d3 <= T(0)) {
        const T v = d1 / (d1 - d3);
        w[0] = T(1) - v, w[1] = v, w[2] = T(0);
        return;
    }
    const Vec3T<T> cp = p - c;
    const T d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= T(0) && d5 <= d6) {
        w[0] = T(0), w[1] = T(0), w[2] = T(1);
        return;
    }
    const T vb = d5 * d2 - d1 * d6;
    if (vb <= T(0) && d2 >= T(0) && d6 <= T(0)) {
        const T u = d2 / (d2 - d6);
        w[0] = T(1) - u, w[1] = T(0), w[2] = u;
        return;
    }
    const T va = d3 * d6 - d5 * d4;
    if (va <= T(0) && (d4 - d3) >= T(0) && (d5 - d6) >= T(0)) {
        const T u = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        w[0] = T(0), w[1] = T(1) - u, w[2] = u;
        return;
    }
    const T denom = T(1) / (va + vb + vc);
    const T v = vb * denom, u = vc * denom;
    w[0] = T(1) - v - u, w[1] = v, w[2] = u;
}

// Closest points of segments p1 + s (q1 - p1), p2 + t (q2 - p2), s, t in [0, 1] (Ericson 5.1.9).
template <typename T>
VBD_HD void closestPointsSegments(const Vec3T<T>& p1, const Vec3T<T>& q1, const Vec3T<T>& p2,
                                  const Vec3T<T>& q2, T& s, T& t) {
    const Vec3T<T> d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    const T eps = T(1e-20);
    auto clamp01 = [](T x) { return x < T(0) ? T(0) : (x > T(1) ? T(1) : x); };
    if (a <= eps && e <= eps) {
        s = t = T(0);
        return;
    }
    if (a <= eps) {
        s = T(0);
        t = clamp01(f / e);
        return;
    }
    const T c = dot(d1, r);
    if (e <= eps) {
        t = T(0);
        s = clamp01(-c / a);
        return;
    }
    const T b = dot(d1, d2), denom = a * e - b * b;
    s = denom > T(1e-12) * a * e ? clamp01((b * f - c * e) / denom) : T(0);
    t = (b * s + f) / e;
    if (t < T(0)) {
        t = T(0);
        s = clamp01(-c / a);
    } else if (t > T(1)) {
        t = T(1);
        s = clamp01((b - c) / a);
    }
}

// Weights b_j of a pair at positions x (the four vertices in SelfContact order); returns p - q. Not inlined
// (math/hd.h VBD_HD_NOINLINE): where a unit did not inline it, calls went to the one out-of-line copy the
// linker kept, compiled with that unit's contractions (the host pipeline's, whose code moved with the device
// step): the CPU's cloth contacts changed in the last bits with an unrelated change of gpu/pipeline.h. Now
// every copy is compiled without context, alike.
template <typename T>
VBD_HD_NOINLINE Vec3T<T> contactWeights(ContactKind kind, const Vec3T<T> x[4], T b[4]) {
    if (kind == ContactKind::VertexTriangle) {
        T w[3];
        closestPointTriangle(x[0], x[1], x[2], x[3], w);
        b[0] = T(1), b[1] = -w[0], b[2] = -w[1], b[3] = -w[2];
    } else {
        T s, t;
        closestPointsSegments(x[0], x[1], x[2], x[3], s, t);
        b[0] = T(1) - s, b[1] = s, b[2] = -(T(1) - t), b[3] = -t;
    }
    return x[0] * b[0] + x[1] * b[1] + x[2] * b[2] + x[3] * b[3];
}

// Force and block on slot a (0..3) of contact c. x, xPrev: the four vertices' positions. Not inlined on the
// host: GCC contracts a * b + c into FMAs per inlined copy (-march=native), and the CPU sweep, its residual
// and the device step's host executor (gpu/step_stages.h) must round it alike.
template <typename T>
VBD_HD_NOINLINE bool selfContactVertex(const SelfContact& c, const Vec3T<T> x[4], const Vec3T<T> xPrev[4],
                                       int a, const ContactParams& p, T h, Vec3T<T>& force,
                                       Mat33T<T>& hessian) {
    T b[4];
    const Vec3T<T> diff = contactWeights(c.kind, x, b);
    const T d = norm(diff), r = T(c.radius);
    if (!(d < r) || !(d > T(0))) return false;
    const Vec3T<T> n = diff / d;
    const T k = T(c.stiffness), pen = r - d, ba = b[a];
    const Mat33T<T> nn = outer(n, n);
    force += n * (k * pen * ba);
    hessian += nn * (k * ba * ba);
    Vec3T<T> rel(T(0));
    for (int j = 0; j < 4; ++j) rel += (x[j] - xPrev[j]) * b[j];
    const T ddot = dot(n, rel) / h;
    if (ddot < T(0) && p.dampingTime > 0.f) {
        const T cd = T(p.dampingTime);
        force += n * (-cd * k * ddot * ba);
        hessian += nn * (cd * k / h * ba * ba);
    }
    if (c.friction > 0.f) {
        const Vec3T<T> u = rel - n * dot(n, rel);
        const T un = norm(u), e = T(p.frictionEps) * h;
        const T f1OverY = un < e ? (T(2) / e - un / (e * e)) : T(1) / un;
        const T s = T(c.friction) * k * pen * f1OverY;
        force -= u * (s * ba);
        hessian += (Mat33T<T>::identity() - nn) * (s * ba * ba);
    }
    return true;
}

// Penalty energy of one pair (friction and damping are dissipative).
template <typename T>
VBD_HD T selfContactEnergy(const SelfContact& c, const Vec3T<T> x[4]) {
    T b[4];
    const T d = norm(contactWeights(c.kind, x, b)), r = T(c.radius);
    return d < r ? T(0.5) * T(c.stiffness) * (r - d) * (r - d) : T(0);
}

// The same at positions x of a state of any scalar, evaluated in double (G's contact part: the CPU's
// clothContactEnergy and the device step's EnergyContactTerm).
template <typename T>
VBD_HD double selfContactEnergyAt(const SelfContact& c, const Vec3T<T>* x) {
    Vec3d p[4];
    for (int j = 0; j < 4; ++j) p[j] = Vec3d(x[c.v[j]]);
    return selfContactEnergy(c, p);
}

}  // namespace vbd
