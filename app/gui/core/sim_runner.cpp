#include "gui/sim_runner.h"

#include <algorithm>
#include <chrono>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace vbdgui {

// Frames of history the plots can show; older ones are not copied into snapshots.
constexpr size_t kSnapshotHistory = 2000;

WorldSnapshot::WorldSnapshot(const vbd::World& w, vbd::ScalarField field,
                             std::shared_ptr<const std::vector<vbd::SurfaceView>> surf,
                             std::shared_ptr<std::mutex> cmdMutex, std::shared_ptr<PendingCommands> cmds)
    : desc_(w.desc()),
      time_(w.time()),
      frame_(w.frame()),
      colors_(w.numColors()),
      x_(w.positions()),
      v_(w.velocities()),
      fixed_(w.fixedMask()),
      surfaces_(std::move(surf)),
      field_(field),
      bodies_(w.bodies()),
      contacts_(w.contacts()),
      joints_(w.joints()),
      conv_(w.lastConvergence()),
      cmdMutex_(std::move(cmdMutex)),
      cmds_(std::move(cmds)) {
    const auto& h = w.history();
    history_.assign(h.size() > kSnapshotHistory ? h.end() - long(kSnapshotHistory) : h.begin(), h.end());
    if (field != vbd::ScalarField::None) w.scalarField(field, fieldValues_);
    int want = -1;
    {
        std::lock_guard<std::mutex> lk(*cmdMutex_);
        want = cmds_->inspect;
    }
    if (want >= 0) inspect_ = w.inspectVertex(want);
}

vbd::VertexInspect WorldSnapshot::inspectVertex(int particle) const {
    {
        std::lock_guard<std::mutex> lk(*cmdMutex_);
        cmds_->inspect = particle;
    }
    return inspect_.particle == particle ? inspect_ : vbd::VertexInspect{};
}

void WorldSnapshot::scalarField(vbd::ScalarField f, std::vector<float>& out) const {
    if (f == field_)
        out = fieldValues_;
    else
        out.assign(x_.size(), 0.0f);  // the next snapshot carries the newly requested field
}

void WorldSnapshot::setSolver(const vbd::SolverDesc& s) {
    std::lock_guard<std::mutex> lk(*cmdMutex_);
    cmds_->solver = true;
    cmds_->solverDesc = s;
}

void WorldSnapshot::setDrag(int particle, const vbd::Vec3& target, float stiffness) {
    std::lock_guard<std::mutex> lk(*cmdMutex_);
    cmds_->drag = true;
    cmds_->particle = particle;
    cmds_->target = target;
    cmds_->stiffness = stiffness;
}

void WorldSnapshot::setBodyDrag(int body, const vbd::Vec3& localPoint, const vbd::Vec3& target,
                                float stiffness) {
    std::lock_guard<std::mutex> lk(*cmdMutex_);
    cmds_->bodyDrag = true;
    cmds_->body = body;
    cmds_->local = localPoint;
    cmds_->bodyTarget = target;
    cmds_->bodyStiffness = stiffness;
}

int WorldSnapshot::addRigidBody(const vbd::RigidBodyDesc& body) {
    std::lock_guard<std::mutex> lk(*cmdMutex_);
    cmds_->addBodies.push_back(body);
    return int(desc_.rigidBodies.size() + cmds_->addBodies.size()) - 1;
}

// ---------------------------------------------------------------------------------------------------
SimRunner::SimRunner() {
    for (int i = 0; i < 2; ++i) {
        field_[i] = int(vbd::ScalarField::None);
        stepMs_[i] = 0;
        cmdMutex_[i] = std::make_shared<std::mutex>();
        cmds_[i] = std::make_shared<PendingCommands>();
    }
    thread_ = std::thread([this] { loop(); });
}

SimRunner::~SimRunner() {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void SimRunner::setWorld(int lab, std::unique_ptr<vbd::World> w) {
    std::unique_lock<std::mutex> lk(mutex_);
    cv_.wait(lk, [&] { return !busy_; });
    worlds_[lab] = std::move(w);
    {
        std::lock_guard<std::mutex> c(*cmdMutex_[lab]);
        *cmds_[lab] = PendingCommands{};
    }
    if (worlds_[lab]) {
        surfaces_[lab] = std::make_shared<const std::vector<vbd::SurfaceView>>(worlds_[lab]->surfaces());
        snaps_[lab] = std::make_shared<WorldSnapshot>(*worlds_[lab], vbd::ScalarField(field_[lab].load()),
                                                      surfaces_[lab], cmdMutex_[lab], cmds_[lab]);
    } else {
        snaps_[lab].reset();
    }
}

std::shared_ptr<WorldSnapshot> SimRunner::snapshot(int lab) const {
    std::lock_guard<std::mutex> lk(mutex_);
    return snaps_[lab];
}

void SimRunner::setPlaying(bool p) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        playing_ = p;
    }
    cv_.notify_all();
}

void SimRunner::requestSteps(int n) {
    {
        std::lock_guard<std::mutex> lk(mutex_);
        steps_ += n;
    }
    cv_.notify_all();
}

void SimRunner::setStopAt(int frame) {
    std::lock_guard<std::mutex> lk(mutex_);
    stopAt_ = frame;
}

void SimRunner::setActive(int labs) {
    std::lock_guard<std::mutex> lk(mutex_);
    active_ = labs;
}

std::string SimRunner::takeError() {
    std::lock_guard<std::mutex> lk(mutex_);
    std::string e;
    std::swap(e, error_);
    return e;
}

void SimRunner::publish(int lab) {
    auto s = std::make_shared<WorldSnapshot>(*worlds_[lab], vbd::ScalarField(field_[lab].load()),
                                             surfaces_[lab], cmdMutex_[lab], cmds_[lab]);
    std::lock_guard<std::mutex> lk(mutex_);
    snaps_[lab] = std::move(s);
}

void SimRunner::loop() {
    using Clock = std::chrono::steady_clock;
#ifdef __linux__
    // Below the renderer's priority (Linux nice values are per thread): when the cores are short, the
    // window keeps its frame rate and the simulation takes the rest, instead of both slowing down.
    setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 5);
#endif
    std::unique_lock<std::mutex> lk(mutex_);
    for (;;) {
        auto canStep = [&] {
            if (!worlds_[0]) return false;
            if (stopAt_ >= 0 && worlds_[0]->frame() >= stopAt_) return false;
            return playing_ || steps_ > 0;
        };
        cv_.wait(lk, [&] { return quit_ || canStep(); });
        if (quit_) return;
        if (steps_ > 0) --steps_;
        const int active = active_;
        busy_ = true;
        lk.unlock();
        auto t0 = Clock::now();
        std::string err;
        for (int l = 0; l < active; ++l) {
            vbd::World* w = worlds_[l].get();
            if (!w) continue;
            PendingCommands c;
            {
                std::lock_guard<std::mutex> g(*cmdMutex_[l]);
                c = *cmds_[l];
                cmds_[l]->solver = cmds_[l]->drag = cmds_[l]->bodyDrag = false;
                cmds_[l]->addBodies.clear();
            }
            try {
                if (c.solver) w->setSolver(c.solverDesc);
                if (c.drag) w->setDrag(c.particle, c.target, c.stiffness);
                if (c.bodyDrag) w->setBodyDrag(c.body, c.local, c.bodyTarget, c.bodyStiffness);
                for (const auto& b : c.addBodies) w->addRigidBody(b);
                auto ts = Clock::now();
                w->step();
                stepMs_[l] = std::chrono::duration<double, std::milli>(Clock::now() - ts).count();
            } catch (const std::exception& e) {
                err = e.what();
            }
            publish(l);
        }
        tickMs_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        lk.lock();
        busy_ = false;
        if (!err.empty()) {
            error_ = err;
            playing_ = false;
        }
        cv_.notify_all();
    }
}

}  // namespace vbdgui
