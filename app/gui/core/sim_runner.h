#pragma once
// The simulation thread. It owns the Worlds (one, or two stepped in lockstep side by side), builds them,
// steps them at the pace asked for, keeps the timeline's history of states, and publishes a
// WorldSnapshot of each lab after every step or edit.
//
// Hand-off without deadlock: the UI thread never waits for the simulation thread. Everything it asks
// (replace a World, restore a frame, change the heat-map field, ...) is a command appended to a queue
// under a mutex held only for the append; the simulation thread runs queued commands between two steps,
// in order, and then publishes. Each command returns a ticket; appliedTicket() says how far the queue
// has been run (and published), which is how a caller knows that a snapshot shows its change. The
// simulation thread in turn never waits for the UI except at a gate (below), where it simply stops.
//
// Pacing: playing, lab 0's simulated time follows wall time times `speed` (real time at 1). A solver
// slower than that steps as fast as it can and realTimeRatio() reports the fraction achieved, without
// bursts to catch up. Gates (the action runner's next frame, the recorder's next frame, the screenshot
// frame) stop stepping at a frame until lifted: that is what makes actions and recordings frame exact.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gui/core/history_ring.h"
#include "gui/core/world_snapshot.h"

namespace vbdgui {

// Snapshots carry the plots' window of per-frame metrics, not the whole run.
constexpr size_t kSnapshotMetrics = 2000;

using WorldFactory = std::function<std::unique_ptr<vbd::World>(const vbd::SceneDesc&, std::string* note)>;

// What the UI learns about its requests: a World built (or refused), solver settings the World refused (it
// keeps its own and goes on stepping: World::setSolver changes nothing then), a run-time error (playing
// stops).
struct SimEvent {
    enum Kind { WorldReady, WorldRefused, SettingsRefused, StepFailed };
    SimEvent() = default;
    SimEvent(Kind k, int l, std::uint64_t t, std::string m, bool c)
        : kind(k), lab(l), ticket(t), message(std::move(m)), carried(c) {}
    Kind kind = WorldReady;
    int lab = 0;
    std::uint64_t ticket = 0;
    std::string message;   // refused / failed: why; ready: the factory's note ("" or e.g. "preview world")
    bool carried = false;  // ready: the state of the previous World was taken over
    // WorldRefused: not refused itself, but not installed because the other side's World was (side by side,
    // installing it alone would break lockstep). The other lab's event, which says why, comes first.
    bool secondary = false;
    // SettingsRefused, WorldRefused: the refused setting's key ("solver.backend"), where the World named it.
    std::string key;
};

struct TimelineInfo {
    int oldest = 0, newest = -1;  // frames the history holds (newest < oldest: none)
    size_t states = 0, bytes = 0, budget = 0;
};

enum class Gate { Screenshot, Actions, Recorder, Count };

// One lab's part in SimRunner::rebuild: build desc anew (Restart), build it and take the running World's
// state over (Carry: a parameter edit continuing from the current frame), or keep the running World (Keep:
// desc is what it would be restarted from, should lockstep ask for it).
struct LabBuild {
    enum Mode { Keep, Carry, Restart };
    int lab = 0;
    vbd::SceneDesc desc;
    Mode mode = Restart;
};

class SimRunner {
  public:
    explicit SimRunner(WorldFactory factory = {});
    ~SimRunner();
    SimRunner(const SimRunner&) = delete;
    SimRunner& operator=(const SimRunner&) = delete;

    // Builds desc on the simulation thread and gives it to lab `lab`; the previous World keeps running
    // (and being drawn) until then, and stays if desc is refused (a WorldRefused event says why). With
    // carryState the new World takes the current one's state (World::restoreState: a parameter edit that
    // needs a rebuild continues from the current frame); when the shapes differ it starts at frame 0.
    std::uint64_t replaceWorld(int lab, vbd::SceneDesc desc, bool carryState);
    // Several labs at once, in one command that also sets how many labs step (`active`, as setActive): no
    // step runs between the labs' installs, so side by side the two Worlds start at one frame and stay in
    // lockstep. Lockstep is kept whatever the outcome: a carry that does not take (the shapes differ: the
    // new World starts at frame 0) restarts the other lab too, from its entry's desc; a World refused keeps
    // its lab's World, and the other lab takes its new one only where the two stay at one frame (else it
    // gets a secondary WorldRefused event; the running Worlds go on). Before, the UI posted
    // each lab and the lab count separately, and the simulation thread could step the left World between
    // them: the two sides then stayed a frame apart for good, and a scripted run waiting for both to show
    // one frame never went on.
    std::uint64_t rebuild(std::vector<LabBuild> labs, int active);
    // A World built elsewhere (tests); nullptr removes the lab's World.
    std::uint64_t setWorld(int lab, std::unique_ptr<vbd::World> w);
    // Both labs go back to the history's state of `frame` (ignored if it holds none). The states after it
    // stay until the next step, which starts a new branch from there.
    std::uint64_t restore(int frame);
    // Re-publishes lab's snapshot with field computed (works while paused). The lab's World, and every World
    // installed later, is told that the field is wanted (World::setWantedField).
    std::uint64_t setField(int lab, vbd::ScalarField f);
    std::uint64_t setHistoryBudget(size_t bytes);
    // The inspector's vertex: both labs' snapshots carry its block from now on (re-published, also paused).
    std::uint64_t inspect(int particle);
    // Whether lab's snapshots carry the contact markers (drawn), from now on (re-published, also paused).
    std::uint64_t showContacts(int lab, bool on);

    void setPlaying(bool p);
    void requestSteps(int n);         // single steps (paused or not)
    void setSpeed(double speed);      // times real time; <= 0: unpaced (as fast as the solver goes)
    void setGate(Gate g, int frame);  // never step lab 0 past `frame`; -1 lifts the gate
    void setActive(int labs);         // 1 or 2 labs step
    // The window's interop (gui/core/interop_slots.h): after each device step of lab's World of
    // link->generation(), the records go into link's next slot (gpu/interop_cuda.h) and the snapshot names
    // it. nullptr: none (the render thread uploads every frame from the snapshot).
    void setVertexLink(int lab, std::shared_ptr<WindowVertexLink> link);

    std::shared_ptr<WorldSnapshot> snapshot(int lab) const;
    std::uint64_t appliedTicket() const { return applied_.load(); }
    std::vector<SimEvent> takeEvents();
    TimelineInfo timeline() const;
    // Simulated seconds per wall second over the last second of unobstructed playing; 0 when not playing.
    double realTimeRatio() const { return ratio_.load(); }
    double lastStepMs(int lab) const { return stepMs_[lab].load(); }
    double lastTickMs() const { return tickMs_.load(); }
    // The last tick's host time outside the Worlds' solvers: the tick less their steps (FrameMetrics::stepMs)
    // plus the steps' own metrics (measureMs): the metrics and finite check after each step, the interop
    // writes, the timeline's save and the snapshot -- what the simulation thread adds to each frame besides
    // solving (docs/gpu.md, "Interop": the < 0.5 ms target).
    double lastHostMs() const { return hostMs_.load(); }
    int frame() const { return frame_.load(); }  // lab 0's frame as last published

  private:
    using Clock = std::chrono::steady_clock;
    // Queues cmd, which runs on the simulation thread with its own ticket.
    std::uint64_t post(std::function<void(std::uint64_t ticket)> cmd);
    void loop();
    Clock::time_point nextStepDue(Clock::time_point now);  // under mutex_
    void stepLabs(int active);                             // on the simulation thread
    void install(int lab, std::unique_ptr<vbd::World> w, std::uint64_t ticket, const std::string& note,
                 const vbd::World* carryFrom);
    // A World built for lab, its static data taken before any state is carried into it.
    struct Built {
        int lab = 0;
        std::unique_ptr<vbd::World> world;
        std::shared_ptr<WorldStatic> fixed;
        std::string note;
        bool carried = false;
    };
    Built prepare(int lab, std::unique_ptr<vbd::World> w, const std::string& note,
                  const vbd::World* carryFrom);
    void commit(Built& b);  // the lab takes b's World (no publish)
    void finishInstall();   // after the commits: the timeline's start, its info
    void runRebuild(std::vector<LabBuild>& labs, int active, std::uint64_t ticket);
    // frameState: the World's save of this frame, which the snapshot reads its particles from when asked
    // (WorldSnapshot); null: copied now. field: the frame's heat-map field computed already (writeVertices),
    // or null.
    void publish(int lab, InteropFrame frame = {},
                 std::shared_ptr<const vbd::WorldState> frameState = nullptr,
                 std::vector<float>* field = nullptr);
    // On the simulation thread, right after lab's step: the interop's write of the frame, with the frame's
    // heat-map field computed into `field` for it (computed: whether it was; the snapshot then takes it).
    InteropFrame writeVertices(int lab, std::vector<float>& field, bool& computed);
    void event(SimEvent e);
    void measure(Clock::time_point start, double dt);

    WorldFactory factory_;
    // Simulation thread only.
    std::unique_ptr<vbd::World> worlds_[2];
    std::shared_ptr<const WorldStatic> static_[2];
    std::vector<vbd::FrameMetrics> metrics_[2];  // the timeline's per-frame metrics, by frame
    MetricsWindow plots_[2] = {MetricsWindow(kSnapshotMetrics), MetricsWindow(kSnapshotMetrics)};
    vbd::ScalarField field_[2] = {vbd::ScalarField::None, vbd::ScalarField::None};
    HistoryRing ring_;
    std::uint64_t generation_ = 0;
    std::shared_ptr<std::mutex> cmdMutex_[2];
    std::shared_ptr<PendingCommands> cmds_[2];
    std::deque<std::pair<Clock::time_point, double>> window_;  // (step end, simulated dt) for the ratio
    Clock::time_point lastStepEnd_;
    // Shared, under mutex_.
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::pair<std::uint64_t, std::function<void(std::uint64_t)>>> queue_;
    std::uint64_t nextTicket_ = 1;
    std::shared_ptr<WorldSnapshot> snaps_[2];
    std::shared_ptr<WindowVertexLink> links_[2];
    std::vector<SimEvent> events_;
    TimelineInfo timeline_;
    bool playing_ = false, quit_ = false, anchored_ = false;
    int steps_ = 0, active_ = 1;
    int gates_[int(Gate::Count)] = {-1, -1, -1};
    double speed_ = 1;
    Clock::time_point anchorWall_;
    double anchorSim_ = 0, simTime_ = 0, simDt_ = 1.0 / 60;
    int simFrame_ = 0;
    bool haveWorld_ = false;
    // Read anywhere.
    std::atomic<std::uint64_t> applied_{0};
    std::atomic<double> ratio_{0}, tickMs_{0}, hostMs_{0};
    std::atomic<double> stepMs_[2];
    std::atomic<int> frame_{0};
    std::thread thread_;
};

}  // namespace vbdgui
