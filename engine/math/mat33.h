#pragma once
// Row-major 3x3 matrix on host and device. m[r][c].
#include "math/vec3.h"

namespace vbd {

template <typename T>
struct Mat33T {
    T m[3][3] = {{T(0), T(0), T(0)}, {T(0), T(0), T(0)}, {T(0), T(0), T(0)}};

    Mat33T() = default;
    template <typename U>
    VBD_HD explicit Mat33T(const Mat33T<U>& o) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) m[r][c] = T(o.m[r][c]);
    }
    VBD_HD static Mat33T identity() { return diag(T(1)); }
    VBD_HD static Mat33T diag(T s) {
        Mat33T a;
        a.m[0][0] = a.m[1][1] = a.m[2][2] = s;
        return a;
    }
    VBD_HD static Mat33T fromCols(const Vec3T<T>& a, const Vec3T<T>& b, const Vec3T<T>& c) {
        Mat33T r;
        for (int i = 0; i < 3; ++i) {
            r.m[i][0] = a[i];
            r.m[i][1] = b[i];
            r.m[i][2] = c[i];
        }
        return r;
    }
    VBD_HD static Mat33T fromRows(const Vec3T<T>& a, const Vec3T<T>& b, const Vec3T<T>& c) {
        Mat33T r;
        for (int i = 0; i < 3; ++i) {
            r.m[0][i] = a[i];
            r.m[1][i] = b[i];
            r.m[2][i] = c[i];
        }
        return r;
    }
    VBD_HD Vec3T<T> col(int c) const { return {m[0][c], m[1][c], m[2][c]}; }
    VBD_HD Vec3T<T> row(int r) const { return {m[r][0], m[r][1], m[r][2]}; }
    VBD_HD T& operator()(int r, int c) { return m[r][c]; }
    VBD_HD T operator()(int r, int c) const { return m[r][c]; }

    VBD_HD Mat33T operator+(const Mat33T& b) const {
        Mat33T r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][j] + b.m[i][j];
        return r;
    }
    VBD_HD Mat33T operator-(const Mat33T& b) const {
        Mat33T r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][j] - b.m[i][j];
        return r;
    }
    VBD_HD Mat33T operator*(T s) const {
        Mat33T r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) r.m[i][j] = m[i][j] * s;
        return r;
    }
    VBD_HD Mat33T& operator+=(const Mat33T& b) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] += b.m[i][j];
        return *this;
    }
    VBD_HD Mat33T& operator-=(const Mat33T& b) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] -= b.m[i][j];
        return *this;
    }
    VBD_HD Mat33T& operator*=(T s) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m[i][j] *= s;
        return *this;
    }
    VBD_HD Vec3T<T> operator*(const Vec3T<T>& v) const {
        return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
                m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
    }
    VBD_HD Mat33T operator*(const Mat33T& b) const {
        Mat33T r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                r.m[i][j] = m[i][0] * b.m[0][j] + m[i][1] * b.m[1][j] + m[i][2] * b.m[2][j];
        return r;
    }
    VBD_HD Mat33T transposed() const {
        Mat33T r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) r.m[i][j] = m[j][i];
        return r;
    }
    VBD_HD T trace() const { return m[0][0] + m[1][1] + m[2][2]; }
    VBD_HD T det() const { return dot(col(0), cross(col(1), col(2))); }
    // Squared Frobenius norm.
    VBD_HD T frobenius2() const {
        T s = T(0);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) s += m[i][j] * m[i][j];
        return s;
    }
};

template <typename T>
VBD_HD Mat33T<T> operator*(T s, const Mat33T<T>& a) {
    return a * s;
}

template <typename T>
VBD_HD Mat33T<T> outer(const Vec3T<T>& a, const Vec3T<T>& b) {
    Mat33T<T> r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a[i] * b[j];
    return r;
}

// Skew matrix [v]x with [v]x u = v x u.
template <typename T>
VBD_HD Mat33T<T> skew(const Vec3T<T>& v) {
    Mat33T<T> r;
    r.m[0][1] = -v.z;
    r.m[0][2] = v.y;
    r.m[1][0] = v.z;
    r.m[1][2] = -v.x;
    r.m[2][0] = -v.y;
    r.m[2][1] = v.x;
    return r;
}

// Cofactor matrix cof(F) = det(F) F^{-T}, written with cross products of the columns so that it is a
// polynomial in F and stays finite as det F -> 0 (seed, "Sanity checks" 2).
template <typename T>
VBD_HD Mat33T<T> cofactor(const Mat33T<T>& F) {
    Vec3T<T> f0 = F.col(0), f1 = F.col(1), f2 = F.col(2);
    return Mat33T<T>::fromCols(cross(f1, f2), cross(f2, f0), cross(f0, f1));
}

template <typename T>
VBD_HD Mat33T<T> inverse(const Mat33T<T>& a) {
    T d = a.det();
    return cofactor(a).transposed() * (T(1) / d);
}

using Mat33 = Mat33T<float>;
using Mat33d = Mat33T<double>;

}  // namespace vbd
