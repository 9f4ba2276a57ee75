#pragma once
// Unit quaternions stored (x, y, z, w), identity (0,0,0,1), as in the seed's quaternion section.
// Composition: "apply a then b" is b * a (the rotation applied first goes on the right).
#include "math/mat33.h"

namespace vbd {

template <typename T>
struct QuatT {
    T x = T(0), y = T(0), z = T(0), w = T(1);
    QuatT() = default;
    VBD_HD QuatT(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    VBD_HD QuatT(const Vec3T<T>& v, T w_) : x(v.x), y(v.y), z(v.z), w(w_) {}
    template <typename U>
    VBD_HD explicit QuatT(const QuatT<U>& o) : x(T(o.x)), y(T(o.y)), z(T(o.z)), w(T(o.w)) {}
    VBD_HD Vec3T<T> vec() const { return {x, y, z}; }
    VBD_HD static QuatT identity() { return {T(0), T(0), T(0), T(1)}; }
};

// (a_v, a_w)(b_v, b_w) = (a_w b_v + b_w a_v + a_v x b_v, a_w b_w - a_v . b_v)
template <typename T>
VBD_HD QuatT<T> operator*(const QuatT<T>& a, const QuatT<T>& b) {
    Vec3T<T> av = a.vec(), bv = b.vec();
    Vec3T<T> v = bv * a.w + av * b.w + cross(av, bv);
    return {v, a.w * b.w - dot(av, bv)};
}
template <typename T>
VBD_HD QuatT<T> operator+(const QuatT<T>& a, const QuatT<T>& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
}
template <typename T>
VBD_HD QuatT<T> operator*(const QuatT<T>& a, T s) {
    return {a.x * s, a.y * s, a.z * s, a.w * s};
}

template <typename T>
VBD_HD QuatT<T> conjugate(const QuatT<T>& q) {
    return {-q.x, -q.y, -q.z, q.w};
}
template <typename T>
VBD_HD T norm(const QuatT<T>& q) {
    return std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
}
template <typename T>
VBD_HD QuatT<T> normalized(const QuatT<T>& q) {
    T n = norm(q);
    return n > T(0) ? q * (T(1) / n) : QuatT<T>::identity();
}
// q^{-1} = q* / |q|^2 (= q* for unit quaternions).
template <typename T>
VBD_HD QuatT<T> inverse(const QuatT<T>& q) {
    T n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return conjugate(q) * (T(1) / n2);
}

// v' = v + 2w (u x v) + 2 u x (u x v), u = q_v: the sandwich q (v,0) q* without a full product.
template <typename T>
VBD_HD Vec3T<T> rotate(const QuatT<T>& q, const Vec3T<T>& v) {
    Vec3T<T> u = q.vec();
    Vec3T<T> t = cross(u, v) * T(2);
    return v + t * q.w + cross(u, t);
}
// World -> body: rotate by the conjugate.
template <typename T>
VBD_HD Vec3T<T> rotateInv(const QuatT<T>& q, const Vec3T<T>& v) {
    return rotate(conjugate(q), v);
}

template <typename T>
VBD_HD Mat33T<T> toMatrix(const QuatT<T>& q) {
    T x = q.x, y = q.y, z = q.z, w = q.w;
    Mat33T<T> R;
    R.m[0][0] = T(1) - T(2) * (y * y + z * z);
    R.m[0][1] = T(2) * (x * y - z * w);
    R.m[0][2] = T(2) * (x * z + y * w);
    R.m[1][0] = T(2) * (x * y + z * w);
    R.m[1][1] = T(1) - T(2) * (x * x + z * z);
    R.m[1][2] = T(2) * (y * z - x * w);
    R.m[2][0] = T(2) * (x * z - y * w);
    R.m[2][1] = T(2) * (y * z + x * w);
    R.m[2][2] = T(1) - T(2) * (x * x + y * y);
    return R;
}

// q = (n sin(theta/2), cos(theta/2)).
template <typename T>
VBD_HD QuatT<T> fromAxisAngle(const Vec3T<T>& axis, T angle) {
    Vec3T<T> n = normalized(axis);
    T s = std::sin(angle * T(0.5));
    return {n * s, std::cos(angle * T(0.5))};
}

// Rotation vector theta (axis * angle) from a quaternion, taking the short way (w < 0 -> -q, since
// q and -q are the same rotation). Near identity uses theta ~= 2 q_v (1 + |q_v|^2/6 ...) via atan2,
// which is well conditioned at every angle.
template <typename T>
VBD_HD Vec3T<T> toRotationVector(QuatT<T> q) {
    if (q.w < T(0)) q = q * T(-1);
    Vec3T<T> v = q.vec();
    T s = norm(v);
    if (s < T(1e-8)) return v * T(2);
    T angle = T(2) * std::atan2(s, q.w);
    return v * (angle / s);
}

// Exponential map theta -> quaternion; for |theta| below smallAngle uses the seed's small-angle
// path normalize((theta/2, 1)) which avoids the trig (Newton's _USE_SMALL_ANGLE_APPROX).
template <typename T>
VBD_HD QuatT<T> fromRotationVector(const Vec3T<T>& theta, T smallAngle = T(0)) {
    T a = norm(theta);
    if (a <= smallAngle || a < T(1e-12)) return normalized(QuatT<T>(theta * T(0.5), T(1)));
    T s = std::sin(a * T(0.5)) / a;
    return {theta * s, std::cos(a * T(0.5))};
}

// Relative rotation from cur to target. Body frame: q_cur^{-1} q_target (Newton uses this).
// World frame: q_target q_cur^{-1} (same physical rotation, expressed in world axes).
template <typename T>
VBD_HD QuatT<T> deltaBody(const QuatT<T>& cur, const QuatT<T>& target) {
    return inverse(cur) * target;
}
template <typename T>
VBD_HD QuatT<T> deltaWorld(const QuatT<T>& cur, const QuatT<T>& target) {
    return target * inverse(cur);
}

// dq/dt = 1/2 (omega, 0) q for world-frame omega; one explicit Euler step, normalized.
template <typename T>
VBD_HD QuatT<T> integrateWorld(const QuatT<T>& q, const Vec3T<T>& omega, T dt) {
    return normalized(q + (QuatT<T>(omega, T(0)) * q) * (T(0.5) * dt));
}

using Quat = QuatT<float>;
using Quatd = QuatT<double>;

}  // namespace vbd
