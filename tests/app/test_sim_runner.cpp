// The simulation thread: it must stop exactly at a gate, publish snapshots that match the World, deliver
// steering calls made on a snapshot to the World before its next step, take World replacements while
// playing without ever blocking the caller, pace frames to wall time, and keep a history to go back to.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gui/core/sim_runner.h"
#include "scene/scene.h"

namespace vbdgui {
namespace {

// A WorldState of CountingWorld: the frame is all of its state; with `carries`, also the frame's positions
// and velocities (as a World's save does), counting how often they are read.
struct CountingState final : vbd::WorldState {
    size_t bytes() const override { return 1000; }
    bool carries = false;
    std::vector<vbd::Vec3> x;
    std::shared_ptr<std::atomic<int>> reads;
    bool carriesParticles() const override { return carries; }
    bool fails = false;  // as a copy from a lost device
    void particles(std::vector<vbd::Vec3>* px, std::vector<vbd::Vec3>* pv) const override {
        ++*reads;
        if (fails) throw std::runtime_error("cudaMemcpy: an illegal memory access was encountered");
        if (px) *px = x;
        if (pv) *pv = x;
    }
};

// Counts steps and records which particle the drag spring held at each one; each step can take a while
// (stepSleepMs) to stand in for a slow solver.
class CountingWorld final : public vbd::World {
  public:
    explicit CountingWorld(std::shared_ptr<std::atomic<int>> steps, int stepSleepMs = 0)
        : steps_(std::move(steps)), sleepMs_(stepSleepMs) {
        x_.assign(10, vbd::Vec3(0.0f));
        fixed_.assign(10, 0);
    }
    void step() override {
        if (sleepMs_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs_));
        if (frame_ + 1 == failAt)
            throw std::runtime_error("step failed");  // before its frame, as a device error
        ++frame_;
        x_[0].y = float(frame_);  // a visible change per step
        dragAtStep.push_back(drag_);
        vbd::FrameMetrics m;
        m.frame = frame_;
        history_.push_back(m);
        ++*steps_;
    }
    const vbd::SceneDesc& desc() const override { return desc_; }
    double time() const override { return frame_ * desc_.dt; }
    int frame() const override { return frame_; }
    const std::vector<vbd::Vec3>& positions() const override {
        ++positionReads;
        return x_;
    }
    const std::vector<vbd::Vec3>& velocities() const override {
        ++positionReads;
        return x_;
    }
    const std::vector<char>& fixedMask() const override { return fixed_; }
    const std::vector<vbd::SurfaceView>& surfaces() const override { return surfaces_; }
    std::vector<vbd::Box3> surfaceBounds() const override { return {}; }  // no surfaces (no positions read)
    std::vector<vbd::Vec3> pinPositions() const override { return {}; }   // no pins
    int numColors() const override { return 1; }
    void scalarField(vbd::ScalarField, std::vector<float>& out) const override {
        out.assign(x_.size(), float(frame_));
    }
    std::vector<vbd::RigidBodyView> bodies() const override { return {}; }
    // Three contact markers; counts how often they are made (the snapshot asks only while they are drawn).
    std::vector<vbd::ContactView> contacts() const override {
        ++contactViews;
        return std::vector<vbd::ContactView>(3);
    }
    size_t contactCount() const override { return 3; }
    vbd::MetricsSpan history() const override { return history_; }
    const std::vector<vbd::IterationRecord>& lastConvergence() const override { return conv_; }
    void setSolver(const vbd::SolverDesc& s) override { desc_.solver = s; }
    void setWantedField(vbd::ScalarField f) override { wanted = int(f); }
    void setDrag(int particle, const vbd::Vec3&, float) override { drag_ = particle; }
    void setBodyDrag(int, const vbd::Vec3&, const vbd::Vec3&, float) override {}
    int addRigidBody(const vbd::RigidBodyDesc&) override { return -1; }
    vbd::VertexInspect inspectVertex(int) const override { return {}; }
    std::vector<vbd::JointView> joints() const override { return {}; }
    std::shared_ptr<const vbd::WorldState> saveState() const override {
        auto s = std::make_shared<CountingState>();
        s->frame = frame_;
        s->carries = savesParticles;
        s->x = x_;
        s->reads = stateReads;
        return s;
    }
    bool restoreState(const vbd::WorldState& s) override {
        if (desc_.name == "reshaped") return false;  // as a World of other shapes: the carry does not take
        frame_ = s.frame;
        x_[0].y = float(frame_);
        while (!history_.empty() && history_.back().frame > frame_) history_.pop_back();
        return true;
    }
    void setName(const std::string& n) { desc_.name = n; }
    int failAt = -1;  // the step to this frame throws
    std::vector<int> dragAtStep;
    std::atomic<int> wanted{int(vbd::ScalarField::None)};  // the last setWantedField
    mutable std::atomic<int> contactViews{0};
    mutable std::atomic<int> positionReads{0};  // World::positions() and velocities()
    bool savesParticles = false;                // saveState's states carry the particles
    std::shared_ptr<std::atomic<int>> stateReads = std::make_shared<std::atomic<int>>(0);

  private:
    std::shared_ptr<std::atomic<int>> steps_;
    int sleepMs_ = 0;
    vbd::SceneDesc desc_;
    int frame_ = 0, drag_ = -1;
    std::vector<vbd::Vec3> x_;
    std::vector<char> fixed_;
    std::vector<vbd::SurfaceView> surfaces_;
    std::vector<vbd::FrameMetrics> history_;
    std::vector<vbd::IterationRecord> conv_;
};

// Polls until pred holds; the 20 s limit only guards against a hang (it is not a timing assertion).
template <typename P>
bool waitFor(P pred) {
    auto t0 = std::chrono::steady_clock::now();
    while (!pred()) {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(20)) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

int frameOf(const SimRunner& sim) {
    auto s = sim.snapshot(0);
    return s ? s->frame() : -1;
}

TEST(SimRunner, StopsAtTheGateAndPublishesIt) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setWorld(0, std::make_unique<CountingWorld>(steps));
    sim.setSpeed(0);  // unpaced: only the gate stops it
    sim.setGate(Gate::Screenshot, 5);
    sim.setPlaying(true);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 5; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // room to overshoot if the stop were late
    EXPECT_EQ(steps->load(), 5);
    auto snap = sim.snapshot(0);
    EXPECT_EQ(snap->frame(), 5);
    EXPECT_EQ(snap->positions()[0].y, 5.0f);  // the copy is of the World after its 5th step
    ASSERT_EQ(snap->history().size(), 5u);
    EXPECT_EQ(snap->history().back().frame, 5);
    sim.setGate(Gate::Screenshot, 8);  // lifting the gate to a later frame lets it run there
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 8; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(steps->load(), 8);
}

TEST(SimRunner, DragSetOnASnapshotReachesTheWorldBeforeTheNextStep) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    auto owned = std::make_unique<CountingWorld>(steps);
    CountingWorld* world = owned.get();
    SimRunner sim;
    sim.setWorld(0, std::move(owned));
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 0; }));
    sim.requestSteps(2);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 2; }));
    sim.snapshot(0)->setDrag(7, vbd::Vec3(1, 2, 3), 100.0f);
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 3; }));
    sim.snapshot(0)->setDrag(-1, vbd::Vec3(), 0.0f);
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 4; }));
    // Steps 1-2 had no spring, step 3 pulled particle 7, step 4 ran after the release.
    ASSERT_EQ(world->dragAtStep.size(), 4u);
    EXPECT_EQ(world->dragAtStep[0], -1);
    EXPECT_EQ(world->dragAtStep[1], -1);
    EXPECT_EQ(world->dragAtStep[2], 7);
    EXPECT_EQ(world->dragAtStep[3], -1);
}

// The freeze of issue 15: replacing the World while the simulation plays. Each step takes 200 ms; every
// call returns at once instead of waiting for the step in progress (the blocking hand-off waited for it,
// and for ever when the thread kept stepping), and frames keep advancing after each replacement.
TEST(SimRunner, ReplacingTheWorldWhilePlayingNeverBlocks) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setSpeed(0);
    sim.setWorld(0, std::make_unique<CountingWorld>(steps, 200));
    sim.setPlaying(true);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) >= 1; }));
    double worstMs = 0;
    for (int i = 0; i < 6; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint64_t ticket = sim.setWorld(0, std::make_unique<CountingWorld>(steps, 200));
        sim.setPlaying(true);
        worstMs = std::max(
            worstMs,
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        // The new World is in place and steps on.
        ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= ticket; })) << "replacement " << i;
        ASSERT_TRUE(waitFor([&] { return frameOf(sim) >= 1; })) << "replacement " << i;
    }
    // Appending to a queue under a mutex no one holds across a step takes microseconds; half a step (100 ms)
    // leaves room for a descheduled thread on a loaded machine and still fails a wait for the step.
    EXPECT_LT(worstMs, 100.0);
}

// A factory of CountingWorlds named after the desc ("bad" is refused, "reshaped" takes no carried state),
// with a World build of buildUs microseconds.
WorldFactory countingFactory(std::shared_ptr<std::atomic<int>> steps, int buildUs = 0) {
    return [steps, buildUs](const vbd::SceneDesc& d, std::string*) -> std::unique_ptr<vbd::World> {
        if (d.name == "bad") throw std::runtime_error("bad.json: refused");
        if (buildUs > 0) std::this_thread::sleep_for(std::chrono::microseconds(buildUs));
        auto w = std::make_unique<CountingWorld>(steps);
        w->setName(d.name);
        if (d.name == "fail3") w->failAt = 3;
        return w;
    };
}

std::vector<LabBuild> labBuilds(LabBuild::Mode left, const std::string& leftName, LabBuild::Mode right,
                                const std::string& rightName) {
    std::vector<LabBuild> b(2);
    b[0].lab = 0, b[0].mode = left, b[0].desc.name = leftName;
    b[1].lab = 1, b[1].mode = right, b[1].desc.name = rightName;
    return b;
}

int frameOfLab(const SimRunner& sim, int lab) {
    auto s = sim.snapshot(lab);
    return s ? s->frame() : -1;
}

// Side by side from frame 0 (left "a", right `right`), played unpaced up to the gate, then paused there.
bool playSideBySideTo(SimRunner& sim, const std::string& right, int gate) {
    sim.setSpeed(0);
    sim.setGate(Gate::Actions, gate);
    sim.setPlaying(true);
    sim.rebuild(labBuilds(LabBuild::Restart, "a", LabBuild::Restart, right), 2);
    const bool there = waitFor([&] { return frameOfLab(sim, 0) == gate && frameOfLab(sim, 1) == gate; });
    sim.setPlaying(false);
    return there;
}

// Side by side turned on while the left World plays (the hang of the twenty-eighth session: the UI posted
// each lab's World and the lab count apart, and the simulation thread stepped the left World in between;
// the sides then stayed a frame apart and a scripted run waiting for both to show one frame never went on).
// One rebuild command installs both and sets the count before any step: every time, at the gate, both
// labs show the gate's frame. The World builds take 300 us so that a step in between had room to happen.
TEST(SimRunner, BothLabsRestartedTogetherStayInLockstep) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim(countingFactory(steps, 300));
    sim.setSpeed(0);
    sim.setPlaying(true);
    for (int round = 0; round < 20; ++round) {
        sim.setGate(Gate::Actions, 5);
        // The left World alone, playing up to the gate, then both restarted (as "compare": true does).
        std::uint64_t t = sim.rebuild(labBuilds(LabBuild::Restart, "a", LabBuild::Keep, "a"), 1);
        ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t && frameOfLab(sim, 0) == 5; }));
        sim.setGate(Gate::Actions, 8);
        t = sim.rebuild(labBuilds(LabBuild::Restart, "a", LabBuild::Restart, "a"), 2);
        ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t && frameOfLab(sim, 0) == 8; }))
            << "round " << round;
        ASSERT_TRUE(waitFor([&] { return frameOfLab(sim, 1) == 8; }))
            << "round " << round << ": the right side is at frame " << frameOfLab(sim, 1);
        sim.setWorld(1, nullptr);  // side by side off
    }
}

// A carry that does not take (the new World's shapes differ, so it starts at frame 0) restarts the other
// side too; one that takes leaves both at the frame they were at.
TEST(SimRunner, ACarryThatDoesNotTakeRestartsTheOtherLab) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim(countingFactory(steps));
    ASSERT_TRUE(playSideBySideTo(sim, "a", 5));
    const std::uint64_t leftGeneration = sim.snapshot(0)->generation();
    sim.takeEvents();

    std::uint64_t t = sim.rebuild(labBuilds(LabBuild::Keep, "a", LabBuild::Carry, "b"), 2);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(frameOfLab(sim, 1), 5);  // carried
    EXPECT_EQ(frameOfLab(sim, 0), 5);
    EXPECT_EQ(sim.snapshot(0)->generation(), leftGeneration);  // the left World is the same one
    auto events = sim.takeEvents();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_TRUE(events[0].carried);

    t = sim.rebuild(labBuilds(LabBuild::Keep, "a", LabBuild::Carry, "reshaped"), 2);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(frameOfLab(sim, 1), 0);
    EXPECT_EQ(frameOfLab(sim, 0), 0);  // restarted with it
    EXPECT_NE(sim.snapshot(0)->generation(), leftGeneration);
    EXPECT_EQ(sim.snapshot(0)->desc().name, "a");  // from its entry's desc
    events = sim.takeEvents();
    ASSERT_EQ(events.size(), 2u);
    for (const SimEvent& e : events) {
        EXPECT_EQ(e.kind, SimEvent::WorldReady);
        EXPECT_FALSE(e.carried);
    }
    EXPECT_EQ(sim.timeline().newest, 0);  // the timeline starts again at the pair's frame 0
}

// Side by side, a refused World keeps its lab's World; the other side takes its new one only where both then
// show one frame (else none is installed, and each lab learns why, the reason first).
TEST(SimRunner, ARefusedWorldSideBySideKeepsLockstep) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim(countingFactory(steps));
    ASSERT_TRUE(playSideBySideTo(sim, "a", 3));
    const std::uint64_t g0 = sim.snapshot(0)->generation(), g1 = sim.snapshot(1)->generation();
    sim.takeEvents();
    const std::uint64_t t = sim.rebuild(labBuilds(LabBuild::Restart, "a", LabBuild::Restart, "bad"), 2);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(sim.snapshot(0)->generation(), g0);
    EXPECT_EQ(sim.snapshot(1)->generation(), g1);
    EXPECT_EQ(frameOfLab(sim, 0), 3);
    EXPECT_EQ(frameOfLab(sim, 1), 3);
    auto events = sim.takeEvents();
    ASSERT_EQ(events.size(), 2u);
    // The reason first, then the side not installed because of it.
    EXPECT_EQ(events[0].kind, SimEvent::WorldRefused);
    EXPECT_EQ(events[0].lab, 1);
    EXPECT_EQ(events[0].message, "bad.json: refused");
    EXPECT_FALSE(events[0].secondary);
    EXPECT_EQ(events[1].kind, SimEvent::WorldRefused);
    EXPECT_EQ(events[1].lab, 0);
    EXPECT_EQ(events[1].message, "not installed: the World of the right side was refused");
    EXPECT_TRUE(events[1].secondary);

    // An edit carried on both sides and refused on the right: the left takes it (both stay at frame 3).
    const std::uint64_t t2 = sim.rebuild(labBuilds(LabBuild::Carry, "a2", LabBuild::Carry, "bad"), 2);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t2; }));
    EXPECT_NE(sim.snapshot(0)->generation(), g0);
    EXPECT_EQ(sim.snapshot(0)->desc().name, "a2");
    EXPECT_EQ(sim.snapshot(1)->generation(), g1);
    EXPECT_EQ(frameOfLab(sim, 0), 3);
    EXPECT_EQ(frameOfLab(sim, 1), 3);
    events = sim.takeEvents();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, SimEvent::WorldRefused);
    EXPECT_EQ(events[0].lab, 1);
    EXPECT_EQ(events[1].kind, SimEvent::WorldReady);
    EXPECT_EQ(events[1].lab, 0);
    EXPECT_TRUE(events[1].carried);
}

// Side by side, a step that throws on one side before its frame (a device error) while the other side's
// step went through: both go back to the frame they started from, and the run stops there (StepFailed).
// Before, the sides stayed a frame apart, and the timeline's entry paired the left's frame with the right's
// previous one.
TEST(SimRunner, AStepFailingOnOneSideKeepsLockstep) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim(countingFactory(steps));
    sim.setSpeed(0);
    sim.setGate(Gate::Actions, 10);
    sim.rebuild(labBuilds(LabBuild::Restart, "a", LabBuild::Restart, "fail3"), 2);
    sim.setPlaying(true);
    bool failed = false;
    ASSERT_TRUE(waitFor([&] {
        for (const SimEvent& e : sim.takeEvents()) failed |= e.kind == SimEvent::StepFailed && e.lab == 1;
        return failed;
    }));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // stopped: nothing more steps
    EXPECT_EQ(frameOfLab(sim, 0), 2);
    EXPECT_EQ(frameOfLab(sim, 1), 2);
    EXPECT_EQ(sim.timeline().newest, 2);
}

// Real-time pacing: at speed 1 the simulated time never runs ahead of wall time (dt = 1/60 s), and at
// speed 0.5 half as far; a solver slower than real time reports the fraction it achieves.
TEST(SimRunner, PacesSimulatedTimeToWallTime) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setWorld(0, std::make_unique<CountingWorld>(steps));
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 0; }));
    const auto t0 = std::chrono::steady_clock::now();
    sim.setPlaying(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const int f = frameOf(sim);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Never ahead: at most one frame per 1/60 s of wall time, plus the frame taken at the start.
    EXPECT_LE(f, int(wall * 60) + 1);
    EXPECT_GE(f, 10);  // a loose lower bound: a loaded machine may delay the thread
    // Measured, and not above the pace (the lower bound only says it was measured: a loaded machine can
    // starve the thread).
    const double ratio = sim.realTimeRatio();
    EXPECT_LE(ratio, 1.1);
    EXPECT_GT(ratio, 0.1);
    sim.setPlaying(false);
    EXPECT_EQ(sim.realTimeRatio(), 0.0);

    const int f0 = frameOf(sim);
    sim.setSpeed(0.5);
    const auto t1 = std::chrono::steady_clock::now();
    sim.setPlaying(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const double wall1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    EXPECT_LE(frameOf(sim) - f0, int(wall1 * 30) + 2);
}

TEST(SimRunner, ReportsTheFractionOfRealTimeOfASlowSolver) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setWorld(0, std::make_unique<CountingWorld>(steps, 50));  // 50 ms a step for 16.7 ms of time
    sim.setPlaying(true);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) >= 25; }));
    // 16.7 / 50 = 0.33 at best; the lower bound leaves room for a loaded machine.
    const double ratio = sim.realTimeRatio();
    EXPECT_LE(ratio, 0.36);
    EXPECT_GE(ratio, 0.05);
}

// The timeline: going back to a frame shows it; the next step starts a branch there (later states are
// dropped); the memory budget bounds the states kept.
TEST(SimRunner, RestoresAFrameAndBranchesFromIt) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setSpeed(0);
    sim.setWorld(0, std::make_unique<CountingWorld>(steps));
    sim.setGate(Gate::Actions, 10);
    sim.setPlaying(true);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 10; }));
    sim.setPlaying(false);
    TimelineInfo t = sim.timeline();
    EXPECT_EQ(t.oldest, 0);
    EXPECT_EQ(t.newest, 10);
    EXPECT_EQ(t.states, 11u);
    EXPECT_EQ(t.bytes, 11u * 1000);
    const std::uint64_t ticket = sim.restore(3);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= ticket; }));
    EXPECT_EQ(frameOf(sim), 3);
    EXPECT_EQ(sim.snapshot(0)->positions()[0].y, 3.0f);
    EXPECT_EQ(sim.snapshot(0)->history().size(), 3u);  // the plots end at the shown frame
    EXPECT_EQ(sim.timeline().newest, 10);              // nothing is lost until a step is taken
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 4; }));
    t = sim.timeline();
    EXPECT_EQ(t.newest, 4);
    EXPECT_EQ(t.states, 5u);
    const std::uint64_t b = sim.setHistoryBudget(3 * 1000);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= b; }));
    t = sim.timeline();
    EXPECT_EQ(t.states, 3u);
    EXPECT_EQ(t.oldest, 2);
    EXPECT_LE(t.bytes, t.budget);
}

// Side by side, a timeline frame restored on one lab and refused by the other (its restoreState fails)
// restores neither: both stay at the frame shown.
TEST(SimRunner, ARestoreRefusedByOneLabRestoresNeither) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim(countingFactory(steps));
    ASSERT_TRUE(playSideBySideTo(sim, "reshaped", 5));
    const std::uint64_t t = sim.restore(2);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(frameOfLab(sim, 0), 5);
    EXPECT_EQ(frameOfLab(sim, 1), 5);
}

// A heat-map field chosen while paused is computed and published without a step.
TEST(SimRunner, FieldChosenWhilePausedIsPublished) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setWorld(0, std::make_unique<CountingWorld>(steps));
    sim.requestSteps(2);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 2; }));
    EXPECT_TRUE(sim.snapshot(0)->fieldValues().empty());
    const std::uint64_t t = sim.setField(0, vbd::ScalarField::Residual);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    auto s = sim.snapshot(0);
    EXPECT_EQ(s->frame(), 2);
    ASSERT_EQ(s->fieldValues().size(), 10u);
    EXPECT_EQ(s->fieldValues()[0], 2.0f);
    EXPECT_EQ(steps->load(), 2);
}

// The lab's field reaches its World as a wish (World::setWantedField: the CUDA backend downloads the
// residual only while it is wanted), and a World installed later gets the same wish.
TEST(SimRunner, FieldWishReachesEveryWorldOfTheLab) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    auto first = std::make_unique<CountingWorld>(steps);
    CountingWorld* w1 = first.get();
    std::uint64_t t = sim.setWorld(0, std::move(first));
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(w1->wanted.load(), int(vbd::ScalarField::None));
    t = sim.setField(0, vbd::ScalarField::Residual);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(w1->wanted.load(), int(vbd::ScalarField::Residual));
    auto second = std::make_unique<CountingWorld>(steps);
    CountingWorld* w2 = second.get();
    t = sim.setWorld(0, std::move(second));  // w1 is destroyed here
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(w2->wanted.load(), int(vbd::ScalarField::Residual));
    t = sim.setField(0, vbd::ScalarField::None);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_EQ(w2->wanted.load(), int(vbd::ScalarField::None));
}

TEST(SimRunner, ContactMarkersAreMadeOnlyWhileDrawn) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    auto owned = std::make_unique<CountingWorld>(steps);
    CountingWorld* world = owned.get();
    SimRunner sim;
    sim.setWorld(0, std::move(owned));
    sim.requestSteps(3);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 3; }));
    EXPECT_EQ(world->contactViews.load(), 0);
    EXPECT_EQ(sim.snapshot(0)->contactCount(), 3u);  // the status line's count, without the markers
    EXPECT_TRUE(sim.snapshot(0)->contacts().empty());
    sim.showContacts(0, true);  // re-published with them, while paused
    ASSERT_TRUE(waitFor([&] { return sim.snapshot(0)->contacts().size() == 3; }));
    EXPECT_EQ(frameOf(sim), 3);
    // A rebuilt World keeps the wish.
    auto steps2 = std::make_shared<std::atomic<int>>(0);
    sim.setWorld(0, std::make_unique<CountingWorld>(steps2));
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 1; }));
    EXPECT_EQ(sim.snapshot(0)->contacts().size(), 3u);
    sim.showContacts(0, false);
    ASSERT_TRUE(waitFor([&] { return sim.snapshot(0)->contacts().empty(); }));
    EXPECT_EQ(sim.snapshot(0)->contactCount(), 3u);
}

// A stepped frame's snapshot takes its particles from the frame's save, and only when read (on the reader's
// thread): stepping reads no positions from the World, the snapshot's positions are that frame's (x[0].y =
// frame), read from the save once however often they are asked for. A publish without a step (a field
// chosen) copies them from the World as before, as does a World whose saves keep no particles.
TEST(SimRunner, SteppedSnapshotsReadTheirParticlesFromTheFramesSaveWhenAsked) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    auto owned = std::make_unique<CountingWorld>(steps);
    CountingWorld* world = owned.get();
    world->savesParticles = true;
    SimRunner sim;
    sim.setWorld(0, std::move(owned));
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 0; }));
    const int afterInstall = world->positionReads.load();  // the install's own reads (rest tags, framing)
    sim.requestSteps(4);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 4; }));
    EXPECT_EQ(world->positionReads.load(), afterInstall);
    auto snap = sim.snapshot(0);
    EXPECT_FALSE(snap->positionsRead());
    EXPECT_EQ(world->stateReads->load(), 0);
    EXPECT_EQ(snap->numParticles(), 10u);  // without reading them
    EXPECT_EQ(snap->positions()[0].y, 4.0f);
    EXPECT_EQ(snap->positions()[0].y, 4.0f);
    EXPECT_TRUE(snap->positionsRead());
    EXPECT_EQ(world->stateReads->load(), 1);
    EXPECT_EQ(snap->velocities().size(), 10u);
    EXPECT_EQ(world->stateReads->load(), 2);
    // A field chosen while paused re-publishes frame 4 without a save: copied from the World.
    const int before = world->positionReads.load();
    const auto t = sim.setField(0, vbd::ScalarField::Residual);
    ASSERT_TRUE(waitFor([&] { return sim.appliedTicket() >= t; }));
    EXPECT_GT(world->positionReads.load(), before);
    EXPECT_TRUE(sim.snapshot(0)->positionsRead());
    EXPECT_EQ(sim.snapshot(0)->positions()[0].y, 4.0f);
    // Saves without particles: every stepped snapshot copies them.
    world->savesParticles = false;
    const int copied = world->positionReads.load();
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 5; }));
    EXPECT_GT(world->positionReads.load(), copied);
    EXPECT_EQ(sim.snapshot(0)->positions()[0].y, 5.0f);
}

// The hover's ray set on a snapshot (castRay) reaches the World before its next step, which casts it where
// its state is (a device World, the host executor standing in for the device; the simulation thread makes
// it lazy): the snapshot after that step carries the hit, asking it for that ray reads none of the frame's
// positions, and the hit is the host's cast over those positions bit for bit. A ray taken away (nullopt) is
// no longer cast.
TEST(SimRunner, TheHoverRayIsCastByTheNextStepAndReadWithoutThePositions) {
    vbd::SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/beam_sag.json");
    d.solver.backend = vbd::Backend::Cuda;
    d.solver.threads = 1;
    vbd::WorldOptions o;
    o.hostExecutor = true;
    SimRunner sim;
    sim.setWorld(0, vbd::World::create(d, o));
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 0; }));
    const auto first = sim.snapshot(0);
    const std::vector<vbd::Vec3>& x0 = first->positions();
    const auto& tri = first->surfaces()[0].tris[17];
    const vbd::Vec3 c = (x0[size_t(tri[0])] + x0[size_t(tri[1])] + x0[size_t(tri[2])]) * (1.f / 3.f);
    const vbd::SurfaceRay ray{c + vbd::Vec3(0.5f, 2, 0.3f), vbd::normalized(vbd::Vec3(-0.5f, -2, -0.3f))};
    first->castRay(ray);
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 1; }));
    const auto snap = sim.snapshot(0);
    const auto cast = snap->castSurfaceHit();
    ASSERT_TRUE(cast.has_value());
    EXPECT_TRUE(cast->ray == ray);
    const vbd::SurfaceHit hit = snap->surfaceHit(ray);
    EXPECT_TRUE(hit.hit());
    EXPECT_FALSE(snap->positionsRead());
    const vbd::SurfaceHit host = vbd::castSurfaces(snap->surfaces(), snap->positions(), ray);
    EXPECT_EQ(hit.t, host.t);
    EXPECT_EQ(hit.triangle, host.triangle);
    EXPECT_EQ(hit.particle, host.particle);
    snap->castRay(std::nullopt);
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return frameOf(sim) == 2; }));
    EXPECT_FALSE(sim.snapshot(0)->castSurfaceHit().has_value());
}

// A save whose particles cannot be read any more (a device lost after the step) gives the reader the World's
// first positions, of the right size, instead of an exception on the render thread.
TEST(WorldSnapshot, AFailedReadOfTheSavedParticlesGivesTheFirstPositions) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    CountingWorld world(steps);
    auto fixed = std::make_shared<WorldStatic>();
    fixed->initialPositions = world.positions();
    world.step();
    world.savesParticles = true;
    auto saved = std::const_pointer_cast<vbd::WorldState>(world.saveState());
    static_cast<CountingState&>(*saved).fails = true;
    WorldSnapshot snap(world, vbd::ScalarField::None, fixed, {}, std::make_shared<std::mutex>(),
                       std::make_shared<PendingCommands>(), saved);
    ASSERT_EQ(snap.positions().size(), 10u);
    EXPECT_EQ(snap.positions()[0].y, 0.0f);  // frame 0's, not the step's 1
    EXPECT_EQ(snap.velocities().size(), 10u);
    EXPECT_TRUE(snap.positionsRead());
}

// The particles the UI reads one by one (the picked vertex, a dragged particle, marked vertices) are watched:
// the snapshot carries their positions, equal to the World's, and reading them leaves the others unread (a
// frame taken from its save would otherwise bring every position from the device for one of them). Repeats
// and indices out of range are dropped; an unwatched particle reads positions().
TEST(WorldSnapshot, WatchedParticlesAreReadWithoutThePositions) {
    vbd::SceneDesc d;
    d.softBodies.push_back({});
    d.softBodies[0].min = {0, 2, 0};
    d.softBodies[0].max = {1, 3, 1};
    auto world = vbd::World::create(d);
    const int n = int(world->numParticles());
    ASSERT_GT(n, 20);
    world->setWatchedParticles({3, n - 1, 3, -1, n});
    const std::vector<vbd::Vec3> x0 = world->positions();
    for (int f = 0; f < 5; ++f) world->step();  // falling: not the first positions
    const auto watched = world->watchedPositions();
    ASSERT_EQ(watched.size(), 2u);
    auto fixed = std::make_shared<WorldStatic>();
    auto cmds = std::make_shared<PendingCommands>();
    WorldSnapshot snap(*world, vbd::ScalarField::None, fixed, {}, std::make_shared<std::mutex>(), cmds,
                       world->saveState());
    for (int i : {3, n - 1}) {
        const vbd::Vec3 p = snap.particlePosition(i), q = world->positions()[size_t(i)];
        EXPECT_EQ(p.x, q.x) << i;
        EXPECT_EQ(p.y, q.y) << i;
        EXPECT_EQ(p.z, q.z) << i;
        EXPECT_LT(p.y, x0[size_t(i)].y) << i;  // it fell
    }
    EXPECT_FALSE(snap.positionsRead());
    EXPECT_EQ(snap.particlePosition(4).y, world->positions()[4].y);
    EXPECT_TRUE(snap.positionsRead());
    // The UI's list reaches the simulation thread through the pending commands.
    snap.watch({4, 2});
    EXPECT_EQ(cmds->watch, (std::vector<int>{4, 2}));
}

// The region label's anchor (regionAnchors): a vertex of the region, in its middle at rest. The contrast
// bar's stiff region is the box x in [2, 4] of the bar [0, 4] x [1, 2] x [0, 1]: its tagged (surface)
// vertices' centroid is (3, 1.5, 0.5), and the anchor is a vertex of the region nearest to it.
TEST(WorldSnapshot, TheRegionLabelsAnchorIsInTheMiddleOfItsRegion) {
    auto world = vbd::World::create(
        vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/contrast_bar.json"));
    const std::vector<unsigned char> tags = materialTags(*world);
    const std::array<int, 3> anchors = regionAnchors(tags, world->positions());
    EXPECT_EQ(anchors[kBaseMaterial], -1);
    EXPECT_EQ(anchors[kSofterRegion], -1);  // no softer region
    const int a = anchors[kStifferRegion];
    ASSERT_GE(a, 0);
    EXPECT_EQ(tags[size_t(a)], kStifferRegion);
    const vbd::Vec3 p = world->positions()[size_t(a)];
    EXPECT_GE(p.x, 2.0f);
    // Surface vertices only: the nearest are the centres of the long faces, half the section away.
    EXPECT_NEAR(vbd::norm(p - vbd::Vec3(3, 1.5f, 0.5f)), 0.5f, 1e-5f);
}

}  // namespace
}  // namespace vbdgui
