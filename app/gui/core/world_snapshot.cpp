#include "gui/core/world_snapshot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vbdgui {

std::vector<unsigned char> materialTags(const vbd::World& w) {
    const auto& x = w.positions();
    const auto& bodies = w.desc().softBodies;
    std::vector<unsigned char> tags(x.size(), kBaseMaterial);
    // Only surface vertices are drawn; a vertex on a region's face counts as inside (the interface
    // vertices belong to elements of both materials).
    const float eps = 1e-5f;
    for (const auto& s : w.surfaces()) {
        if (s.doubleSided || s.body < 0 || size_t(s.body) >= bodies.size()) continue;
        const auto& regions = bodies[size_t(s.body)].regions;
        if (regions.empty()) continue;
        for (const auto& t : s.tris)
            for (int v : t) {
                const vbd::Vec3& p = x[size_t(v)];
                for (const auto& r : regions) {
                    vbd::Box3 b{r.box.min - vbd::Vec3(eps), r.box.max + vbd::Vec3(eps)};
                    if (r.youngsScale != 1 && b.contains(p))
                        tags[size_t(v)] = r.youngsScale > 1 ? kStifferRegion : kSofterRegion;
                }
            }
    }
    return tags;
}

std::array<int, 3> regionAnchors(const std::vector<unsigned char>& tags, const std::vector<vbd::Vec3>& rest) {
    std::array<int, 3> out{-1, -1, -1};
    for (unsigned char tag : {kStifferRegion, kSofterRegion}) {
        vbd::Vec3d c(0, 0, 0);
        int n = 0;
        for (size_t i = 0; i < tags.size() && i < rest.size(); ++i)
            if (tags[i] == tag) c += vbd::Vec3d(rest[i]), ++n;
        if (n == 0) continue;
        c = c / double(n);
        double best = INFINITY;
        for (size_t i = 0; i < tags.size() && i < rest.size(); ++i)
            if (tags[i] == tag && vbd::squaredNorm(vbd::Vec3d(rest[i]) - c) < best)
                best = vbd::squaredNorm(vbd::Vec3d(rest[i]) - c), out[tag] = int(i);
    }
    return out;
}

WorldSnapshot::WorldSnapshot(const vbd::World& w, vbd::ScalarField field,
                             std::shared_ptr<const WorldStatic> fixed, SharedMetrics history,
                             std::shared_ptr<std::mutex> cmdMutex, std::shared_ptr<PendingCommands> cmds,
                             std::shared_ptr<const vbd::WorldState> frameState,
                             std::vector<float>* fieldValues)
    : desc_(w.sharedDesc()),
      time_(w.time()),
      frame_(w.frame()),
      colors_(w.numColors()),
      backend_(w.backendLine()),
      device_(w.deviceParticles()),
      deviceBodies_(w.deviceBodies()),
      state_(frameState && frameState->carriesParticles() && frameState->frame == w.frame()
                 ? std::move(frameState)
                 : nullptr),
      fixed_(w.fixedMask()),
      bounds_(w.surfaceBounds()),
      pins_(w.pinPositions()),
      watched_(w.watchedPositions()),
      cast_(w.castSurfaceHit()),
      static_(std::move(fixed)),
      field_(field),
      bodies_(w.bodies()),
      contactCount_(w.contactCount()),
      joints_(w.joints()),
      history_(std::move(history)),
      conv_(w.lastConvergence()),
      cmdMutex_(std::move(cmdMutex)),
      cmds_(std::move(cmds)) {
    device_.current = false;
    deviceBodies_.current = false;
    if (!state_) {
        x_ = w.positions();
        v_ = w.velocities();
        std::call_once(xOnce_, [] {});
        std::call_once(vOnce_, [] {});
        xRead_ = true;
    }
    if (field != vbd::ScalarField::None) {
        if (fieldValues)
            fieldValues_.swap(*fieldValues);
        else
            w.scalarField(field, fieldValues_);
    }
    int want = -1;
    bool markers = false;
    {
        std::lock_guard<std::mutex> lk(*cmdMutex_);
        want = cmds_->inspect;
        markers = cmds_->contacts;
    }
    if (want >= 0) inspect_ = w.inspectVertex(want);
    if (markers) contacts_ = w.contacts();
    fetches_ = w.stateFetches();  // last: the snapshot's own reads above count
}

// A frame's state saved on the device brings them to the host here, on the reading thread (a blocking copy
// that waits for the save, not for the step the simulation thread runs meanwhile).
// A copy that fails (a device lost since the save) must not take the reader's thread down: the frame reads
// the World's first positions instead (its own size), and the simulation thread's next step reports the
// failure.
const std::vector<vbd::Vec3>& WorldSnapshot::positions() const {
    std::call_once(xOnce_, [this] {
        try {
            state_->particles(&x_, nullptr);
        } catch (const std::exception& e) {
            static std::atomic<bool> told{false};  // once: after a lost device every frame would say it
            if (!told.exchange(true))
                std::fprintf(stderr, "vbdlab: frame %d: positions not read from the device: %s\n", frame_,
                             e.what());
            x_ = static_->initialPositions;
        }
        x_.resize(fixed_.size());
        xRead_ = true;
    });
    return x_;
}

const std::vector<vbd::Vec3>& WorldSnapshot::velocities() const {
    std::call_once(vOnce_, [this] {
        try {
            state_->particles(nullptr, &v_);
        } catch (const std::exception&) {
            v_.clear();  // positions() says so
        }
        v_.resize(fixed_.size());
    });
    return v_;
}

bool WorldSnapshot::positionsRead() const { return xRead_; }

vbd::Vec3 WorldSnapshot::particlePosition(int i) const {
    for (const vbd::WatchedParticle& p : watched_)
        if (p.particle == i) return p.x;
    if (i < 0 || size_t(i) >= numParticles()) return vbd::Vec3(0.0f);  // an index of another World
    return positions()[size_t(i)];
}

void WorldSnapshot::watch(const std::vector<int>& particles) const {
    std::lock_guard<std::mutex> lk(*cmdMutex_);
    if (cmds_->watch != particles) cmds_->watch = particles;
}

void WorldSnapshot::castRay(const std::optional<vbd::SurfaceRay>& ray) const {
    std::lock_guard<std::mutex> lk(*cmdMutex_);
    cmds_->ray = ray;
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
        out.clear();
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
    return int(desc_->rigidBodies.size() + cmds_->addBodies.size()) - 1;
}

}  // namespace vbdgui
