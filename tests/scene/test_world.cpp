// World-level behaviour the app relies on.
#include <gtest/gtest.h>

#include "scene_util.h"

using namespace vbd;
using namespace vbdtest;

// "Throw a box": a body added to a running World flies on a ballistic path while the bodies already
// there keep their state (they are not reset to the scene file's initial pose).
TEST(World, AddRigidBodyKeepsExistingStateAndFliesBallistic) {
    SceneDesc s = loadScene("rigid_stack.json");
    auto w = World::create(s);
    for (int i = 0; i < 30; ++i) w->step();
    const std::vector<RigidBodyView> before = w->bodies();
    RigidBodyDesc b;
    b.size = Vec3(0.4f, 0.4f, 0.4f);
    b.position = Vec3(5, 6, 5);  // far from the stack
    b.velocity = Vec3(-1, 0, 0);
    const int idx = w->addRigidBody(b);
    ASSERT_EQ(idx, int(before.size()));
    const std::vector<RigidBodyView> after = w->bodies();
    ASSERT_EQ(after.size(), before.size() + 1);
    for (size_t i = 0; i < before.size(); ++i) EXPECT_LT(norm(after[i].position - before[i].position), 1e-6f);
    const int n = 20;
    for (int i = 0; i < n; ++i) w->step();
    const Vec3 p = w->bodies()[size_t(idx)].position;
    const double h = s.dt / s.substeps, steps = n * s.substeps;
    // implicit Euler free fall: y drop g h^2 k(k+1)/2 over k substeps; x moves v t (float state: 1e-3 m)
    EXPECT_NEAR(6.0 - p.y, 9.81 * h * h * steps * (steps + 1) / 2, 1e-3 * 6);
    EXPECT_NEAR(p.x, 5.0 - 1.0 * n * s.dt, 1e-3);
}

// The inspector's numbers are the heat map's: same dominance ratio, and D_i is the symmetric positive
// block of the vertex's local solve (mass/h^2 on the diagonal at least).
TEST(World, InspectVertexMatchesTheDominanceField) {
    SceneDesc s = loadScene("contrast_bar.json");
    auto w = World::create(s);
    w->step();
    std::vector<float> field;
    w->scalarField(ScalarField::DiagonalDominance, field);
    for (int i : {5, 100, 200, 300}) {
        const VertexInspect v = w->inspectVertex(i);
        ASSERT_TRUE(v.valid);
        EXPECT_FLOAT_EQ(v.dominance, field[size_t(i)]);
        EXPECT_GE(v.dominance, v.dominanceSum);  // max <= sum of the coupling norms
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(v.block(r, c), v.block(c, r), 1e-3f * std::fabs(v.block(r, r)));
        EXPECT_GT(v.block(0, 0), 0.f);
    }
    EXPECT_FALSE(w->inspectVertex(-1).valid);
    EXPECT_FALSE(w->inspectVertex(1 << 20).valid);
}

// Joints as drawn: the anchor seen from both bodies coincides while the joint holds (pendulum: a ball
// joint to the world).
TEST(World, JointViewAnchorsCoincide) {
    auto w = World::create(loadScene("rigid_pendulum.json"));
    for (int i = 0; i < 30; ++i) w->step();
    const auto joints = w->joints();
    ASSERT_FALSE(joints.empty());
    for (const auto& j : joints) EXPECT_LT(norm(j.anchorA - j.anchorB), 1e-3f);  // hard joint: sub-mm
}

// The teaching scene: at 10 iterations plain VBD cannot carry the 1e4-times stiffer half of the
// cantilever (the interface stalls; the stiff half drops to the ground and bounces), while the coarse
// correction with the stiff part's rigid modes (stiff_rigid) keeps it near its static sag. Measured over
// 1 s: min center-of-mass height 0.55 m plain against 1.14 m coarse (start 1.50 m).
TEST(World, CoarseCorrectionCarriesTheStiffHalfOfTheContrastBar) {
    // The cantilever starts straight (centre of mass at y = 1.5) and swings about its static sag; solved to
    // a relative residual of 1e-7 (200 sweeps + coarse) the centre's lowest point in the first 60 frames is
    // y = 1.2608, and it settles at 1.365. Ten plain sweeps cannot move the E = 1e10 half against its
    // weight: it drops (measured 0.62). The stiff-rigid coarse space carries the stiff half (measured 0.998;
    // the soft half still sags from the truncation); the aggregate basis also carries the soft half's smooth
    // modes and follows the converged motion (measured 1.2632, within 2.5 mm over the 60 frames).
    auto minComY = [](bool coarse, const char* basis) {
        SceneDesc s = loadScene("contrast_bar.json", {std::string("solver.coarse.basis=") + basis});
        s.solver.coarse.enabled = coarse;
        s.solver.diagnostics = false;
        auto w = World::create(s);
        double lo = 1e9;
        for (int i = 0; i < 60; ++i) {
            w->step();
            lo = std::min(lo, w->history().back().com.y);
        }
        return lo;
    };
    const double plain = minComY(false, "stiff_rigid"), stiff = minComY(true, "stiff_rigid"),
                 aggregate = minComY(true, "aggregate");
    EXPECT_LT(plain, 0.8) << "plain VBD unexpectedly held the stiff half";
    EXPECT_GT(stiff, 0.95) << "stiff-rigid coarse correction dropped the stiff half";
    EXPECT_NEAR(aggregate, 1.2608, 0.005) << "aggregate coarse correction left the converged motion";
}

// Throwing (the app's B: World::addRigidBody while running) into a soft scene: the thrown box is a dynamic
// body, so it couples with the soft cube from the next step (engine/world/coupling.h) and comes to rest on
// it instead of passing through. Lowest tolerated box bottom: the cube's top at rest minus 2 cm (its
// compression under the 0.3 m, 27 kg box is millimetres at E 1e6 Pa). Measured: top 0.9938 m, lowest box
// bottom 0.9898 m, at rest (0.8 mm/s) after 1.5 s.
TEST(World, ThrownBoxLandsOnASoftCube) {
    auto w = World::create(loadScene("cube_drop.json"));
    for (int i = 0; i < 120; ++i) w->step();  // the cube has landed and settled
    float top = -1e9f;
    for (const Vec3& p : w->positions()) top = std::max(top, p.y);
    RigidBodyDesc b;
    b.size = Vec3(0.3f, 0.3f, 0.3f);
    b.position = Vec3(0, top + 0.6f, 0);  // above the cube's centre (it spans x, z in [-0.5, 0.5])
    b.velocity = Vec3(0, -3, 0);
    const int idx = w->addRigidBody(b);
    float lowest = 1e9f;
    for (int i = 0; i < 90; ++i) {
        w->step();
        lowest = std::min(lowest, w->bodies()[size_t(idx)].position.y - 0.15f);
    }
    const RigidBodyView& box = w->bodies()[size_t(idx)];
    std::printf("cube top %.4f, box bottom lowest %.4f, final %.4f, speed %.4f\n", top, lowest,
                box.position.y - 0.15f, norm(box.velocity));
    EXPECT_GT(lowest, top - 0.02f) << "the thrown box sank into the cube";
    EXPECT_LT(norm(box.velocity), 0.05f) << "the box did not come to rest on the cube";
}
