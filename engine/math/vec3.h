#pragma once
// Small fixed-size vector used on host and device. Simulation state is float (Vec3), the lab,
// reference solvers and finite-difference tests use double (Vec3d): everything is templated on T.
#include <cmath>

#include "math/hd.h"

namespace vbd {

template <typename T>
struct Vec3T {
    T x = T(0), y = T(0), z = T(0);
    Vec3T() = default;
    VBD_HD Vec3T(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
    VBD_HD explicit Vec3T(T s) : x(s), y(s), z(s) {}
    template <typename U>
    VBD_HD explicit Vec3T(const Vec3T<U>& o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}
    VBD_HD T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
    VBD_HD T operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
    VBD_HD Vec3T operator+(const Vec3T& b) const { return {x + b.x, y + b.y, z + b.z}; }
    VBD_HD Vec3T operator-(const Vec3T& b) const { return {x - b.x, y - b.y, z - b.z}; }
    VBD_HD Vec3T operator-() const { return {-x, -y, -z}; }
    VBD_HD Vec3T operator*(T s) const { return {x * s, y * s, z * s}; }
    VBD_HD Vec3T operator/(T s) const { return {x / s, y / s, z / s}; }
    VBD_HD Vec3T& operator+=(const Vec3T& b) {
        x += b.x;
        y += b.y;
        z += b.z;
        return *this;
    }
    VBD_HD Vec3T& operator-=(const Vec3T& b) {
        x -= b.x;
        y -= b.y;
        z -= b.z;
        return *this;
    }
    VBD_HD Vec3T& operator*=(T s) {
        x *= s;
        y *= s;
        z *= s;
        return *this;
    }
    VBD_HD Vec3T& operator/=(T s) {
        x /= s;
        y /= s;
        z /= s;
        return *this;
    }
};

template <typename T>
VBD_HD Vec3T<T> operator*(T s, const Vec3T<T>& v) {
    return v * s;
}
template <typename T>
VBD_HD T dot(const Vec3T<T>& a, const Vec3T<T>& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <typename T>
VBD_HD Vec3T<T> cross(const Vec3T<T>& a, const Vec3T<T>& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <typename T>
VBD_HD T squaredNorm(const Vec3T<T>& a) {
    return dot(a, a);
}
template <typename T>
VBD_HD T norm(const Vec3T<T>& a) {
    return std::sqrt(dot(a, a));
}
template <typename T>
VBD_HD Vec3T<T> normalized(const Vec3T<T>& a) {
    T n = norm(a);
    return n > T(0) ? a / n : Vec3T<T>(T(0));
}
template <typename T>
VBD_HD Vec3T<T> cwiseMin(const Vec3T<T>& a, const Vec3T<T>& b) {
    return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
template <typename T>
VBD_HD Vec3T<T> cwiseMax(const Vec3T<T>& a, const Vec3T<T>& b) {
    return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
template <typename T>
VBD_HD bool isFinite(const Vec3T<T>& a) {
    return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
}

using Vec3 = Vec3T<float>;
using Vec3d = Vec3T<double>;

}  // namespace vbd
