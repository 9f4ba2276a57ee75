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
    // Adds another accumulator, entry by entry.
    VBD_HD void add(const Sym33T& o) {
        xx += o.xx;
        yy += o.yy;
        zz += o.zz;
        xy += o.xy;
        xz += o.xz;
        yz += o.yz;
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
    // f_a = -V (mu F m + s w) = -(V mu) F m - (V s) w; H_aa = V (mu |m|^2 I + lambda w w^T). The scalar
    // factors are multiplied first (V mu, V s, V lambda w), so that each vector term is one fused
    // multiply-add per component (the double sweep's loop: 73 multiplies per pack where the factors applied
    // term by term took 79).
    const T vmu = V * mu, vs = V * s;
    f.x -= vmu * Fm.x + vs * w.x;
    f.y -= vmu * Fm.y + vs * w.y;
    f.z -= vmu * Fm.z + vs * w.z;
    const T dv = vmu * mm;
    const Vec3T<T> lw = w * (lam * V);
    H.xx += dv + lw.x * w.x;
    H.yy += dv + lw.y * w.y;
    H.zz += dv + lw.z * w.z;
    H.xy += lw.x * w.y;
    H.xz += lw.x * w.z;
    H.yz += lw.y * w.z;
    if (Damped == kRuntime ? anyPositive(kd) : Damped == kDamped) {
        // Edot = (F^T F - C_prev) / (2h) = g / (2h), g_ij = f_i . f_j - Cprev_ij
        const T g00 = dot(f0, f0) - Cprev.m[0][0], g11 = dot(f1, f1) - Cprev.m[1][1],
                g22 = dot(f2, f2) - Cprev.m[2][2];
        const T g01 = dot(f0, f1) - Cprev.m[0][1], g02 = dot(f0, f2) - Cprev.m[0][2],
                g12 = dot(f1, f2) - Cprev.m[1][2];
        // S_d = kd (2 mu Edot + lambda_L tr(Edot) I), lambda_L = lambda_NH - mu, so
        //   f_a -= V kd F (S_d m) / kd = c F q,  c = V kd / (2h),  q = 2 mu (g m) + lambda_L tr(g) m
        // (1/(2h) taken out of the six entries into the one scalar c).
        const T tg = (lam - mu) * (g00 + g11 + g22), tm = T(2) * mu;
        const Vec3T<T> q{tm * (g00 * m.x + g01 * m.y + g02 * m.z) + tg * m.x,
                         tm * (g01 * m.x + g11 * m.y + g12 * m.z) + tg * m.y,
                         tm * (g02 * m.x + g12 * m.y + g22 * m.z) + tg * m.z};
        const T a = V * kd * invH, c = T(0.5) * a;
        f -= (f0 * q.x + f1 * q.y + f2 * q.z) * c;
        // H_aa += (V kd / h)(mu |m|^2 F F^T + lambda_NH (F m)(F m)^T), (F F^T)_ab = sum_k F_ak F_bk
        const T am = a * mu * mm;
        const Vec3T<T> lFm = Fm * (a * lam);
        auto ffT = [&](int r, int col) { return f0[r] * f0[col] + f1[r] * f1[col] + f2[r] * f2[col]; };
        H.xx += am * ffT(0, 0) + lFm.x * Fm.x;
        H.yy += am * ffT(1, 1) + lFm.y * Fm.y;
        H.zz += am * ffT(2, 2) + lFm.z * Fm.z;
        H.xy += am * ffT(0, 1) + lFm.x * Fm.y;
        H.xz += am * ffT(0, 2) + lFm.x * Fm.z;
        H.yz += am * ffT(1, 2) + lFm.y * Fm.z;
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
