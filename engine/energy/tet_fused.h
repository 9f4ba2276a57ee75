#pragma once
// Hot path of the VBD tet sweep: the stable Neo-Hookean per-vertex force and block (neo_hookean.h) and the
// internal-variable damping force and Gauss-Newton block (damping.h) in one pass, written out in scalars
// so that shared products are formed once and symmetric matrices only in their upper triangle. It is
// the same math term by term (tests/unit/energy/test_tet_fused.cpp compares it with the reference
// functions); it exists only because this function is ~95% of a sweep.
//
// T is the scalar, or a SIMD pack of scalars (backend/simd.h: the CPU sweep evaluates several incidences of
// a vertex at once with this same code). A branch on a per-element value ("damping on") is taken by a pack
// when any lane needs it; lanes with kd = 0 then add exact zeros.
#include "math/any_positive.h"
#include "math/mat33.h"

namespace vbd {

// Forced inline on the host: called once per tet-vertex, and the SIMD sweep's packs would otherwise go
// through memory at the call.
#if defined(__CUDACC__) || !defined(__GNUC__)
#define VBD_FUSED_INLINE VBD_HD
#else
#define VBD_FUSED_INLINE inline __attribute__((always_inline))
#endif

// A symmetric 3x3 accumulator: the upper triangle (the CPU sweep keeps its per-lane block sums in these, six
// registers instead of nine).
template <typename T>
struct Sym33T {
    T xx = T(0), yy = T(0), zz = T(0), xy = T(0), xz = T(0), yz = T(0);
    VBD_HD static Sym33T upperOf(const Mat33T<T>& M) {
        return {M.m[0][0], M.m[1][1], M.m[2][2], M.m[0][1], M.m[0][2], M.m[1][2]};
    }
    // Adds the upper triangle of a symmetric M.
    VBD_HD void add(const Mat33T<T>& M) {
        xx += M.m[0][0];
        yy += M.m[1][1];
        zz += M.m[2][2];
        xy += M.m[0][1];
        xz += M.m[0][2];
        yz += M.m[1][2];
    }
    VBD_HD Mat33T<T> full() const {
        Mat33T<T> M;
        M.m[0][0] = xx;
        M.m[1][1] = yy;
        M.m[2][2] = zz;
        M.m[0][1] = M.m[1][0] = xy;
        M.m[0][2] = M.m[2][0] = xz;
        M.m[1][2] = M.m[2][1] = yz;
        return M;
    }
};

// Accumulates into f and H. Cprev = F_prev^T F_prev (its upper triangle is read), used when kd > 0.
// invH = 1 / h. Damped: whether the damping terms are evaluated -- kRuntime decides by kd (any lane > 0), a
// caller that knows (the SIMD sweep, per model) fixes it at compile time so that its loop has no branch.
enum TetDamping { kUndamped = 0, kDamped = 1, kRuntime = 2 };
template <typename T, int Damped = kRuntime>
VBD_FUSED_INLINE void tetVertexFused(const Mat33T<T>& F, const Vec3T<T>& m, T V, T mu, T lam,
                                     const Mat33T<T>& Cprev, T kd, T invH, Vec3T<T>& f, Sym33T<T>& H) {
    const Vec3T<T> f0 = F.col(0), f1 = F.col(1), f2 = F.col(2);
    // cof(F) columns and J = f0 . (f1 x f2)
    const Vec3T<T> c0 = cross(f1, f2), c1 = cross(f2, f0), c2 = cross(f0, f1);
    const T J = dot(f0, c0);
    // s = lambda (J - alpha), alpha = 1 + mu / lambda, written without the division
    const T s = lam * (J - T(1)) - mu;
    const Vec3T<T> Fm = f0 * m.x + f1 * m.y + f2 * m.z;  // F m
    const Vec3T<T> w = c0 * m.x + c1 * m.y + c2 * m.z;   // cof(F) m
    const T mm = dot(m, m);
    // f_a = -V (mu F m + s w),  H_aa = V (mu |m|^2 I + lambda w w^T)
    f -= (Fm * mu + w * s) * V;
    const T lv = lam * V, dv = mu * mm * V;
    H.xx += dv + lv * w.x * w.x;
    H.yy += dv + lv * w.y * w.y;
    H.zz += dv + lv * w.z * w.z;
    const T h01 = lv * w.x * w.y, h02 = lv * w.x * w.z, h12 = lv * w.y * w.z;
    if (Damped == kRuntime ? anyPositive(kd) : Damped == kDamped) {
        // Edot = (F^T F - C_prev) / (2h): entries (i, j) = (f_i . f_j - Cprev_ij) / 2h
        const T k2h = T(0.5) * invH;
        const T e00 = (dot(f0, f0) - Cprev.m[0][0]) * k2h, e11 = (dot(f1, f1) - Cprev.m[1][1]) * k2h,
                e22 = (dot(f2, f2) - Cprev.m[2][2]) * k2h;
        const T e01 = (dot(f0, f1) - Cprev.m[0][1]) * k2h, e02 = (dot(f0, f2) - Cprev.m[0][2]) * k2h,
                e12 = (dot(f1, f2) - Cprev.m[1][2]) * k2h;
        // S_d = kd (2 mu Edot + lambda_L tr(Edot) I), lambda_L = lambda_NH - mu
        const T tr = (lam - mu) * (e00 + e11 + e22), tm = T(2) * mu;
        const T s00 = tm * e00 + tr, s11 = tm * e11 + tr, s22 = tm * e22 + tr;
        const T s01 = tm * e01, s02 = tm * e02, s12 = tm * e12;
        // f_a -= V kd F (S_d m)
        const Vec3T<T> Sm{s00 * m.x + s01 * m.y + s02 * m.z, s01 * m.x + s11 * m.y + s12 * m.z,
                          s02 * m.x + s12 * m.y + s22 * m.z};
        f -= (f0 * Sm.x + f1 * Sm.y + f2 * Sm.z) * (V * kd);
        // H_aa += (V kd / h)(mu |m|^2 F F^T + lambda_NH (F m)(F m)^T), (F F^T)_ab = sum_k F_ak F_bk
        const T a = V * kd * invH, am = a * mu * mm, al = a * lam;
        auto ffT = [&](int r, int c) { return f0[r] * f0[c] + f1[r] * f1[c] + f2[r] * f2[c]; };
        H.xx += am * ffT(0, 0) + al * Fm.x * Fm.x;
        H.yy += am * ffT(1, 1) + al * Fm.y * Fm.y;
        H.zz += am * ffT(2, 2) + al * Fm.z * Fm.z;
        H.xy += h01 + (am * ffT(0, 1) + al * Fm.x * Fm.y);
        H.xz += h02 + (am * ffT(0, 2) + al * Fm.x * Fm.z);
        H.yz += h12 + (am * ffT(1, 2) + al * Fm.y * Fm.z);
    } else {
        H.xy += h01;
        H.xz += h02;
        H.yz += h12;
    }
}

// Same, accumulating into a full (symmetric) H and taking h.
template <typename T>
VBD_FUSED_INLINE void tetVertexFused(const Mat33T<T>& F, const Vec3T<T>& m, T V, T mu, T lam,
                                     const Mat33T<T>& Cprev, T kd, T h, Vec3T<T>& f, Mat33T<T>& H) {
    Sym33T<T> S = Sym33T<T>::upperOf(H);
    tetVertexFused(F, m, V, mu, lam, Cprev, kd, T(1) / h, f, S);
    H = S.full();
}

}  // namespace vbd
