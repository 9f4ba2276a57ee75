#pragma once
// Dihedral-angle bending of two triangles sharing an edge (discrete shells), per-vertex force and
// Gauss-Newton block, and its internal-variable ("door hinge") damping. VBD_HD, templated on the scalar.
//
// Stencil (x0, x1, x2, x3): the shared edge is x0 -> x1, triangle A = (x0, x1, x2), triangle B =
// (x1, x0, x3) (consistently oriented neighbours). Normals nA = (x1 - x0) x (x2 - x0), nB = (x0 - x1) x
// (x3 - x1) are parallel when the pair is flat, and the signed angle from nA to nB about e^ = e/|e|,
//   theta = atan2((nA x nB) . e^, nA . nB)   in (-pi, pi],
// is 0 for a flat pair. Gradient: moving x2 along nA^ by d rotates triangle A about e^ by d / h_A
// (h_A = |nA|/|e| its height over the edge), which turns nA by the same angle and so lowers theta:
//   dtheta/dx2 = -|e| nA / |nA|^2,   dtheta/dx3 = -|e| nB / |nB|^2   (same argument for B),
// and, from invariance under translation and rotation (Bridson et al. 2003), with the edge coordinates
// a2 = (x2 - x0).e / |e|^2, a3 = (x3 - x0).e / |e|^2 of the opposite vertices' projections,
//   dtheta/dx0 = -(1 - a2) dtheta/dx2 - (1 - a3) dtheta/dx3,   dtheta/dx1 = -a2 dtheta/dx2 - a3 dtheta/dx3.
//
// Energy E = 1/2 kL (theta - theta0)^2, kL = k L0 with k the hinge stiffness (N) and L0 the rest edge
// length. For a plate of bending modulus B (N m, the material's `bending`) spread over the hinge's strip of
// width w = (A_A + A_B) / (3 L0) the curvature is theta / w and the energy B/2 (theta/w)^2 L0 w, so
//   k = B / w,   kL = 3 B L0^2 / (A_A + A_B)     (mesh-independent; the caller precomputes kL).
// f_a = -kL (theta - theta0) g_a, Gauss-Newton block H_aa = kL g_a g_a^T (drops the (theta - theta0)
// d2theta/dx2 term: PSD, and exact where theta = theta0).
//
// Damping: the internal variable is theta itself (seed, "The Damping Trap": a damper in a door hinge).
// thetaDot = (theta - theta_prev) / h; dissipation Phi = c/(2h) (theta - theta_prev)^2 with c = k_d kL
// (k_d in seconds, stiffness-proportional); f_a = -c thetaDot g_a, H_aa = (c/h) g_a g_a^T. Since theta
// depends only on relative positions and is rotation invariant, sum_a g_a = 0 and a rigid motion has
// thetaDot = 0: no damping force.
#include <cmath>

#include "math/lanes.h"
#include "math/mat33.h"

namespace vbd {

// Wraps an angle difference to (-pi, pi] (theta jumps by 2 pi across a fully folded hinge). Every angle
// wrapped here is a difference of two dihedral angles (theta, theta0, theta_prev all come from atan2, in
// [-pi_T, pi_T] with pi_T = pi rounded to T, or to float for the stored theta0), so a lies in (-2 pi - 1e-7,
// 2 pi + 1e-7) and one step of 2 pi (in T) lands in (-pi, pi]: one conditional step is exact, the same
// result as stepping until in range.
template <typename T>
VBD_HD T wrapAngle(T a) {
    const T pi = T(3.14159265358979323846);
    return select(a > pi, a - T(2) * pi, select(a <= -pi, a + T(2) * pi, a));
}

template <typename T>
VBD_HD T dihedralAngle(const Vec3T<T>& x0, const Vec3T<T>& x1, const Vec3T<T>& x2, const Vec3T<T>& x3) {
    const Vec3T<T> e = x1 - x0;
    const Vec3T<T> nA = cross(e, x2 - x0), nB = cross(x0 - x1, x3 - x1);
    const T le = norm(e);
    if (!(le > T(0))) return T(0);
    return std::atan2(dot(cross(nA, nB), e) / le, dot(nA, nB));
}

// theta and its gradients g[0..3]. Returns false (theta = 0, g = 0) for a degenerate stencil (a collapsed
// triangle or edge), where theta is undefined; for SIMD packs a lane mask, the degenerate lanes zero. The
// divisors of a degenerate stencil are replaced by 1 so that every lane stays finite before the select.
template <typename T>
VBD_HD auto dihedralGradient(const Vec3T<T>& x0, const Vec3T<T>& x1, const Vec3T<T>& x2, const Vec3T<T>& x3,
                             T& theta, Vec3T<T> g[4]) -> decltype(T(0) > T(0)) {
    const Vec3T<T> e = x1 - x0;
    const Vec3T<T> nA = cross(e, x2 - x0), nB = cross(x0 - x1, x3 - x1);
    const T e2 = dot(e, e), a2n = dot(nA, nA), b2n = dot(nB, nB);
    const auto ok = (e2 > T(0)) & (a2n > T(1e-14) * e2 * e2) & (b2n > T(1e-14) * e2 * e2);
    const T one(1), zero(0);
    const Vec3T<T> z(zero);
    if (!anyLane(ok)) {
        for (int i = 0; i < 4; ++i) g[i] = z;
        theta = zero;
        return ok != 0;
    }
    const T e2s = select(ok, e2, one), a2s = select(ok, a2n, one), b2s = select(ok, b2n, one);
    const T le = sqrtOf(e2s);
    theta = select(ok, atan2Of(dot(cross(nA, nB), e) / le, dot(nA, nB)), zero);
    g[2] = select(ok, nA * (-le / a2s), z);
    g[3] = select(ok, nB * (-le / b2s), z);
    const T a2 = dot(x2 - x0, e) / e2s, a3 = dot(x3 - x0, e) / e2s;
    g[0] = select(ok, -(g[2] * (T(1) - a2) + g[3] * (T(1) - a3)), z);
    g[1] = select(ok, -(g[2] * a2 + g[3] * a3), z);
    return ok != 0;
}

template <typename T>
VBD_HD T bendingEnergy(const Vec3T<T>& x0, const Vec3T<T>& x1, const Vec3T<T>& x2, const Vec3T<T>& x3,
                       T theta0, T kL) {
    const T d = wrapAngle(dihedralAngle(x0, x1, x2, x3) - theta0);
    return T(0.5) * kL * d * d;
}

// Force and Gauss-Newton block of stencil vertex a (0..3) given theta and its gradient g_a.
template <typename T>
VBD_HD void bendingVertex(T theta, const Vec3T<T>& ga, T theta0, T kL, Vec3T<T>& force, Mat33T<T>& hessian) {
    force = ga * (-kL * wrapAngle(theta - theta0));
    hessian = outer(ga, ga) * kL;
}

template <typename T>
VBD_HD void bendingDampingVertex(T theta, T thetaPrev, const Vec3T<T>& ga, T kL, T kd, T h, Vec3T<T>& force,
                                 Mat33T<T>& hessian) {
    const T c = kd * kL;
    const T thetaDot = wrapAngle(theta - thetaPrev) / h;
    force = ga * (-c * thetaDot);
    hessian = outer(ga, ga) * (c / h);
}

template <typename T>
VBD_HD T bendingDampingPotential(T theta, T thetaPrev, T kL, T kd, T h) {
    const T d = wrapAngle(theta - thetaPrev);
    return kd * kL / (T(2) * h) * d * d;
}

}  // namespace vbd
