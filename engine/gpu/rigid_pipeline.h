#pragma once
// The device rigid step (AVBD), one template over the executor that runs it: CudaExec (gpu/cuda_exec.cuh) or
// HostExec (gpu/host_exec.h, the same functors through parallelFor, tested on the CPU against RigidSolver).
//
// One step, as RigidSolver::step:
//   CPU     RigidSolver::beginStepForDevice: poses, broad + narrow phase, contact matching and warm start,
//           joint warm start, per-body CSR lists of contacts and joints, the coloring, the fused-dual owners
//   upload  bodies (state, working pose, v of the last step, mass, inertia, fixed), contacts, joints, the CSR
//           lists, the owners, the colors' body lists
//   device  forward step; [diagnostics of iteration 0]; per iteration: one launch per color, the dual update
//           (joints always, contacts after the last sweep or, with diagnostics, after every sweep: without
//           them each contact's update is fused into the next sweep, RigidSolver::iterate), |f| (and G)
//           reduced into a results array; velocities
//   download what the solver's next step or its readers use: the float state, the working poses, x-, R-,
//           v_last, the contacts' multipliers, penalties and sticking flags (the next matching warm-starts
//           from them; 28 of a contact's 200 bytes, the rest is read only) and the joints; the results
//           array, read once per step. (x*, R* and force2 live inside a step: RigidSolver rebuilds them.)
//           With device contacts (detect()) the records are made on the device and stay there: the solver's
//           are deferred (rigid/contact_list.h) and fetched by its first reader on the host.
// No CUDA graph: the contact list, the CSR lists and the colors change every step, so the launch sequence
// does too (about iterations x colors + 10 launches a step).
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend/parallel.h"
#include "gpu/broad_pipeline.h"
#include "gpu/copy_stage.h"
#include "gpu/exec_buffer.h"
#include "gpu/rigid_stages.h"
#include "gpu/rigid_stepper.h"
#include "gpu/save_blocks.h"
#include "gpu/step_plan.h"
#include "rigid/rigid_solver.h"

namespace vbd {

template <class Exec>
class RigidPipeline final : public RigidStepper {
  public:
    explicit RigidPipeline(Exec ex = Exec()) : ex_(std::move(ex)) {}
    ~RigidPipeline() override {
        release();
        keptContacts_->retire();  // the kept records' blocks are freed as their copies drop
    }
    RigidPipeline(const RigidPipeline&) = delete;
    RigidPipeline& operator=(const RigidPipeline&) = delete;

    void step(RigidSolver& solver, float h) override {
        if (!deviceContacts_) return stepOnce(solver, h);
        try {
            stepOnce(solver, h);
        } catch (...) {
            // The solver's contact records are written by the download at the end: after a failure they are
            // not there, and neither is a kept copy to trust. The stream is drained first: dropping the
            // solver's records may give a kept block (restoreKept) back to its pool while a copy issued here
            // still reads it, and another stream may take the block next.
            ex_.drain();
            solver.dropContacts();
            contactsVersion_ = 0;
            throw;
        }
    }

    DeviceRigidBodies deviceBodies(const RigidSolver& solver) const override {
        DeviceRigidBodies d;
        d.n = int(published_.size());
        d.state = d.n > 0 ? state_.p : nullptr;
        d.stream = ex_.nativeStream();
        d.cudaDevice = ex_.device();
        const std::vector<RigidBodyState>& now = solver.states();
        d.current =
            d.n > 0 && now.size() == published_.size() &&
            std::memcmp(static_cast<const void*>(now.data()), static_cast<const void*>(published_.data()),
                        published_.size() * sizeof(RigidBodyState)) == 0;
        return d;
    }

    void setProfiled(bool on) override { profiled_ = on; }
    void setLanesPerBody(int lanes) override {
        if (lanes != 1 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
            throw std::invalid_argument("setLanesPerBody: 1, 4, 8, 16 or 32 lanes, not " +
                                        std::to_string(lanes));
        lanesPerBody_ = lanes;
    }
    int lanesPerBody() const override { return lanesPerBody_; }
    void setSweepBlock(int threads) override {
        if (threads != 32 && threads != 64 && threads != 128 && threads != kBlockSize)
            throw std::invalid_argument("setSweepBlock: 32, 64, 128 or 256 threads, not " +
                                        std::to_string(threads));
        sweepBlock_ = threads;
    }
    int sweepBlock() const override { return sweepBlock_; }
    void setDeviceContacts(bool on) override {
        if (!on) deliverLent();
        deviceContacts_ = on;
    }
    bool deviceContacts() const override { return deviceContacts_; }
    void setDeviceBroadPhase(bool on) override { deviceBroad_ = on; }
    bool deviceBroadPhase() const override { return deviceBroad_; }
    PhaseMs phaseMs() const override { return phases_; }
    size_t contactsRestoredOnDevice() const override { return contactsRestoredOnDevice_; }
    Exec& exec() { return ex_; }

  private:
    // One step (step() adds the failure handling of device contacts).
    void stepOnce(RigidSolver& solver, float h) {
        ThreadLimit limit(solver.params().threads);
        phases_ = PhaseMs{};
        auto t0 = std::chrono::steady_clock::now();
        double detectMs = 0;  // the device detection's time: device time (solve), not the CPU's stages
        if (deviceContacts_) {
            detect(solver, h);
            const auto t1 = std::chrono::steady_clock::now();
            detectMs = std::chrono::duration<double, std::milli>(t1 - t0).count() - solver.stageMs().total();
            if (profiled_) phases_.detect = std::chrono::duration<double, std::milli>(t1 - t0).count();
            t0 = t1;
        } else {
            solver.beginStepForDevice(h);
            t0 = std::chrono::steady_clock::now();
        }
        // Read for the uploads; the results go into resultsView's storage below (the timeline's copy of the
        // solver may share these arrays: no host copy of them either way).
        const RigidView hv = solver.uploadView();
        const SolverDesc& p = solver.params();
        const int n = solver.numBodies();
        const int nc = int(solver.contactCount()), nj = int(solver.joints().size());
        const RigidView dv = upload(solver, hv, n, nc, nj);
        auto lap = [&, mark = t0](double& ms) mutable {
            if (!profiled_) return;
            ex_.sync();
            const auto now = std::chrono::steady_clock::now();
            ms = std::chrono::duration<double, std::milli>(now - mark).count();
            mark = now;
        };
        lap(phases_.upload);
        const int records = p.iterations + (p.diagnostics ? 1 : 0);
        results_.ensure(ex_, size_t(records) * 2);
        ex_.forEach(n, RigidPredictStage{dv, double(h)});
        int slot = 0;
        if (p.diagnostics) record(dv, h, n, nc, nj, true, slot++);
        const bool fuse = !p.diagnostics;
        for (int it = 0; it < p.iterations; ++it) {
            const bool dualInSweep = fuse && it > 0;
            for (size_t c = 0; c < colorStart_.size() - 1; ++c)
                issueSweep(dv, colors_.p + colorStart_[c], colorStart_[c + 1] - colorStart_[c], h,
                           dualInSweep);
            if (!fuse || it + 1 == p.iterations) ex_.forEach(nc, RigidContactDualStage{dv});
            ex_.forEach(nj, RigidJointDualStage{dv});
            record(dv, h, n, nc, nj, p.diagnostics, slot++);
        }
        ex_.forEach(n, RigidFinalizeStage{dv, 1.0 / double(h)});
        if (!deviceContacts_) ex_.forEach(nc, RigidPackContactsStage{dv.contacts, duals_.p});
        lap(phases_.kernels);
        // The results go into storage of the solver's own (resultsView); the start-of-step arrays are kept
        // until they have all arrived, and put back if the step fails first.
        const RigidSolver::BodyRecords start = solver.bodyRecords();
        const RigidView out = solver.resultsView();
        std::vector<double> res(size_t(records) * 2);
        try {
            download(out, n, nc, nj);
            ex_.download(res.data(), results_.p, res.size());
            ex_.sync();
        } catch (...) {
            solver.restoreBodyRecords(start);
            throw;
        }
        published_.assign(out.state, out.state + n);
        if (deviceContacts_) {
            // This step's contacts and ranges become the next step's warm start, kept here; the solver's
            // records are fetched from there when the host first reads them (deliverLent before reuse).
            std::swap(contacts_, oldContacts_);
            std::swap(ranges_, oldRanges_);
            contactsVersion_ = solver.markContactsFromDevice();
            lent_ = solver.deferContacts([this](Contact* dst, size_t count) {
                ex_.download(dst, oldContacts_.p, count);
                ex_.sync();
            });
            // A copy of the solver (the app's timeline saves one a frame) keeps them on the device instead of
            // bringing them down: 11.4 MB of the pile's a frame.
            lent_->keep = [this, count = size_t(nc)] { return keepContacts(count); };
        } else {
            unpackDuals(out.contacts, nc);
            contactsVersion_ = 0;
        }
        std::vector<IterationRecord> its(static_cast<size_t>(records));
        for (int k = 0; k < records; ++k) {
            IterationRecord& r = its[size_t(k)];
            r.iteration = p.diagnostics ? k : k + 1;
            r.residual = std::sqrt(res[size_t(k) * 2]);
            if (p.diagnostics) r.energy = res[size_t(k) * 2 + 1];
        }
        lap(phases_.download);
        solver.endStepFromDevice(
            std::move(its),
            detectMs +
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    template <typename U>
    using Buffer = ExecBuffer<Exec, U>;

    template <typename U>
    U* put(Buffer<U>& b, const U* src, size_t n) {
        return b.put(ex_, src, n);
    }

    template <int kLanes>
    void issueTiles(const RigidView& dv, const int* bodies, int count, float h, bool dual) {
        using Stage = RigidSweepTileStage<kLanes>;
        if (count <= 0) return;
        // The launch is indexed by int (as the soft plan's check in makeStepPlan): a wrapped count would skip
        // the color without a word.
        const long long threads = Stage::threadsFor(count);
        if (threads > INT_MAX)
            throw std::runtime_error("rigid device step: a color of " + std::to_string(count) +
                                     " bodies at " + std::to_string(kLanes) +
                                     " lanes exceeds the launch's index range");
        ex_.forEach(int(threads), Stage{dv, bodies, count, h, dual ? 1 : 0}, sweepBlock_);
    }
    // One color's sweep in the chosen layout (setLanesPerBody).
    void issueSweep(const RigidView& dv, const int* bodies, int count, float h, bool dual) {
        switch (lanesPerBody_) {
            case 4:
                issueTiles<4>(dv, bodies, count, h, dual);
                break;
            case 8:
                issueTiles<8>(dv, bodies, count, h, dual);
                break;
            case 16:
                issueTiles<16>(dv, bodies, count, h, dual);
                break;
            case 32:
                issueTiles<32>(dv, bodies, count, h, dual);
                break;
            default:
                ex_.forEach(count, RigidSweepStage{dv, bodies, h, dual ? 1 : 0}, sweepBlock_);
        }
    }

    // The detection with the narrow phase and the matching on the executor: the CPU's bounds, the broad phase
    // (the CPU's, or with deviceBroad_ the executor's from the uploaded boxes, its pairs brought down) and
    // the CPU's candidate pairs, the pairs and the bodies up, one manifold per pair, the point counts down,
    // the CPU's ranges from them, the matching issued, the CPU's lists and coloring meanwhile. Last step's
    // contacts are uploaded first unless they are the ones this stepper kept (the solver's contacts are still
    // those it wrote: contactsVersion).
    void detect(RigidSolver& solver, float h) {
        if (deviceBroad_) {
            solver.boundsForDevice(h);
            broad_.find(ex_, solver.boxes(), solver.overlapsForDevice());
            solver.candidatesForDevice();
        } else {
            solver.beginDetectionForDevice(h);
        }
        const std::vector<std::pair<int, int>>& pairs = solver.candidatePairList();
        const size_t n = size_t(solver.numBodies()), np = pairs.size();
        if (solver.contactsVersion() != contactsVersion_ || contactsVersion_ == 0) {
            // Another solver's records may still wait in the memory the upload reuses.
            deliverLent();
            if (!restoreKept(solver)) {
                const MatchView old = solver.matchView();  // fetches the solver's records if they are pending
                oldContacts_.put(ex_, old.oldContacts, solver.contactCount());
                oldRanges_.put(ex_, old.oldManifolds, old.numOldManifolds);
                numOldRanges_ = old.numOldManifolds;
            }
        } else {
            numOldRanges_ = solver.manifoldRanges().size();  // the solver's records: our oldContacts_
        }
        toBodyPairs(pairs, hostPairs_);
        const RigidBodyState* state = put(state_, solver.states().data(), n);
        const Collider* shape = shape_.put(ex_, solver.colliders().data(), n);  // uploaded when they change
        bodyFriction_.put(ex_, solver.frictions().data(), n);
        const float* margin = put(margin_, solver.margins().data(), n);
        const BodyPair* dp = put(pairs_, hostPairs_.data(), np);
        rot_.ensure(ex_, n);
        manifolds_.ensure(ex_, np);
        counts_.ensure(ex_, np);
        ex_.forEach(int(n), RigidRotationStage{state, rot_.p});
        ex_.forEach(int(np), RigidNarrowStage{dp, state, rot_.p, shape, margin, solver.groundHeight(),
                                              manifolds_.p, counts_.p});
        hostCounts_.resize(np);
        ex_.download(hostCounts_.data(), counts_.p, np);
        ex_.sync();
        solver.rangesForDevice(hostCounts_.data());
        // A list still waiting for the records in oldContacts_ is another solver's now (rangesForDevice
        // unhooked this one's): a copy of this solver made while its records were pending stays pending on
        // the same version, so stepping the copy finds its version kept and would swap oldContacts_ under the
        // original's fetch. Delivered before the step reuses them.
        deliverLent();
        // The matching needs only the ranges and the start-of-step bodies: issued now, it runs while the CPU
        // builds the lists and the coloring (upload() then leaves these arrays as they are).
        const RigidView hv = solver.uploadView();
        put(pose_, hv.pose, n);
        mass_.put(ex_, hv.mass, n);
        fixed_.put(ex_, hv.fixed, n);
        contacts_.ensure(ex_, solver.contactCount());
        match(solver, h);
        solver.listsForDevice();
    }

    // The contacts of the touching pairs on the executor into contacts_, warm started from last step's (kept
    // or uploaded by detect).
    void match(const RigidSolver& solver, float h) {
        const std::vector<ManifoldRange>& touching = solver.manifoldRanges();
        MatchView v = solver.matchView();
        v.state = state_.p;
        v.pose = pose_.p;
        v.shape = shape_.p();
        v.mass = mass_.p();
        v.friction = bodyFriction_.p();
        v.fixed = fixed_.p();
        v.oldContacts = oldContacts_.p;
        v.oldManifolds = oldRanges_.p;
        v.numOldManifolds = numOldRanges_;
        const ManifoldRange* dr = put(ranges_, touching.data(), touching.size());
        ex_.forEach(int(touching.size()), RigidMatchStage{v, dr, manifolds_.p, h, contacts_.p});
    }

    // Copies the step's inputs; returns the view over the copies.
    RigidView upload(const RigidSolver& solver, const RigidView& hv, int n, int nc, int nj) {
        const size_t N = size_t(n);
        RigidView d = hv;       // parameters, drag, gravity; every pointer replaced below
        if (deviceContacts_) {  // placed by detect() for the matching
            d.state = state_.p;
            d.pose = pose_.p;
            d.mass = mass_.p();
            d.fixed = fixed_.p();
        } else {
            d.state = put(state_, hv.state, N);
            d.pose = put(pose_, hv.pose, N);
            d.mass = mass_.put(ex_, hv.mass, N);
            d.fixed = fixed_.put(ex_, hv.fixed, N);
        }
        d.prevVel = put(prevVel_, hv.prevVel, N);
        d.inertia = inertia_.put(ex_, hv.inertia, N);
        // Written on the device before they are read (forward step, sweeps, diagnostics): no upload.
        prevPos_.ensure(ex_, N);
        prevRot_.ensure(ex_, N);
        targetPos_.ensure(ex_, N);
        targetRot_.ensure(ex_, N);
        force2_.ensure(ex_, N);
        energy_.ensure(ex_, N);
        duals_.ensure(ex_, size_t(nc));
        d.prevPos = prevPos_.p;
        d.prevRot = prevRot_.p;
        d.targetPos = targetPos_.p;
        d.targetRot = targetRot_.p;
        d.force2 = force2_.p;
        if (deviceContacts_) {
            d.contacts = contacts_.p;  // sized and written by detect()
        } else {
            d.contacts = put(contacts_, hv.contacts, size_t(nc));
        }
        d.joints = put(joints_, hv.joints, size_t(nj));
        d.contactOffsets = put(contactOffsets_, hv.contactOffsets, N + 1);
        d.contactItems = put(contactItems_, hv.contactItems, size_t(hv.contactOffsets[n]));
        d.jointOffsets = put(jointOffsets_, hv.jointOffsets, N + 1);
        d.jointItems = put(jointItems_, hv.jointItems, size_t(hv.jointOffsets[n]));
        d.dualOwner = put(dualOwner_, hv.dualOwner, size_t(nc));
        d.external = nullptr;  // refused (rigidDeviceStepUnsupported)
        d.numExternal = 0;
        // The colors' body lists, flattened.
        std::vector<int> flat;
        colorStart_.assign(1, 0);
        for (const std::vector<int>& g : solver.colorGroups()) {
            flat.insert(flat.end(), g.begin(), g.end());
            colorStart_.push_back(int(flat.size()));
        }
        put(colors_, flat.data(), flat.size());
        const size_t most = size_t(std::max(n, std::max(nc, nj)));
        partials_.ensure(ex_, size_t(blocksFor((long long)most)) + 1);
        return d;
    }

    // The results of one iteration record into slot k: |f|^2 summed over dynamic bodies, and with
    // diagnostics (exact: a read-only assembly at the current iterate) G.
    void record(const RigidView& d, float h, int n, int nc, int nj, bool diagnostics, int k) {
        double* out = results_.p + size_t(k) * 2;
        if (diagnostics) {
            ex_.forEach(n, RigidDiagnosticsStage{d, h, energy_.p});
            ex_.reduce(n, RigidArrayTerm{energy_.p}, partials_.p, out + 1, false);
            ex_.reduce(nc, RigidContactEnergyTerm{d}, partials_.p, out + 1, true);
            ex_.reduce(nj, RigidJointEnergyTerm{d}, partials_.p, out + 1, true);
        }
        ex_.reduce(n, RigidForceTerm{d}, partials_.p, out, false);
    }

    // Writes the step's results back into the solver's arrays.
    void download(const RigidView& hv, int n, int nc, int nj) {
        const size_t N = size_t(n);
        ex_.download(hv.state, state_.p, N);
        ex_.download(hv.pose, pose_.p, N);
        ex_.download(hv.prevPos, prevPos_.p, N);
        ex_.download(hv.prevRot, prevRot_.p, N);
        ex_.download(hv.prevVel, prevVel_.p, N);
        if (!deviceContacts_) {  // with device contacts the records stay there (the solver's are deferred)
            hostDuals_.resize(size_t(nc));
            ex_.download(hostDuals_.data(), duals_.p, size_t(nc));
        }
        ex_.download(hv.joints, joints_.p, size_t(nj));
    }

    void unpackDuals(Contact* contacts, int nc) const {
        for (int k = 0; k < nc; ++k) {
            Contact& c = contacts[k];
            const ContactDualState& s = hostDuals_[size_t(k)];
            for (int r = 0; r < 3; ++r) {
                c.k[r] = s.k[r];
                c.lambda[r] = s.lambda[r];
            }
            c.stick = s.stick;
        }
    }

    // The n records in oldContacts_ copied within the device (on the step's stream: the next step, which
    // reuses oldContacts_, runs after the copy), for a copy of the solver: its fetch waits for the copy alone
    // and reads the kept block, which goes back to keptContacts_ when the last holder of the fetch lets go.
    // The block's place goes with it, for a step of this executor's memory (restoreKept).
    KeptContacts keepContacts(size_t n) {
        struct Kept {
            std::shared_ptr<RoomBlocks<Exec>> pool;
            typename RoomBlocks<Exec>::Block block;
            void* done = nullptr;
            Kept() = default;
            Kept(const Kept&) = delete;
            Kept& operator=(const Kept&) = delete;
            ~Kept() {
                Exec::freeMark(done);
                if (pool) pool->give(block);
            }
        };
        auto kept = std::make_shared<Kept>();
        kept->block = keptContacts_->take(ex_, n * sizeof(Contact));
        kept->pool = keptContacts_;
        ex_.forEach(int(n), CopyStage<Contact>{static_cast<Contact*>(kept->block.p), oldContacts_.p});
        kept->done = ex_.mark();
        KeptContacts out;
        out.fetch = [kept](Contact* dst, size_t count) {
            Exec::waitMark(kept->done);
            Exec::downloadNow(dst, kept->block.p, count * sizeof(Contact));
        };
        out.space = memorySpace();
        out.records = static_cast<const Contact*>(kept->block.p);
        out.done = kept->done;
        return out;
    }
    // The executor's memory, as KeptContacts names it: one per executor type (CudaExec runs on device 0). A
    // kept block of another stepper of the same type is readable by this one's kernels.
    static const void* memorySpace() {
        static const char space = 0;
        return &space;
    }
    // Last step's contacts of a solver whose records are a copy kept in this executor's memory (a timeline
    // frame restored, whose save kept them there; PendingContacts::kept) into oldContacts_, copied within the
    // memory after the copy that made them (on another stepper's stream, possibly: waited for on the host,
    // long done by then); their ranges up from the host. False, nothing done, for records anywhere else.
    bool restoreKept(const RigidSolver& solver) {
        const PendingContacts* p = solver.pendingContacts();
        if (!p || !p->kept.records || p->kept.space != memorySpace()) return false;
        const std::vector<ManifoldRange>& ranges = solver.manifoldRanges();
        // The ranges index the records: the last ends at their count (else the host path, which reads them).
        if (ranges.empty() || ranges.back().first + ranges.back().count != p->count) return false;
        const size_t n = p->count;
        oldContacts_.ensure(ex_, n);
        Exec::waitMark(p->kept.done);
        ex_.forEach(int(n), CopyStage<Contact>{oldContacts_.p, p->kept.records});
        oldRanges_.put(ex_, ranges.data(), ranges.size());
        numOldRanges_ = ranges.size();
        ++contactsRestoredOnDevice_;
        return true;
    }

    // The records the last device-contacts step left for a solver, written into its list now (before their
    // memory is reused or freed); the link is then cut: a later read of that solver cannot reach this
    // stepper.
    void deliverLent() noexcept {
        if (!lent_) return;
        lent_->deliver();  // a failed fetch leaves the list lost (ContactList), it does not throw
        lent_->fetch = nullptr;
        lent_->keep = nullptr;
        lent_.reset();
    }

    void release() {
        deliverLent();
        ex_.drain();  // never throws (also called from the destructor)
        broad_.release(ex_);
        state_.free(ex_);
        pose_.free(ex_);
        prevVel_.free(ex_);
        mass_.free(ex_);
        inertia_.free(ex_);
        fixed_.free(ex_);
        prevPos_.free(ex_);
        prevRot_.free(ex_);
        targetPos_.free(ex_);
        targetRot_.free(ex_);
        force2_.free(ex_);
        energy_.free(ex_);
        contacts_.free(ex_);
        oldContacts_.free(ex_);
        ranges_.free(ex_);
        oldRanges_.free(ex_);
        shape_.free(ex_);
        bodyFriction_.free(ex_);
        margin_.free(ex_);
        rot_.free(ex_);
        pairs_.free(ex_);
        manifolds_.free(ex_);
        counts_.free(ex_);
        contactsVersion_ = 0;
        duals_.free(ex_);
        joints_.free(ex_);
        contactOffsets_.free(ex_);
        contactItems_.free(ex_);
        jointOffsets_.free(ex_);
        jointItems_.free(ex_);
        dualOwner_.free(ex_);
        colors_.free(ex_);
        partials_.free(ex_);
        results_.free(ex_);
    }

    Exec ex_;
    Buffer<RigidBodyState> state_;
    Buffer<BodyPose> pose_;
    Buffer<Vec3> prevVel_, prevPos_;
    Buffer<Quat> prevRot_;
    Buffer<Vec3d> targetPos_;
    Buffer<Quatd> targetRot_;
    Buffer<double> force2_, energy_, partials_, results_;
    // The bodies' constants, uploaded when they differ from the last upload (a new solver, a body added).
    KeptBuffer<Exec, double> mass_;
    KeptBuffer<Exec, Vec3d> inertia_;
    KeptBuffer<Exec, char> fixed_;
    KeptBuffer<Exec, Collider> shape_;
    KeptBuffer<Exec, float> bodyFriction_;
    Buffer<Contact> contacts_;
    Buffer<ContactDualState> duals_;
    // Device contacts (setDeviceContacts): the detection's inputs and outputs, and last step's contacts and
    // ranges, the warm start of the next matching; contactsVersion_: the solver's contacts version when they
    // were made in contacts_ (now oldContacts_, which the solver's deferred records are fetched from), 0
    // when there is no kept copy.
    Buffer<Contact> oldContacts_;
    Buffer<ManifoldRange> ranges_, oldRanges_;
    Buffer<float> margin_;
    Buffer<Mat33> rot_;
    Buffer<BodyPair> pairs_;
    Buffer<Manifold> manifolds_;
    Buffer<int> counts_;
    std::vector<BodyPair> hostPairs_;
    std::vector<int> hostCounts_;
    size_t numOldRanges_ = 0;
    uint64_t contactsVersion_ = 0;
    size_t contactsRestoredOnDevice_ = 0;    // restoreKept's count (RigidStepper::contactsRestoredOnDevice)
    std::shared_ptr<PendingContacts> lent_;  // the link to the solver whose records are in oldContacts_
    // The blocks of records kept for copies of the solver (keepContacts), shared with them.
    std::shared_ptr<RoomBlocks<Exec>> keptContacts_ = std::make_shared<RoomBlocks<Exec>>();
    bool deviceContacts_ = false;
    bool deviceBroad_ = false;
    BroadPipeline<Exec> broad_;  // the broad phase with deviceBroad_
    std::vector<ContactDualState> hostDuals_;
    Buffer<Joint> joints_;
    Buffer<int> contactOffsets_, contactItems_, jointOffsets_, jointItems_, dualOwner_, colors_;
    std::vector<int> colorStart_{0};  // the colors' ranges in colors_
    // The states the last step downloaded into the solver (state_ holds them on the executor): deviceBodies()
    // compares the solver's states with them.
    std::vector<RigidBodyState> published_;
    bool profiled_ = false;
    PhaseMs phases_;
    int lanesPerBody_ = 1;
    int sweepBlock_ = kBlockSize;
};

}  // namespace vbd
