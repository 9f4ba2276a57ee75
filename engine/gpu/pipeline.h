#pragma once
// The device step's orchestration, one template over the executor that runs it: CudaExec (gpu/cuda_exec.cuh:
// kernels on a stream, the whole step captured once into a CUDA graph and replayed) or HostExec
// (gpu/host_exec.h: the same functors through parallelFor, so that everything here is tested on the CPU).
//
// An executor provides: alloc<U>(n) / release(p) of its memory; upload(dst, src, n) / download(dst, src, n);
// forEach(n, functor) over [0, n); reduce(n, functor, partials, out, accumulate): *out (+)= sum of functor(i)
// in a fixed order (two passes through `partials`, one entry per block); sync(); and graphs() with
// captureGraph(issue) / launchGraph() / dropGraph(); drain(), a sync that never throws (HostExec: graphs() is
// false, everything runs as issued).
//
// One step, as SoftSolver::step (soft/soft_solver.cpp):
//   predict; C_prev (tets), C_prev (triangles), theta_prev (hinges); [collision: detection]; [hook: begin];
//   |grad G_0| (+ G_0 with diagnostics); Chebyshev start
//   for k = 1..iterations: [collision: re-detection when due]; one launch per color; Chebyshev k;
//   [hook: after sweep k]; |grad G| (+ G) when recorded
//   |grad G| and G at the end when not recorded per sweep; finalize
// Collision (cloth self-collision, soft-soft contact) is detected on the host by the CPU solver's own stage
// (soft/cloth_stage.h: references, spatial hash, pairs, step bounds, x truncated into them) on positions
// downloaded for it, and the truncated positions, contacts and bounds go up; the sweeps, the bound after each
// update, the contact forces, the residual and G run on the device. A model with collision is stepped stage
// by stage without a graph (the host works between the stages, and the contact arrays change size). The
// diagnostics go to a results array of the executor's memory (StepPlan::resultDoubles), read once at the end
// of the step -- or after every sweep with solver.tolerance, where the host decides whether to go on (that
// path is issued sweep by sweep, without a graph). While a reader wants the residual heat map, every |grad G|
// reduction also stores |f_i| per vertex (ResidualTerm), and publishing downloads the last one.
// The solver's sweep hook (the coarse-space correction, soft/sweep_hook.h) runs on the host too: the iterate
// comes down after each sweep, the hook computes its update from the same view the CPU solver gives it
// (soft/hook_state.h), and the updated iterate goes up. Such a step is issued stage by stage as well.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "backend/timer.h"
#include "gpu/exec_buffer.h"
#include "gpu/frame_measure_stages.h"
#include "gpu/save_blocks.h"
#include "gpu/soft_stepper.h"
#include "gpu/step_plan.h"
#include "gpu/step_stages.h"
#include "soft/cloth_stage.h"
#include "soft/hook_state.h"
#include "soft/soft_state.h"

namespace vbd {

template <typename T, class Exec>
class PipelineStepper final : public SoftStepper {
  public:
    explicit PipelineStepper(Exec ex = Exec()) : ex_(std::move(ex)) {}
    ~PipelineStepper() override {
        release();
        saveBlocks_->retire();  // nothing takes from it any more: its saves' blocks are freed as they drop
    }
    PipelineStepper(const PipelineStepper&) = delete;
    PipelineStepper& operator=(const PipelineStepper&) = delete;

    void configure(SoftSolver& solver) override {
        release();
        const SoftModel& m = solver.model();
        const std::string why = deviceStepUnsupported(m, solver.params());
        if (!why.empty()) throw std::runtime_error("device step: " + why);
        plan_ = makeStepPlan(m, solver.params());
        const int n = plan_.n;
        // Parameters: the CPU view's pointers (and its nullptr markers) swapped for copies.
        SoftViewParams p = solver.viewParams();
        // The contacts are the collision stage's, put up after each detection (afterDetection).
        p.contacts = nullptr, p.vcOffsets = nullptr, p.vcItems = nullptr;
        forEachParamArray(m, p, [&](auto& ptr, const auto& array) {
            if (ptr) ptr = copyOf(array.data(), array.size());
        });
        StepArrays<T>& a = a_;
        a = StepArrays<T>{};
        static_cast<SoftViewParams&>(a.view) = p;
        a.n = n;
        a.numTets = plan_.numTets;
        a.x = alloc<Vec3T<T>>(size_t(n));
        a.v = alloc<Vec3T<T>>(size_t(n));
        a.xPrev = alloc<Vec3T<T>>(size_t(n));
        a.y = alloc<Vec3T<T>>(size_t(n));
        a.vLast = alloc<Vec3T<T>>(size_t(n));
        a.chebPrev = alloc<Vec3T<T>>(size_t(n));
        a.chebPrevPrev = alloc<Vec3T<T>>(size_t(n));
        a.inContact = alloc<char>(size_t(n));
        a.Cprev = alloc<Mat33T<T>>(size_t(plan_.numTets));
        a.numTris = int(m.tris.size());
        a.numHinges = int(m.hinges.size());
        a.triCprev = alloc<std::array<T, 3>>(m.tris.size());
        a.hingeThetaPrev = alloc<T>(m.hinges.size());
        a.fixed = copyOf(m.fixed.data(), m.fixed.size());
        a.kinematic = copyOf(m.kinematic.data(), m.kinematic.size());
        a.regions = copyOf(m.regions.data(), m.regions.size());
        a.x0 = copyOf(m.x0.data(), m.x0.size());
        a.view.x = a.x;
        a.view.xPrev = a.xPrev;
        a.view.y = a.y;
        a.view.Cprev = a.Cprev;
        a.edgeLength = double(m.restEdgeMax);
        if (fieldWanted_) a.residualField = alloc<float>(size_t(n));
        if (std::is_same_v<T, float> && solver.sweepOptions().floatIncrement) {  // as SoftSolver::syncState
            a.dx = alloc<Vec3T<T>>(size_t(n));
            a.dy = alloc<Vec3T<T>>(size_t(n));
            a.view.dx = a.dx;
            a.view.dy = a.dy;
        }
        a.view.triCprev = a.triCprev;
        a.view.hingeThetaPrev = a.hingeThetaPrev;
        collision_ = m.collision.enabled;
        if (collision_) {
            a.bound = alloc<float>(size_t(n));
            a.xc = alloc<Vec3>(size_t(n));
            a.ref = alloc<Vec3>(size_t(n));
            a.xRead = alloc<Vec3T<T>>(size_t(n));
            if (a.dx) a.dxRead = alloc<Vec3T<T>>(size_t(n));
        }
        model_ = &solver.model();
        colorVerts_ = copyOf(plan_.colorVerts.data(), plan_.colorVerts.size());
        partials_ = alloc<double>(plan_.reductionPartials() * (sizeof(Sum2) / sizeof(double)));
        results_ = alloc<double>(plan_.resultDoubles());
        measures_ = alloc<FrameSums>(1);
        scalars_ = alloc<StepScalars>(1);
        hostResults_.assign(plan_.resultDoubles(), 0.0);
        seeded_ = false;
        stepped_ = false;
        ranStep_ = false;
        pending_ = false;
        measured_ = false;
        configured_ = true;
        placeWindow();
    }

    SoftStepStats step(SoftSolver& solver, float h, const Vec3& gravity, bool publishState) override {
        const auto t0 = std::chrono::steady_clock::now();
        if (!prepareStep(solver, h, gravity)) return SoftStepStats{};
        syncBodies(solver.model());
        int last = plan_.iterations;
        if (plan_.tolerance)
            last = stepWithTolerance(solver.params().tolerance);
        else if (ex_.graphs() && !collision_ && !hook_ && !a_.view.vbOffsets)
            stepAsGraph();
        else
            issueStep();
        return finishStep(solver, last, publishState, t0);
    }

    void beginStep(SoftSolver& solver, float h, const Vec3& gravity) override {
        splitStart_ = std::chrono::steady_clock::now();
        splitK_ = 0;
        splitActive_ = prepareStep(solver, h, gravity);
        if (!splitActive_) return;
        splitStep_ = true;
        tolerance_ = solver.params().tolerance;
        syncBodies(solver.model());
        issueBegin();
        readSlots(0);
        positionsStale_ = true;
    }
    void iterate(int k) override {
        if (!splitActive_) return;
        issueIteration(k);
        splitK_ = k;
        readSlots(k);
        positionsStale_ = true;
    }
    bool converged() override {
        return splitActive_ && plan_.tolerance && splitK_ > 0 && convergedAt(splitK_, tolerance_);
    }
    void stepPositions(std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev) override {
        if (!splitActive_) return;
        if (positionsStale_) {
            hookDownload(!stepDataDown_);
            positionsStale_ = false;
        }
        iterateInDouble(hookState_, x);
        convertInto(xPrev, hookState_.xPrev);
    }
    void bodiesChanged(const SoftModel& m) override {
        if (splitActive_) syncBodies(m);
    }
    SoftStepStats endStep(SoftSolver& solver) override {
        if (!splitActive_) return SoftStepStats{};
        splitActive_ = false;
        issueEnd(splitK_);
        SoftStepStats st = finishStep(solver, splitK_, true, splitStart_);
        splitFieldValid_ = splitStep_ && !a_.residualField;  // issueResidual wrote splitField_
        splitStep_ = false;
        // The coupling clears the model's rows after the step (RigidParticleCoupling::end): so do the
        // device's, which a later step() would otherwise read.
        a_.view.bodyColliders = nullptr, a_.view.vbOffsets = nullptr, a_.view.bodyRows = nullptr;
        return st;
    }

    bool publishPending(SoftSolver& solver) override {
        if (!pending_ || !configured_) return false;
        publish(solver);
        pending_ = false;
        return true;
    }
    void setFrameMeasures(bool on) override {
        if (on == measuresWanted_) return;
        measuresWanted_ = on;
        measured_ = false;
        dropCapturedStep();  // the captured step issues the measures or not
    }
    bool frameMeasures(FrameSums& out) const override {
        if (!measured_) return false;
        out = hostMeasures_;
        return true;
    }
    void setFrameBounds(std::vector<std::array<int, 2>> ranges) override {
        if (ranges == boundsRanges_) return;
        for (const auto& r : ranges)
            if (r[0] < 0 || r[1] < r[0])
                throw std::invalid_argument("setFrameBounds: a range ends before it begins");
        boundsRanges_ = std::move(ranges);
        boundsPlan_ = planRangeBounds(boundsRanges_, kBoundsFanIn);
        boundsUploaded_ = false;
        hostBounds_.assign(boundsRanges_.size(), FrameBounds{});
        measured_ = false;
        dropCapturedStep();  // the captured step issues the reductions it had
    }
    bool frameBounds(std::vector<FrameBounds>& out) const override { return lastMeasured(hostBounds_, out); }
    void setGathered(std::vector<int> particles) override {
        if (particles == gatherList_) return;
        for (int i : particles)
            if (i < 0) throw std::invalid_argument("setGathered: a negative particle index");
        gatherList_ = std::move(particles);
        gatherUploaded_ = false;
        hostGathered_.assign(gatherList_.size(), Vec3(0.0f));
        measured_ = false;
        dropCapturedStep();  // the captured step issues the gather it had
    }
    bool gathered(std::vector<Vec3>& out) const override { return lastMeasured(hostGathered_, out); }
    void setRayTriangles(std::vector<std::array<int, 3>> tris) override {
        if (tris == rayTris_) return;
        for (const auto& t : tris)
            if (t[0] < 0 || t[1] < 0 || t[2] < 0)
                throw std::invalid_argument("setRayTriangles: a negative particle index");
        rayTris_ = std::move(tris);
        rayTrisUploaded_ = false;
        rayCast_ = false;
        dropCapturedStep();  // the captured step casts against the old triangles' array, or none
    }
    // The ray goes up with each step (prepareStep), so a new ray needs no new graph. Once set, the cast stays
    // in the step: a ray taken away goes up as one that meets nothing (a zero direction: every triangle's
    // determinant is 0) and its hit is not read. The hover's ray comes and goes as the cursor crosses the
    // view's edge and the panels; a new graph each time would drain the stream and capture the step again,
    // and the launch it saves is one reduction over the surface triangles.
    void setSurfaceRay(const SurfaceRay* ray) override {
        const bool was = castsRay();
        rayWanted_ = ray != nullptr;
        rayLaunched_ = rayLaunched_ || rayWanted_;
        ray_ = ray ? *ray : SurfaceRay{Vec3(0.f), Vec3(0.f)};
        if (was != castsRay()) dropCapturedStep();
    }
    bool surfaceHit(SurfaceRay& ray, SurfaceHit& out) const override {
        if (!measured_ || !rayCast_) return false;
        ray = rayOfStep_;
        out = hostRayHit_;
        return true;
    }

    // One block a save (saveBlocks_): the five arrays, then the residual field where there is one.
    std::shared_ptr<const DeviceStateCopy> saveOnDevice() override {
        if (!configured_ || !stepped_) return nullptr;
        const bool field = a_.residualField && !fieldStale_;
        const size_t n = size_t(plan_.n);
        const size_t bytes = n * (StateCopy::kArrays * sizeof(Vec3T<T>) + (field ? sizeof(float) : 0));
        void* block = saveBlocks_->take(ex_, bytes);
        std::shared_ptr<StateCopy> c;
        try {
            c = std::make_shared<StateCopy>(plan_.n, saveBlocks_, block, bytes);
        } catch (...) {
            saveBlocks_->give(block, bytes);
            throw;
        }
        auto* arrays = static_cast<Vec3T<T>*>(c->block);
        for (int k = 0; k < StateCopy::kArrays; ++k) {
            c->arrays[k] = arrays + size_t(k) * n;
            ex_.forEach(plan_.n, CopyStage<Vec3T<T>>{c->arrays[k], stateArray(k)});
        }
        if (field) {
            c->field = reinterpret_cast<float*>(arrays + StateCopy::kArrays * n);
            ex_.forEach(plan_.n, CopyStage<float>{c->field, a_.residualField});
        }
        c->done = ex_.mark();
        return c;
    }
    bool restoreOnDevice(const DeviceStateCopy& copy, SoftSolver& solver) override {
        const auto* c = dynamic_cast<const StateCopy*>(&copy);
        SoftModel& m = solver.model();
        if (!c || c->n != m.numVertices() || m.numVertices() == 0) return false;
        if (!configured_ || plan_.n != m.numVertices() || plan_.numTets != int(m.tets.size()))
            configure(solver);
        Exec::syncDevice();  // the copy was made on the saving stepper's stream
        for (int k = 0; k < StateCopy::kArrays; ++k)
            ex_.forEach(plan_.n, CopyStage<Vec3T<T>>{stateArray(k), c->arrays[k]});
        splitFieldValid_ = false;
        fieldStale_ = a_.residualField && !c->field;
        if (a_.residualField && c->field) ex_.forEach(plan_.n, CopyStage<float>{a_.residualField, c->field});
        ex_.sync();  // the copy's block may go back to its pool and into the saving stepper's next save
        // The model's arrays stand as published (no edit to reseed from) until the pending publish replaces
        // them; the mirror's state is of no step (saveCarried gives nothing until then).
        mirror_ = SoftState<T>{};
        mirror_.publishedX = m.x;
        mirror_.publishedV = m.v;
        seeded_ = stepped_ = hasVLast_ = pending_ = true;
        measured_ = false;
        return true;
    }

    void setLanesPerVertex(int lanes) override {
        if (lanes != 1 && lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
            throw std::invalid_argument("setLanesPerVertex: 1, 4, 8, 16 or 32 lanes, not " +
                                        std::to_string(lanes));
        const int was = lanesPerVertex();
        lanesSet_ = lanes;
        if (lanesPerVertex() != was) dropCapturedStep();
    }
    // Unless set: a tile of kDefaultLanesPerVertex on CUDA where the model has tets (the lanes split a
    // vertex's tets); a thread per vertex for cloth alone, whose terms a tile's first lane would do while the
    // others idle (8 lanes: 4 vertices a warp instead of 32). 1 on the host executor (the CPU solver's
    // order).
    int lanesPerVertex() const override {
        if (lanesSet_) return lanesSet_;
        return Exec::kTiles && plan_.numTets > 0 ? kDefaultLanesPerVertex : 1;
    }
    void setSweepMinBlocks(int blocks) override {
        if (blocks < 1 || blocks > 4)
            throw std::invalid_argument("setSweepMinBlocks: 1 to 4 blocks, not " + std::to_string(blocks));
        if (blocks == sweepMinBlocks_) return;
        sweepMinBlocks_ = blocks;
        dropCapturedStep();
    }
    int sweepMinBlocks() const override { return sweepMinBlocks_; }
    void setPersistingPositions(bool on) override {
        if (on == persistWanted_) return;
        persistWanted_ = on;
        if (configured_) placeWindow();
    }
    size_t persistingBytes() const override { return persistBytes_; }
    void saveCarried(SoftSolver::Carried& c) const override {
        if (!configured_ || !stepped_ || mirror_.x.size() != size_t(plan_.n)) return;
        SoftState<T> s;
        s.x = mirror_.x, s.v = mirror_.v, s.xPrev = mirror_.xPrev, s.y = mirror_.y, s.vLast = mirror_.vLast;
        s.publishedX = mirror_.publishedX, s.publishedV = mirror_.publishedV;
        if constexpr (std::is_same_v<T, double>)
            c.d = std::move(s);
        else
            c.f = std::move(s);
    }
    void setTetLayout(TetLayout layout) override {  // placed by the next step
        if (layout != TetLayout::Arrays && layout != TetLayout::IncidenceRecords &&
            layout != TetLayout::TetRecords)
            throw std::invalid_argument("setTetLayout: not a TetLayout (" + std::to_string(int(layout)) +
                                        ")");
        layoutWanted_ = layout;
    }
    TetLayout tetLayout() const override { return layoutWanted_; }
    size_t tetRecordBytes() const override { return recordBytes_; }
    void setResidualField(bool wanted) override {
        if (wanted == fieldWanted_) return;
        fieldWanted_ = wanted;
        if (!configured_) return;  // configure allocates it
        // The captured graph holds the functors' copies of a_ (the field pointer among them).
        dropCapturedStep();
        if (wanted) {
            a_.residualField = alloc<float>(size_t(plan_.n));
            fieldStale_ = true;  // of no state until a step or residualField fills it
        } else {
            releaseOwned(a_.residualField);
            a_.residualField = nullptr;
        }
    }
    bool residualField(std::vector<float>& out) override {
        // The field from the state the last step left, with that step's scalars and C_prev: not before a step
        // ran here (after restoreOnDevice the scalars and references are of no step).
        if (!configured_ || !ranStep_ || !a_.residualField) return false;
        if (splitFieldValid_) {
            // A coupled step's own field (issueResidual): its last evaluation read the rows against the rigid
            // bodies as they were then, which the coupling has since updated and cleared.
            ex_.forEach(plan_.n, CopyStage<float>{a_.residualField, splitField_.p});
        } else {
            ex_.forEach(plan_.n, ResidualFieldStage<T>{ResidualTerm<T>{a_, scalars_}});
        }
        fieldStale_ = false;
        downloadField(a_.residualField, out);
        return true;
    }
    bool pendingResidualField(std::vector<float>& out) override {
        if (!pending_) return false;
        if (a_.residualField && !fieldStale_)  // as publish
            downloadField(a_.residualField, out);
        else
            out.clear();
        return true;
    }
    bool pendingVolumeRatio(std::vector<float>& out) override {
        if (!pending_) return false;
        fieldScratch_.ensure(ex_, size_t(plan_.n));
        ex_.forEach(plan_.n, VolumeRatioFieldStage<T>{a_, fieldScratch_.p});
        downloadField(fieldScratch_.p, out);
        return true;
    }
    bool pendingDominance(float h, bool sumRatio, std::vector<float>& out) override {
        if (!pending_) return false;
        fieldScratch_.ensure(ex_, size_t(plan_.n));
        ex_.forEach(plan_.n, DominanceFieldStage<T>{a_, h, sumRatio, fieldScratch_.p});
        downloadField(fieldScratch_.p, out);
        return true;
    }
    const std::vector<IterationRecord>& iterations() const override { return its_; }
    void clearIterations() override { its_.clear(); }
    const StepPlan& plan() const { return plan_; }
    Exec& exec() { return ex_; }
    DeviceParticles deviceParticles() const override {
        DeviceParticles d;
        d.x = a_.x;
        d.n = configured_ ? plan_.n : 0;
        d.doublePrecision = std::is_same<T, double>::value;
        d.stream = ex_.nativeStream();
        d.cudaDevice = ex_.device();
        d.current = configured_ && stepped_;
        return d;
    }

    // The issue sequence of one whole step (public for the benchmark, which replays it without publishing).
    void issueStep() {
        issueBegin();
        for (int k = 1; k <= plan_.iterations; ++k) issueIteration(k);
        issueEnd(plan_.iterations);
    }

  private:
    // A saved state on the executor (saveOnDevice): x, v, x_prev, y, v_last and the residual field in one
    // block of the stepper's SaveBlocks, given back there when the save is dropped (also after the stepper is
    // gone).
    struct StateCopy final : DeviceStateCopy {
        static constexpr int kArrays = 5;
        StateCopy(int count, std::shared_ptr<SaveBlocks<Exec>> blocks, void* memory, size_t size)
            : n(count), pool(std::move(blocks)), block(memory), blockBytes(size) {}
        ~StateCopy() override {
            Exec::freeMark(done);
            pool->give(block, blockBytes);
        }
        StateCopy(const StateCopy&) = delete;
        StateCopy& operator=(const StateCopy&) = delete;
        size_t bytes() const override { return blockBytes; }
        int numVertices() const override { return n; }
        void toHost(SoftSolver::Carried& out) const override {
            Exec::syncDevice();  // the copies were issued on the saving stepper's stream
            Exec ex;
            SoftState<T> s;
            std::vector<Vec3T<T>>* dst[kArrays] = {&s.x, &s.v, &s.xPrev, &s.y, &s.vLast};
            for (int k = 0; k < kArrays; ++k) {
                dst[k]->resize(size_t(n));
                ex.download(dst[k]->data(), arrays[k], size_t(n));
            }
            out.residual.assign(field ? size_t(n) : 0, 0.f);
            if (field) ex.download(out.residual.data(), field, size_t(n));
            ex.sync();
            s.publishedX = std::vector<Vec3>(s.x.begin(), s.x.end());  // Vec3(x): the published rounding
            s.publishedV = std::vector<Vec3>(s.v.begin(), s.v.end());
            if constexpr (std::is_same_v<T, double>)
                out.d = std::move(s);
            else
                out.f = std::move(s);
        }
        void particles(std::vector<Vec3>* x, std::vector<Vec3>* v) const override {
            Exec::waitMark(done);
            std::vector<Vec3T<T>> scratch;
            for (auto [out, src] : {std::pair{x, arrays[0]}, std::pair{v, arrays[1]}}) {
                if (!out) continue;
                out->resize(size_t(n));
                if constexpr (std::is_same_v<T, float>) {
                    Exec::downloadNow(out->data(), src, size_t(n) * sizeof(Vec3));
                } else {
                    scratch.resize(size_t(n));
                    Exec::downloadNow(scratch.data(), src, size_t(n) * sizeof(Vec3T<T>));
                    for (size_t i = 0; i < scratch.size(); ++i) (*out)[i] = Vec3(scratch[i]);
                }
            }
        }
        int n;
        std::shared_ptr<SaveBlocks<Exec>> pool;
        void* block;  // the arrays and the field, from pool (given back when the save is dropped)
        size_t blockBytes;
        Vec3T<T>* arrays[kArrays] = {};  // x, v, x_prev, y, v_last (stateArray's order), in block
        float* field = nullptr;
        void* done = nullptr;  // Exec::mark after the copies (particles waits for it)
    };
    // What the last step measured with its measures (frameBounds, gathered); false when it measured nothing.
    template <typename U>
    bool lastMeasured(const std::vector<U>& host, std::vector<U>& out) const {
        if (!measured_) return false;
        out = host;
        return true;
    }
    Vec3T<T>* stateArray(int k) const {
        Vec3T<T>* const a[StateCopy::kArrays] = {a_.x, a_.v, a_.xPrev, a_.y, a_.vLast};
        return a[k];
    }

    template <typename U>
    U* alloc(size_t n) {
        U* p = ex_.template alloc<U>(n);
        if (p) owned_.push_back(p);
        return p;
    }
    template <typename U>
    const U* copyOf(const U* src, size_t n) {
        U* p = alloc<U>(n);
        if (n) ex_.upload(p, src, n);
        return p;
    }
    void releaseOwned(void* p) {
        if (!p) return;
        const auto it = std::find(owned_.begin(), owned_.end(), p);
        if (it == owned_.end()) return;  // not ours
        owned_.erase(it);
        ex_.release(p);
    }
    // The tile sweep's tet records (gpu/tet_records.h) copied to the executor, or freed: as setTetLayout
    // asked. The captured graph's functors hold the pointers: dropped.
    void placeRecords(const SoftModel& m) {
        dropCapturedStep();
        releaseOwned(const_cast<TetRecord*>(a_.records));
        if (a_.recordKd != a_.view.kd) releaseOwned(const_cast<float*>(a_.recordKd));  // the view's own: kept
        a_.records = nullptr;
        a_.recordKd = nullptr;
        a_.recordKdAll = 0;
        recordBytes_ = 0;
        layoutPlaced_ = layoutWanted_;  // a model without tets has none to place: asked once, not every step
        if (layoutWanted_ == TetLayout::Arrays || m.vertexTets.items.empty()) return;
        std::vector<TetRecord> rec;
        std::vector<float> kd;
        buildTetRecords(m, layoutWanted_, rec, kd, a_.recordKdAll);
        a_.records = copyOf(rec.data(), rec.size());
        recordBytes_ = rec.size() * sizeof(TetRecord);
        // Per tet, k_d is the view's array (not freed with the records); per incidence, a copy.
        if (!kd.empty())
            a_.recordKd = layoutWanted_ == TetLayout::TetRecords ? a_.view.kd : copyOf(kd.data(), kd.size());
        ex_.sync();  // the host vectors go out of scope
    }
    // The step's start up to its first stage: configured for the model, the tet records placed, seeded
    // after an edit, the scalars up. False when there is nothing to step.
    bool prepareStep(SoftSolver& solver, float h, const Vec3& gravity) {
        SoftModel& m = solver.model();
        splitFieldValid_ = false;
        if (!configured_ || plan_.n != m.numVertices() || plan_.numTets != int(m.tets.size()))
            configure(solver);
        if (layoutWanted_ != layoutPlaced_) placeRecords(m);
        model_ = &m;
        if (plan_.n == 0) return false;
        // Sized before a graph is captured (an allocation cannot be captured), once per configure.
        if (measuresWanted_) {
            measurePartials_.ensure(ex_, size_t(blocksFor(measuredItems())));
            if (!boundsRanges_.empty() && !boundsUploaded_) {
                for (const auto& r : boundsRanges_)
                    if (r[1] > plan_.n) throw std::invalid_argument("setFrameBounds: a range past the model");
                const BoundsPlan& bp = boundsPlan_;
                if (!bp.items.empty()) boundsItems_.put(ex_, bp.items.data(), bp.items.size());
                boundsRangeBox_.put(ex_, bp.rangeBox.data(), bp.rangeBox.size());
                boundsTree_.ensure(ex_, size_t(std::max(bp.numBoxes, 1)));
                bounds_.ensure(ex_, boundsRanges_.size());
                boundsUploaded_ = true;
            }
            if (castsRay() && !rayTrisUploaded_) {  // as the gather: an index past the model's reads past x
                for (const auto& t : rayTris_)
                    if (std::max(t[0], std::max(t[1], t[2])) >= plan_.n)
                        throw std::invalid_argument("setRayTriangles: a corner past the model's " +
                                                    std::to_string(plan_.n) + " particles");
                std::vector<int> corners;
                corners.reserve(3 * rayTris_.size());
                for (const auto& t : rayTris_) corners.insert(corners.end(), t.begin(), t.end());
                rayTriangles_.put(ex_, corners.data(), corners.size());
                ex_.sync();  // corners goes out of scope
                rayIn_.ensure(ex_, 1);
                rayOut_.ensure(ex_, 1);
                rayPartials_.ensure(ex_, size_t(blocksFor(int(rayTris_.size()))));
                rayTrisUploaded_ = true;
            }
            if (!gatherList_.empty() && !gatherUploaded_) {  // an index past the model's would read past x
                for (int i : gatherList_)
                    if (i >= plan_.n)
                        throw std::invalid_argument("setGathered: particle " + std::to_string(i) + " of " +
                                                    std::to_string(plan_.n));
                gatherIndex_.put(ex_, gatherList_.data(), gatherList_.size());
                gatherOut_.ensure(ex_, gatherList_.size());
                gatherUploaded_ = true;
            }
        }
        detectMs_ = 0;
        hookMs_ = 0;
        stepDataDown_ = false;
        hook_ = solver.sweepHook();
        hookSettings_ = solver.hookSettings(h);
        if (!seeded_ || !mirror_.matchesPublished(m)) seed(solver);
        StepScalars& sc = scalarsHost_;
        sc = StepScalars{};
        sc.time = solver.clock();
        sc.h = h;
        sc.gravity = gravity;
        sc.adaptive = solver.params().adaptiveInit && norm(gravity) > 0.f && hasVLast_ ? 1 : 0;
        const SoftViewParams drag = solver.viewParams();
        sc.dragVertex = drag.dragVertex;
        sc.dragTarget = drag.dragTarget;
        sc.dragStiffness = drag.dragStiffness;
        ex_.upload(scalars_, &sc, 1);
        rayCast_ = measuresWanted_ && castsRay() && rayWanted_;
        if (measuresWanted_ && castsRay()) {
            rayOfStep_ = ray_;
            ex_.upload(rayIn_.p, &rayOfStep_, 1);
        }
        return true;
    }
    // After the last stage: the results read, the stats and iteration records, the state published, the
    // clock advanced (SoftSolver::endStep).
    SoftStepStats finishStep(SoftSolver& solver, int last, bool publishState,
                             std::chrono::steady_clock::time_point t0) {
        SoftModel& m = solver.model();
        SoftStepStats stats;
        ex_.download(hostResults_.data(), results_, hostResults_.size());
        if (measuresWanted_) ex_.download(&hostMeasures_, measures_, 1);
        if (measuresWanted_ && !boundsRanges_.empty())
            ex_.download(hostBounds_.data(), bounds_.p, boundsRanges_.size());
        if (measuresWanted_ && !gatherList_.empty())
            ex_.download(hostGathered_.data(), gatherOut_.p, gatherList_.size());
        if (rayCast_) ex_.download(&hostRayHit_, rayOut_.p, 1);
        ex_.sync();
        measured_ = measuresWanted_;
        stats.iterations = last;
        stats.residualInitial = std::sqrt(slot(0, 0));
        stats.residualFinal = std::sqrt(slot(last, 0));
        stats.residualFloor = std::sqrt(slot(last, 1));
        stats.energy = slot(last, 2);
        stats.contacts = int(m.collision.contacts.size());
        stats.collisionMs = detectMs_;
        stats.hookMs = hookMs_;
        if (solver.params().diagnostics)
            for (int k = 0; k <= last; ++k) its_.push_back({0, k, std::sqrt(slot(k, 0)), slot(k, 2)});
        fieldStale_ = false;  // this step's field
        if (publishState) publish(solver);
        pending_ = !publishState;
        hasVLast_ = true;
        stepped_ = ranStep_ = true;
        solver.setClock(scalarsHost_.time + double(scalarsHost_.h));  // SoftSolver::endStep: time_ += h_
        stats.solveMs = msSince(t0);
        return stats;
    }
    // The results of sweep k when the host decides on them (a tolerance), as stepWithTolerance reads them.
    void readSlots(int k) {
        if (!plan_.tolerance) return;
        ex_.download(hostResults_.data() + size_t(k) * StepPlan::kSlotsPerIteration, slotPtr(k, 0),
                     StepPlan::kSlotsPerIteration);
        ex_.sync();
    }
    // The model's rows against moving rigid bodies (world/coupling.h) into the kernel's view, or none (as
    // SoftSolver::viewParams: nullptr without rows).
    void syncBodies(const SoftModel& m) {
        if (m.bodyRows.empty() || m.bodyRowOffsets.size() != size_t(plan_.n) + 1) {
            a_.view.bodyColliders = nullptr, a_.view.vbOffsets = nullptr, a_.view.bodyRows = nullptr;
            return;
        }
        a_.view.bodyColliders = bodyColliders_.put(ex_, m.bodyColliders.data(), m.bodyColliders.size());
        a_.view.vbOffsets = vbOffsets_.put(ex_, m.bodyRowOffsets.data(), m.bodyRowOffsets.size());
        a_.view.bodyRows = bodyRows_.put(ex_, m.bodyRows.data(), m.bodyRows.size());
    }

    // The persisting window over x as setPersistingPositions asks (the captured graph's kernel nodes carry
    // the window they were captured with: dropped).
    void placeWindow() {
        dropCapturedStep();
        persistBytes_ = ex_.setPersistingWindow(persistWanted_ ? a_.x : nullptr,
                                                persistWanted_ ? size_t(plan_.n) * sizeof(Vec3T<T>) : 0);
    }

    // n floats of the device's field into out, waited for.
    void downloadField(const float* field, std::vector<float>& out) {
        out.resize(size_t(plan_.n));
        ex_.download(out.data(), field, out.size());
        ex_.sync();
    }
    // The captured step's graph is stale (another kernel or another array): the next step captures again.
    void dropCapturedStep() {
        ex_.drain();
        ex_.dropGraph();
        graphReady_ = false;
    }
    void release() {
        ex_.drain();  // never throws (also called from the destructor)
        ex_.dropGraph();
        for (void* p : owned_) ex_.release(p);
        owned_.clear();
        contacts_.free(ex_);
        vcOffsets_.free(ex_);
        vcItems_.free(ex_);
        contactPartials_.free(ex_);
        measurePartials_.free(ex_);
        boundsItems_.free(ex_);
        boundsRangeBox_.free(ex_);
        boundsTree_.free(ex_);
        bounds_.free(ex_);
        boundsUploaded_ = false;
        gatherIndex_.free(ex_);
        gatherOut_.free(ex_);
        rayTriangles_.free(ex_);
        rayIn_.free(ex_);
        rayOut_.free(ex_);
        rayPartials_.free(ex_);
        rayTrisUploaded_ = rayCast_ = false;
        fieldScratch_.free(ex_);
        splitField_.free(ex_);
        splitFieldValid_ = false;
        gatherUploaded_ = false;
        bodyColliders_.free(ex_);
        vbOffsets_.free(ex_);
        bodyRows_.free(ex_);
        numContacts_ = 0;
        layoutPlaced_ = TetLayout::Arrays;
        recordBytes_ = 0;
        configured_ = false;
        graphReady_ = false;
    }

    double slot(int k, int j) const {
        return hostResults_[size_t(k) * StepPlan::kSlotsPerIteration + size_t(j)];
    }
    double* slotPtr(int k, int j) { return results_ + size_t(k) * StepPlan::kSlotsPerIteration + size_t(j); }

    // The state from the published model (SoftState::seed): x, v and v_last; the rest is rebuilt by predict.
    // Where the solver's own state of this precision still rounds to the published arrays (a restored frame
    // saved with saveCarried, or the CPU's state when the backend was switched), x, v and v_last come from
    // it, with their digits below float.
    void seed(const SoftSolver& solver) {
        const SoftModel& m = solver.model();
        const size_t count = size_t(plan_.n);
        const SoftState<T>* kept = nullptr;
        if constexpr (std::is_same_v<T, double>)
            kept = &solver.doubleState();
        else
            kept = &solver.floatState();
        if (kept->x.size() == count && kept->v.size() == count && kept->vLast.size() == count &&
            kept->xPrev.size() == count && kept->y.size() == count && kept->matchesPublished(m)) {
            mirror_.x = kept->x, mirror_.v = kept->v, mirror_.vLast = kept->vLast;
            mirror_.xPrev = kept->xPrev, mirror_.y = kept->y;
            mirror_.publishedX = kept->publishedX, mirror_.publishedV = kept->publishedV;
        } else {
            mirror_.seed(m);
        }
        const size_t n = size_t(plan_.n);
        hasVLast_ = mirror_.vLast.size() == n;
        if (!hasVLast_) mirror_.vLast.assign(n, Vec3T<T>(T(0)));  // finalize's v_last before any step
        ex_.upload(a_.x, mirror_.x.data(), n);
        ex_.upload(a_.v, mirror_.v.data(), n);
        ex_.upload(a_.vLast, mirror_.vLast.data(), n);
        seeded_ = true;
    }

    // The state into the model, and the residual field into the solver when it is wanted (else emptied).
    void publish(SoftSolver& solver) {
        SoftModel& m = solver.model();
        const size_t n = size_t(plan_.n);
        for (auto* s : {&mirror_.x, &mirror_.v, &mirror_.xPrev, &mirror_.y, &mirror_.vLast}) s->resize(n);
        ex_.download(mirror_.x.data(), a_.x, n);
        ex_.download(mirror_.v.data(), a_.v, n);
        ex_.download(mirror_.xPrev.data(), a_.xPrev, n);
        ex_.download(mirror_.y.data(), a_.y, n);
        ex_.download(mirror_.vLast.data(), a_.vLast, n);
        std::vector<float>& field = solver.vertexResidual();
        if (a_.residualField && !fieldStale_) {
            field.resize(n);
            ex_.download(field.data(), a_.residualField, n);
        } else {
            field.clear();
        }
        ex_.sync();
        mirror_.publish(m);
        if (m.vLast.size() != n) m.vLast.resize(n);
        for (size_t i = 0; i < n; ++i) m.vLast[i] = Vec3(mirror_.vLast[i]);
    }

    void stepAsGraph() {
        if (!graphReady_) {
            ex_.captureGraph([&] { issueStep(); });
            graphReady_ = true;
        }
        ex_.launchGraph();
    }

    // Sweep by sweep, reading |grad G| after each (SoftSolver::converged: the relative tolerance or twice the
    // state's rounding floor). Returns the sweeps run.
    int stepWithTolerance(double tol) {
        issueBegin();
        ex_.download(hostResults_.data(), results_, StepPlan::kSlotsPerIteration);
        ex_.sync();
        int k = 0;
        while (k < plan_.iterations) {
            if (k > 0 && convergedAt(k, tol)) break;
            ++k;
            issueIteration(k);
            ex_.download(hostResults_.data() + size_t(k) * StepPlan::kSlotsPerIteration, slotPtr(k, 0),
                         StepPlan::kSlotsPerIteration);
            ex_.sync();
        }
        issueEnd(k);
        return k;
    }

    // SoftSolver::converged after sweep k: the relative tolerance or twice the state's rounding floor.
    bool convergedAt(int k, double tol) const {
        return std::sqrt(slot(k, 0)) <= std::max(tol * std::sqrt(slot(0, 0)), 2 * std::sqrt(slot(k, 1)));
    }

    // A two-pass reduction over `count` items through partials_ (StepPlan::reductionPartials() Sum2's), its
    // size checked here: the host executor sums without the partials, so a plan that sized them too small
    // would pass every test on the CPU and write past them on a device.
    template <typename R, class Term>
    void reduceThroughPartials(int count, const Term& term, R* out, bool accumulate) {
        if (size_t(blocksFor(count)) * sizeof(R) > plan_.reductionPartials() * sizeof(Sum2))
            throw std::logic_error("device step: a reduction of " + std::to_string(count) +
                                   " items needs more partial sums than the plan has");
        ex_.reduce(count, term, reinterpret_cast<R*>(partials_), out, accumulate);
    }
    void issueResidual(int k) {
        // A coupled step (beginStep .. endStep) keeps its field even unwished: a field wished for after it
        // cannot be evaluated again (residualField), as the rows against the rigid bodies it read are gone.
        // 4n bytes a residual evaluation, beside a coupled step's transfers of the iterate every sweep.
        StepArrays<T> a = a_;
        if (!a.residualField && splitStep_) {
            splitField_.ensure(ex_, size_t(plan_.n));
            a.residualField = splitField_.p;
        }
        reduceThroughPartials(plan_.n, ResidualTerm<T>{a, scalars_}, reinterpret_cast<Sum2*>(slotPtr(k, 0)),
                              false);
    }
    void issueEnergy(int k) {
        reduceThroughPartials(plan_.n, EnergyVertexTerm<T>{a_, scalars_}, slotPtr(k, 2), false);
        reduceThroughPartials(plan_.numTets, EnergyTetTerm<T>{a_, scalars_}, slotPtr(k, 2), true);
        if (a_.numTris > 0)
            reduceThroughPartials(a_.numTris, EnergyTriTerm<T>{a_, scalars_}, slotPtr(k, 2), true);
        if (a_.numHinges > 0)
            reduceThroughPartials(a_.numHinges, EnergyHingeTerm<T>{a_, scalars_}, slotPtr(k, 2), true);
        if (a_.view.vbOffsets) reduceThroughPartials(plan_.n, EnergyBodyTerm<T>{a_}, slotPtr(k, 2), true);
        if (numContacts_ > 0) {
            contactPartials_.ensure(ex_, size_t(blocksFor(numContacts_)));
            ex_.reduce(numContacts_, EnergyContactTerm<T>{a_}, contactPartials_.p, slotPtr(k, 2), true);
        }
    }

    // ---- collision: detected on the host (soft/cloth_stage.h), as the CPU solver does -------------------

    // Step start (ClothContactStage::begin): references from the initial guess, detection at x_prev, the
    // guess truncated into the bounds.
    void detectAtStart() {
        ScopedTimer timer(detectMs_);
        const size_t n = size_t(plan_.n);
        hostX_.resize(n);
        hostXPrev_.resize(n);
        ex_.download(hostX_.data(), a_.x, n);
        ex_.download(hostXPrev_.data(), a_.xPrev, n);
        ex_.sync();
        cloth_.begin(*model_, hostXPrev_, hostX_);
        afterDetection();
    }
    // Before sweep k when due (ClothContactStage::refresh): detection at the current iterate, x truncated.
    void redetect() {
        ScopedTimer timer(detectMs_);
        const size_t n = size_t(plan_.n);
        hostX_.resize(n);
        ex_.download(hostX_.data(), a_.x, n);
        ex_.sync();
        cloth_.refresh(*model_, hostX_);
        afterDetection();
    }
    // The truncated positions up (and the increments resynced to them, soft_solver.cpp resyncIncrements),
    // then the detection's bounds and contacts.
    void afterDetection() {
        const CollisionState& cs = model_->collision;
        const size_t n = size_t(plan_.n);
        if (cs.bound.size() != n || cs.xc.size() != n || cs.ref.size() != n)
            throw std::runtime_error(
                "device step: the collision stage's per-vertex arrays are not the model's size");
        ex_.upload(a_.x, hostX_.data(), n);
        if (a_.dx) ex_.forEach(plan_.n, ResyncStage<T>{a_});
        ex_.upload(const_cast<float*>(a_.bound), cs.bound.data(), n);
        ex_.upload(const_cast<Vec3*>(a_.xc), cs.xc.data(), n);
        ex_.upload(const_cast<Vec3*>(a_.ref), cs.ref.data(), n);
        numContacts_ = int(cs.contacts.size());
        if (numContacts_ == 0) {  // as SoftSolver::viewParams: nullptr, the kernel skips self contacts
            a_.view.contacts = nullptr, a_.view.vcOffsets = nullptr, a_.view.vcItems = nullptr;
        } else {
            const Csr& vc = cs.vertexContacts;
            a_.view.contacts = contacts_.put(ex_, cs.contacts.data(), cs.contacts.size());
            a_.view.vcOffsets = vcOffsets_.put(ex_, vc.offsets.data(), vc.offsets.size());
            a_.view.vcItems = vcItems_.put(ex_, vc.items.data(), vc.items.size());
        }
        // No wait: an upload has taken its source when it returns (a pageable cudaMemcpyAsync returns once
        // the source is staged; the executor's staged copies copy it at the call), and the next detection
        // downloads and waits before the host touches these arrays again.
    }

    // ---- the sweep hook on the host (SoftSolver::beginStep and correctT) ---------------------------------

    // The device state's arrays into hookState_ (for the hook and the coupling's positions): x (and dx in
    // the increment form) every call, x_prev and y (dy) once a step.
    void hookDownload(bool stepData) {
        const size_t n = size_t(plan_.n);
        SoftState<T>& st = hookState_;
        st.increments = a_.dx != nullptr;
        st.x.resize(n);
        ex_.download(st.x.data(), a_.x, n);
        if (st.increments) {
            st.dx.resize(n);
            ex_.download(st.dx.data(), a_.dx, n);
        }
        if (stepData) {
            stepDataDown_ = true;
            st.xPrev.resize(n);
            st.y.resize(n);
            ex_.download(st.xPrev.data(), a_.xPrev, n);
            ex_.download(st.y.data(), a_.y, n);
            if (st.increments) {
                st.dy.resize(n);
                ex_.download(st.dy.data(), a_.dy, n);
            }
        }
        ex_.sync();
    }
    void hookBegin() {
        ScopedTimer timer(hookMs_);
        hookDownload(true);
        hook_->beginStep(hookViewOf(*model_, hookState_, hookWidened_, true, hookSettings_));
    }
    // After sweep k and its Chebyshev step, before |grad G| is measured (SoftSolver::iterate).
    void hookAfterSweep(int k) {
        ScopedTimer timer(hookMs_);
        hookDownload(false);
        hookUpdate_.clear();
        hookUpdate_.dx.resize(size_t(plan_.n));
        hook_->afterSweep(hookViewOf(*model_, hookState_, hookWidened_, false, hookSettings_), k,
                          hookUpdate_);
        if (!applyHookUpdate(*model_, hookState_, hookUpdate_)) return;
        ex_.upload(a_.x, hookState_.x.data(), size_t(plan_.n));
        if (a_.dx) ex_.upload(a_.dx, hookState_.dx.data(), size_t(plan_.n));
        // No wait: the uploads hold their sources at the call (afterDetection), and hookState_ changes only
        // after the next hookDownload's sync.
    }

    void issueBegin() {
        ex_.forEach(plan_.n, PredictStage<T>{a_, scalars_});
        ex_.forEach(plan_.numTets, CprevStage<T>{a_});
        ex_.forEach(a_.numTris, TriPrevStage<T>{a_});
        ex_.forEach(a_.numHinges, HingePrevStage<T>{a_});
        if (collision_) detectAtStart();
        if (hook_) hookBegin();
        issueResidual(0);
        if (plan_.energyEachIteration) issueEnergy(0);
        if (plan_.chebyshevRho > 0) ex_.forEach(plan_.n, ChebyshevStartStage<T>{a_});
    }

    template <int kLanes, int kMinBlocks = 1>
    void issueTiles(const StepArrays<T>& a, const int* verts, int count) {
        if (a.records && layoutPlaced_ == TetLayout::IncidenceRecords) {
            using Stage = SweepTileStage<T, kLanes, kMinBlocks, TetLayout::IncidenceRecords>;
            ex_.forEach(int(Stage::threadsFor(count)), Stage{a, scalars_, verts, count});
        } else if (a.records && layoutPlaced_ == TetLayout::TetRecords) {
            using Stage = SweepTileStage<T, kLanes, kMinBlocks, TetLayout::TetRecords>;
            ex_.forEach(int(Stage::threadsFor(count)), Stage{a, scalars_, verts, count});
        } else {
            using Stage = SweepTileStage<T, kLanes, kMinBlocks>;
            ex_.forEach(int(Stage::threadsFor(count)), Stage{a, scalars_, verts, count});
        }
    }
    // The register budget is a build-time property of a kernel: one instantiation per choice, for the tile
    // widths that benchmark fastest (4 and 8); the others keep the compiler's choice.
    template <int kLanes>
    void issueTilesOccupancy(const StepArrays<T>& a, const int* verts, int count) {
        switch (sweepMinBlocks_) {
            case 2:
                issueTiles<kLanes, 2>(a, verts, count);
                break;
            case 3:
                issueTiles<kLanes, 3>(a, verts, count);
                break;
            case 4:
                issueTiles<kLanes, 4>(a, verts, count);
                break;
            default:
                issueTiles<kLanes, 1>(a, verts, count);
        }
    }
    void issueIteration(int k) {
        if (collision_ && cloth_.due(*model_, k)) redetect();
        // With contacts the sweep's functors read the snapshot (step_stages.h, "Races") and write x.
        const bool snapshot = collision_ && numContacts_ > 0;
        StepArrays<T> a = a_;
        if (snapshot) {
            ex_.forEach(plan_.n, SnapshotStage<T>{a_});
            a.view.x = a_.xRead;
            a.view.dx = a_.dxRead;
        }
        for (int c = 0; c < plan_.numColors(); ++c) {
            const int* verts = colorVerts_ + plan_.colorOffsets[size_t(c)];
            const int count = plan_.colorSize(c);
            switch (lanesPerVertex()) {
                case 4:
                    issueTilesOccupancy<4>(a, verts, count);
                    break;
                case 8:
                    issueTilesOccupancy<8>(a, verts, count);
                    break;
                case 16:
                    issueTiles<16>(a, verts, count);
                    break;
                case 32:
                    issueTiles<32>(a, verts, count);
                    break;
                default:
                    ex_.forEach(count, SweepStage<T>{a, scalars_, verts});
            }
            if (snapshot) ex_.forEach(count, SnapshotColorStage<T>{a_, verts});
        }
        if (plan_.chebyshevRho > 0)
            ex_.forEach(plan_.n, ChebyshevStage<T>{a_, T(plan_.chebyshevWeights[size_t(k)]), k});
        if (hook_) hookAfterSweep(k);
        if (plan_.residualEachIteration) issueResidual(k);
        if (plan_.energyEachIteration) issueEnergy(k);
    }

    // What the CPU's endStep measures when the sweeps did not, then v = (x - x_prev) / h.
    void issueEnd(int last) {
        if (!(plan_.residualEachIteration && last > 0)) issueResidual(last);
        if (!plan_.energyEachIteration) issueEnergy(last);
        ex_.forEach(plan_.n, FinalizeStage<T>{a_, scalars_});
        if (measuresWanted_) issueMeasures();
    }

    // The frame's measures of the finalized state (gpu/frame_measure_stages.h) into measures_: the
    // particles, then each element kind's stored energy and det F added to them. Not the rows against
    // moving rigid bodies: the World measures after the coupling has cleared them (RigidParticleCoupling::
    // end), so the host's mechanical energy has no body-contact term either.
    int measuredItems() const {
        return std::max(std::max(plan_.n, plan_.numTets), std::max(a_.numTris, a_.numHinges));
    }
    void issueMeasures() {
        FrameSums* partials = measurePartials_.p;
        ex_.reduce(plan_.n, FrameVertexTerm<T>{a_, scalars_}, partials, measures_, false);
        const StepArrays<T> a = withoutDamping(a_);
        if (plan_.numTets > 0)
            ex_.reduce(plan_.numTets, FrameTetTerm<T>{a, scalars_}, partials, measures_, true);
        if (a_.numTris > 0)
            ex_.reduce(a_.numTris, FrameEnergyTerm<EnergyTriTerm<T>>{{a, scalars_}}, partials, measures_,
                       true);
        if (a_.numHinges > 0)
            ex_.reduce(a_.numHinges, FrameEnergyTerm<EnergyHingeTerm<T>>{{a, scalars_}}, partials, measures_,
                       true);
        if (numContacts_ > 0) {  // collision: issued stage by stage, never captured
            measurePartials_.ensure(ex_, size_t(blocksFor(numContacts_)));
            ex_.reduce(numContacts_, FrameEnergyTerm<EnergyContactTerm<T>>{{a}}, measurePartials_.p,
                       measures_, true);
        }
        if (!boundsRanges_.empty()) {  // the box tree, one launch a level (gpu/bounds_plan.h)
            const BoundsPlan& bp = boundsPlan_;
            for (int l = 0; l < bp.levels(); ++l) {
                const int first = bp.levelStart[size_t(l)], count = bp.levelStart[size_t(l) + 1] - first;
                if (count == 0) continue;
                const BoundsItem* items = boundsItems_.p + first;
                if (l == 0)
                    ex_.forEach(count, ParticleChunkBoundsStage<T>{a_.x, items, boundsTree_.p});
                else
                    ex_.forEach(count, BoxGroupBoundsStage{items, boundsTree_.p});
            }
            ex_.forEach(int(boundsRanges_.size()),
                        RangeBoundsStage{boundsRangeBox_.p, boundsTree_.p, bounds_.p});
        }
        if (!gatherList_.empty())
            ex_.forEach(int(gatherList_.size()), GatherPositionsStage<T>{a_.x, gatherIndex_.p, gatherOut_.p});
        if (castsRay())
            ex_.reduce(int(rayTris_.size()), SurfaceRayTerm<T>{a_.x, rayTriangles_.p, rayIn_.p},
                       rayPartials_.p, rayOut_.p, false);
    }
    // The step launches the cast (rayCast_: this step's hit is read).
    bool castsRay() const { return rayLaunched_ && !rayTris_.empty(); }

    Exec ex_;
    StepPlan plan_;
    StepArrays<T> a_{};
    const int* colorVerts_ = nullptr;
    double* partials_ = nullptr;
    double* results_ = nullptr;
    StepScalars* scalars_ = nullptr;
    // setFrameMeasures: the last step's measures on the executor and on the host, their partial sums.
    FrameSums* measures_ = nullptr;
    ExecBuffer<Exec, FrameSums> measurePartials_;
    FrameSums hostMeasures_;
    // The memory of the saves (saveOnDevice), shared with them: a save outlives the stepper that made it.
    std::shared_ptr<SaveBlocks<Exec>> saveBlocks_ = std::make_shared<SaveBlocks<Exec>>();
    // setFrameBounds: the particle ranges and their box tree (uploaded once per set of ranges and
    // configuration), the tree's boxes, the ranges' boxes on the executor and on the host.
    static constexpr int kBoundsFanIn = 32;
    std::vector<std::array<int, 2>> boundsRanges_;
    BoundsPlan boundsPlan_;
    bool boundsUploaded_ = false;
    ExecBuffer<Exec, BoundsItem> boundsItems_;
    ExecBuffer<Exec, int> boundsRangeBox_;
    ExecBuffer<Exec, FrameBounds> boundsTree_, bounds_;
    std::vector<FrameBounds> hostBounds_;
    // setGathered: the particles, their indices and positions on the executor, the positions on the host.
    std::vector<int> gatherList_;
    ExecBuffer<Exec, int> gatherIndex_;
    ExecBuffer<Exec, Vec3> gatherOut_;
    ExecBuffer<Exec, float> fieldScratch_;  // pendingVolumeRatio, pendingDominance
    // The residual field of a coupled step nobody wished for (issueResidual), and whether the last step wrote
    // it; splitStep_: a coupled step is under way.
    ExecBuffer<Exec, float> splitField_;
    bool splitStep_ = false, splitFieldValid_ = false;
    std::vector<Vec3> hostGathered_;
    bool gatherUploaded_ = false;
    // setRayTriangles / setSurfaceRay: the triangles (3 corners each) and the ray on the executor, the
    // nearest hit there and on the host; rayCast_: this (the last) step casts the ray rayOfStep_.
    std::vector<std::array<int, 3>> rayTris_;
    bool rayTrisUploaded_ = false, rayWanted_ = false, rayLaunched_ = false, rayCast_ = false;
    SurfaceRay ray_, rayOfStep_;
    ExecBuffer<Exec, int> rayTriangles_;
    ExecBuffer<Exec, SurfaceRay> rayIn_;
    ExecBuffer<Exec, SurfaceHit> rayOut_, rayPartials_;
    SurfaceHit hostRayHit_;
    bool measuresWanted_ = false, measured_ = false;
    bool pending_ = false;     // the last step's state is not in the model (step with publish = false)
    bool fieldStale_ = false;  // the residual field is of no current state (restoreOnDevice without one)
    std::vector<void*> owned_;
    std::vector<double> hostResults_;
    SoftState<T> mirror_;  // the published state of the last step, in T (edits show as differences)
    std::vector<IterationRecord> its_;
    // Collision (the model's CollisionState is enabled): the host stage and its positions, the contacts of
    // the last detection in the executor's memory.
    bool collision_ = false;
    SoftModel* model_ =
        nullptr;  // the configured solver's model (the host detection writes its CollisionState)
    ClothContactStage cloth_;
    std::vector<Vec3T<T>> hostX_, hostXPrev_;
    ExecBuffer<Exec, SelfContact> contacts_;
    ExecBuffer<Exec, int> vcOffsets_, vcItems_;
    ExecBuffer<Exec, double> contactPartials_;
    int numContacts_ = 0;
    double detectMs_ = 0;  // this step's host collision stage with its transfers (SoftStepStats::collisionMs)
    // The solver's sweep hook (nullptr: none), run on the host on a copy of the device state.
    SweepHook* hook_ = nullptr;
    HookSettings hookSettings_;
    SoftState<T> hookState_;
    HookWidened hookWidened_;
    HookUpdate hookUpdate_;
    double hookMs_ = 0;  // this step's hook with its transfers (SoftStepStats::hookMs)
    // The rows against moving rigid bodies of a coupled step (world/coupling.h), and the step in parts.
    ExecBuffer<Exec, BodyCollider> bodyColliders_;
    ExecBuffer<Exec, int> vbOffsets_;
    ExecBuffer<Exec, BodyContactRow> bodyRows_;
    StepScalars scalarsHost_;
    bool splitActive_ = false, positionsStale_ = true;
    bool stepDataDown_ = false;  // hookState_ holds this step's x_prev and y
    int splitK_ = 0;
    double tolerance_ = 0;
    std::chrono::steady_clock::time_point splitStart_;
    bool configured_ = false, seeded_ = false, hasVLast_ = false, graphReady_ = false, stepped_ = false;
    bool ranStep_ = false;  // a step ran since configure (stepped_ also after restoreOnDevice)
    int lanesSet_ = 0;      // setLanesPerVertex (0: the default, lanesPerVertex)
    int sweepMinBlocks_ = Exec::kTiles ? defaultSweepMinBlocks(sizeof(T) == sizeof(double)) : 1;
    bool fieldWanted_ = false;                     // setResidualField
    TetLayout layoutWanted_ = tetLayoutFromEnv();  // setTetLayout
    size_t recordBytes_ = 0;                       // the records placed (tetRecordBytes)
    TetLayout layoutPlaced_ = TetLayout::Arrays;  // what placeRecords last did (records exist where the model
                                                  // has tets)
    bool persistWanted_ = persistingPositionsFromEnv();  // setPersistingPositions
    size_t persistBytes_ = 0;
};

}  // namespace vbd
