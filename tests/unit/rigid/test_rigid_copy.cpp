// A copy of the rigid solver (the app's timeline saves one every frame): it shares the step's contact records
// and ranges, and the bodies' states and poses, instead of copying them; the steps after it write new lists,
// never the saved frame's, and neither copy nor allocate storage once the dropped frames' lists come back (of
// the bodies' arrays a CPU step copies the two it updates in place); a saved copy steps as the original did;
// and it counts its contacts in the bytes the timeline budgets.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"

using namespace vbd;

namespace {

constexpr float kH = 1.0f / 60.0f;

RigidSolver landedPile(int boxes, int steps, bool diagnostics = false) {
    SceneDesc sc = rigidPileScene(boxes, 0.5f);
    sc.solver.iterations = 6;
    sc.solver.diagnostics = diagnostics;
    RigidSolver s(sc);
    for (int i = 0; i < steps; ++i) s.step(kH);
    return s;
}

template <typename T>
bool sameBytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace

TEST(RigidCopy, SavedFramesShareTheirListsAndStepsNeitherWriteNorCopyThem) {
    RigidSolver solver = landedPile(300, 40);
    ASSERT_GT(solver.contactCount(), 500u);
    struct Saved {
        std::shared_ptr<const RigidSolver> copy;
        std::vector<Contact> contacts;  // a deep copy taken at the save
        std::vector<ManifoldRange> ranges;
    };
    std::deque<Saved> ring;
    RecordStats filled;
    for (int i = 0; i < 14; ++i) {
        solver.step(kH);
        auto copy = std::make_shared<const RigidSolver>(solver);
        EXPECT_EQ(copy->contacts().data(), solver.contacts().data());
        EXPECT_EQ(copy->manifoldRanges().data(), solver.manifoldRanges().data());
        ring.push_back({copy, solver.contacts(), solver.manifoldRanges()});
        if (ring.size() > 4) ring.pop_front();
        if (i == 5) filled = solver.contactStorage();
    }
    for (const Saved& s : ring) {
        EXPECT_TRUE(sameBytes(s.copy->contacts(), s.contacts));
        EXPECT_TRUE(sameBytes(s.copy->manifoldRanges(), s.ranges));
    }
    EXPECT_EQ(solver.contactStorage().copies, 0u);
    // Once the ring is full every step's lists go into the storage of the frame dropped before it.
    EXPECT_EQ(solver.contactStorage().allocations, filled.allocations);
}

// The bodies' states, working poses and x-, R- are shared with the saved copy too; a step writes its own:
// it copies the two arrays it updates in place (the states, which finalize writes, and v-, which the
// adaptive guess writes only for dynamic bodies) and takes new storage for the three it rewrites whole
// (syncPoses, and x-, R- in predict). The saved frames keep theirs byte for byte, and once the ring is full
// the storage comes from the frames dropped.
TEST(RigidCopy, SavedFramesKeepTheirBodiesAndAStepCopiesOnlyWhatItUpdatesInPlace) {
    RigidSolver solver = landedPile(300, 40);
    struct Saved {
        std::shared_ptr<const RigidSolver> copy;
        std::vector<RigidBodyState> states;
        std::vector<BodyPose> poses;
        std::vector<Vec3> start;
    };
    auto startPositions = [](const RigidSolver& s) {
        std::vector<Vec3> x(size_t(s.numBodies()));
        for (int i = 0; i < s.numBodies(); ++i) x[size_t(i)] = s.startPosition(i);
        return x;
    };
    std::deque<Saved> ring;
    RecordStats filled;
    for (int i = 0; i < 14; ++i) {
        const RecordStats before = solver.bodyStorage();
        solver.step(kH);
        if (i > 0) {  // a copy was saved before this step
            EXPECT_EQ(solver.bodyStorage().copies - before.copies, 2u) << "step " << i;
        }
        auto copy = std::make_shared<const RigidSolver>(solver);
        EXPECT_EQ(copy->states().data(), solver.states().data());
        EXPECT_EQ(copy->poses().data(), solver.poses().data());
        ring.push_back({copy, solver.states(), solver.poses(), startPositions(solver)});
        if (ring.size() > 4) ring.pop_front();
        if (i == 5) filled = solver.bodyStorage();
    }
    for (const Saved& s : ring) {
        EXPECT_TRUE(sameBytes(s.copy->states(), s.states));
        EXPECT_TRUE(sameBytes(s.copy->poses(), s.poses));
        EXPECT_TRUE(sameBytes(startPositions(*s.copy), s.start));
    }
    EXPECT_EQ(solver.bodyStorage().allocations, filled.allocations);
    // Unshared, a step copies nothing.
    ring.clear();
    const RecordStats alone = solver.bodyStorage();
    solver.step(kH);
    EXPECT_EQ(solver.bodyStorage().copies, alone.copies);
}

// The copy carries neither x*, R* nor the residual's |f|^2 (a step rebuilds them) and shares the bodies'
// constants: with the diagnostics (which read |f|^2 for the residual and G) and without.
TEST(RigidCopy, ACopyStepsAsTheOriginalDid) {
    for (const bool diagnostics : {false, true}) {
        RigidSolver solver = landedPile(200, 30, diagnostics);
        RigidSolver copy(solver);
        EXPECT_EQ(copy.colliders().data(), solver.colliders().data());
        std::vector<std::vector<RigidBodyState>> states;
        std::vector<std::vector<IterationRecord>> its;
        for (int i = 0; i < 5; ++i) {
            solver.step(kH);
            states.push_back(solver.states());
            its.push_back(solver.lastIterations());
        }
        const std::vector<Contact> last = solver.contacts();
        for (int i = 0; i < 5; ++i) {
            copy.step(kH);
            EXPECT_TRUE(sameBytes(copy.states(), states[size_t(i)])) << "step " << i;
            const std::vector<IterationRecord>& r = copy.lastIterations();
            ASSERT_EQ(r.size(), its[size_t(i)].size());
            for (size_t k = 0; k < r.size(); ++k) {
                EXPECT_EQ(r[k].residual, its[size_t(i)][k].residual) << "step " << i << " iteration " << k;
                EXPECT_EQ(r[k].energy, its[size_t(i)][k].energy) << "step " << i << " iteration " << k;
            }
        }
        EXPECT_TRUE(sameBytes(copy.contacts(), last));
        EXPECT_EQ(copy.contactStorage().copies, 0u);
    }
}

TEST(RigidCopy, ACopyCountsItsContacts) {
    const RigidSolver solver = landedPile(300, 40);
    const size_t records =
        solver.contactCount() * sizeof(Contact) + solver.manifoldRanges().size() * sizeof(ManifoldRange);
    const size_t bodies = size_t(solver.numBodies()) * (sizeof(RigidBodyState) + sizeof(BodyPose));
    EXPECT_GE(solver.copyBytes(), records + bodies);
    // Per body beyond its state and pose: the constants, the step's targets and previous pose, the lists
    // (~250 bytes): 1 KB bounds it.
    EXPECT_LE(solver.copyBytes(), records + bodies + size_t(solver.numBodies()) * 1024);
}
