// World::saveState / restoreState (the app's timeline): a restored World steps to the same bits as the
// original run, on a soft body, cloth with self-contact, rigid bodies, a double-precision state with
// kinematic vertices; a World built from an edited description takes the state and applies its own
// parameters from there; mismatched shapes are refused without change.
#include <gtest/gtest.h>

#include <cstring>

#include "rigid/constraints.h"
#include "rigid/rigid_body.h"
#include "rigid/rigid_scenes.h"
#include "scene_util.h"

using namespace vbd;
using namespace vbdtest;

namespace {

struct Frame {
    int frame = 0;
    double time = 0;
    std::vector<Vec3> x, v;
    std::vector<RigidBodyView> bodies;
    std::vector<IterationRecord> conv;
};

Frame capture(const World& w) {
    return {w.frame(), w.time(), w.positions(), w.velocities(), w.bodies(), w.lastConvergence()};
}

// Bitwise: the floats of both runs, compared as bytes (a NaN would also have to match).
template <typename T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void expectSame(const Frame& a, const Frame& b) {
    EXPECT_EQ(a.frame, b.frame);
    EXPECT_EQ(a.time, b.time);
    EXPECT_TRUE(sameBytes(a.x, b.x)) << "positions differ";
    EXPECT_TRUE(sameBytes(a.v, b.v)) << "velocities differ";
    ASSERT_EQ(a.bodies.size(), b.bodies.size());
    for (size_t i = 0; i < a.bodies.size(); ++i) {
        const RigidBodyView &p = a.bodies[i], &q = b.bodies[i];
        EXPECT_EQ(std::memcmp(&p.position, &q.position, sizeof p.position), 0) << "body " << i;
        EXPECT_EQ(std::memcmp(&p.rotation, &q.rotation, sizeof p.rotation), 0) << "body " << i;
        EXPECT_EQ(std::memcmp(&p.velocity, &q.velocity, sizeof p.velocity), 0) << "body " << i;
        EXPECT_EQ(std::memcmp(&p.angularVelocity, &q.angularVelocity, sizeof p.angularVelocity), 0)
            << "body " << i;
    }
    ASSERT_EQ(a.conv.size(), b.conv.size());
    for (size_t i = 0; i < a.conv.size(); ++i) EXPECT_EQ(a.conv[i].residual, b.conv[i].residual);
}

// Steps `before` frames, saves, steps `after` frames (the reference), restores and steps `after` again.
// The reference moved (so the comparison is not of a World at rest), and the restore is exact.
void roundTrip(const SceneDesc& desc, int before, int after) {
    auto w = World::create(desc);
    for (int i = 0; i < before; ++i) w->step();
    const Frame saved = capture(*w);
    std::shared_ptr<const WorldState> s = w->saveState();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->frame, before);
    EXPECT_GT(s->bytes(), sizeof(Vec3) * saved.x.size());
    for (int i = 0; i < after; ++i) w->step();
    const Frame reference = capture(*w);
    const size_t historyLength = w->history().size();
    ASSERT_TRUE(w->restoreState(*s));
    expectSame(capture(*w), saved);
    EXPECT_EQ(w->history().size(), size_t(before));
    for (int i = 0; i < after; ++i) w->step();
    expectSame(capture(*w), reference);
    EXPECT_EQ(w->history().size(), historyLength);
    // The state did not alias the World's arrays: a second restore goes back to the same frame.
    ASSERT_TRUE(w->restoreState(*s));
    expectSame(capture(*w), saved);
}

}  // namespace

TEST(WorldState, SoftBodyRestoresBitIdentical) { roundTrip(loadScene("contrast_bar.json"), 5, 6); }

TEST(WorldState, DoubleStateWithKinematicVerticesRestoresBitIdentical) {
    // The twisting beam's clamped end follows the solver clock, which the state must carry.
    roundTrip(loadScene("beam_twist.json", {"solver.precision=\"double\"", "solver.iterations=5",
                                            "soft_bodies.0.cells=[12,2,2]"}),
              4, 5);
}

TEST(WorldState, ClothWithSelfContactRestoresBitIdentical) {
    roundTrip(loadScene("cloth_fold.json", {"cloths.0.cells=[12,12]"}), 6, 5);
}

TEST(WorldState, RigidBodiesRestoreBitIdenticalWithWarmStart) {
    // The card house rests on contacts whose penalties and multipliers are warm started every step.
    roundTrip(loadScene("rigid_card_house.json"), 20, 10);
}

TEST(WorldState, ASavedRigidFrameCountsItsContacts) {
    // The timeline's budget reads bytes(): a landed pile's contacts are most of its save (it counted 0.3 KB a
    // body, a fifth of the pile's frame).
    SceneDesc d = rigidPileScene(300, 0.5f);
    d.solver.diagnostics = false;
    auto w = World::create(d);
    for (int i = 0; i < 40; ++i) w->step();
    ASSERT_GT(w->contactCount(), 500u);
    const std::shared_ptr<const WorldState> s = w->saveState();
    EXPECT_GE(s->bytes(),
              w->contactCount() * sizeof(Contact) + size_t(w->numBodies()) * sizeof(RigidBodyState));
}

TEST(WorldState, RestoreRemovesABodyAddedLater) {
    auto w = World::create(loadScene("rigid_stack.json"));
    for (int i = 0; i < 3; ++i) w->step();
    auto s = w->saveState();
    const size_t n = w->bodies().size();
    RigidBodyDesc b;
    b.position = Vec3(5, 3, 5);
    w->addRigidBody(b);
    w->step();
    ASSERT_EQ(w->bodies().size(), n + 1);
    ASSERT_TRUE(w->restoreState(*s));
    EXPECT_EQ(w->bodies().size(), n);
    EXPECT_EQ(w->desc().rigidBodies.size(), n);
}

// A restore across a trim of the metrics history (it keeps the last 2,048 to 2,303 frames): the frames after
// the restored one go, found by their numbers (the history's length at the save says nothing once the front
// was cut; before, the later frames stayed).
TEST(WorldState, RestoreAfterTheHistoryWasTrimmedDropsTheLaterFrames) {
    auto w = World::create(loadScene("rigid_stack.json"));
    for (int i = 0; i < 2300; ++i) w->step();
    auto s = w->saveState();
    for (int i = 0; i < 10; ++i) w->step();  // the history is cut at 2,304 frames
    ASSERT_LT(w->history().size(), 2300u);
    ASSERT_TRUE(w->restoreState(*s));
    EXPECT_EQ(w->history().back().frame, 2300);
    w->step();
    EXPECT_EQ(w->history().back().frame, 2301);
    EXPECT_EQ(w->history()[w->history().size() - 2].frame, 2300);
}

// World::sharedDesc, which the app's snapshots keep instead of a copy each frame: one copy per change of the
// description, each change (a solver edit, an added body, a restore) a new copy, and the copies handed out
// before a change keep the description they had.
TEST(WorldState, SharedDescriptionIsCopiedOncePerChange) {
    auto w = World::create(loadScene("rigid_stack.json"));
    const auto first = w->sharedDesc();
    w->step();
    EXPECT_EQ(w->sharedDesc().get(), first.get());  // a step changes nothing in it
    auto s = w->saveState();
    SolverDesc edited = w->desc().solver;
    const int iterations = edited.iterations;
    edited.iterations += 3;
    w->setSolver(edited);
    const auto afterEdit = w->sharedDesc();
    EXPECT_NE(afterEdit.get(), first.get());
    EXPECT_EQ(afterEdit->solver.iterations, iterations + 3);
    EXPECT_EQ(first->solver.iterations, iterations);
    RigidBodyDesc b;
    b.position = Vec3(5, 3, 5);
    w->addRigidBody(b);
    const auto afterAdd = w->sharedDesc();
    EXPECT_EQ(afterAdd->rigidBodies.size(), afterEdit->rigidBodies.size() + 1);
    EXPECT_EQ(afterAdd->rigidBodies.size(), w->desc().rigidBodies.size());
    ASSERT_TRUE(w->restoreState(*s));
    const auto afterRestore = w->sharedDesc();
    EXPECT_EQ(afterRestore->rigidBodies.size(), first->rigidBodies.size());
    EXPECT_EQ(afterAdd->rigidBodies.size(), first->rigidBodies.size() + 1);
    EXPECT_EQ(w->numBodies(), first->rigidBodies.size());
}

// A material edit in the app rebuilds the World from the edited description and carries the state: the
// positions are those of the saved frame, and the stiffer material then moves it differently.
TEST(WorldState, EditedWorldTakesTheStateAndAppliesItsParameters) {
    const SceneDesc base = loadScene("contrast_bar.json");
    auto w = World::create(base);
    for (int i = 0; i < 8; ++i) w->step();
    auto s = w->saveState();
    const Frame saved = capture(*w);
    w->step();
    const Frame plainNext = capture(*w);

    SceneDesc stiffer = base;
    stiffer.softBodies[0].material.youngs *= 100;
    auto e = World::create(stiffer);
    ASSERT_TRUE(e->restoreState(*s));
    expectSame(capture(*e), saved);
    e->step();
    EXPECT_EQ(e->frame(), 9);
    EXPECT_FALSE(sameBytes(e->positions(), plainNext.x)) << "the edited material had no effect";
    // Same material again: the carried state steps exactly as the original World did (the soft state is
    // all of the soft solver's carried state).
    auto same = World::create(base);
    ASSERT_TRUE(same->restoreState(*s));
    same->step();
    EXPECT_TRUE(sameBytes(same->positions(), plainNext.x));
}

TEST(WorldState, MismatchedShapesAreRefusedWithoutChange) {
    auto w = World::create(loadScene("contrast_bar.json"));
    for (int i = 0; i < 2; ++i) w->step();
    auto s = w->saveState();
    auto other = World::create(loadScene("contrast_bar.json", {"soft_bodies.0.cells=[8,4,4]"}));
    other->step();
    const Frame before = capture(*other);
    EXPECT_FALSE(other->restoreState(*s));
    expectSame(capture(*other), before);
    auto rigid = World::create(loadScene("rigid_stack.json"));
    EXPECT_FALSE(rigid->restoreState(*s));  // particles vs none
}
