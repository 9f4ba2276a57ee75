#pragma once
// Stable Neo-Hookean triangle membrane, per-vertex force and 3x3 block (seed, "Why This Doesn't Extend to
// Triangle Membranes" and "The Tight PSD Clamp for the Membrane"). VBD_HD, templated on the scalar.
//
// Rest frame: each triangle (x0, x1, x2) is flattened into 2D, Dm = [X1 - X0, X2 - X0] (2x2), and the
// deformation gradient is the 3x2 F = Ds Dm^{-1} = [f0 f1], Ds = [x1 - x0, x2 - x0]. F is linear in the
// vertices, f_j = sum_a x_a m^a_j with m^1 = row 0 of Dm^{-1}, m^2 = row 1, m^0 = -(m^1 + m^2).
//
// Energy density (per unit rest volume; the element energy is V psi with V = rest area * thickness):
//   psi = mu/2 (|F|^2 - 2) + lambda/2 (J_s - alpha)^2 - mu^2/(2 lambda),   alpha = 1 + mu/lambda,
//   J_s = |n|,  n = f0 x f1   (area ratio),
// shifted so psi(rest) = 0; alpha makes P = 0 at rest (there F has orthonormal columns and dJ_s/dF = F).
//
// Per-vertex derivatives. Only x_a moves: n = f0 x f1 is AFFINE in x_a (its quadratic part is
// m0 m1 x_a x x_a = 0) with dn = delta x w, i.e. dn/dx_a = -[w]_x, where
//   w = f1 m0 - f0 m1        (independent of x_a: its x_a part is x_a (m1 m0 - m0 m1) = 0).
// With J_s = |n|: grad J_s = [w]_x n^ = w x n^, which equals g0 m0 + g1 m1 with g0 = dJ_s/df0 = f1 x n^,
// g1 = dJ_s/df1 = n^ x f0 (the seed's form). The Hessian of |n| in n is (I - n^ n^T)/J_s, so
//   d2J_s/dx_a^2 = [w]_x^T (I - n^ n^T) [w]_x / J_s = (|w|^2 I - w w^T - gradJ gradJ^T) / J_s,
// using [w]_x^T [w]_x = |w|^2 I - w w^T and [w]_x^T n^ = -w x n^ = -gradJ. Hence, with s = lambda (J_s -
// alpha) and r = s / J_s,
//   f_a  = -V (mu F m + s gradJ)
//   H_aa = V (mu |m|^2 I + lambda gradJ gradJ^T + r (|w|^2 I - w w^T - gradJ gradJ^T)).
// Lemma 1 (w . gradJ = 0) and Lemma 2 (|w| = |gradJ|) hold because w lies in the plane of f0, f1 (so w is
// perpendicular to n^) and gradJ = w x n^. In the orthonormal basis {w^, gradJ^, n^} the block is
// diagonal with eigenvalues V mu|m|^2, V (mu|m|^2 + lambda|w|^2) (the r terms cancel exactly there) and
// V (mu|m|^2 + r |w|^2): only the normal direction sees r. The uniform PSD condition is r >= 0, so the
// block uses s_clamp = max(0, s) and the force keeps the true s (it carries the compression and
// inversion-recovery signal). The clamped block equals the exact Hessian wherever s >= 0; where s > 0 we
// have J_s > alpha > 1, so 1/J_s is never evaluated near J_s = 0.
//
// Degenerate current triangle (J_s = 0, collapsed to a segment): |n| is not differentiable there; the
// subgradient 0 is used for gradJ (the mu term still pulls the triangle back open).
#include "energy/material.h"
#include "math/lanes.h"
#include "math/mat33.h"

namespace vbd {

// Lame constants of a thin sheet: plane stress (sigma_zz = 0, the thickness contracts freely), so the
// in-plane law is sigma = 2 mu eps + lambda_ps tr(eps) I with
//   mu = E / (2 (1 + nu)),   lambda_ps = E nu / (1 - nu^2) = 2 mu lambda / (lambda + 2 mu).
// The membrane energy then takes mu_NH = mu, lambda_NH = lambda_ps + mu (neoHookeanFromLame): the same
// small-strain matching as material.h, done with the 2D Hessian of J_s at rest (d2J/dF2 = d_ij d_kl -
// d_il d_jk restricted to in-plane F, s = -mu).
inline Lame planeStressLame(double E, double nu) {
    return {E / (2.0 * (1.0 + nu)), E * nu / (1.0 - nu * nu)};
}

// Dm^{-1} of one rest triangle, row-major 2x2: d[0] d[1] / d[2] d[3].
struct TriRest {
    float d[4] = {0, 0, 0, 0};
    float area = 0;  // rest area (m^2)
};

// The weights (m0, m1) of local vertex a: row a-1 of Dm^{-1}, or minus their sum for a = 0. A is int, or a
// SIMD lane mask of local indices (one per lane) with T a pack.
template <typename T, typename A>
VBD_HD void triVertexWeight(const T d[4], A a, T& m0, T& m1) {
    m0 = select(a == 1, d[0], select(a == 2, d[2], -(d[0] + d[2])));
    m1 = select(a == 1, d[1], select(a == 2, d[3], -(d[1] + d[3])));
}

// Columns of F = Ds Dm^{-1}.
template <typename T>
VBD_HD void triDeformationGradient(const Vec3T<T>& x0, const Vec3T<T>& x1, const Vec3T<T>& x2, const T d[4],
                                   Vec3T<T>& f0, Vec3T<T>& f1) {
    const Vec3T<T> e1 = x1 - x0, e2 = x2 - x0;
    f0 = e1 * d[0] + e2 * d[2];
    f1 = e1 * d[1] + e2 * d[3];
}

// J_s = |f0 x f1| and the unit normal (zero when the triangle is collapsed).
template <typename T>
VBD_HD T membraneArea(const Vec3T<T>& f0, const Vec3T<T>& f1, Vec3T<T>& nHat) {
    const Vec3T<T> n = cross(f0, f1);
    const T J = sqrtOf(dot(n, n));
    const T scale = dot(f0, f0) + dot(f1, f1);
    const auto open = (J > T(1e-12) * scale) & (J > T(0));
    nHat = select(open, n / select(open, J, T(1)), Vec3T<T>(T(0)));
    return J;
}

// The seed's w = f1 m0 - f0 m1 and grad J_s = w x n^ (= g0 m0 + g1 m1).
template <typename T>
VBD_HD Vec3T<T> membraneW(const Vec3T<T>& f0, const Vec3T<T>& f1, T m0, T m1) {
    return f1 * m0 - f0 * m1;
}
template <typename T>
VBD_HD Vec3T<T> membraneGradJ(const Vec3T<T>& f0, const Vec3T<T>& f1, T m0, T m1) {
    Vec3T<T> nHat;
    membraneArea(f0, f1, nHat);
    return cross(membraneW(f0, f1, m0, m1), nHat);
}

template <typename T>
VBD_HD T membranePsi(const Vec3T<T>& f0, const Vec3T<T>& f1, T mu, T lambda) {
    const T alpha = T(1) + mu / lambda;
    Vec3T<T> nHat;
    const T J = membraneArea(f0, f1, nHat);
    return T(0.5) * mu * (dot(f0, f0) + dot(f1, f1) - T(2)) + T(0.5) * lambda * (J - alpha) * (J - alpha) -
           T(0.5) * mu * mu / lambda;
}

// Force f_a = -dE/dx_a (true s) and the 3x3 block (s clamped to max(0, s) when clampS, else the exact
// Hessian, which may be indefinite). V = rest area * thickness.
template <typename T>
VBD_HD void membraneVertex(const Vec3T<T>& f0, const Vec3T<T>& f1, T m0, T m1, T V, T mu, T lambda,
                           Vec3T<T>& force, Mat33T<T>& hessian, bool clampS = true) {
    const T alpha = T(1) + mu / lambda;
    Vec3T<T> nHat;
    const T J = membraneArea(f0, f1, nHat);
    const T s = lambda * (J - alpha);
    const Vec3T<T> w = membraneW(f0, f1, m0, m1);
    const Vec3T<T> gJ = cross(w, nHat);
    const Vec3T<T> Fm = f0 * m0 + f1 * m1;
    const T mm = m0 * m0 + m1 * m1;
    force = -(Fm * mu + gJ * s) * V;
    Mat33T<T> H = Mat33T<T>::diag(mu * mm) + outer(gJ, gJ) * lambda;
    const T sc = clampS ? maxZero(s) : s;
    // r = sc / J_s where the triangle is open and sc != 0, else 0 (a lane of a pack that takes the branch
    // for another adds an exact zero: the matrix is finite, gJ = 0 on a collapsed triangle).
    const auto curved = (sc != T(0)) & (dot(nHat, nHat) > T(0));
    if (anyLane(curved)) {
        const T r = select(curved, sc / select(curved, J, T(1)), T(0));
        H += (Mat33T<T>::diag(dot(w, w)) - outer(w, w) - outer(gJ, gJ)) * r;
    }
    hessian = H * V;
}

// Internal-variable damping of the membrane (seed, "The Damping Trap"; the tet model of damping.h with the
// 2x2 right Cauchy-Green tensor C = F^T F): Edot = (C - C_prev)/(2h) is zero for any rigid motion,
//   S_d = k_d (2 mu Edot + lambda_L tr(Edot) I),  lambda_L = lambda_NH - mu,   f_a = -V F S_d m,
// the gradient of Phi = h V k_d (mu |Edot|^2 + lambda_L/2 tr(Edot)^2). Gauss-Newton block (the dF S_d term
// dropped, exact at Edot = 0):  H_aa = (V k_d / h) (mu |m|^2 F F^T + lambda_NH (F m)(F m)^T).
// Cprev = (C00, C01, C11) at x_prev.
template <typename T>
VBD_HD void membraneStrainRate(const Vec3T<T>& f0, const Vec3T<T>& f1, const T Cprev[3], T h, T E[3]) {
    const T k = T(0.5) / h;
    E[0] = (dot(f0, f0) - Cprev[0]) * k;
    E[1] = (dot(f0, f1) - Cprev[1]) * k;
    E[2] = (dot(f1, f1) - Cprev[2]) * k;
}

template <typename T>
VBD_HD void membraneDampingVertex(const Vec3T<T>& f0, const Vec3T<T>& f1, const T Cprev[3], T m0, T m1, T V,
                                  T mu, T lambdaNH, T kd, T h, Vec3T<T>& force, Mat33T<T>& hessian) {
    T E[3];
    membraneStrainRate(f0, f1, Cprev, h, E);
    const T lambdaL = lambdaNH - mu;
    const T tr = E[0] + E[2];
    const T s00 = kd * (T(2) * mu * E[0] + lambdaL * tr), s01 = kd * T(2) * mu * E[1],
            s11 = kd * (T(2) * mu * E[2] + lambdaL * tr);
    const T sm0 = s00 * m0 + s01 * m1, sm1 = s01 * m0 + s11 * m1;
    force = -(f0 * sm0 + f1 * sm1) * V;
    const Vec3T<T> Fm = f0 * m0 + f1 * m1;
    const Mat33T<T> FFt = outer(f0, f0) + outer(f1, f1);
    hessian = (FFt * (mu * (m0 * m0 + m1 * m1)) + outer(Fm, Fm) * lambdaNH) * (V * kd / h);
}

template <typename T>
VBD_HD T membraneDampingPotential(const Vec3T<T>& f0, const Vec3T<T>& f1, const T Cprev[3], T V, T mu,
                                  T lambdaNH, T kd, T h) {
    T E[3];
    membraneStrainRate(f0, f1, Cprev, h, E);
    const T tr = E[0] + E[2];
    const T e2 = E[0] * E[0] + T(2) * E[1] * E[1] + E[2] * E[2];
    return h * V * kd * (mu * e2 + T(0.5) * (lambdaNH - mu) * tr * tr);
}

}  // namespace vbd
