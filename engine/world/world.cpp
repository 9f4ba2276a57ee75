// World: soft (VBD particles) + rigid (AVBD) solvers of one scene, stepped frame by frame, with the
// per-frame metrics of DESIGN.md.
#include "world/world.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "backend/parallel.h"
#include "backend/timer.h"
#include "coarse/coarse_hook.h"
#include "gpu/backend_choice.h"
#include "gpu/rigid_stepper.h"
#include "gpu/soft_stepper.h"
#include "gpu/step_plan.h"
#include "math/error.h"
#include "mesh/surface.h"
#include "rigid/rigid_solver.h"
#include "scene/scene_limits.h"
#include "soft/soft_fields.h"
#include "soft/soft_solver.h"
#include "world/coupling.h"
#include "world/finite_guard.h"
#include "world/world_state.h"

namespace vbd {

namespace {

constexpr size_t kHistoryKeep = 2048;

// Drawable surfaces of the particle system: the boundary faces of every soft body (mesh/surface.h) and
// every membrane triangle of every cloth (drawn from both sides), one SurfaceView per body.
std::vector<SurfaceView> particleSurfaces(const SoftModel& sm) {
    int nb = 0;
    for (int b : sm.bodyOfVertex) nb = std::max(nb, b + 1);
    std::vector<SurfaceView> out(static_cast<size_t>(nb));
    for (int b = 0; b < nb; ++b) out[size_t(b)].body = b;
    TetMesh tm;
    tm.tets = sm.tets;
    tm.X.resize(sm.x0.size());  // extractBoundary needs topology only; no positions are copied
    for (const auto& t : extractBoundary(tm).tris)
        out[size_t(sm.bodyOfVertex[size_t(t[0])])].tris.push_back(t);
    for (const auto& t : sm.tris) {
        SurfaceView& s = out[size_t(sm.bodyOfVertex[size_t(t[0])])];
        s.tris.push_back(t);
        s.doubleSided = true;
    }
    return out;
}

// Each body's particles as one range [begin, end) for the device's boxes (SoftStepper::setFrameBounds, any
// number of them: a tree of a few launches, gpu/bounds_plan.h): the builder appends the bodies' particles in
// order. None (the World bounds them on the host) where a body's particles are not contiguous.
std::vector<std::array<int, 2>> bodyRanges(const SoftModel& sm) {
    std::vector<std::array<int, 2>> r;
    const auto& body = sm.bodyOfVertex;
    for (size_t i = 0; i < body.size(); ++i) {
        const int b = body[i];
        if (b == int(r.size()) - 1) continue;
        if (b < int(r.size())) return {};                         // a body seen before
        while (int(r.size()) < b) r.push_back({int(i), int(i)});  // bodies without particles
        r.push_back({int(i), int(i)});
    }
    for (size_t k = 0; k < r.size(); ++k) r[k][1] = k + 1 < r.size() ? r[k + 1][0] : int(body.size());
    return r;
}

// The fixed particles, ascending (World::pinPositions), and how many a device step gathers each frame (12
// bytes each to the host): a scene pinning more has its pins read from the published positions.
std::vector<int> pinnedParticles(const SoftModel& sm) {
    std::vector<int> out;
    for (size_t i = 0; i < sm.fixed.size(); ++i)
        if (sm.fixed[i]) out.push_back(int(i));
    return out;
}
constexpr size_t kMaxGatheredPins = 1 << 16;

std::atomic<std::uint64_t> g_nextWorldId{1};

// WorldOptions::hostExecutor: the host executor stands in for a device (no memory limit).
CudaProbe hostExecutorProbe() {
    CudaProbe p;
    p.compiled = true;
    p.devices = 1;
    p.name = "host executor";
    return p;
}

class WorldImpl final : public World {
  public:
    WorldImpl(const SceneDesc& d, const WorldOptions& options)
        : desc_(d), options_(options), id_(g_nextWorldId++) {
        checkSceneLimits(d);  // scene/scene_limits.h: float range and memory before anything is built
        soft_.build(d);
        if (options.scalarSweep) soft_.setSweepOptions({false, 0});
        validateBuiltModel(desc_, soft_.model());  // world/finite_guard.h
        rigid_ = std::make_unique<RigidSolver>(d);
        surfaces_ = particleSurfaces(soft_.model());
        setSolver(d.solver);
        history_.reserve(kHistoryKeep + 256);  // no reallocation (a transient copy) in long runs
    }

    void step() override {
        const auto t0 = std::chrono::steady_clock::now();
        ThreadLimit limit(desc_.solver.threads);
        FrameMetrics m;
        m.frame = frame_ + 1;
        const float h = float(desc_.dt / desc_.substeps);
        lastIts_.clear();
        const bool coupled = RigidParticleCoupling::active(soft_, *rigid_);
        if (coupled) fetchState();  // the coupling reads the particles on the host
        for (int s = 0; s < desc_.substeps; ++s) {
            if (coupled) {
                stepCoupled(h, s, m);
                continue;
            }
            stepSoft(h, s, m);
            stepRigid(h, s, m);
        }
        ++frame_;
        time_ += desc_.dt;
        m.time = time_;
        FrameSums sums;
        const bool measured = device_ && lazy_ && device_->frameMeasures(sums);
        if (!(measured && device_->frameBounds(deviceBounds_))) deviceBounds_.clear();
        keepGathered(measured);
        deviceRayValid_ = measured && device_->surfaceHit(deviceRay_.ray, deviceRay_.hit);
        if (measured && sums.firstBad != FrameSums::kNone) fetchState();  // guardFrame names the particle
        {
            ScopedTimer t(m.measureMs);
            measure(m, measured ? &sums : nullptr);
        }
        m.stepMs = msSince(t0);
        // world/finite_guard.h: no NaN leaves a step (the particles checked by the device's measures).
        guardFrame(desc_, soft_.model(), bodies(), m, lastIts_,
                   !measured || sums.firstBad != FrameSums::kNone);
        history_.push_back(m);
        // Bounded (the last 2,048 to 2,303 frames): the app plots at most 2,000 frames and vbdlab
        // sim streams its rows, so a long run's memory does not grow with its length.
        if (history_.size() >= kHistoryKeep + 256)
            history_.erase(history_.begin(), history_.end() - kHistoryKeep);
    }

    size_t stateFetches() const override { return fetches_; }
    const SceneDesc& desc() const override { return desc_; }
    std::shared_ptr<const SceneDesc> sharedDesc() const override {
        if (!sharedDesc_) sharedDesc_ = std::make_shared<const SceneDesc>(desc_);
        return sharedDesc_;
    }
    double time() const override { return time_; }
    int frame() const override { return frame_; }
    const std::vector<Vec3>& positions() const override {
        fetchState();
        return soft_.model().x;
    }
    std::vector<Vec3d> statePositions() const override {
        const std::vector<Vec3>& published = positions();  // brings a lazily published device state first
        SoftSolver::Carried c;
        const std::vector<Vec3d>* x = nullptr;
        if (device_) {
            device_->saveCarried(c);  // empty in a float run, and before the stepper's first step
            x = &c.d.x;
            // Not stepped since it was made (an edit, a restore): the solver holds the state it was handed.
            if (x->empty() && soft_.doublePrecision()) x = &soft_.doubleState().x;
        } else if (soft_.doublePrecision()) {
            x = &soft_.doubleState().x;
        }
        // The state is the published positions' source only while they still round to it (no edit since).
        bool rounds = x && x->size() == published.size();
        for (size_t i = 0; rounds && i < published.size(); ++i) {
            const Vec3d& a = (*x)[i];
            const Vec3& b = published[i];
            rounds = float(a.x) == b.x && float(a.y) == b.y && float(a.z) == b.z;
        }
        return rounds ? *x : World::statePositions();
    }
    const std::vector<Vec3>& velocities() const override {
        fetchState();
        return soft_.model().v;
    }
    const std::vector<char>& fixedMask() const override { return soft_.model().fixed; }
    const std::vector<SurfaceView>& surfaces() const override { return surfaces_; }
    size_t numParticles() const override { return size_t(soft_.model().numVertices()); }
    // Each body's particles: the device's boxes of the last step while its state is pending (no fetch),
    // else the same min / max over the published positions.
    std::vector<Box3> surfaceBounds() const override {
        std::vector<FrameBounds> b = deviceBounds_;
        if (b.size() != surfaces_.size()) {
            fetchState();
            const SoftModel& sm = soft_.model();
            b.assign(surfaces_.size(), FrameBounds{});
            for (size_t i = 0; i < sm.x.size(); ++i) {
                FrameBounds& box = b[size_t(sm.bodyOfVertex[i])];
                box = box + FrameBounds::of(sm.x[i]);
            }
        }
        std::vector<Box3> out(b.size());
        for (size_t k = 0; k < b.size(); ++k)
            out[k] = {{b[k].lo[0], b[k].lo[1], b[k].lo[2]}, {b[k].hi[0], b[k].hi[1], b[k].hi[2]}};
        return out;
    }
    // The device's gather of the last step while its state is pending, else the published positions.
    std::vector<Vec3> pinPositions() const override {
        if (devicePinsValid_) return devicePins_;
        return World::pinPositions();
    }
    void setWatchedParticles(const std::vector<int>& particles) override {
        std::vector<int> w;
        for (int i : particles)
            if (i >= 0 && i < soft_.model().numVertices() && std::find(w.begin(), w.end(), i) == w.end())
                w.push_back(i);
        if (w == watched_) return;
        watched_ = std::move(w);
        deviceWatchedValid_ = false;  // gathered for the old list; the next step gathers the new one
        if (device_) device_->setGathered(gatherList());
    }
    std::vector<WatchedParticle> watchedPositions() const override {
        std::vector<WatchedParticle> out;
        if (watched_.empty()) return out;
        if (deviceWatchedValid_) {
            for (size_t k = 0; k < watched_.size(); ++k) out.push_back({watched_[k], deviceWatched_[k]});
            return out;
        }
        const std::vector<Vec3>& x = positions();  // fetches a pending state
        for (int i : watched_) out.push_back({i, x[size_t(i)]});
        return out;
    }
    // The device casts the ray with its measures (the triangles go up when a ray is first set).
    void setSurfaceRay(const std::optional<SurfaceRay>& ray) override {
        if (ray == surfaceRay_) return;
        surfaceRay_ = ray;
        if (device_) passSurfaceRay();
    }
    std::optional<CastHit> castSurfaceHit() const override {
        if (!deviceRayValid_) return std::nullopt;
        return deviceRay_;
    }
    int numColors() const override { return int(soft_.model().colorGroups.size()); }

    void scalarField(ScalarField f, std::vector<float>& out) const override {
        // The heat maps of a lazily published device step: the field alone crosses, not the state.
        if (device_) {
            if (f == ScalarField::Residual && device_->pendingResidualField(out)) return;
            if (f == ScalarField::VolumeRatio && device_->pendingVolumeRatio(out)) return;
            if ((f == ScalarField::DiagonalDominance || f == ScalarField::DominanceSum) &&
                device_->pendingDominance(soft_.currentH(), f == ScalarField::DominanceSum, out))
                return;
        }
        const SoftModel& sm = soft_.model();
        if (f != ScalarField::Color) fetchState();  // the colours are the model's, fixed
        switch (f) {
            case ScalarField::Color:
                out.assign(sm.color.begin(), sm.color.end());
                break;
            case ScalarField::Residual:
                out = soft_.vertexResidual();
                break;
            case ScalarField::VolumeRatio:
                volumeRatioField(sm, out);
                break;
            case ScalarField::DiagonalDominance:
                diagonalDominanceField(sm, soft_.currentH(), out);
                break;
            case ScalarField::DominanceSum: {
                std::vector<float> maxRatio;
                diagonalDominanceField(sm, soft_.currentH(), maxRatio, &out);
                break;
            }
            default:
                out.assign(size_t(sm.numVertices()), 0.f);
        }
    }

    void setWantedField(ScalarField f) override {
        const bool was = wantedField_ == ScalarField::Residual;
        wantedField_ = f;
        const bool wanted = f == ScalarField::Residual;
        if (!device_) return;  // the CPU step computes the residual field at every step anyway
        device_->setResidualField(wanted);
        // A coupled frame stepped on the CPU, which left its own field in the solver.
        if (wanted && !was) device_->residualField(soft_.vertexResidual());
    }

    std::vector<RigidBodyView> bodies() const override { return rigid_->views(); }
    size_t numBodies() const override { return size_t(rigid_->numBodies()); }
    DeviceRigidBodies deviceBodies() const override {
        return rigidDevice_ ? rigidDevice_->deviceBodies(*rigid_) : DeviceRigidBodies{};
    }
    std::vector<ContactView> contacts() const override { return rigid_->contactViews(); }
    size_t contactCount() const override { return rigid_->contactCount(); }
    std::vector<JointView> joints() const override { return rigid_->jointViews(); }
    MetricsSpan history() const override { return history_; }
    const std::vector<IterationRecord>& lastConvergence() const override { return lastIts_; }

    void setSolver(const SolverDesc& s) override {
        // Both may refuse (a CUDA backend that cannot run, double precision with cloth): nothing changes
        // then.
        const BackendChoice backend = chooseSoftBackend(s);
        fetchState();
        keepDeviceState();
        deviceBounds_.clear();  // of the state the step leaves; a restore comes through here too
        devicePinsValid_ = deviceWatchedValid_ = deviceRayValid_ = false;
        soft_.setParams(s);
        editDesc().solver = s;
        rigid_->setParams(s);
        if (s.coarse.enabled) {
            if (!coarse_) coarse_ = makeCoarseHook();
            coarse_->configure(s.coarse);
            soft_.setSweepHook(coarse_.get());
        } else {
            soft_.setSweepHook(nullptr);
        }
        // The device step (re)starts from the solver's state where it matches the published arrays, else from
        // those (gpu/soft_stepper.h, seed). The rigid device step
        // keeps nothing between steps (gpu/rigid_stepper.h): made with the backend, it also serves bodies
        // added later (addRigidBody).
        device_.reset();
        rayTrianglesPassed_ = false;
        rigidDevice_.reset();
        if (backend.backend == Backend::Cuda) {
            if (soft_.model().numVertices() > 0) {
                device_ = options_.hostExecutor ? makeHostPipelineStepper(s.precision)
                                                : makeCudaStepper(s.precision);
                device_->setResidualField(wantedField_ == ScalarField::Residual);
                device_->setFrameMeasures(lazy_);
                device_->setFrameBounds(bodyRanges(soft_.model()));
                pins_ = pinnedParticles(soft_.model());
                gatherPins_ = pins_.size() <= kMaxGatheredPins;  // beyond, the host reads them (a fetch)
                device_->setGathered(gatherList());
                passSurfaceRay();
                device_->configure(soft_);
            }
            rigidDevice_ = options_.hostExecutor ? makeHostRigidStepper() : makeCudaRigidStepper();
        }
        backendLine_ = backend.line;
    }
    std::string backendLine() const override { return backendLine_; }
    DeviceParticles deviceParticles() const override {
        if (!device_) return {};
        return device_->deviceParticles();
    }
    void setDrag(int particle, const Vec3& target, float stiffness) override {
        soft_.setDrag(particle, target, particle >= 0 ? stiffness : 0.f);
    }
    void setBodyDrag(int body, const Vec3& localPoint, const Vec3& target, float stiffness) override {
        rigid_->setDrag(body, localPoint, target, stiffness);
    }

    int addRigidBody(const RigidBodyDesc& body) override {
        // The rigid solver is rebuilt from the extended description (colors, broad phase and contact
        // lists depend on the body set); the existing bodies are put back where they are now. Contact
        // warm-start data is lost, which costs a few sweeps of convergence in the next step.
        std::vector<RigidBodyState> states = rigid_->states();
        SceneDesc d = desc_;
        d.rigidBodies.push_back(body);
        d.rigidBodies.back().key = "rigid_bodies[" + std::to_string(d.rigidBodies.size() - 1) + "]";
        auto fresh = std::make_unique<RigidSolver>(d);
        fresh->setParams(desc_.solver);
        for (size_t i = 0; i < states.size(); ++i) fresh->setState(int(i), states[i]);
        rigid_ = std::move(fresh);
        editDesc().rigidBodies = d.rigidBodies;
        return int(desc_.rigidBodies.size()) - 1;
    }

    void setLazyPublish(bool on) override {
        if (!on) fetchState();
        lazy_ = on;
        if (device_) device_->setFrameMeasures(on);
    }

    VertexInspect inspectVertex(int particle) const override {
        fetchState();
        VertexInspect v;
        if (particle < 0 || particle >= soft_.model().numVertices()) return v;
        vertexBlockInfo(soft_.model(), soft_.currentH(), particle, v.block, v.dominance, v.dominanceSum);
        v.particle = particle;
        v.valid = true;
        return v;
    }

    std::shared_ptr<const WorldState> saveState() const override {
        auto s = std::make_shared<WorldStateData>();
        s->origin = id_;
        s->frame = frame_;
        s->time = time_;
        // Lazily published: the device's state copied where it is (no host copy; restoreState puts it back).
        // Device memory that runs out leaves the save on the host.
        if (device_ && lazy_) {
            try {
                s->device = device_->saveOnDevice();
            } catch (const std::exception&) {
                s->device = nullptr;
            }
        }
        if (s->device)
            s->carried.time = soft_.clock();
        else
            saveDeviceOrSolverState(*s);
        if (rigid_->numBodies() > 0) s->rigid = std::make_shared<const RigidSolver>(*rigid_);
        s->desc = sharedDesc();
        s->lastIterations = lastIts_;
        return s;
    }

    // saveState's soft part on the host: the published arrays, and the device's state (or the solver's).
    void saveDeviceOrSolverState(WorldStateData& out) const {
        fetchState();
        saveSoft(soft_, out, !device_);
        // The device's state, not the CPU solver's stale one (whose copy, with its per-tet C_prev, cost more
        // than the rest of the frame's save); the solver's where the device has stepped nothing since it was
        // made (a frame saved right after setSolver handed it the device's state).
        if (device_) {
            device_->saveCarried(out.carried);
            if (out.carried.f.x.empty() && out.carried.d.x.empty()) {
                out.carried.f = soft_.floatState();
                out.carried.d = soft_.doubleState();
            }
        }
    }

    bool restoreState(const WorldState& state) override {
        const auto* s = dynamic_cast<const WorldStateData*>(&state);
        if (!s) return false;
        deviceBounds_.clear();  // of the state left (setSolver below clears them too, unless it throws first)
        devicePinsValid_ = deviceWatchedValid_ = deviceRayValid_ = false;
        const bool same = s->origin == id_;
        // Another World (an edited description) keeps its own rigid solver and takes only the bodies'
        // poses and velocities; a body added by addRigidBody since then is one body too many.
        if (!same && s->bodyStates().size() != size_t(rigid_->numBodies())) return false;
        if (same && !s->desc) return false;  // every save holds its description
        if (s->device ? s->device->numVertices() != soft_.model().numVertices() : !restoreSoft(soft_, *s))
            return false;
        if (same) {
            // The whole solver as it was (warm start included), or rebuilt without bodies added since.
            SceneDesc d = desc_;
            d.rigidBodies = s->desc->rigidBodies;
            rigid_ = s->rigid ? std::make_unique<RigidSolver>(*s->rigid) : std::make_unique<RigidSolver>(d);
            rigid_->setParams(desc_.solver);
            editDesc().rigidBodies = s->desc->rigidBodies;
        } else {
            const std::vector<RigidBodyState>& bodies = s->bodyStates();
            for (size_t i = 0; i < bodies.size(); ++i) rigid_->setState(int(i), bodies[i]);
        }
        frame_ = s->frame;
        time_ = s->time;
        lastIts_ = s->lastIterations;
        // The frames after the restored one (by frame number: the history may have been trimmed since the
        // save).
        while (!history_.empty() && history_.back().frame > s->frame) history_.pop_back();
        coupling_.reset();  // its warm start belongs to the frame it was made at
        coarse_.reset();    // its factorization belongs to the frame it was made at (world_state.h)
        device_.reset();    // its state is of the frame left, not the one restored (setSolver would keep it)
        setSolver(desc_.solver);
        if (s->device) {
            soft_.setClock(s->carried.time);
            // Back on the device where the new stepper is of the saving one's kind; else (the CPU backend
            // now, another precision) from its host form, as a state saved on the host.
            if (!device_ || !device_->restoreOnDevice(*s->device, soft_)) {
                WorldStateData host;
                hostForm(*s, host);
                // Sized for the CPU solver (as keepDeviceState), which then goes on from its full digits.
                if (!host.carried.d.x.empty()) host.carried.d.resetDerived(soft_.model());
                if (!host.carried.f.x.empty()) host.carried.f.resetDerived(soft_.model());
                restoreSoft(soft_, host);
            }
            // A restore is a user's action, not a frame's: the model is brought up to date at once, for the
            // readers inside the next step (the coarse correction's basis is evaluated at the model's x).
            fetchState();
        }
        return true;
    }

  private:
    // setLazyPublish: the device's state of its last step into the model, if that step left it on the device.
    // Logically const: the model's arrays are the host's view of that state, brought up to date when read.
    void fetchState() const {
        if (device_ && device_->publishPending(const_cast<SoftSolver&>(soft_))) ++fetches_;
    }

    // The device step's state of its last step (SoftStepper::saveCarried: its precision's state with the
    // digits below float) into the solver before the stepper is remade for new settings, sized for the CPU
    // solver too (SoftState::resetDerived: what a step rebuilds from x_prev): a new stepper seeds from it
    // while it still rounds to the published arrays (PipelineStepper::seed), and so does the CPU solver after
    // a switch of backend (SoftState::sync), so an edit of the settings no longer restarts a double run from
    // its published float state (a jump of ~1e-7 m). The solver's own state is stale while the device steps.
    // saveState keeps the device's state unsized (the timeline saves one a frame): a frame saved on the
    // device and restored on the CPU backend reseeds from its published arrays.
    void keepDeviceState() {
        if (!device_) return;
        SoftSolver::Carried c = soft_.carried();
        device_->saveCarried(c);
        if (desc_.solver.precision == Precision::Double)
            c.d.resetDerived(soft_.model());
        else
            c.f.resetDerived(soft_.model());
        soft_.setCarried(std::move(c));
    }

    // solver.backend (gpu/backend_choice.h); throws InputError when cuda was asked for and cannot run.
    BackendChoice chooseSoftBackend(const SolverDesc& s) const {
        const SoftModel& sm = soft_.model();
        const bool rigidOnly = sm.numVertices() == 0 && rigid_->numBodies() > 0;
        const std::string unsupported =
            rigidOnly ? rigidDeviceStepUnsupported(*rigid_) : deviceStepUnsupported(sm, s);
        const size_t bytes = s.backend != Backend::Cpu && unsupported.empty() && !rigidOnly
                                 ? makeStepPlan(sm, s).deviceBytes(sm)
                                 : 0;
        // The CPU backend never touches the CUDA runtime (probing initializes the driver).
        const CudaProbe probe = s.backend == Backend::Cpu ? CudaProbe{}
                                : options_.hostExecutor   ? hostExecutorProbe()
                                                          : probeCuda();
        BackendChoice c = chooseBackend(s.backend, probe, unsupported, bytes, rigid_->numBodies() > 0,
                                        sm.numVertices() > 0, rigidDetectionFromEnv(),
                                        SoftOnHost{sm.collision.enabled, s.coarse.enabled,
                                                   RigidParticleCoupling::active(soft_, *rigid_)});
        if (c.refused) throw InputError("", "solver.backend", "cuda: " + c.reason);
        return c;
    }

    void stepSoft(float h, int substep, FrameMetrics& m) {
        soft_.clearIterations();
        if (device_) device_->clearIterations();
        if (device_)
            recordSoft(device_->step(soft_, h, desc_.gravity, !lazy_), device_->iterations(), substep, m);
        else
            recordSoft(soft_.step(h, desc_.gravity), soft_.iterations(), substep, m);
    }

    // One substep of particles and dynamic rigid bodies solved together (world/coupling.h): per iteration
    // all particle colors against the bodies' current iterate, then all body colors with the particles'
    // contact forces, then the rigid dual update. The particles step on the device where it runs them
    // (gpu/soft_stepper.h, the step in parts: the bodies' colliders and rows go up after each change, the
    // particles' positions come down once a sweep); the bodies on the CPU.
    void stepCoupled(float h, int substep, FrameMetrics& m) {
        soft_.clearIterations();
        if (device_) device_->clearIterations();
        {
            ScopedTimer t(m.solveMs);
            rigid_->beginStep(h);
        }
        {
            ScopedTimer t(m.collisionMs);
            coupling_.begin(soft_, *rigid_, h, desc_.gravity, desc_.solver);
        }
        if (device_)
            device_->beginStep(soft_, h, desc_.gravity);
        else
            soft_.beginStep(h, desc_.gravity);
        const RigidParticleCoupling::PositionReader read = [&](std::vector<Vec3d>& x,
                                                               std::vector<Vec3d>& xPrev) {
            if (device_)
                device_->stepPositions(x, xPrev);
            else
                soft_.stepPositions(x, xPrev);
        };
        auto publishBodies = [&] {
            coupling_.publishBodies(soft_, *rigid_);
            if (device_) device_->bodiesChanged(soft_.model());  // the colliders, and the rows' k and lambda
        };
        rigid_->setExternalBlocks(&coupling_.blocks());
        const int iterations = std::max(desc_.solver.iterations, rigid_->iterationCount());
        for (int it = 1; it <= iterations; ++it) {
            publishBodies();
            if (it <= desc_.solver.iterations && !(device_ ? device_->converged() : soft_.converged())) {
                if (device_)
                    device_->iterate(it);
                else
                    soft_.iterate(it);
            }
            ScopedTimer t(m.solveMs);
            coupling_.bodyTerms(soft_, *rigid_, h, read);
            if (it <= rigid_->iterationCount()) rigid_->iterate(it - 1);
            coupling_.dualUpdate(soft_, *rigid_, read);
        }
        publishBodies();
        const SoftStepStats st = device_ ? device_->endStep(soft_) : soft_.endStep();
        rigid_->endStep();
        rigid_->setExternalBlocks(nullptr);
        coupling_.end(soft_);
        recordSoft(st, device_ ? device_->iterations() : soft_.iterations(), substep, m);
    }

    // its: the iteration records of the backend that ran the step.
    void recordSoft(const SoftStepStats& st, const std::vector<IterationRecord>& its, int substep,
                    FrameMetrics& m) {
        if (substep == 0) m.residualInitial = st.residualInitial;
        m.residualFinal = st.residualFinal;
        m.residualFloor = st.residualFloor;
        m.energy = st.energy;
        m.iterations = std::max(m.iterations, st.iterations);  // the most any substep used
        m.solveMs += st.solveMs;
        m.diagnosticsMs += st.diagnosticsMs;
        m.coarseMs += st.hookMs;
        m.collisionMs += st.collisionMs;
        for (auto r : its) {
            r.frame = m.frame;
            r.iteration += substep * (desc_.solver.iterations + 1);
            lastIts_.push_back(r);
        }
    }

    void stepRigid(float h, int substep, FrameMetrics& m) {
        if (rigid_->numBodies() == 0) return;
        {
            ScopedTimer t(m.solveMs);
            if (rigidDevice_)
                rigidDevice_->step(*rigid_, h);
            else
                rigid_->step(h);
        }
        if (soft_.model().numVertices() > 0) return;
        // A rigid-only scene reports the rigid solver's convergence.
        m.iterations = desc_.solver.iterations;
        const auto& ri = rigid_->lastIterations();
        if (!ri.empty()) {
            m.residualInitial = substep == 0 ? ri.front().residual : m.residualInitial;
            m.residualFinal = ri.back().residual;
            m.energy = ri.back().energy;
        }
        for (auto r : ri) {
            r.frame = m.frame;
            lastIts_.push_back(r);
        }
    }

    // Mass-weighted center of mass, kinetic energy and max speed over particles and bodies. The particles'
    // part from the published state, or from the device's measures of its own (`sums`, setLazyPublish).
    void measure(FrameMetrics& m, const FrameSums* sums) {
        const SoftModel& sm = soft_.model();
        double mass = 0, ke = 0, vmax = 0, total = 0;
        Vec3d com(0, 0, 0);
        if (sums) {
            mass = sums->mass;
            com = Vec3d(sums->mx, sums->my, sums->mz);
            ke = sums->kinetic;
            vmax = sums->maxSpeed;
            total = sums->energy;
        } else {
            for (int i = 0; i < sm.numVertices(); ++i) {
                const double mi = sm.mass[size_t(i)];
                mass += mi;
                com += Vec3d(sm.x[size_t(i)]) * mi;
                const double v2 = squaredNorm(Vec3d(sm.v[size_t(i)]));
                ke += 0.5 * mi * v2;
                vmax = std::max(vmax, std::sqrt(v2));
            }
            total = soft_.mechanicalEnergy(desc_.gravity).total();
        }
        if (rigid_->numBodies() > 0) {
            mass += rigid_->totalMass();
            com += rigid_->massWeightedCom();
            ke += rigid_->kineticEnergy();
            vmax = std::max(vmax, rigid_->maxSpeed());
            // Rigid bodies: kinetic and gravitational energy (-g . sum m x); contacts and joints are
            // augmented-Lagrangian constraints without a stored potential.
            total += rigid_->kineticEnergy() - dot(Vec3d(desc_.gravity), rigid_->massWeightedCom());
        }
        m.totalEnergy = total;
        m.com = mass > 0 ? com / mass : Vec3d(0, 0, 0);
        m.kineticEnergy = ke;
        m.maxSpeed = vmax;
        m.minVolumeRatio = !sums ? minVolumeRatio(sm) : sums->minJ == FrameSums::kNone ? 1.0 : sums->minJ;
    }

    // Every change of desc_ goes through editDesc, which drops the shared copy made of the old one.
    SceneDesc& editDesc() {
        sharedDesc_.reset();
        return desc_;
    }
    SceneDesc desc_;
    mutable std::shared_ptr<const SceneDesc> sharedDesc_;  // sharedDesc(): desc_ as it is, made on demand
    mutable size_t fetches_ = 0;                           // stateFetches()
    WorldOptions options_;
    SoftSolver soft_;
    std::unique_ptr<RigidSolver> rigid_;
    std::unique_ptr<CoarseHook> coarse_;
    RigidParticleCoupling coupling_;
    ScalarField wantedField_ = ScalarField::None;  // setWantedField
    // The device's boxes of the bodies' particles (surfaceBounds) of the state the last step left there;
    // empty when the World measures them itself (no lazy device step since the last change of state).
    std::vector<FrameBounds> deviceBounds_;
    // The device's gather of the fixed particles' positions (pinPositions) of the state the last step left
    // there, valid when that step measured it; gatherPins_: the stepper gathers them.
    std::vector<Vec3> devicePins_;
    bool devicePinsValid_ = false, gatherPins_ = false;
    std::vector<int> pins_;  // the fixed particles (pinnedParticles), gathered where gatherPins_
    // setWatchedParticles, gathered after the pins; deviceWatched_: their positions, as devicePins_.
    std::vector<int> watched_;
    std::vector<Vec3> deviceWatched_;
    bool deviceWatchedValid_ = false;
    // What the device step gathers: the pins (unless too many), then the watched particles.
    std::vector<int> gatherList() const {
        std::vector<int> g = gatherPins_ ? pins_ : std::vector<int>{};
        g.insert(g.end(), watched_.begin(), watched_.end());
        return g;
    }
    // After a step: the device's gather of it, split into the pins and the watched particles (valid when the
    // step measured, lazily published).
    void keepGathered(bool measured) {
        std::vector<Vec3> g;
        const size_t pins = gatherPins_ ? pins_.size() : 0;
        const bool valid = measured && device_->gathered(g) && g.size() == pins + watched_.size();
        devicePinsValid_ = valid && gatherPins_;
        deviceWatchedValid_ = valid;
        if (!valid) return;
        devicePins_.assign(g.begin(), g.begin() + long(pins));
        deviceWatched_.assign(g.begin() + long(pins), g.end());
    }
    // setSurfaceRay, and the device's hit of it in the last step (valid when that step cast it).
    std::optional<SurfaceRay> surfaceRay_;
    CastHit deviceRay_;
    bool deviceRayValid_ = false;
    // The ray to the device stepper, with the surfaces' triangles the first time (one list, in order).
    void passSurfaceRay() {
        if (surfaceRay_ && !rayTrianglesPassed_) {
            std::vector<std::array<int, 3>> tris;
            for (const SurfaceView& s : surfaces_) tris.insert(tris.end(), s.tris.begin(), s.tris.end());
            device_->setRayTriangles(std::move(tris));
            rayTrianglesPassed_ = true;
        }
        device_->setSurfaceRay(surfaceRay_ ? &*surfaceRay_ : nullptr);
    }
    bool rayTrianglesPassed_ = false;      // to the current device_
    bool lazy_ = false;                    // setLazyPublish
    std::unique_ptr<SoftStepper> device_;  // the soft step on the device (solver.backend), or none: the CPU
    std::unique_ptr<RigidStepper> rigidDevice_;  // the rigid solve on the device, or none: RigidSolver::step
    std::string backendLine_;
    std::vector<SurfaceView> surfaces_;
    std::vector<FrameMetrics> history_;
    std::vector<IterationRecord> lastIts_;
    int frame_ = 0;
    double time_ = 0;
    std::uint64_t id_;
};

}  // namespace

std::vector<Vec3> World::pinPositions() const {
    const std::vector<char>& fixed = fixedMask();
    const std::vector<Vec3>& x = positions();
    std::vector<Vec3> out;
    for (size_t i = 0; i < fixed.size() && i < x.size(); ++i)
        if (fixed[i]) out.push_back(x[i]);
    return out;
}

SurfaceHit castSurfaces(const std::vector<SurfaceView>& surfaces, const std::vector<Vec3>& x,
                        const SurfaceRay& ray) {
    SurfaceHit best;
    int k = 0;
    for (const SurfaceView& s : surfaces)
        for (const auto& t : s.tris) {
            const int c[3] = {t[0], t[1], t[2]};
            const Vec3 p[3] = {x[size_t(t[0])], x[size_t(t[1])], x[size_t(t[2])]};
            best = best + triangleHit(ray, k++, c, p);
        }
    return best;
}

SurfaceHit World::surfaceHit(const SurfaceRay& ray) const {
    if (const std::optional<CastHit> cast = castSurfaceHit(); cast && cast->ray == ray) return cast->hit;
    return castSurfaces(surfaces(), positions(), ray);
}

std::vector<Box3> World::surfaceBounds() const {
    const std::vector<Vec3>& x = positions();
    std::vector<Box3> out;
    for (const SurfaceView& s : surfaces()) {
        FrameBounds b;
        for (const auto& t : s.tris)
            for (int v : t) b = b + FrameBounds::of(x[size_t(v)]);
        out.push_back({{b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}});
    }
    return out;
}

std::unique_ptr<World> World::create(const SceneDesc& desc) {
    return std::make_unique<WorldImpl>(desc, WorldOptions{});
}
std::unique_ptr<World> World::create(const SceneDesc& desc, const WorldOptions& options) {
    return std::make_unique<WorldImpl>(desc, options);
}

}  // namespace vbd
