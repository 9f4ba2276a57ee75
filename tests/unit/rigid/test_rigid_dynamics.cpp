// Scene-level AVBD checks against theory: free rigid body rotation (angular momentum, the
// intermediate-axis flip), Coulomb friction on ramps and flat ground, the pendulum period, the
// heavy chain.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "rigid/gyroscopic.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"

namespace vbd {
namespace {

constexpr float kH = 1.0f / 60.0f;
constexpr double kPi = 3.14159265358979323846;

Vec3d angularMomentum(const RigidSolver& s, int b) {
    const RigidBodyState& st = s.states()[size_t(b)];
    const Quatd q(st.rotation);
    const Vec3d wb = rotateInv(q, Vec3d(st.angularVelocity));
    const Vec3d I = s.inertia(b);
    return rotate(q, Vec3d(I.x * wb.x, I.y * wb.y, I.z * wb.z));
}

TEST(RigidDynamics, FreeBodyConservesAngularMomentum) {
    // A 1 x 2 x 3 box spinning about a generic axis, no gravity. Torque-free: L (world) must stay
    // constant. The forward step is the implicit midpoint rule on Euler's equations, which keeps
    // |L| and the kinetic energy exactly (rigid/gyroscopic.h); what is left is the rounding of
    // the float state, ~1e-7 per step (3e-7 measured over 240 steps): bound 1e-5. The direction
    // of L computed from the state is off by at most h |w| / 2 = 0.012 rad (the stored w is the
    // step's average velocity, the stored rotation the end of the step) and does not drift
    // (0.008 rad after 10,000 steps). The seed's explicit step grew |L| by 0.35% in these 240
    // steps; without the gyroscopic term (body-frame omega held constant) L would precess with
    // the body around a cone of half angle 12 degrees, turning by up to 0.43 rad within 2.2 s.
    SceneDesc sc = rigidSpinScene(1, 0.0f, 0.0f);
    sc.rigidBodies[0].angularVelocity = Vec3(0.6f, 1.2f, -0.5f);
    RigidSolver s(sc);
    const Vec3d L0 = angularMomentum(s, 0);
    double worstMag = 0, worstAng = 0;
    for (int i = 0; i < 240; ++i) {
        s.step(kH);
        const Vec3d L = angularMomentum(s, 0);
        worstMag = std::max(worstMag, std::fabs(norm(L) - norm(L0)) / norm(L0));
        worstAng = std::max(worstAng, std::acos(std::min(1.0, dot(L, L0) / (norm(L) * norm(L0)))));
    }
    std::printf("angular momentum: max |dL|/|L| %.4f, max direction change %.4f rad\n", worstMag, worstAng);
    EXPECT_LT(worstMag, 1e-5);
    EXPECT_LT(worstAng, 0.5 * kH * norm(Vec3d(0.6, 1.2, -0.5)));
    // The body stays put (no gravity, no contact): its center moves less than float rounding.
    EXPECT_LT(norm(s.states()[0].position - sc.rigidBodies[0].position), 1e-5f);
}

TEST(RigidDynamics, GyroscopicStepConservesEnergyAndMomentumToSecondOrder) {
    // One torque-free step of Euler's equations I dw/dt = -w x I w for the 1 x 2 x 3 box's moments.
    // The implicit midpoint rule keeps 2 KE = w^T I w and |L| = |I w| to the Newton tolerance
    // (1e-13 |L| residual, so 1e-12 relative is the bound), and its error against the exact flow
    // (RK4 with 1000 substeps, error ~1e-14) is the local error of a second-order method, O(h^3):
    // it falls 8x when h halves (the seed's explicit Euler step: O(h^2), 4x).
    const Vec3d I(650, 500, 250), w0(0.6, 1.2, -0.5);
    auto rate = [&](const Vec3d& w) {
        const Vec3d t = -cross(w, Vec3d(I.x * w.x, I.y * w.y, I.z * w.z));
        return Vec3d(t.x / I.x, t.y / I.y, t.z / I.z);
    };
    auto exact = [&](double h) {
        Vec3d w = w0;
        const int n = 1000;
        const double dt = h / n;
        for (int i = 0; i < n; ++i) {
            const Vec3d k1 = rate(w), k2 = rate(w + k1 * (dt / 2)), k3 = rate(w + k2 * (dt / 2)),
                        k4 = rate(w + k3 * dt);
            w += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (dt / 6);
        }
        return w;
    };
    auto ke = [&](const Vec3d& w) { return I.x * w.x * w.x + I.y * w.y * w.y + I.z * w.z * w.z; };
    auto lm = [&](const Vec3d& w) { return norm(Vec3d(I.x * w.x, I.y * w.y, I.z * w.z)); };
    double err[2];
    for (int k = 0; k < 2; ++k) {
        const double h = k == 0 ? 0.1 : 0.05;
        const Vec3d w1 = gyroscopicMidpointStep(I, w0, h);
        EXPECT_NEAR(ke(w1) / ke(w0), 1.0, 1e-12);
        EXPECT_NEAR(lm(w1) / lm(w0), 1.0, 1e-12);
        err[k] = norm(w1 - exact(h));
    }
    std::printf("gyroscopic step error: h 0.1 %.3e, h 0.05 %.3e (ratio %.2f)\n", err[0], err[1],
                err[0] / err[1]);
    EXPECT_GT(err[0] / err[1], 7.0);  // 8 for O(h^3) local error, 4 for first order
    EXPECT_LT(err[0] / err[1], 9.0);
}

// Smallest value over the run of (body axis `axis`) . (its initial world direction).
double minAxisAlignment(int axis, double seconds) {
    SceneDesc sc = rigidSpinScene(axis, 4.0f, 0.01f);
    RigidSolver s(sc);
    Vec3 e(0.0f);
    e[axis] = 1;
    double lowest = 1;
    for (int i = 0; i < int(seconds / kH); ++i) {
        s.step(kH);
        lowest = std::min(lowest, double(dot(rotate(s.states()[0].rotation, e), e)));
    }
    return lowest;
}

TEST(RigidDynamics, IntermediateAxisFlipsOthersDoNot) {
    // Dzhanibekov effect. For the 1 x 2 x 3 box I_x : I_y : I_z = 13 : 10 : 5; a perturbation of
    // the spin about y grows at rate w sqrt((I_x - I_y)(I_y - I_z) / (I_x I_z)) = 1.9 /s for
    // w = 4, so from 0.01/4 it reaches O(1) within ln(400)/1.9 = 3.1 s: within 8 s the axis must
    // turn over (alignment near -1). About x (major) and z (minor) the motion is a stable
    // precession of amplitude ~ eps / w = 0.0025 rad: the axis stays within a degree (the
    // midpoint step conserves energy and |L|, so the cone cannot open: alignment > 0.999).
    const double inter = minAxisAlignment(1, 8.0);
    const double major = minAxisAlignment(0, 8.0);
    const double minor = minAxisAlignment(2, 8.0);
    std::printf("axis alignment min: major %.4f intermediate %.4f minor %.4f\n", major, inter, minor);
    EXPECT_LT(inter, -0.9);
    EXPECT_GT(major, 0.999);
    EXPECT_GT(minor, 0.999);
}

TEST(RigidDynamics, RampSticksBelowFrictionAngleSlidesAbove) {
    // Coulomb: a box on a ramp of angle theta sticks iff tan(theta) < mu, and otherwise slides
    // with a = g (sin theta - mu cos theta).
    const std::vector<float> angles{0.2f, 0.4f, 0.6f, 0.5f, 0.4f};
    const std::vector<float> mus{0.5f, 0.5f, 0.5f, 0.3f, 0.9f};
    SceneDesc sc = rigidRampsScene(angles, mus);
    RigidSolver s(sc);
    std::vector<Vec3> x0;
    for (size_t i = 0; i < angles.size(); ++i) x0.push_back(s.states()[2 * i + 1].position);
    const int steps = 60;  // 1 s
    for (int i = 0; i < steps; ++i) s.step(kH);
    const double t = steps * kH, g = 9.81;
    for (size_t i = 0; i < angles.size(); ++i) {
        const Vec3 down = rotate(fromAxisAngle(Vec3(0, 0, 1), angles[i]), Vec3(-1, 0, 0));
        const double d = dot(s.states()[2 * i + 1].position - x0[i], down);
        const bool slides = std::tan(angles[i]) > mus[i];
        const double a = g * (std::sin(angles[i]) - mus[i] * std::cos(angles[i]));
        std::printf("ramp %.2f rad mu %.2f: moved %.4f m down-slope (theory %s %.4f)\n", angles[i], mus[i], d,
                    slides ? "slide" : "stick", slides ? 0.5 * a * t * t : 0.0);
        if (slides) {
            // BDF1 with the contact multipliers building over the first steps: within 8% of
            // 1/2 a t^2 (the lag of one step alone is 2 h / t = 3%).
            EXPECT_NEAR(d, 0.5 * a * t * t, 0.08 * 0.5 * a * t * t);
        } else {
            // Sticking: only the settling of the penalty contacts, well below 1 cm (2.5% of the
            // 0.4 m box), against 0.5 g sin(theta) t^2 > 0.97 m of free sliding.
            EXPECT_LT(std::fabs(d), 0.01);
        }
    }
}

TEST(RigidDynamics, StoppingDistanceMatchesCoulomb) {
    // A box launched at v along flat ground stops after v^2 / (2 mu g).
    SceneDesc sc;
    sc.ground.friction = 0.5;
    RigidBodyDesc b;
    b.size = Vec3(0.5f);
    b.position = Vec3(0, 0.25f, 0);
    b.friction = 0.5;
    b.velocity = Vec3(4, 0, 0);
    sc.rigidBodies.push_back(b);
    RigidSolver s(sc);
    for (int i = 0; i < 120; ++i) s.step(kH);  // 2 s; theory stops at t = v / (mu g) = 0.82 s
    const double d = s.states()[0].position.x;
    const double theory = 16.0 / (2 * 0.5 * 9.81);
    std::printf("stopping distance %.4f m, theory %.4f m, final speed %.2e\n", d, theory,
                norm(s.states()[0].velocity));
    EXPECT_NEAR(d, theory, 0.05 * theory);           // requirement: within 5%
    EXPECT_LT(norm(s.states()[0].velocity), 0.01f);  // it has stopped (sticking friction holds it)
}

TEST(RigidDynamics, FrictionBringsABoxToRestOnAFreePlateKeepingMomentum) {
    // A 64 kg box launched at 3 m/s on a free 600 kg plate lying on frictionless ground: friction is
    // internal, so the horizontal momentum 192 kg m/s stays, and the pair ends moving together at
    // 192 / 664 = 0.28916 m/s. Coulomb: the box decelerates at mu g = 4.905, the plate accelerates at
    // mu g 64 / 600 = 0.523 m/s^2; the slip stops at t = 3 / 5.428 = 0.553 s (frame 33). In that step the
    // friction goes from sliding to sticking. With a sliding Hessian softer than the friction potential's
    // majorizer (0.1 k along the slip) each sweep jumped across the stick region, the multipliers flipped
    // sign every sweep, the step ended unconverged (residual 784 at 20, 100 or 300 sweeps) and the pair
    // lost 1.2 % of its momentum there (0.28565 m/s). Bound: 0.1 % at every frame, over 10x the drift
    // measured with 20 sweeps (< 1e-5 relative), ten times below the 2-cycle's loss.
    SceneDesc sc;
    sc.solver.iterations = 20;
    sc.ground.friction = 0.0;
    RigidBodyDesc plate;
    plate.size = Vec3(3, 0.2f, 1);
    plate.position = Vec3(0, 0.1f, 0);
    plate.friction = 0.5;
    RigidBodyDesc box;
    box.size = Vec3(0.4f);
    box.position = Vec3(-1, 0.4f, 0);
    box.velocity = Vec3(3, 0, 0);
    box.friction = 0.5;
    sc.rigidBodies = {plate, box};
    RigidSolver s(sc);
    const double mp = s.mass(0), mb = s.mass(1), p0 = mb * 3.0;
    // The sizes are floats (0.2f): masses within float rounding of the nominal ones.
    ASSERT_NEAR(mp, 600.0, 1e-6 * 600.0);
    ASSERT_NEAR(mb, 64.0, 1e-6 * 64.0);
    double worst = 0;
    int stuck = -1;
    for (int i = 0; i < 60; ++i) {
        s.step(kH);
        const double vp = s.states()[0].velocity.x, vb = s.states()[1].velocity.x;
        worst = std::max(worst, std::fabs(mp * vp + mb * vb - p0) / p0);
        if (stuck < 0 && std::fabs(vb - vp) < 1e-3) stuck = i + 1;
    }
    const double v = s.states()[0].velocity.x;
    std::printf(
        "free plate: worst momentum error %.2e, stuck at frame %d (theory 33), common speed %.5f "
        "(theory %.5f)\n",
        worst, stuck, v, p0 / (mp + mb));
    EXPECT_LT(worst, 1e-3);
    // BDF1 against the continuous stick time: within two frames.
    EXPECT_NEAR(stuck, 33, 2);
    EXPECT_NEAR(s.states()[1].velocity.x, v, 1e-3);
}

TEST(RigidDynamics, SlidingBallSettlesIntoRolling) {
    // A ball launched sliding without spin: friction decelerates it and spins it up until the
    // contact point stops slipping, at v = v0 / (1 + I / (m r^2)) = 5/7 v0 for a solid sphere
    // (angular momentum about the contact point is conserved). Then it rolls without losing
    // speed or sinking (rolling resistance is zero for rigid bodies).
    SceneDesc sc;
    RigidBodyDesc ball;
    ball.shape = ShapeType::Sphere;
    ball.radius = 0.2f;
    ball.position = Vec3(0, 0.2f, 0);
    ball.velocity = Vec3(1, 0, 0);
    sc.rigidBodies.push_back(ball);
    RigidSolver s(sc);
    for (int i = 0; i < 300; ++i) s.step(kH);
    const RigidBodyState& st = s.states()[0];
    std::printf("rolling ball: v %.4f (theory %.4f), w r %.4f, height %.5f\n", st.velocity.x, 5.0 / 7.0,
                -st.angularVelocity.z * 0.2f, st.position.y);
    EXPECT_NEAR(st.velocity.x, 5.0 / 7.0, 0.01 * 5.0 / 7.0);         // 1%: the slip phase is 5 steps of BDF1
    EXPECT_NEAR(-st.angularVelocity.z * 0.2f, st.velocity.x, 1e-3);  // rolling, no slip
    EXPECT_NEAR(st.position.y, 0.2f, 1e-3f);                         // on the ground, not sinking
}

TEST(RigidDynamics, PendulumPeriod) {
    // Small-amplitude pendulum: T = 2 pi sqrt(L / g) (1 + theta0^2 / 16 + ...). The bob is a
    // 5 cm sphere, whose own inertia lengthens T by a factor sqrt(1 + 0.4 r^2 / L^2) = 1.0005;
    // BDF1 lengthens it by (w h)^2 / 3 = 0.1%: the requirement is 2%.
    const float L = 1.0f, th0 = 0.1f;
    SceneDesc sc = rigidPendulumScene(L, th0);
    RigidSolver s(sc);
    std::vector<double> crossings;
    double prev = s.states()[0].position.x, t = 0;
    for (int i = 0; i < 600 && crossings.size() < 7; ++i) {
        s.step(kH);
        t += kH;
        const double x = s.states()[0].position.x;
        if ((prev > 0) != (x > 0)) crossings.push_back(t - kH * x / (x - prev));
        prev = x;
    }
    ASSERT_GE(crossings.size(), 7u);
    const double period = (crossings[6] - crossings[0]) / 3.0;
    const double theory = 2 * kPi * std::sqrt(L / 9.81);
    std::printf("pendulum period %.4f s, theory %.4f s\n", period, theory);
    EXPECT_NEAR(period, theory, 0.02 * theory);
    // The joint holds the bob at distance L from the pivot.
    EXPECT_NEAR(norm(s.states()[0].position - Vec3(0, 2, 0)), L, 1e-3);
}

TEST(RigidDynamics, HeavyChainDoesNotStretch) {
    // 50 links hold a box 50,000 times heavier than one link. Requirement: the chain stretches
    // less than 1% of its rest length.
    SceneDesc sc = rigidHeavyChainScene(50, 5e4);
    RigidSolver s(sc);
    const int heavy = 50;
    ASSERT_NEAR(s.mass(heavy) / s.mass(0), 5e4, 1.0);
    const float rest = 50 * 0.1f;
    const Vec3 pivot = sc.joints[0].anchor;
    double worst = 0;
    for (int i = 0; i < 180; ++i) {
        s.step(kH);
        const Vec3 hook = s.states()[heavy].position + rotate(s.states()[heavy].rotation, Vec3(0, 0.15f, 0));
        worst = std::max(worst, double(norm(hook - pivot)) - rest);
    }
    std::printf("heavy chain: worst stretch %.5f m (%.3f%%), heavy speed %.3e\n", worst, 100 * worst / rest,
                norm(s.states()[heavy].velocity));
    EXPECT_LT(worst, 0.01 * rest);
    EXPECT_LT(norm(s.states()[heavy].velocity), 0.05f);  // hanging at rest, not bouncing
}

}  // namespace
}  // namespace vbd
