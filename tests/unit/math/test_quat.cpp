// Quaternion identities of the seed's "Quaternion Math for Rigid Body Simulation".
#include <gtest/gtest.h>

#include <random>

#include "math/quat.h"

namespace vbd {
namespace {

Quatd randomQuat(std::mt19937& rng) {
    std::normal_distribution<double> n(0, 1);
    return normalized(Quatd(n(rng), n(rng), n(rng), n(rng)));
}
Vec3d randomVec(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    return {u(rng), u(rng), u(rng)};
}
double dist(const Vec3d& a, const Vec3d& b) { return norm(a - b); }

// Double-precision identities hold to rounding: 1e-12 leaves ~1e4 ulps of slack.
constexpr double kTol = 1e-12;

TEST(Quat, CompositionAppliesRightFactorFirst) {
    std::mt19937 rng(1);
    for (int t = 0; t < 100; ++t) {
        Quatd a = randomQuat(rng), b = randomQuat(rng);
        Vec3d v = randomVec(rng);
        // "apply a then b" = b * a, and quaternion products match matrix products.
        EXPECT_LT(dist(rotate(b * a, v), rotate(b, rotate(a, v))), kTol);
        Mat33d m = toMatrix(b) * toMatrix(a);
        EXPECT_LT(dist(m * v, rotate(b * a, v)), kTol);
    }
}

TEST(Quat, NotCommutative) {
    Quatd a = fromAxisAngle(Vec3d(1, 0, 0), 1.5707963267948966),
          b = fromAxisAngle(Vec3d(0, 1, 0), 1.5707963267948966);
    Vec3d v(0, 0, 1);
    // Quarter turns about x and y: a then b sends z to -y then stays (-y is b's axis), b then a
    // sends z to x then stays: the results differ by |x - (-y)| = sqrt 2.
    EXPECT_NEAR(dist(rotate(a * b, v), rotate(b * a, v)), std::sqrt(2.0), 1e-12);
}

TEST(Quat, InverseUndoesRotation) {
    std::mt19937 rng(2);
    for (int t = 0; t < 100; ++t) {
        Quatd q = randomQuat(rng);
        Vec3d v = randomVec(rng);
        Quatd p = q * inverse(q);
        EXPECT_NEAR(p.w, 1.0, kTol);
        EXPECT_LT(norm(p.vec()), kTol);
        EXPECT_LT(dist(rotate(inverse(q), rotate(q, v)), v), kTol);
        // Non-unit: q^{-1} = q*/|q|^2 still inverts the product.
        Quatd s = q * 3.0;
        Quatd e = s * inverse(s);
        EXPECT_NEAR(e.w, 1.0, kTol);
    }
}

TEST(Quat, RotateInvRoundTripAndMatrix) {
    std::mt19937 rng(3);
    for (int t = 0; t < 100; ++t) {
        Quatd q = randomQuat(rng);
        Vec3d v = randomVec(rng);
        EXPECT_LT(dist(rotateInv(q, rotate(q, v)), v), kTol);
        EXPECT_LT(dist(rotate(q, rotateInv(q, v)), v), kTol);
        EXPECT_LT(dist(toMatrix(q) * v, rotate(q, v)), kTol);
        EXPECT_LT(dist(toMatrix(q).transposed() * v, rotateInv(q, v)), kTol);
        // Sandwich product q (v, 0) q* equals the fast formula.
        Quatd s = q * Quatd(v, 0.0) * conjugate(q);
        EXPECT_LT(dist(s.vec(), rotate(q, v)), kTol);
        EXPECT_NEAR(s.w, 0.0, kTol);
    }
}

TEST(Quat, AxisAngleRoundTrip) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> ang(-3.1, 3.1);
    for (int t = 0; t < 200; ++t) {
        Vec3d axis = normalized(randomVec(rng));
        double a = ang(rng);
        Vec3d theta = axis * a;
        Quatd q = fromRotationVector(theta);
        EXPECT_NEAR(norm(q), 1.0, kTol);
        // Rotation vector comes back (angles below pi: the short way is unique). atan2 is
        // accurate to a few ulps at every angle, 1e-10 is generous.
        EXPECT_LT(dist(toRotationVector(q), theta), 1e-10);
        Quatd q2 = fromAxisAngle(axis, a);
        EXPECT_LT(dist(rotate(q2, Vec3d(1, 2, 3)), rotate(q, Vec3d(1, 2, 3))), kTol * 10);
        // Rotation about the axis leaves the axis fixed; perpendicular vectors turn by a.
        EXPECT_LT(dist(rotate(q, axis), axis), kTol);
    }
    // Tiny angles use the near-identity branch: still exact to first order.
    Vec3d tiny(1e-10, -2e-10, 3e-10);
    EXPECT_LT(dist(toRotationVector(fromRotationVector(tiny)), tiny), 1e-20);
}

TEST(Quat, SmallAnglePathCloseToExact) {
    // normalize(theta/2, 1) vs the exact exponential: the rotation angle is 2 atan(|theta|/2)
    // instead of |theta|, an error of |theta|^3/12.
    for (double a : {1e-3, 1e-2, 0.05, 0.1}) {
        Vec3d theta = normalized(Vec3d(1, -2, 0.5)) * a;
        Quatd approx = fromRotationVector(theta, 1.0);  // smallAngle = 1 rad forces the fast path
        Quatd exact = fromRotationVector(theta);
        double err = norm(toRotationVector(approx * conjugate(exact)));
        EXPECT_NEAR(err, a * a * a / 12.0, 0.05 * a * a * a / 12.0 + 1e-15);
        EXPECT_NEAR(norm(approx), 1.0, kTol);
    }
}

TEST(Quat, NegatedQuaternionIsSameRotation) {
    std::mt19937 rng(5);
    for (int t = 0; t < 100; ++t) {
        Quatd q = randomQuat(rng);
        Vec3d v = randomVec(rng);
        Quatd m = q * -1.0;
        EXPECT_LT(dist(rotate(q, v), rotate(m, v)), kTol);
        // The rotation vector takes the short way for both signs.
        EXPECT_LT(dist(toRotationVector(q), toRotationVector(m)), 1e-10);
        EXPECT_LE(norm(toRotationVector(q)), 3.14159265358979 + 1e-9);
    }
}

TEST(Quat, DeltasAndAngularVelocity) {
    std::mt19937 rng(6);
    for (int t = 0; t < 50; ++t) {
        Quatd cur = randomQuat(rng), tgt = randomQuat(rng);
        // Body-frame delta applied on the right, world-frame delta on the left, both reach tgt.
        Quatd b = cur * deltaBody(cur, tgt), w = deltaWorld(cur, tgt) * cur;
        Vec3d v = randomVec(rng);
        EXPECT_LT(dist(rotate(b, v), rotate(tgt, v)), 1e-12);
        EXPECT_LT(dist(rotate(w, v), rotate(tgt, v)), 1e-12);
        // Same physical rotation: the world delta's axis is the body delta's axis rotated by cur.
        EXPECT_LT(
            dist(toRotationVector(deltaWorld(cur, tgt)), rotate(cur, toRotationVector(deltaBody(cur, tgt)))),
            1e-10);
    }
    // dq/dt = 1/2 (w, 0) q: integrating a constant world omega for 1 s in small steps reaches the
    // exponential exp(w) q. Each normalized Euler step under-rotates by |w h|^3 / 12 rad, so
    // 1000 steps of |w h| = 1e-3 lose ~1e-7 rad.
    Vec3d omega(0.3, -0.5, 0.8);
    Quatd q = randomQuat(rng), q0 = q;
    for (int i = 0; i < 1000; ++i) q = integrateWorld(q, omega, 1e-3);
    Quatd ex = fromRotationVector(omega) * q0;
    EXPECT_LT(norm(toRotationVector(q * conjugate(ex))), 1e-6);
}

TEST(Quat, FloatMatchesDouble) {
    // Same formulas in float: single-precision rounding, ~1e-6.
    Quat q = normalized(Quat(0.1f, 0.7f, -0.2f, 0.6f));
    Quatd qd(q);
    Vec3 v(1, -2, 0.5f);
    Vec3d r = rotate(qd, Vec3d(v));
    Vec3 rf = rotate(q, v);
    EXPECT_LT(norm(Vec3d(rf) - r), 1e-5);
}

}  // namespace
}  // namespace vbd
