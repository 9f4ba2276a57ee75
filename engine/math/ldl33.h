#pragma once
// 3x3 symmetric positive definite solves by an LDL^T factorization (the lower triangle is read):
//
//   H = L D L^T,  L unit lower triangular (l10, l20, l21),  D = diag(d0, d1, d2),
//   d0 = h00,  l10 = h10 / d0,  l20 = h20 / d0,
//   d1 = h11 - l10 h10,  l21 = (h21 - l20 h10) / d1,
//   d2 = h22 - l20 h20 - l21 (h21 - l20 h10),
//
// and H x = f by L y = f, z = D^-1 y, L^T x = z. The factor keeps the reciprocal pivots r_k = 1 / d_k, so a
// factorization costs three divisions and no square root and every solve with it none. A packed Cholesky
// (L L^T) takes three square roots and three divisions to factor and six dependent divisions per solve; the
// 6x6 block solve of a rigid body (schur66.h: two factorizations, six solves) then issued 42 divisions and 6
// roots, ~90 ns per block on this machine's divider against ~40 ns in this form.
//
// Positivity: each pivot d_k (the Schur complement a Cholesky takes the root of) must exceed 1e-12 of the
// diagonal's scale, else ok = false (H is not numerically positive definite).
#include "math/mat33.h"

namespace vbd {

template <typename T>
struct Ldl33T {
    T l10 = T(0), l20 = T(0), l21 = T(0);  // unit lower triangular L
    T r0 = T(0), r1 = T(0), r2 = T(0);     // 1 / d_k
    bool ok = false;
};

template <typename T>
VBD_HD Ldl33T<T> ldl33(const Mat33T<T>& H) {
    Ldl33T<T> c;
    const T scale = (H.m[0][0] > T(0) ? H.m[0][0] : T(0)) + (H.m[1][1] > T(0) ? H.m[1][1] : T(0)) +
                    (H.m[2][2] > T(0) ? H.m[2][2] : T(0));
    const T tiny = scale * T(1e-12) + T(1e-30);
    const T d0 = H.m[0][0];
    if (!(d0 > tiny)) return c;
    c.r0 = T(1) / d0;
    c.l10 = H.m[1][0] * c.r0;
    c.l20 = H.m[2][0] * c.r0;
    const T d1 = H.m[1][1] - c.l10 * H.m[1][0];
    if (!(d1 > tiny)) return c;
    c.r1 = T(1) / d1;
    const T t21 = H.m[2][1] - c.l20 * H.m[1][0];
    c.l21 = t21 * c.r1;
    const T d2 = H.m[2][2] - c.l20 * H.m[2][0] - c.l21 * t21;
    if (!(d2 > tiny)) return c;
    c.r2 = T(1) / d2;
    c.ok = true;
    return c;
}

// x = H^-1 f with the factor of H (c.ok).
template <typename T>
VBD_HD Vec3T<T> ldl33Solve(const Ldl33T<T>& c, const Vec3T<T>& f) {
    const T y0 = f.x, y1 = f.y - c.l10 * y0, y2 = f.z - c.l20 * y0 - c.l21 * y1;
    const T x2 = y2 * c.r2, x1 = y1 * c.r1 - c.l21 * x2, x0 = y0 * c.r0 - c.l10 * x1 - c.l20 * x2;
    return {x0, x1, x2};
}

}  // namespace vbd
