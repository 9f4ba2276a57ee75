#pragma once
// Damping for tets (seed, "The Damping Trap").
//
// Naive Rayleigh (what the VBD paper's pseudo-code suggests, kept to show the bug):
//   f_a = (k_d / h) K_aa (x_prev - x),  H_aa += (k_d / h) K_aa
// with K_aa the elastic diagonal block. It damps the absolute velocity of a vertex, so a falling body is
// slowed: sum_j K_aj v = 0 for a rigid translation, but K_aa v alone is not 0.
//
// Internal variable (ours): damp the rate of the right Cauchy-Green tensor C = F^T F, which is invariant to
// rigid translation AND rotation. Over one step the rate is the discrete
//   Edot = (C(x) - C(x_prev)) / (2h),
// exactly zero when x differs from x_prev by any rigid motion. Kelvin-Voigt viscous stress, scaled like
// stiffness-proportional Rayleigh damping (k_d seconds times the linear elasticity tensor):
//   S_d = k_d (2 mu Edot + lambda_L tr(Edot) I),  lambda_L = lambda_NH - mu,   P_d = F S_d.
// It is the gradient of the dissipation potential Phi = h V k_d (mu |Edot|^2 + lambda_L/2 tr(Edot)^2),
// since S_d : dEdot/dx_a = (1/h) e^T F S_d m^a, so f_a = -V F S_d m^a. The Gauss-Newton block (dropping the
// dF/dx S_d term) is
//   H_aa = (V k_d / h) (mu |m|^2 F F^T + lambda_NH (F m)(F m)^T)        (PSD for mu, lambda_NH > 0)
// and at F = I it reduces to (k_d/h) K_aa: both models agree on the diagonal at rest, only the force differs.
#include "energy/neo_hookean.h"

namespace vbd {

// C_prev = F_prev^T F_prev of a tet from its vertices at x_prev: the internal damping's reference, once per
// step and tet (SoftSolver::refreshCprev, the device's CprevStage). Out of line on the host (math/hd.h): the
// per-tet loop around it was vectorized with alignment peeling, and C_prev changed in the last bit from run
// to run for the ~13 tets per array that fell into the peel.
template <typename T>
VBD_HD_NOINLINE Mat33T<T> tetCprev(const Vec3T<T>& x0, const Vec3T<T>& x1, const Vec3T<T>& x2,
                                   const Vec3T<T>& x3, const Mat33T<T>& DmInv) {
    const Mat33T<T> Fp = tetDeformationGradient(x0, x1, x2, x3, DmInv);
    return Fp.transposed() * Fp;
}

template <typename T>
VBD_HD void naiveDampingVertex(const Mat33T<T>& Kaa, const Vec3T<T>& x, const Vec3T<T>& xPrev, T kd, T h,
                               Vec3T<T>& force, Mat33T<T>& hessian) {
    const Mat33T<T> Hd = Kaa * (kd / h);
    force = Hd * (xPrev - x);
    hessian = Hd;
}

// For a fixed Hd = (k_d / h) K_aa the naive force above is minus the gradient of this quadratic: the
// potential the coarse correction minimises with the sweeps (coarse/energy_cache.h, K_aa frozen at rest).
template <typename T>
VBD_HD T naiveDampingPotential(const Mat33T<T>& Hd, const Vec3T<T>& x, const Vec3T<T>& xPrev) {
    const Vec3T<T> d = x - xPrev;
    return T(0.5) * dot(d, Hd * d);
}

template <typename T>
VBD_HD Mat33T<T> greenStrainRate(const Mat33T<T>& F, const Mat33T<T>& Fprev, T h) {
    return (F.transposed() * F - Fprev.transposed() * Fprev) * (T(0.5) / h);
}

// Same, given C_prev = F_prev^T F_prev (constant during a step, so the solver computes it once per tet).
template <typename T>
VBD_HD void internalDampingVertexC(const Mat33T<T>& F, const Mat33T<T>& Cprev, const Vec3T<T>& m, T volume,
                                   T mu, T lambdaNH, T kd, T h, Vec3T<T>& force, Mat33T<T>& hessian) {
    const Mat33T<T> Ed = (F.transposed() * F - Cprev) * (T(0.5) / h);
    const T lambdaL = lambdaNH - mu;
    const Mat33T<T> Sd = (Ed * (T(2) * mu) + Mat33T<T>::diag(lambdaL * Ed.trace())) * kd;
    const Vec3T<T> Fm = F * m;
    force = -(F * (Sd * m)) * volume;
    hessian = ((F * F.transposed()) * (mu * dot(m, m)) + outer(Fm, Fm) * lambdaNH) * (volume * kd / h);
}

template <typename T>
VBD_HD void internalDampingVertex(const Mat33T<T>& F, const Mat33T<T>& Fprev, const Vec3T<T>& m, T volume,
                                  T mu, T lambdaNH, T kd, T h, Vec3T<T>& force, Mat33T<T>& hessian) {
    internalDampingVertexC(F, Fprev.transposed() * Fprev, m, volume, mu, lambdaNH, kd, h, force, hessian);
}

// Dissipation potential Phi of the internal model for one tet (its gradient is the damping force).
template <typename T>
VBD_HD T internalDampingPotential(const Mat33T<T>& F, const Mat33T<T>& Fprev, T volume, T mu, T lambdaNH,
                                  T kd, T h) {
    const Mat33T<T> Ed = greenStrainRate(F, Fprev, h);
    const T tr = Ed.trace();
    return h * volume * kd * (mu * Ed.frobenius2() + T(0.5) * (lambdaNH - mu) * tr * tr);
}

}  // namespace vbd
