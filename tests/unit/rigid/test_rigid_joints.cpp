// Joints: a welded cantilever does not sag, a hinge keeps its axis and its plane of motion, hinge
// limits stop the swing, ball joints keep a double pendulum's link lengths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "rigid/rigid_solver.h"

namespace vbd {
namespace {

constexpr float kH = 1.0f / 60.0f;

SceneDesc noGround() {
    SceneDesc s;
    s.ground.enabled = false;
    return s;
}

RigidBodyDesc boxAt(const Vec3& size, const Vec3& p) {
    RigidBodyDesc b;
    b.size = size;
    b.position = p;
    return b;
}

// A 0.1 x 1 x 0.1 m box hanging from a world hinge about z at (0, 2, 0) (its centre 0.5 m below),
// started with angular velocity w and velocity v.
SceneDesc hingePendulum(const Vec3& w, const Vec3& v) {
    SceneDesc s = noGround();
    RigidBodyDesc b = boxAt(Vec3(0.1f, 1.0f, 0.1f), Vec3(0, 1.5f, 0));
    b.angularVelocity = w;
    b.velocity = v;
    s.rigidBodies.push_back(b);
    JointDesc j;
    j.type = JointType::Hinge;
    j.bodyA = -1;
    j.bodyB = 0;
    j.anchor = Vec3(0, 2, 0);
    j.axis = Vec3(0, 0, 1);
    s.joints.push_back(j);
    return s;
}

TEST(RigidJoints, FixedJointHoldsCantilever) {
    // A 1 m x 0.2 m x 0.2 m box (40 kg) welded to the world at its left end: gravity's moment
    // 40 * 9.81 * 0.5 = 196 N m must be carried by the joint's rotation rows. They hold it through
    // the multiplier; what is left is the error the alpha stabilization keeps while the
    // multiplier is re-supplied each step (0.4 mm measured at the tip). 1 mm (1e-3 rad) bounds
    // it, against meters of free fall.
    SceneDesc s = noGround();
    s.rigidBodies.push_back(boxAt(Vec3(1, 0.2f, 0.2f), Vec3(0.5f, 2, 0)));
    JointDesc j;
    j.type = JointType::Fixed;
    j.bodyA = -1;
    j.bodyB = 0;
    j.anchor = Vec3(0, 2, 0);
    s.joints.push_back(j);
    RigidSolver r(s);
    for (int i = 0; i < 120; ++i) r.step(kH);
    const Vec3 tip = r.states()[0].position + rotate(r.states()[0].rotation, Vec3(0.5f, 0, 0));
    std::printf("cantilever tip sag %.2e m\n", 2.0f - tip.y);
    EXPECT_NEAR(tip.y, 2.0f, 1e-3f);
    EXPECT_NEAR(tip.x, 1.0f, 1e-3f);
}

TEST(RigidJoints, HingeKeepsAxisAndPlane) {
    // A box on a hinge about world z at (0, 2, 0), swinging, kicked out of the plane: the hinge
    // must keep its axis (body z stays world z) and the motion in the x-y plane.
    // w_x tries to tilt the hinge; v is consistent with w_z, plus an out-of-plane kick.
    const SceneDesc s = hingePendulum(Vec3(0.5f, 0, 2), Vec3(-1.0f, 0, 0.3f));
    RigidSolver r(s);
    float worstZ = 0, worstAxis = 0, worstLen = 0;
    for (int i = 0; i < 120; ++i) {
        r.step(kH);
        const RigidBodyState& st = r.states()[0];
        worstZ = std::max(worstZ, std::fabs(st.position.z));
        worstAxis = std::max(worstAxis, 1.0f - dot(rotate(st.rotation, Vec3(0, 0, 1)), Vec3(0, 0, 1)));
        worstLen = std::max(worstLen, std::fabs(norm(st.position - Vec3(0, 2, 0)) - 0.5f));
    }
    std::printf("hinge: max |z| %.2e m, max axis error %.2e, max arm error %.2e m\n", worstZ, worstAxis,
                worstLen);
    // The kick is absorbed in the first step (the constraint acts within the step): afterwards
    // the hard rows hold to the Gauss-Seidel residual, well below 1 mm and 1e-4.
    EXPECT_LT(worstZ, 1e-3f);
    EXPECT_LT(worstAxis, 1e-4f);
    EXPECT_LT(worstLen, 1e-3f);
    // It does swing (the hinge is not welded): the body left the vertical.
    EXPECT_GT(std::fabs(r.states()[0].position.x), 0.05f);
}

TEST(RigidJoints, HingeLimitStopsSwing) {
    // The same pendulum started at 4 rad/s would swing past 90 degrees
    // (1/2 I w^2 > m g L (1 - cos)); limits of +-0.3 rad must stop it there.
    SceneDesc s = hingePendulum(Vec3(0, 0, 4), Vec3(-2.0f, 0, 0));
    JointDesc& j = s.joints[0];
    j.limit = true;
    j.lower = -0.3;
    j.upper = 0.3;
    RigidSolver r(s);
    double worst = 0;
    for (int i = 0; i < 180; ++i) {
        r.step(kH);
        const Vec3 arm = r.states()[0].position - Vec3(0, 2, 0);
        worst = std::max(worst, std::fabs(std::atan2(double(arm.x), double(-arm.y))));
    }
    std::printf("hinge limit: max |angle| %.4f rad (limit 0.3)\n", worst);
    // The stop acts within the step the limit is crossed: overshoot at most w h = 0.07 rad in
    // the first step, then the alpha-stabilized row pulls it back.
    EXPECT_LT(worst, 0.3 + 0.07);
    EXPECT_GT(worst, 0.25);  // it did reach the stop
}

TEST(RigidJoints, DoublePendulumKeepsLinkLengths) {
    // Two boxes chained by ball joints, released from horizontal: chaotic motion, but each joint
    // holds its anchors together (hard rows at up to k_max, with Gauss-Seidel over 2 bodies).
    SceneDesc s = noGround();
    s.rigidBodies.push_back(boxAt(Vec3(0.5f, 0.05f, 0.05f), Vec3(0.25f, 2, 0)));
    s.rigidBodies.push_back(boxAt(Vec3(0.5f, 0.05f, 0.05f), Vec3(0.75f, 2, 0)));
    JointDesc j;
    j.bodyA = -1;
    j.bodyB = 0;
    j.anchor = Vec3(0, 2, 0);
    s.joints.push_back(j);
    j.bodyA = 0;
    j.bodyB = 1;
    j.anchor = Vec3(0.5f, 2, 0);
    s.joints.push_back(j);
    RigidSolver r(s);
    float worst = 0;
    for (int i = 0; i < 180; ++i) {
        r.step(kH);
        const auto& st = r.states();
        const Vec3 a0 = st[0].position + rotate(st[0].rotation, Vec3(-0.25f, 0, 0));
        const Vec3 a1 = st[0].position + rotate(st[0].rotation, Vec3(0.25f, 0, 0));
        const Vec3 b1 = st[1].position + rotate(st[1].rotation, Vec3(-0.25f, 0, 0));
        worst = std::max(worst, std::max(norm(a0 - Vec3(0, 2, 0)), norm(a1 - b1)));
    }
    std::printf("double pendulum: max anchor separation %.2e m\n", worst);
    EXPECT_LT(worst, 2e-3f);                    // 0.4% of a link, against link speeds of ~5 m/s (h v = 8 cm)
    EXPECT_LT(r.states()[1].position.y, 1.9f);  // it fell and swings
}

TEST(RigidJoints, DragSpringMatchesImplicitEuler) {
    // Picking spring on the center of mass of a free 125 kg box (no gravity, no contacts): the
    // solver must reproduce implicit Euler of m x'' = -k (x - target) exactly, i.e. the
    // recurrence x_{n+1} = (m/h^2 (x_n + h v_n) + k target) / (m/h^2 + k), v_{n+1} = (x_{n+1} - x_n)/h
    // (the block is quadratic, so one Newton step per iteration solves it). Float state: 1e-4 m.
    SceneDesc s = noGround();
    s.gravity = Vec3(0.0f);
    s.rigidBodies.push_back(boxAt(Vec3(0.5f), Vec3(0, 0, 0)));
    RigidSolver r(s);
    const Vec3 target(1, 0.5f, 0);
    const double k = 400, m = r.mass(0), h = kH;
    r.setDrag(0, Vec3(0.0f), target, float(k));
    Vec3d x(0.0), v(0.0);
    for (int i = 0; i < 120; ++i) {
        r.step(kH);
        const Vec3d xn = (Vec3d(x + v * h) * (m / (h * h)) + Vec3d(target) * k) / (m / (h * h) + k);
        v = (xn - x) / h;
        x = xn;
    }
    std::printf("drag: solver %.5f %.5f, implicit Euler %.5f %.5f\n", r.states()[0].position.x,
                r.states()[0].position.y, x.x, x.y);
    EXPECT_LT(norm(Vec3d(r.states()[0].position) - x), 1e-4);
    EXPECT_GT(r.states()[0].position.x, 0.1f);  // it moved towards the target
    // Released: no more force, the body coasts.
    r.setDrag(-1, Vec3(0.0f), target, 0.0f);
    const Vec3 vel = r.states()[0].velocity;
    r.step(kH);
    EXPECT_LT(norm(r.states()[0].velocity - vel), 1e-5f);
}

}  // namespace
}  // namespace vbd
