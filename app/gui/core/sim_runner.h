#pragma once
// Simulation on its own thread, so that a slow step (a 10k-vertex beam at 10 iterations takes tens of
// milliseconds on two cores) does not hold the window's frame rate. The worker owns the Worlds and
// publishes, after every step, a WorldSnapshot: a read-only copy of what the app draws and plots. The
// snapshot is itself a vbd::World, so the renderer, picking and panels read it as they would read the
// real thing; its steering calls (setSolver, setDrag, setBodyDrag) are queued for the worker.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "world/world.h"

namespace vbdgui {

struct PendingCommands {
    bool solver = false;
    vbd::SolverDesc solverDesc;
    bool drag = false;
    int particle = -1;
    vbd::Vec3 target;
    float stiffness = 0;
    bool bodyDrag = false;
    int body = -1;
    vbd::Vec3 local, bodyTarget;
    float bodyStiffness = 0;
    std::vector<vbd::RigidBodyDesc> addBodies;  // thrown boxes, added before the next step
    int inspect = -1;                           // particle whose block the next snapshot carries
};

class WorldSnapshot final : public vbd::World {
  public:
    // Copies everything drawable from w; `field` is the heat-map field computed into the copy.
    WorldSnapshot(const vbd::World& w, vbd::ScalarField field,
                  std::shared_ptr<const std::vector<vbd::SurfaceView>> surf,
                  std::shared_ptr<std::mutex> cmdMutex, std::shared_ptr<PendingCommands> cmds);
    void step() override {}
    const vbd::SceneDesc& desc() const override { return desc_; }
    double time() const override { return time_; }
    int frame() const override { return frame_; }
    const std::vector<vbd::Vec3>& positions() const override { return x_; }
    const std::vector<vbd::Vec3>& velocities() const override { return v_; }
    const std::vector<char>& fixedMask() const override { return fixed_; }
    const std::vector<vbd::SurfaceView>& surfaces() const override { return *surfaces_; }
    int numColors() const override { return colors_; }
    void scalarField(vbd::ScalarField f, std::vector<float>& out) const override;
    std::vector<vbd::RigidBodyView> bodies() const override { return bodies_; }
    std::vector<vbd::ContactView> contacts() const override { return contacts_; }
    std::vector<vbd::JointView> joints() const override { return joints_; }
    const std::vector<vbd::FrameMetrics>& history() const override { return history_; }
    const std::vector<vbd::IterationRecord>& lastConvergence() const override { return conv_; }
    void setSolver(const vbd::SolverDesc& s) override;
    void setDrag(int particle, const vbd::Vec3& target, float stiffness) override;
    void setBodyDrag(int body, const vbd::Vec3& localPoint, const vbd::Vec3& target,
                     float stiffness) override;
    int addRigidBody(const vbd::RigidBodyDesc& body) override;
    // Answers for the particle asked about last (the request reaches the worker for the next snapshot).
    vbd::VertexInspect inspectVertex(int particle) const override;

  private:
    vbd::SceneDesc desc_;
    double time_;
    int frame_, colors_;
    std::vector<vbd::Vec3> x_, v_;
    std::vector<char> fixed_;
    std::shared_ptr<const std::vector<vbd::SurfaceView>> surfaces_;
    vbd::ScalarField field_;
    std::vector<float> fieldValues_;
    std::vector<vbd::RigidBodyView> bodies_;
    std::vector<vbd::ContactView> contacts_;
    std::vector<vbd::JointView> joints_;
    std::vector<vbd::FrameMetrics> history_;
    std::vector<vbd::IterationRecord> conv_;
    vbd::VertexInspect inspect_;
    std::shared_ptr<std::mutex> cmdMutex_;
    std::shared_ptr<PendingCommands> cmds_;
};

// Steps up to two Worlds in lockstep on a worker thread.
class SimRunner {
  public:
    SimRunner();
    ~SimRunner();
    // Replaces lab i's World (nullptr removes it); blocks until the worker is between steps.
    void setWorld(int lab, std::unique_ptr<vbd::World> w);
    // The latest snapshot of lab i (nullptr if none); cheap, safe from the UI thread.
    std::shared_ptr<WorldSnapshot> snapshot(int lab) const;
    void setPlaying(bool p);
    void requestSteps(int n);   // single steps while paused
    void setStopAt(int frame);  // never step lab 0 past this frame (-1 = no limit)
    void setField(int lab, vbd::ScalarField f) { field_[lab] = int(f); }
    void setActive(int labs);  // 1 or 2 labs step
    double lastStepMs(int lab) const { return stepMs_[lab].load(); }
    double lastTickMs() const { return tickMs_.load(); }
    std::string takeError();

  private:
    void loop();
    void publish(int lab);
    std::unique_ptr<vbd::World> worlds_[2];
    std::shared_ptr<WorldSnapshot> snaps_[2];
    std::shared_ptr<const std::vector<vbd::SurfaceView>> surfaces_[2];
    std::shared_ptr<std::mutex> cmdMutex_[2];
    std::shared_ptr<PendingCommands> cmds_[2];
    mutable std::mutex mutex_;  // guards snaps_, worlds_ replacement, flags below
    std::condition_variable cv_;
    bool playing_ = false, quit_ = false, busy_ = false;
    int steps_ = 0, stopAt_ = -1, active_ = 1;
    std::atomic<int> field_[2];
    std::atomic<double> stepMs_[2], tickMs_{0};
    std::string error_;
    std::thread thread_;
};

}  // namespace vbdgui
