#include "gui/core/sim_runner.h"

#include <algorithm>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "math/error.h"
#include "mesh/isolated.h"

namespace vbdgui {

namespace {

// Default history budget: enough for thousands of frames of the built-in scenes (a contrast bar state is
// ~60 KB) and a few hundred of a 10k-vertex beam; the timeline panel changes it.
constexpr size_t kDefaultHistoryBytes = size_t(512) << 20;
// A solver slower than the pace is not made to catch up: further behind than this, pacing restarts.
constexpr double kMaxLagSeconds = 0.1;

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

SimRunner::SimRunner(WorldFactory factory) : factory_(std::move(factory)), ring_(kDefaultHistoryBytes) {
    if (!factory_) factory_ = [](const vbd::SceneDesc& d, std::string*) { return vbd::World::create(d); };
    for (int i = 0; i < 2; ++i) {
        stepMs_[i] = 0;
        cmdMutex_[i] = std::make_shared<std::mutex>();
        cmds_[i] = std::make_shared<PendingCommands>();
    }
    timeline_.budget = ring_.budget();
    thread_ = std::thread([this] { loop(); });
}

SimRunner::~SimRunner() {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        quit_ = true;
    }
    cv_.notify_all();
    // A World being built may be importing a mesh (TetGen for up to its deadline, mesh/isolated.h): stopped,
    // so that closing the app does not wait for it.
    vbd::cancelIsolatedRuns(true);
    thread_.join();
    vbd::cancelIsolatedRuns(false);
}

std::uint64_t SimRunner::post(std::function<void(std::uint64_t)> cmd) {
    std::uint64_t t;
    {
        std::lock_guard<std::mutex> lk(mutex_);
        t = nextTicket_++;
        queue_.emplace_back(t, std::move(cmd));
    }
    cv_.notify_all();
    return t;
}

std::uint64_t SimRunner::replaceWorld(int lab, vbd::SceneDesc desc, bool carryState) {
    std::vector<LabBuild> one(1);
    one[0].lab = lab;
    one[0].desc = std::move(desc);
    one[0].mode = carryState ? LabBuild::Carry : LabBuild::Restart;
    return rebuild(std::move(one), -1);
}

std::uint64_t SimRunner::rebuild(std::vector<LabBuild> labs, int active) {
    auto holder = std::make_shared<std::vector<LabBuild>>(std::move(labs));
    return post([this, holder, active](std::uint64_t ticket) { runRebuild(*holder, active, ticket); });
}

std::uint64_t SimRunner::setWorld(int lab, std::unique_ptr<vbd::World> w) {
    auto holder = std::make_shared<std::unique_ptr<vbd::World>>(std::move(w));
    return post(
        [this, lab, holder](std::uint64_t ticket) { install(lab, std::move(*holder), ticket, "", nullptr); });
}

std::uint64_t SimRunner::restore(int frame) {
    return post([this, frame](std::uint64_t) {
        const HistoryRing::Entry* e = ring_.find(frame);
        if (!e) return;
        // Both labs or neither: one restored alone would leave the two sides apart.
        std::shared_ptr<const vbd::WorldState> now[2];
        for (int l = 0; l < 2; ++l)
            if (worlds_[l]) now[l] = worlds_[l]->saveState();
        bool ok = true;
        for (int l = 0; l < 2 && ok; ++l)
            if (worlds_[l] && e->state[l]) ok = worlds_[l]->restoreState(*e->state[l]);
        if (!ok)
            for (int l = 0; l < 2; ++l)
                if (worlds_[l] && now[l]) worlds_[l]->restoreState(*now[l]);
        for (int l = 0; l < 2; ++l) publish(l);
    });
}

std::uint64_t SimRunner::setField(int lab, vbd::ScalarField f) {
    return post([this, lab, f](std::uint64_t) {
        if (field_[lab] == f) return;
        field_[lab] = f;
        if (worlds_[lab]) worlds_[lab]->setWantedField(f);  // the device backend then keeps it (World)
        publish(lab);
    });
}

std::uint64_t SimRunner::inspect(int particle) {
    return post([this, particle](std::uint64_t) {
        for (int l = 0; l < 2; ++l) {
            {
                std::lock_guard<std::mutex> c(*cmdMutex_[l]);
                cmds_[l]->inspect = particle;
            }
            publish(l);
        }
    });
}

std::uint64_t SimRunner::showContacts(int lab, bool on) {
    return post([this, lab, on](std::uint64_t) {
        {
            std::lock_guard<std::mutex> c(*cmdMutex_[lab]);
            if (cmds_[lab]->contacts == on) return;
            cmds_[lab]->contacts = on;
        }
        publish(lab);
    });
}

std::uint64_t SimRunner::setHistoryBudget(size_t bytes) {
    return post([this, bytes](std::uint64_t) {
        ring_.setBudget(bytes);
        std::lock_guard<std::mutex> lk(mutex_);
        timeline_ = {ring_.oldest(), ring_.newest(), ring_.size(), ring_.bytes(), ring_.budget()};
    });
}

void SimRunner::setPlaying(bool p) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        if (playing_ == p) return;
        playing_ = p;
        anchored_ = false;
    }
    if (!p) ratio_ = 0;
    cv_.notify_all();
}

void SimRunner::requestSteps(int n) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        steps_ += n;
    }
    cv_.notify_all();
}

void SimRunner::setSpeed(double speed) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        if (speed_ == speed) return;
        speed_ = speed;
        anchored_ = false;
    }
    cv_.notify_all();
}

void SimRunner::setGate(Gate g, int frame) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        gates_[int(g)] = frame;
    }
    cv_.notify_all();
}

void SimRunner::setActive(int labs) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        active_ = labs;
    }
    cv_.notify_all();
}

std::shared_ptr<WorldSnapshot> SimRunner::snapshot(int lab) const {
    std::lock_guard<std::mutex> lk(mutex_);
    return snaps_[lab];
}

std::vector<SimEvent> SimRunner::takeEvents() {
    std::lock_guard<std::mutex> lk(mutex_);
    std::vector<SimEvent> e;
    std::swap(e, events_);
    return e;
}

TimelineInfo SimRunner::timeline() const {
    std::lock_guard<std::mutex> lk(mutex_);
    return timeline_;
}

void SimRunner::event(SimEvent e) {
    std::lock_guard<std::mutex> lk(mutex_);
    if (e.kind == SimEvent::StepFailed) playing_ = false;
    events_.push_back(std::move(e));
}

// ---------------------------------------------------------------------------------------------------
// Simulation thread.

void SimRunner::runRebuild(std::vector<LabBuild>& labs, int active, std::uint64_t ticket) {
    int act;
    {
        std::lock_guard<std::mutex> lk(mutex_);
        if (active >= 1) active_ = active;  // before any step that follows this command
        act = active_;
    }
    auto entry = [&](int lab) -> LabBuild* {
        for (auto& b : labs)
            if (b.lab == lab) return &b;
        return nullptr;
    };
    // Builds lab's entry (carried or not); a refusal leaves `refused` set.
    std::string refused[2], refusedKey[2];
    auto build = [&](const LabBuild& e, bool carry) -> Built {
        std::string note;
        std::unique_ptr<vbd::World> w;
        try {
            w = factory_(e.desc, &note);
        } catch (const vbd::InputError& ex) {  // e.g. solver.backend: cuda without a device
            refusedKey[e.lab] = ex.key();
            refused[e.lab] = vbd::namingFile(ex, e.desc.file.empty() ? e.desc.name : e.desc.file).what();
        } catch (const std::exception& ex) {
            refused[e.lab] = ex.what();
        }
        // Refused: a Built without a World (w is null).
        return prepare(e.lab, std::move(w), note, carry ? worlds_[e.lab].get() : nullptr);
    };
    std::vector<Built> built;
    for (const LabBuild& e : labs) {
        if (e.mode == LabBuild::Keep || e.lab < 0 || e.lab > 1) continue;
        built.push_back(build(e, e.mode == LabBuild::Carry));
    }
    // Lockstep: side by side, both labs must show one frame after this command. A lab that starts over
    // (restarted, or its carry did not take) while the other stays at another frame restarts the other too.
    auto frameAfter = [&](int lab) -> int {
        for (const Built& b : built)
            if (b.lab == lab && b.world) return b.world->frame();
        return worlds_[lab] ? worlds_[lab]->frame() : -1;
    };
    if (act == 2 && refused[0].empty() && refused[1].empty() && frameAfter(0) >= 0 && frameAfter(1) >= 0 &&
        frameAfter(0) != frameAfter(1)) {
        for (int l = 0; l < 2; ++l) {
            auto it = std::find_if(built.begin(), built.end(), [&](const Built& b) { return b.lab == l; });
            const bool fresh = it != built.end() && !it->carried;
            if (fresh) continue;
            const LabBuild* e = entry(l);
            if (!e) {
                // No desc to restart it from: the World's own (the UI gives every lab an entry).
                LabBuild own;
                own.lab = l;
                own.desc = worlds_[l]->desc();
                labs.push_back(std::move(own));
                e = &labs.back();
            }
            Built b = build(*e, false);
            if (it != built.end())
                *it = std::move(b);
            else
                built.push_back(std::move(b));
        }
    }
    if (!refused[0].empty() || !refused[1].empty()) {
        // A refused lab keeps its World. The others take theirs where lockstep allows: side by side, only
        // where both then show one frame (an edit carried on both sides, refused on one).
        auto refusedLab = [&](int l) { return !refused[l].empty(); };
        auto frameThen = [&](int l) -> int {
            if (!refusedLab(l)) return frameAfter(l);
            return worlds_[l] ? worlds_[l]->frame() : -1;
        };
        const bool keepsStep =
            act != 2 || frameThen(0) < 0 || frameThen(1) < 0 || frameThen(0) == frameThen(1);
        for (int l = 0; l < 2; ++l)
            if (refusedLab(l)) {
                SimEvent ev{SimEvent::WorldRefused, l, ticket, refused[l], false};
                ev.key = refusedKey[l];
                event(std::move(ev));
            }
        built.erase(
            std::remove_if(built.begin(), built.end(), [&](const Built& b) { return refusedLab(b.lab); }),
            built.end());
        if (!keepsStep) {
            for (const Built& b : built) {
                SimEvent e{SimEvent::WorldRefused, b.lab, ticket,
                           "not installed: the World of the " + std::string(b.lab == 0 ? "right" : "left") +
                               " side was refused",
                           false};
                e.secondary = true;
                event(std::move(e));
            }
            return;
        }
    }
    bool ready[2] = {false, false};
    for (Built& b : built) {
        ready[b.lab] = b.world != nullptr;
        commit(b);
    }
    finishInstall();
    for (const Built& b : built) {
        publish(b.lab);
        if (ready[b.lab]) event({SimEvent::WorldReady, b.lab, ticket, b.note, b.carried});
    }
}

SimRunner::Built SimRunner::prepare(int lab, std::unique_ptr<vbd::World> w, const std::string& note,
                                    const vbd::World* carryFrom) {
    Built b;
    b.lab = lab;
    b.note = note;
    if (w) {
        auto fixed = std::make_shared<WorldStatic>();
        fixed->surfaces = w->surfaces();
        fixed->tags = materialTags(*w);  // rest positions: before any state is carried over
        fixed->initialPositions = w->positions();
        fixed->regionAnchors = regionAnchors(fixed->tags, fixed->initialPositions);
        fixed->initialBodies = w->bodies();
        b.fixed = std::move(fixed);
        if (carryFrom) {
            auto s = carryFrom->saveState();
            b.carried = s && w->restoreState(*s);
        }
    }
    b.world = std::move(w);
    return b;
}

void SimRunner::commit(Built& b) {
    const int lab = b.lab;
    if (b.world) {
        b.fixed->generation = ++generation_;
        static_[lab] = std::move(b.fixed);
        std::lock_guard<std::mutex> c(*cmdMutex_[lab]);
        const int inspect = cmds_[lab]->inspect;
        const bool contacts = cmds_[lab]->contacts;
        *cmds_[lab] = PendingCommands{};
        cmds_[lab]->inspect = inspect;
        cmds_[lab]->contacts = contacts;
    }
    worlds_[lab] = std::move(b.world);
    if (!worlds_[lab]) return;
    worlds_[lab]->setWantedField(field_[lab]);
    // On the device backend each frame's metrics are reduced where the state is (World::setLazyPublish): the
    // host no longer sums the energy and det F of every tet after each step. The timeline saves each frame on
    // the device, and the snapshots read their particles from those saves only when they are drawn from the
    // host (World::surfaceBounds gives the shadows and marker sizes without them).
    worlds_[lab]->setLazyPublish(true);
    const int frame = worlds_[lab]->frame();
    if (b.carried) {
        // A parameter edit at this frame: a new branch of the same timeline.
        ring_.dropAfter(frame);
        auto& m = metrics_[lab];
        m.erase(std::find_if(m.begin(), m.end(), [&](const auto& x) { return x.frame > frame; }), m.end());
    } else {
        ring_.clear();
        metrics_[lab].clear();
    }
    plots_[lab].reset();  // frames the earlier snapshots shared are gone or about to be replaced
}

void SimRunner::finishInstall() {
    // The start of a timeline (or the new branch point) is a state one can go back to: taken after every
    // lab of the command is in place, so that it never pairs a new World with the one it replaces.
    const vbd::World* w0 = worlds_[0].get();
    const vbd::World* w1 = worlds_[1].get();
    if (w0 && ring_.newest() < w0->frame() && (!w1 || w1->frame() == w0->frame())) {
        HistoryRing::Entry e;
        e.frame = w0->frame();
        e.state[0] = w0->saveState();
        if (w1) e.state[1] = w1->saveState();
        if (e.state[0]) ring_.push(std::move(e));
    }
    std::lock_guard<std::mutex> lk(mutex_);
    timeline_ = {ring_.oldest(), ring_.newest(), ring_.size(), ring_.bytes(), ring_.budget()};
}

void SimRunner::install(int lab, std::unique_ptr<vbd::World> w, std::uint64_t ticket, const std::string& note,
                        const vbd::World* carryFrom) {
    Built b = prepare(lab, std::move(w), note, carryFrom);
    const bool ready = b.world != nullptr;
    const bool carried = b.carried;
    commit(b);
    if (!ready) {
        publish(lab);
        return;
    }
    finishInstall();
    publish(lab);
    event({SimEvent::WorldReady, lab, ticket, note, carried});
}

void SimRunner::setVertexLink(int lab, std::shared_ptr<WindowVertexLink> link) {
    std::lock_guard<std::mutex> lk(mutex_);
    links_[lab] = std::move(link);
}

InteropFrame SimRunner::writeVertices(int lab, std::vector<float>& field, bool& computed) {
    std::shared_ptr<WindowVertexLink> link;
    {
        std::lock_guard<std::mutex> lk(mutex_);
        link = links_[lab];
    }
    const vbd::World* w = worlds_[lab].get();
    if (!link || !w || !static_[lab] || link->generation() != static_[lab]->generation) return {};
    // The frame's own heat map in its records (the snapshot takes the same values: computed once).
    if (field_[lab] != vbd::ScalarField::None) {
        w->scalarField(field_[lab], field);
        computed = true;  // (a field that threw is computed again by the snapshot)
    }
    return link->write(w->deviceParticles(), w->deviceBodies(), &field, field_[lab]);
}

void SimRunner::publish(int lab, InteropFrame frame, std::shared_ptr<const vbd::WorldState> frameState,
                        std::vector<float>* field) {
    std::shared_ptr<WorldSnapshot> s;
    if (const vbd::World* w = worlds_[lab].get()) {
        // The plots' window of metrics up to the World's frame (after a restore the timeline holds later
        // frames too, until the next step starts a branch).
        const auto& m = metrics_[lab];
        auto end = std::upper_bound(m.begin(), m.end(), w->frame(),
                                    [](int f, const vbd::FrameMetrics& x) { return f < x.frame; });
        s = std::make_shared<WorldSnapshot>(*w, field_[lab], static_[lab],
                                            plots_[lab].share(m.data(), m.data() + (end - m.begin())),
                                            cmdMutex_[lab], cmds_[lab], std::move(frameState), field);
        s->setInteropFrame(frame);
    }
    std::lock_guard<std::mutex> lk(mutex_);
    snaps_[lab] = s;
    if (lab == 0) {
        haveWorld_ = s != nullptr;
        if (s) {
            simFrame_ = s->frame();
            simTime_ = s->time();
            simDt_ = s->desc().dt;
            frame_ = simFrame_;
        }
    }
}

SimRunner::Clock::time_point SimRunner::nextStepDue(Clock::time_point now) {
    const auto never = Clock::time_point::max();
    if (!haveWorld_) return never;
    for (int g : gates_)
        if (g >= 0 && simFrame_ >= g) return never;
    if (steps_ > 0) return now;
    if (!playing_) {
        window_.clear();  // the real-time ratio is of continuous playing
        return never;
    }
    if (speed_ <= 0) return now;
    if (!anchored_) {
        anchored_ = true;
        anchorWall_ = now;
        anchorSim_ = simTime_;
        window_.clear();
        lastStepEnd_ = now;
        return now;
    }
    const auto due = anchorWall_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                       (simTime_ + simDt_ - anchorSim_) / speed_));
    if (now - due > std::chrono::duration<double>(kMaxLagSeconds)) {
        anchorWall_ = now;  // behind: no burst to catch up
        anchorSim_ = simTime_;
        return now;
    }
    return due;
}

void SimRunner::loop() {
#ifdef __linux__
    // Below the renderer's priority (Linux nice values are per thread): when the cores are short, the
    // window keeps its frame rate and the simulation takes the rest, instead of both slowing down.
    setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 5);
#endif
    std::unique_lock<std::mutex> lk(mutex_);
    for (;;) {
        if (quit_) return;
        if (!queue_.empty()) {
            auto q = std::move(queue_);
            queue_.clear();
            lk.unlock();
            std::uint64_t last = 0;
            for (auto& c : q) {
                c.second(c.first);
                last = c.first;
            }
            lk.lock();
            anchored_ = false;  // a restore or a new World moves the clock: pace from here
            applied_ = last;
            cv_.notify_all();
            continue;
        }
        const auto now = Clock::now();
        const auto due = nextStepDue(now);
        if (due > now) {
            if (due == Clock::time_point::max())
                cv_.wait(lk);
            else
                cv_.wait_until(lk, due);
            continue;
        }
        if (steps_ > 0) --steps_;
        const int active = active_;
        const bool playing = playing_;
        lk.unlock();
        const double dt = simDt_;
        stepLabs(active);
        if (playing) measure(now, dt);
        lk.lock();
    }
}

void SimRunner::stepLabs(int active) {
    const auto t0 = Clock::now();
    const int from = worlds_[0]->frame();
    ring_.dropAfter(from);  // stepping from a restored frame starts a new branch
    std::string err;
    int failedLab = 0;
    InteropFrame written[2];
    std::vector<float> field[2];  // the frames' heat-map fields, computed for the interop's writes
    bool fieldComputed[2] = {false, false};
    double solverMs = 0;  // the steps' time less their metrics
    for (int l = 0; l < active; ++l) {
        vbd::World* w = worlds_[l].get();
        if (!w) continue;
        auto& m = metrics_[l];
        const auto later =
            std::find_if(m.begin(), m.end(), [&](const auto& x) { return x.frame > w->frame(); });
        if (later != m.end()) {
            m.erase(later, m.end());  // a step from a restored frame: a new branch
            plots_[l].reset();
        }
        PendingCommands c;
        {
            std::lock_guard<std::mutex> g(*cmdMutex_[l]);
            c = *cmds_[l];
            cmds_[l]->solver = cmds_[l]->drag = cmds_[l]->bodyDrag = false;
            cmds_[l]->addBodies.clear();
        }
        if (c.solver) {
            try {
                w->setSolver(c.solverDesc);
            } catch (const vbd::InputError& e) {  // e.g. solver.backend: cuda without a device
                const vbd::SceneDesc& d = w->desc();
                SimEvent ev{SimEvent::SettingsRefused, l, 0,
                            vbd::namingFile(e, d.file.empty() ? d.name : d.file).what(), false};
                ev.key = e.key();
                event(std::move(ev));
            } catch (const std::exception& e) {
                event({SimEvent::SettingsRefused, l, 0, e.what(), false});
            }
        }
        try {
            if (c.drag) w->setDrag(c.particle, c.target, c.stiffness);
            if (c.bodyDrag) w->setBodyDrag(c.body, c.local, c.bodyTarget, c.bodyStiffness);
            for (const auto& b : c.addBodies) w->addRigidBody(b);
            w->setWatchedParticles(c.watch);
            w->setSurfaceRay(c.ray);
            const auto ts = Clock::now();
            w->step();
            stepMs_[l] = msSince(ts);
            // The step has finished (its results came to the host); the write waits for the renderer on the
            // device, not here.
            written[l] = writeVertices(l, field[l], fieldComputed[l]);
        } catch (const std::exception& e) {
            err = e.what();
            failedLab = l;
        }
        const auto& h = w->history();
        // A new frame only: a step that threw before its frame (a device error, a refused body) leaves the
        // last frame's metrics at the back, which the timeline holds already (MetricsWindow::share wants each
        // frame once).
        if (!h.empty() && h.back().frame == w->frame() && (m.empty() || h.back().frame > m.back().frame)) {
            m.push_back(h.back());
            solverMs += h.back().stepMs - h.back().measureMs;
        }
    }
    // Side by side, a lab whose step threw may not have advanced while the other did: both go back to the
    // frame they started from (the timeline holds it), so that the two stay in lockstep and no history entry
    // pairs one lab's frame with the other's next one.
    bool realigned = false;
    if (!err.empty() && active == 2 && worlds_[0] && worlds_[1] &&
        worlds_[0]->frame() != worlds_[1]->frame()) {
        if (const HistoryRing::Entry* back = ring_.find(from))
            for (int l = 0; l < 2; ++l)
                if (worlds_[l]->frame() != from && back->state[l]) worlds_[l]->restoreState(*back->state[l]);
        realigned = true;
    }
    HistoryRing::Entry e;
    e.frame = worlds_[0]->frame();
    for (int l = 0; l < active; ++l)
        if (worlds_[l]) e.state[l] = worlds_[l]->saveState();
    std::shared_ptr<const vbd::WorldState> saved[2] = {e.state[0], e.state[1]};
    if (e.state[0] && !realigned) ring_.push(std::move(e));
    for (int l = 0; l < 2; ++l) dropUnreachable(metrics_[l], ring_.oldestFrameOf(l), kSnapshotMetrics);
    // The snapshots read their particles from the frame's saves, when something reads them: a frame drawn
    // from the interop's buffers costs no download here (with the lazy publish the save stays on the device).
    for (int l = 0; l < active; ++l) publish(l, written[l], saved[l], fieldComputed[l] ? &field[l] : nullptr);
    tickMs_ = msSince(t0);
    hostMs_ = std::max(0.0, tickMs_.load() - solverMs);
    if (!err.empty()) event({SimEvent::StepFailed, failedLab, 0, err, false});
    std::lock_guard<std::mutex> lk(mutex_);
    timeline_ = {ring_.oldest(), ring_.newest(), ring_.size(), ring_.bytes(), ring_.budget()};
}

// Simulated seconds over wall seconds across the last second of playing (waits at a gate included: they
// are time the viewer waits too).
void SimRunner::measure(Clock::time_point start, double dt) {
    const auto end = Clock::now();
    if (window_.empty()) window_.emplace_back(start, 0.0);
    window_.emplace_back(end, dt);
    while (window_.size() > 2 && end - window_.front().first > std::chrono::seconds(1)) window_.pop_front();
    double sim = 0;
    for (size_t i = 1; i < window_.size(); ++i) sim += window_[i].second;
    const double wall = std::chrono::duration<double>(end - window_.front().first).count();
    ratio_ = wall > 0 ? sim / wall : 0;
}

}  // namespace vbdgui
