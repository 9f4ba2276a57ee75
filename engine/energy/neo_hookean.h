#pragma once
// Stable Neo-Hookean tetrahedron, per-vertex force and 3x3 block (seed, "Stable Neo-Hookean Energy and
// Its Hessian"). All functions are VBD_HD and templated on the scalar: the solver runs them in float,
// the finite-difference tests in double.
//
//   psi(F) = mu/2 (|F|_F^2 - 3) + lambda/2 (J - alpha)^2 - mu^2/(2 lambda),   alpha = 1 + mu/lambda
//   P = dpsi/dF = mu F + s cof(F),   s = lambda (J - alpha)
// (the constant makes psi(I) = 0; it changes neither force nor Hessian). With F = Ds Dm^{-1} linear in the
// vertices, dF/dx_a^beta = e_beta (x) m^a where m^a is row a-1 of Dm^{-1} (a = 1..3) and
// m^0 = -(m^1 + m^2 + m^3). Then
//   f_a = -V P m^a = -V (mu F m^a + s w^a),   w^a = cof(F) m^a
//   H_aa = V (mu |m^a|^2 I + lambda w^a w^aT)
// The s d2J/dF2 piece contracts to zero on the diagonal block because d2J/dF2 is antisymmetric in matching
// index pairs and both legs carry the same m^a (m^a x m^a = 0): the block is PSD with no projection, and
// the force keeps the true, unclamped s so inverted tets (J < 0) are pushed back through J = 0.
#include "math/mat33.h"

namespace vbd {

template <typename T>
VBD_HD Vec3T<T> tetVertexWeight(const Mat33T<T>& DmInv, int a) {
    if (a == 0) return -(DmInv.row(0) + DmInv.row(1) + DmInv.row(2));
    return DmInv.row(a - 1);
}

template <typename T>
VBD_HD Mat33T<T> tetDeformationGradient(const Vec3T<T>& x0, const Vec3T<T>& x1, const Vec3T<T>& x2,
                                        const Vec3T<T>& x3, const Mat33T<T>& DmInv) {
    return Mat33T<T>::fromCols(x1 - x0, x2 - x0, x3 - x0) * DmInv;
}

// Energy density psi(F).
template <typename T>
VBD_HD T neoHookeanPsi(const Mat33T<T>& F, T mu, T lambda) {
    const T alpha = T(1) + mu / lambda;
    const T J = F.det();
    return T(0.5) * mu * (F.frobenius2() - T(3)) + T(0.5) * lambda * (J - alpha) * (J - alpha) -
           T(0.5) * mu * mu / lambda;
}

// First Piola-Kirchhoff stress.
template <typename T>
VBD_HD Mat33T<T> neoHookeanP(const Mat33T<T>& F, T mu, T lambda) {
    const T s = lambda * (F.det() - (T(1) + mu / lambda));
    return F * mu + cofactor(F) * s;
}

// Per-vertex force f_a = -dE/dx_a and diagonal block H_aa = d2E/dx_a^2 of E = V psi(F), given F.
template <typename T>
VBD_HD void neoHookeanVertex(const Mat33T<T>& F, const Vec3T<T>& m, T volume, T mu, T lambda, Vec3T<T>& force,
                             Mat33T<T>& hessian) {
    const T alpha = T(1) + mu / lambda;
    const T s = lambda * (F.det() - alpha);  // true s, never clamped
    const Vec3T<T> w = cofactor(F) * m;
    force = -(F * m * mu + w * s) * volume;
    hessian = (Mat33T<T>::diag(mu * dot(m, m)) + outer(w, w) * lambda) * volume;
}

}  // namespace vbd
