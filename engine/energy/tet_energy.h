#pragma once
// The tetrahedron's physics, one source for every caller: the VBD sweep (per-vertex force and block, via
// tet_fused.h, which is this math written out in scalars), the solver's diagnostics (G), the coarse space
// (energy, stress, exact energy differences, 9x9 and 12x12 element matrices) and the tests. Everything is a
// templated VBD_HD function of the deformation gradient and the element's constants, so the CPU (float or
// double state), CUDA and the coarse module's double evaluation run the same lines. T may also be a SIMD
// pack (backend/simd.h; the coarse module's tet batches): the damping branch is taken when any lane is
// damped.
//
// Per tet (seed, "Stable Neo-Hookean Energy and Its Hessian" and "The Damping Trap"):
//   E_e  = V psi(F) + Phi(F),   psi = mu/2 (|F|^2 - 3) + lambda/2 (J - alpha)^2 - mu^2/(2 lambda)
//   Phi  = h V k_d (mu |Edot|^2 + lambda_L/2 tr(Edot)^2),  Edot = (F^T F - C_prev) / (2h)  (internal damping)
//   dE_e/dF = V (P + F S_d),  P = mu F + s cof F,  S_d = k_d (2 mu Edot + lambda_L tr(Edot) I)
// and with F = Ds Dm^{-1}: f_a = -dE_e/dx_a = -(dE_e/dF) m^a (m^a: neo_hookean.h).
// vec(F) is row-major (index 3i + j for F_ij), so dF_ij/dx_{a,k} = delta_ik m^a_j and the element matrix is
//   A_e = B^T H9 B,  B[3i + j, 3a + i] = m^a_j.
#include "energy/damping.h"
#include "energy/neo_hookean.h"
#include "math/any_positive.h"
#include "math/matn.h"

namespace vbd {

// A tet's constants as the kernels read them: rest volume V, Neo-Hookean mu and lambda_NH, damping k_d (s).
template <typename T>
struct TetConstants {
    T V, mu, lambda, kd;
};

// Frobenius inner product A : B.
template <typename T>
VBD_HD T frobeniusDot(const Mat33T<T>& A, const Mat33T<T>& B) {
    T s = T(0);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s += A.m[i][j] * B.m[i][j];
    return s;
}

// Dissipation potential of the internal model from C_prev = F_prev^T F_prev (damping.h).
template <typename T>
VBD_HD T internalDampingPotentialC(const Mat33T<T>& F, const Mat33T<T>& Cprev, T V, T mu, T lambdaNH, T kd,
                                   T h) {
    const Mat33T<T> Ed = (F.transposed() * F - Cprev) * (T(0.5) / h);
    const T tr = Ed.trace();
    return h * V * kd * (mu * Ed.frobenius2() + T(0.5) * (lambdaNH - mu) * tr * tr);
}

// E_e: elastic energy plus, when `internal` and k_d > 0, the damping potential.
template <typename T>
VBD_HD T tetEnergy(const Mat33T<T>& F, const Mat33T<T>& Cprev, const TetConstants<T>& c, T h, bool internal) {
    T E = c.V * neoHookeanPsi(F, c.mu, c.lambda);
    if (internal && anyPositive(c.kd)) E += internalDampingPotentialC(F, Cprev, c.V, c.mu, c.lambda, c.kd, h);
    return E;
}

// dE_e/dF = V (P + F S_d): the per-vertex gradients are g_a = (dE_e/dF) m^a.
template <typename T>
VBD_HD Mat33T<T> tetStress(const Mat33T<T>& F, const Mat33T<T>& Cprev, const TetConstants<T>& c, T h,
                           bool internal) {
    Mat33T<T> P = neoHookeanP(F, c.mu, c.lambda);
    if (internal && anyPositive(c.kd)) {
        const Mat33T<T> Ed = (F.transposed() * F - Cprev) * (T(0.5) / h);
        const Mat33T<T> Sd = (Ed * (T(2) * c.mu) + Mat33T<T>::diag((c.lambda - c.mu) * Ed.trace())) * c.kd;
        P += F * Sd;
    }
    return P * c.V;
}

// The trace of the sweep's per-vertex tet block (tet_fused.h) as a quadratic form: tr H_aa = m^T M m for
// every vertex a of the tet (m = m^a), with
//   H_aa    = V (mu |m|^2 I + lambda w w^T) + (V k_d / h)(mu |m|^2 F F^T + lambda (F m)(F m)^T),  w = cof(F)
//   m, tr H_aa = V (3 mu |m|^2 + lambda m^T cof^T cof m) + (V k_d / h)(mu |m|^2 |F|^2 + lambda m^T F^T F m),
//   M       = V ((3 mu + (k_d / h) mu |F|^2) I + lambda cof^T cof + (k_d / h) lambda F^T F)   (symmetric).
// Every summand of H_aa is positive semidefinite, so for a vertex's sum H_T over its tets
// tr H_T / sqrt(3) <= |H_T|_F <= tr H_T: the residual's rounding floor reads this instead of the block
// (soft_potential.cpp), M once per tet.
template <typename T>
VBD_HD Mat33T<T> tetBlockTraceForm(const Mat33T<T>& F, const TetConstants<T>& c, T invH, bool internal) {
    const Mat33T<T> cof = cofactor(F);
    T d = T(3) * c.mu;
    Mat33T<T> M = cof.transposed() * cof * c.lambda;
    if (internal && anyPositive(c.kd)) {
        const T k = c.kd * invH;
        d += k * c.mu * F.frobenius2();
        M += F.transposed() * F * (k * c.lambda);
    }
    return (M + Mat33T<T>::diag(d)) * c.V;
}

// E_e(F + dF) - E_e(F) from dF itself, without forming either energy (exact identities):
//   mu/2 (|F + dF|^2 - |F|^2)          = mu (F : dF + |dF|^2 / 2)
//   lambda/2 ((J' - a)^2 - (J - a)^2)  = lambda dJ (J - a + dJ / 2),  dJ = cof F : dF + F : cof dF + det dF
//   damping                            = h k_d V (mu dE : (2 E + dE) + lambda_L dtr (tr E + dtr / 2)),
//                                        dE = (F^T dF + dF^T F + dF^T dF) / 2h
// Near convergence |dE_e| is far below the round-off of E_e itself (~1e-16 of the sum of its terms), so a
// line search comparing two sums accepts or rejects at random; this difference is accurate relative to
// itself.
template <typename T>
VBD_HD T tetEnergyDelta(const Mat33T<T>& F, const Mat33T<T>& dF, const Mat33T<T>& Cprev,
                        const TetConstants<T>& c, T h, bool internal) {
    const T J = F.det(), alpha = T(1) + c.mu / c.lambda;
    const T dJ = frobeniusDot(cofactor(F), dF) + frobeniusDot(F, cofactor(dF)) + dF.det();
    T d = c.V * (c.mu * (frobeniusDot(F, dF) + T(0.5) * dF.frobenius2()) +
                 c.lambda * dJ * (J - alpha + T(0.5) * dJ));
    if (internal && anyPositive(c.kd)) {
        const T k2h = T(0.5) / h;
        const Mat33T<T> E = (F.transposed() * F - Cprev) * k2h;
        const Mat33T<T> dE = (F.transposed() * dF + dF.transposed() * F + dF.transposed() * dF) * k2h;
        const T lamL = c.lambda - c.mu, tr = E.trace(), dtr = dE.trace();
        d += h * c.V * c.kd * (c.mu * frobeniusDot(dE, E * T(2) + dE) + lamL * dtr * (tr + T(0.5) * dtr));
    }
    return d;
}

// Levi-Civita symbol for i, j, k in {0, 1, 2}.
VBD_HD constexpr int leviCivita(int i, int j, int k) { return (i - j) * (j - k) * (k - i) / 2; }

// d2psi/dF2 of stable Neo-Hookean with respect to vec(F):
//   mu I + lambda vec(cof F) vec(cof F)^T + s d2J/dF2,  s = lambda (J - alpha),
// where d2J/dF_ij dF_kl = eps_ikp eps_jlq F_pq (zero when i = k or j = l).
template <typename T>
VBD_HD Mat9T<T> neoHookeanHessian9(const Mat33T<T>& F, T mu, T lambda) {
    const T s = lambda * (F.det() - (T(1) + mu / lambda));
    const Mat33T<T> cf = cofactor(F);
    Mat9T<T> H = Mat9T<T>::identity(mu);
    for (int r = 0; r < 9; ++r)
        for (int c = 0; c < 9; ++c) H.m[r][c] += lambda * cf.m[r / 3][r % 3] * cf.m[c / 3][c % 3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) {
                    if (i == k || j == l) continue;
                    const int p = 3 - i - k, q = 3 - j - l;
                    H.m[3 * i + j][3 * k + l] += s * T(leviCivita(i, k, p) * leviCivita(j, l, q)) * F.m[p][q];
                }
    return H;
}

// Gauss-Newton Hessian (per unit volume) of the internal damping potential with respect to vec(F).
// dEdot = sym(F^T dF)/h, so the quadratic form is (k_d/h)(2 mu |sym(F^T dF)|^2 + lambda_L (F : dF)^2):
//   H_kl = (k_d/h)(2 mu S_k : S_l + lambda_L F_k F_l),  S_k = sym(F^T E_k),  E_k the unit matrix of index k,
// with (F^T E_k)_ab = F_ia delta_bj for k = (i, j), so tr(F^T E_k) = F_ij.
template <typename T>
VBD_HD Mat9T<T> internalDampingHessian9(const Mat33T<T>& F, T mu, T lambdaNH, T kd, T h) {
    const T lamL = lambdaNH - mu;
    Mat9T<T> H;
    for (int k = 0; k < 9; ++k)
        for (int l = 0; l < 9; ++l) {
            // S_k : S_l with (S_k)_ab = (F_{i a} d_{b j} + F_{i b} d_{a j}) / 2, (i, j) = (k/3, k%3):
            //   = 1/2 (F_i . F_p d_jq + F_{i q} F_{p j}),  (p, q) = (l/3, l%3), F_i the row i of F.
            const int i = k / 3, j = k % 3, p = l / 3, q = l % 3;
            const T rowDot = F.m[i][0] * F.m[p][0] + F.m[i][1] * F.m[p][1] + F.m[i][2] * F.m[p][2];
            const T SS = T(0.5) * ((j == q ? rowDot : T(0)) + F.m[i][q] * F.m[p][j]);
            H.m[k][l] = (T(2) * mu * SS + lamL * F.m[i][j] * F.m[p][q]) * (kd / h);
        }
    return H;
}

// A_e = V B^T H9 B for the tet with rest inverse DmInv: A(3a + i, 3b + k) = V sum_jl m^a_j H(3i+j, 3k+l)
// m^b_l.
template <typename T>
VBD_HD Mat12T<T> tetElementMatrix(const Mat9T<T>& H9, const Mat33T<T>& DmInv, T V) {
    Vec3T<T> w[4];
    for (int a = 0; a < 4; ++a) w[a] = tetVertexWeight(DmInv, a);
    Mat12T<T> A;
    for (int a = 0; a < 4; ++a)
        for (int i = 0; i < 3; ++i)
            for (int b = 0; b < 4; ++b)
                for (int k = 0; k < 3; ++k) {
                    T s = T(0);
                    for (int j = 0; j < 3; ++j)
                        for (int l = 0; l < 3; ++l) s += w[a][j] * H9.m[3 * i + j][3 * k + l] * w[b][l];
                    A.m[3 * a + i][3 * b + k] = V * s;
                }
    return A;
}

// Off-diagonal elastic block of a tet between its vertices a != b (the unprojected A_e block, closed form):
//   H_ab = V (mu (m_a . m_b) I + lambda w_a w_b^T - s [F (m_a x m_b)]_x),  w = cof(F) m,
// the last term being s d2J/dF2 contracted with e (x) m_a and e (x) m_b. On the diagonal (a = b)
// m_a x m_a = 0 and it vanishes: the seed's cancellation (neo_hookean.h).
template <typename T>
VBD_HD Mat33T<T> neoHookeanBlock(const Mat33T<T>& F, const Vec3T<T>& ma, const Vec3T<T>& mb, T V, T mu,
                                 T lambda) {
    const Mat33T<T> cof = cofactor(F);
    const T s = lambda * (F.det() - (T(1) + mu / lambda));
    const Vec3T<T> wa = cof * ma, wb = cof * mb;
    return (Mat33T<T>::diag(mu * dot(ma, mb)) + outer(wa, wb) * lambda - skew(F * cross(ma, mb)) * s) * V;
}

}  // namespace vbd
