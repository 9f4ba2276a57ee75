#pragma once
// 3x3 symmetric solves. The packed Cholesky factor stores the lower triangle in 6 numbers
// (l00, l10, l11, l20, l21, l22), as the seed's Schur-complement solve does.
#include "math/mat33.h"

namespace vbd {

template <typename T>
struct Chol33T {
    T l[6];
    bool ok = false;
};

// Cholesky of a symmetric 3x3 (reads the lower triangle). ok = false if a pivot is not strictly
// positive (relative to the matrix scale), i.e. the matrix is not numerically positive definite.
template <typename T>
VBD_HD Chol33T<T> chol33(const Mat33T<T>& A) {
    Chol33T<T> c;
    const T scale = (A.m[0][0] > T(0) ? A.m[0][0] : T(0)) + (A.m[1][1] > T(0) ? A.m[1][1] : T(0)) +
                    (A.m[2][2] > T(0) ? A.m[2][2] : T(0));
    const T tiny = scale * T(1e-12) + T(1e-30);
    T d0 = A.m[0][0];
    if (!(d0 > tiny)) return c;
    T l00 = std::sqrt(d0);
    T l10 = A.m[1][0] / l00;
    T l20 = A.m[2][0] / l00;
    T d1 = A.m[1][1] - l10 * l10;
    if (!(d1 > tiny)) return c;
    T l11 = std::sqrt(d1);
    T l21 = (A.m[2][1] - l20 * l10) / l11;
    T d2 = A.m[2][2] - l20 * l20 - l21 * l21;
    if (!(d2 > tiny)) return c;
    T l22 = std::sqrt(d2);
    c.l[0] = l00;
    c.l[1] = l10;
    c.l[2] = l11;
    c.l[3] = l20;
    c.l[4] = l21;
    c.l[5] = l22;
    c.ok = true;
    return c;
}

// Solves L L^T x = b with a packed factor.
template <typename T>
VBD_HD Vec3T<T> chol33Solve(const Chol33T<T>& c, const Vec3T<T>& b) {
    const T* l = c.l;
    T y0 = b.x / l[0];
    T y1 = (b.y - l[1] * y0) / l[2];
    T y2 = (b.z - l[3] * y0 - l[4] * y1) / l[5];
    T x2 = y2 / l[5];
    T x1 = (y1 - l[4] * x2) / l[2];
    T x0 = (y0 - l[1] * x1 - l[3] * x2) / l[0];
    return {x0, x1, x2};
}

// PSD-stable local Newton solve for the VBD vertex block: returns false and leaves dx = 0 when H is
// not numerically positive definite (then the vertex keeps its position this sweep, which never
// increases the energy), otherwise dx = H^{-1} f.
template <typename T>
VBD_HD bool solveSpd33(const Mat33T<T>& H, const Vec3T<T>& f, Vec3T<T>& dx) {
    Chol33T<T> c = chol33(H);
    if (!c.ok) {
        dx = Vec3T<T>(T(0));
        return false;
    }
    dx = chol33Solve(c, f);
    return isFinite(dx);
}

}  // namespace vbd
