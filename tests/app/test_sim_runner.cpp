// The simulation thread: it must stop exactly at the requested frame, publish snapshots that match the
// World, and deliver steering calls made on a snapshot to the World before its next step.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gui/sim_runner.h"

namespace vbdgui {
namespace {

// Counts steps and records which particle the drag spring held at each one.
class CountingWorld final : public vbd::World {
  public:
    explicit CountingWorld(std::shared_ptr<std::atomic<int>> steps) : steps_(std::move(steps)) {
        x_.assign(10, vbd::Vec3(0.0f));
        fixed_.assign(10, 0);
    }
    void step() override {
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
    const std::vector<vbd::Vec3>& positions() const override { return x_; }
    const std::vector<vbd::Vec3>& velocities() const override { return x_; }
    const std::vector<char>& fixedMask() const override { return fixed_; }
    const std::vector<vbd::SurfaceView>& surfaces() const override { return surfaces_; }
    int numColors() const override { return 1; }
    void scalarField(vbd::ScalarField, std::vector<float>& out) const override {
        out.assign(x_.size(), 1.0f);
    }
    std::vector<vbd::RigidBodyView> bodies() const override { return {}; }
    std::vector<vbd::ContactView> contacts() const override { return {}; }
    const std::vector<vbd::FrameMetrics>& history() const override { return history_; }
    const std::vector<vbd::IterationRecord>& lastConvergence() const override { return conv_; }
    void setSolver(const vbd::SolverDesc& s) override { desc_.solver = s; }
    void setDrag(int particle, const vbd::Vec3&, float) override { drag_ = particle; }
    void setBodyDrag(int, const vbd::Vec3&, const vbd::Vec3&, float) override {}
    int addRigidBody(const vbd::RigidBodyDesc&) override { return -1; }
    vbd::VertexInspect inspectVertex(int) const override { return {}; }
    std::vector<vbd::JointView> joints() const override { return {}; }
    std::vector<int> dragAtStep;

  private:
    std::shared_ptr<std::atomic<int>> steps_;
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

TEST(SimRunner, StopsAtTheRequestedFrameAndPublishesIt) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    SimRunner sim;
    sim.setWorld(0, std::make_unique<CountingWorld>(steps));
    sim.setStopAt(5);
    sim.setPlaying(true);
    ASSERT_TRUE(waitFor([&] { return sim.snapshot(0)->frame() == 5; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // room to overshoot if the stop were late
    EXPECT_EQ(steps->load(), 5);
    auto snap = sim.snapshot(0);
    EXPECT_EQ(snap->frame(), 5);
    EXPECT_EQ(snap->positions()[0].y, 5.0f);  // the copy is of the World after its 5th step
    ASSERT_EQ(snap->history().size(), 5u);
    EXPECT_EQ(snap->history().back().frame, 5);
}

TEST(SimRunner, DragSetOnASnapshotReachesTheWorldBeforeTheNextStep) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    auto owned = std::make_unique<CountingWorld>(steps);
    CountingWorld* world = owned.get();
    SimRunner sim;
    sim.setWorld(0, std::move(owned));
    sim.requestSteps(2);
    ASSERT_TRUE(waitFor([&] { return sim.snapshot(0)->frame() == 2; }));
    sim.snapshot(0)->setDrag(7, vbd::Vec3(1, 2, 3), 100.0f);
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return sim.snapshot(0)->frame() == 3; }));
    sim.snapshot(0)->setDrag(-1, vbd::Vec3(), 0.0f);
    sim.requestSteps(1);
    ASSERT_TRUE(waitFor([&] { return sim.snapshot(0)->frame() == 4; }));
    // Steps 1-2 had no spring, step 3 pulled particle 7, step 4 ran after the release.
    ASSERT_EQ(world->dragAtStep.size(), 4u);
    EXPECT_EQ(world->dragAtStep[0], -1);
    EXPECT_EQ(world->dragAtStep[1], -1);
    EXPECT_EQ(world->dragAtStep[2], 7);
    EXPECT_EQ(world->dragAtStep[3], -1);
}

}  // namespace
}  // namespace vbdgui
