// The device step (gpu/pipeline.h on CUDA) on soft cubes resting on the ground, 5-tet cells (cells^3):
//   size 0: 27^3 cells, 21,952 vertices,   98,415 tets  (~100k)
//   size 1: 52^3 cells, 148,877 vertices, 703,040 tets  (~700k: the VBD paper's tet count; its TetGen mesh
//   has
//           230k vertices, 12 incidences per vertex against this grid's 19 -- the same 2.8M incidences a
//           sweep)
//   size 2: 74^3 cells, 421,875 vertices, 2,026,120 tets (~2M)
//   BM_GpuSoftStep/size/iterations/double/lanes: one substep h = 1/120 s, whole step on the device (one graph
//     launch), diagnostics off, state not published (the interop path's cost). lanes: per vertex in the
//     sweep, 1 (a thread per vertex, SweepStage) or a tile of 4 to 32 (SweepTileStage; 32 = a warp per
//     vertex); 0 = the stepper's default (kDefaultLanesPerVertex, 8). Counters: ms per step, lanes,
//     incidences per second and a model of the bytes a step moves (model_GBps, below) against BM_GpuCopy's
//     measured bandwidth.
//   BM_GpuSoftStepOccupancy/double/lanes/blocks: size 1 at 120 iterations with the tile kernel built for that
//     many resident blocks per multiprocessor (SoftStepper::setSweepMinBlocks: registers capped for more
//     warps).
//   BM_GpuSoftStepRecords/size/iters/double/lanes/blocks/records/absolute: the tile sweep reading the tets
//     as the arrays with the stored C_prev (records 0), an incidence record each (1) or a tet record each (2)
//     with C_prev from x_prev (gpu/tet_records.h, SoftStepper::setTetLayout), the same results; absolute 1:
//     a float state without the increment form (what that form costs on the device).
//   BM_GpuSoftStepL2/double/records/persist: size 1 at 120 iterations with and without an L2 persisting
//   window
//     over the positions (SoftStepper::setPersistingPositions; persist_MB: what the window covers).
//   BM_GpuSoftStepPublished: the same at size 1 with the state downloaded and published every step (what the
//     World does today: the host copy interop removes).
//   BM_GpuSoftWorldFrame/double/lazy: the World's frame at size 1 and 120 iterations, publishing every step
//     or lazily (World::setLazyPublish: the frame's metrics reduced on the device); host_ms: the frame less
//     the device step.
//   BM_GpuCopy: device-to-device cudaMemcpy of 1 GiB, counting bytes read + written (the card's achievable
//     bandwidth, the ceiling for model_GBps).
//   BM_GpuRigidPile: the 10,000-box pile (rigid/rigid_scenes.h) after 0.5 s of falling and landing, one step
//     h = 1/60 s at 10 iterations, diagnostics off, on the device rigid step (gpu/rigid_pipeline.h). The CPU
//     part (broad and narrow phase, contact matching, adjacency and coloring) runs on all host threads as
//     in the World; counters split the step: cpu_ms (those stages), device_ms (upload, forward step, the
//     colored sweeps, dual updates, velocities, download), and the contacts and colors of the step.
//     contacts 1: the narrow phase and the matching on the device (RigidStepper::setDeviceContacts), whose
//     records stay there unless read: read 1 reads them every step (the app's timeline copies the solver
//     every frame), read 0 never (vbdlab sim, a World without contact markers or timeline).
//     broad 1: with them, the grid broad phase on the device too (RigidStepper::setDeviceBroadPhase).
//     block: threads per block of the sweep launches (RigidStepper::setSweepBlock; 256 the default).
//   BM_GpuRigidBroad: that pile's broad phase alone on the device, against the CPU's (cpu_ms).
//   BM_GpuRigidNarrow/match/transfers: that pile's collision stages on the device (gpu/narrow_pipeline.h),
//     from the CPU detection's own inputs. match 0: the narrow phase (one manifold per candidate pair, the
//     CPU's collidePair); 1: the contact matching (the contacts of the touching pairs warm started from last
//     step's, the CPU's matchManifold). transfers 0: the kernels alone (inputs resident, as in a device
//     collision pipeline); 1: with the uploads of the inputs and the download of the manifolds or contacts.
//     Counters: pairs, touching pairs, contacts, and cpu_ms: the CPU's stage of the same step on all host
//     threads (narrow_ms or contacts_ms of RigidStageMs).
//   BM_GpuClothStep/cells/lanes: a sheet with self-collision draped over a sphere on the device step, its
//   collision
//     detected on the host (detect_ms), against the CPU solver's step (cpu_ms).
// Every benchmark reports an error (and runs nothing) where there is no CUDA device;
// tests/gpu/device_check.sh runs this on an H200. Run: build/bin/bench_gpu --benchmark_repetitions=3
// --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "../scene/cloth_drape.h"
#include "backend/timer.h"
#include "gpu/backend_choice.h"
#include "gpu/broad_phase_runner.h"
#include "gpu/narrow_phase_runner.h"
#include "gpu/rigid_stepper.h"
#include "gpu/soft_stepper.h"
#include "gpu/step_plan.h"
#include "rigid/rigid_scenes.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"
#include "world/world.h"
#include "world/world_state.h"

using namespace vbd;

namespace {

const int kCells[3] = {27, 52, 74};

SceneDesc cube(int cells, int iterations, Precision precision) {
    SceneDesc s;
    s.dt = 1.0 / 120.0;
    s.substeps = 1;
    s.solver.iterations = iterations;
    s.solver.diagnostics = false;
    s.solver.precision = precision;
    SoftBodyDesc b;
    b.min = Vec3(0, 0.001f, 0);  // resting on the ground: the bottom layer in contact
    b.max = Vec3(1, 1.001f, 1);
    b.cells = {cells, cells, cells};
    b.material.youngs = 1e6;
    b.material.damping = 0.01;
    s.softBodies.push_back(b);
    return s;
}

// Built models are kept (building and coloring 2M tets takes seconds of CPU); each run sets its parameters.
SoftSolver& solverFor(int size, int iterations, Precision p) {
    static std::map<int, std::unique_ptr<SoftSolver>> cache;
    auto& slot = cache[size];
    const SceneDesc d = cube(kCells[size], iterations, p);
    if (!slot) {
        slot = std::make_unique<SoftSolver>();
        slot->build(d);
    }
    slot->setParams(d.solver);
    return *slot;
}

// VBD_CUDA_STAGED for the executors made while it lives (gpu/cuda_exec.cuh reads it as one is made).
struct StagedCopiesEnv {
    explicit StagedCopiesEnv(bool on) {
        if (on)
            setenv("VBD_CUDA_STAGED", "1", 1);
        else
            unsetenv("VBD_CUDA_STAGED");
    }
    ~StagedCopiesEnv() { unsetenv("VBD_CUDA_STAGED"); }
    StagedCopiesEnv(const StagedCopiesEnv&) = delete;
    StagedCopiesEnv& operator=(const StagedCopiesEnv&) = delete;
};

bool skipWithoutDevice(benchmark::State& st) {
    const CudaProbe& p = probeCuda();
    if (p.devices > 0) return false;
    st.SkipWithError(p.compiled ? ("no CUDA device: " + p.error).c_str()
                                : "built without CUDA (nvcc was not found at configure time)");
    return true;
}

// Bytes one sweep reads and writes at least once, by a plain model: per incidence (tet, vertex) the tet's
// 4 indices, Dm^-1, 4 material floats and C_prev in the state's scalar; per vertex x of 4 tet corners is
// counted once per incidence as a cached read of the vertex's own x, y, x_prev, mass and the write of x.
// With the records (gpu/tet_records.h): the 64-byte record (this cube has one k_d, so none beside it) and no
// C_prev.
double sweepBytes(const SoftModel& m, bool dbl, TetLayout layout) {
    const double s = dbl ? 8 : 4;
    const double perIncidence = layout == TetLayout::Arrays ? 16 + 36 + 16 + 6 * s : 64;
    const double perVertex = 3 * s * 4 + 4 + 8;  // x (read + write), y, x_prev; mass; CSR offsets
    return 4.0 * double(m.tets.size()) * perIncidence + double(m.numVertices()) * perVertex;
}

void runSteps(benchmark::State& st, int size, int iterations, bool dbl, int lanes, bool publish,
              int minBlocks = 0, TetLayout layout = TetLayout::Arrays, bool absoluteFloat = false,
              bool persist = false) {  // 0: the default
    if (skipWithoutDevice(st)) return;
    SoftSolver& solver = solverFor(size, iterations, dbl ? Precision::Double : Precision::Float);
    SoftSolver::SweepOptions options = solver.sweepOptions();
    options.floatIncrement = !absoluteFloat;  // cached solvers: set on every run
    solver.setSweepOptions(options);
    std::unique_ptr<SoftStepper> dev = makeCudaStepper(dbl ? Precision::Double : Precision::Float);
    dev->configure(solver);
    if (lanes > 0) dev->setLanesPerVertex(lanes);
    if (minBlocks > 0) dev->setSweepMinBlocks(minBlocks);
    dev->setTetLayout(layout);
    dev->setPersistingPositions(persist);
    const Vec3 g(0, -9.81f, 0);
    const float h = 1.f / 120.f;
    dev->step(solver, h, g, publish);  // captures the graph
    for (auto _ : st) dev->step(solver, h, g, publish);
    const SoftModel& m = solver.model();
    st.counters["vertices"] = double(m.numVertices());
    st.counters["tets"] = double(m.tets.size());
    st.counters["colors"] = double(m.colorGroups.size());
    st.counters["lanes"] = dev->lanesPerVertex();
    st.counters["min_blocks"] = dev->sweepMinBlocks();
    st.counters["records"] = double(dev->tetLayout());
    st.counters["records_MB"] = double(dev->tetRecordBytes()) * 1e-6;
    st.counters["increment"] = !dbl && !absoluteFloat ? 1 : 0;
    st.counters["persist_MB"] = double(dev->persistingBytes()) * 1e-6;
    st.counters["incidences"] = benchmark::Counter(4.0 * double(m.tets.size()) * iterations,
                                                   benchmark::Counter::kIsIterationInvariantRate);
    st.counters["model_GBps"] = benchmark::Counter(sweepBytes(m, dbl, dev->tetLayout()) * iterations * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

// The L2 persisting window over the positions (SoftStepper::setPersistingPositions) at the paper's frame,
// with the tet arrays and with the tet records. args: double, records (as BM_GpuSoftStepRecords), persist.
void BM_GpuSoftStepL2(benchmark::State& st) {
    runSteps(st, 1, 120, st.range(0) != 0, 0, false, 0, TetLayout(st.range(1)), false, st.range(2) != 0);
}
BENCHMARK(BM_GpuSoftStepL2)
    ->ArgNames({"double", "records", "persist"})
    ->ArgsProduct({{0, 1}, {0, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// args: size, iterations, double, lanes
void BM_GpuSoftStep(benchmark::State& st) {
    runSteps(st, int(st.range(0)), int(st.range(1)), st.range(2) != 0, int(st.range(3)), false);
}
BENCHMARK(BM_GpuSoftStep)
    ->ArgNames({"size", "iters", "double", "lanes"})
    ->ArgsProduct({{0, 1, 2}, {10, 100}, {0, 1}, {0}})
    // The lanes per vertex, chosen by these: the paper's frame (700k tets, 120 iterations, h = 1/120 s). (1
    // and 32 lanes, 2.6x and 1.7x slower than 8 in float in two runs, and the other sizes' widths are out of
    // the device check's time: docs/gpu.md has them.)
    ->ArgsProduct({{1}, {120}, {0, 1}, {4, 8, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The tile sweep's register budget (SoftStepper::setSweepMinBlocks) at the paper's frame. args: double,
// lanes, resident blocks per multiprocessor the kernel is built for (1: the compiler's choice).
void BM_GpuSoftStepOccupancy(benchmark::State& st) {
    runSteps(st, 1, 120, st.range(0) != 0, int(st.range(1)), false, int(st.range(2)));
}
BENCHMARK(BM_GpuSoftStepOccupancy)
    ->ArgNames({"double", "lanes", "blocks"})
    ->ArgsProduct({{0, 1}, {8}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The tet layouts (gpu/tet_records.h: records 0 the tet arrays, 1 incidence records, 2 tet records) at the
// paper's frame and at 2M tets; and what the float state's increment form costs (absolute 1: x read
// directly, one position array instead of x_prev and dx). args: size, iterations, double, lanes, resident
// blocks (0: the default), records, absolute.
void BM_GpuSoftStepRecords(benchmark::State& st) {
    runSteps(st, int(st.range(0)), int(st.range(1)), st.range(2) != 0, int(st.range(3)), false,
             int(st.range(4)), TetLayout(st.range(5)), st.range(6) != 0);
}
static_assert(int(TetLayout::Arrays) == 0 && int(TetLayout::IncidenceRecords) == 1 &&
                  int(TetLayout::TetRecords) == 2,
              "the records argument's values");
BENCHMARK(BM_GpuSoftStepRecords)
    ->ArgNames({"size", "iters", "double", "lanes", "blocks", "records", "absolute"})
    ->ArgsProduct({{1}, {120}, {0, 1}, {4, 8, 16}, {0}, {0, 1, 2}, {0}})
    ->ArgsProduct({{1}, {120}, {0}, {8}, {2}, {0, 1, 2}, {0}})
    ->ArgsProduct({{1}, {120}, {0}, {8}, {0}, {0, 2}, {1}})
    ->ArgsProduct({{2}, {100}, {0}, {8}, {0}, {0, 1, 2}, {0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// args: double, staged (1: the executor's copies through its page-locked area, gpu/staged_copies.h,
// VBD_CUDA_STAGED=1; 0: direct from pageable memory, the default).
void BM_GpuSoftStepPublished(benchmark::State& st) {
    const StagedCopiesEnv copies(st.range(1) != 0);
    runSteps(st, 1, 120, st.range(0) != 0, 0, true);
}
BENCHMARK(BM_GpuSoftStepPublished)
    ->ArgNames({"double", "staged"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The World's whole frame on the paper's mesh (700k tets, 120 iterations, h = 1/120 s, diagnostics off): the
// device step and everything the World does around it on the host, the metrics and the finite check of
// every particle. lazy 0: the state published every step, the metrics from it on the host (the CPU's
// mechanical energy and min det F over 700k tets); lazy 1: World::setLazyPublish, the metrics reduced on the
// device and nothing else brought down. host_ms: the frame's wall time less the step's (the World's metrics
// and finite check; an eager step's publish is inside the step's time).
// ray 1 (lazy only): the hover's ray cast with the measures (World::setSurfaceRay: one reduction over the
// surface triangles), straight down onto the cube's top: what the app's hover readout adds to a device frame.
// args: double, lazy, ray. The Worlds are built once per precision (seconds of CPU for 700k tets).
void BM_GpuSoftWorldFrame(benchmark::State& st) {
    if (skipWithoutDevice(st)) return;
    const bool dbl = st.range(0) != 0;
    static std::map<int, std::unique_ptr<World>> cache;
    auto& w = cache[int(dbl)];
    if (!w) {
        SceneDesc d = cube(kCells[1], 120, dbl ? Precision::Double : Precision::Float);
        d.solver.backend = Backend::Cuda;
        w = World::create(d);
    }
    w->setLazyPublish(st.range(1) != 0);
    std::optional<SurfaceRay> ray;
    if (st.range(2) != 0) {
        const Box3 box = w->surfaceBounds()[0];
        ray = SurfaceRay{Vec3((box.min.x + box.max.x) / 2, box.max.y + 1, (box.min.z + box.max.z) / 2),
                         Vec3(0, -1, 0)};
    }
    w->setSurfaceRay(ray);
    w->step();  // the graph captured for this setting
    double hostMs = 0;
    for (auto _ : st) {
        w->step();
        const FrameMetrics& m = w->history().back();
        hostMs += m.stepMs - m.solveMs;
    }
    if (ray && !(w->castSurfaceHit() && w->castSurfaceHit()->hit.hit())) st.SkipWithError("no hit cast");
    st.counters["host_ms"] = hostMs / double(st.iterations());
    st.counters["vertices"] = double(w->positions().size());
}
BENCHMARK(BM_GpuSoftWorldFrame)
    ->ArgNames({"double", "lazy", "ray"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0}})
    ->ArgsProduct({{0, 1}, {1}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GpuCopy(benchmark::State& st) {
    if (skipWithoutDevice(st)) return;
    const size_t bytes = size_t(1) << 30;
    for (auto _ : st) benchmark::DoNotOptimize(deviceCopySeconds(bytes));
    st.counters["GBps"] =
        benchmark::Counter(2.0 * double(bytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GpuCopy)->Unit(benchmark::kMillisecond)->UseRealTime();

// args: staged (as BM_GpuSoftStepPublished), profiled (1: the device part split into detect, upload, kernels
// and download, RigidStepper::setProfiled; the syncs between them cost their overlap), lanes per body in the
// sweep (1: a thread per body; 4, 8: a tile, RigidStepper::setLanesPerBody), contacts (1: the narrow phase
// and the contact matching on the device, RigidStepper::setDeviceContacts).
void BM_GpuRigidPile(benchmark::State& st) {
    if (skipWithoutDevice(st)) return;
    SceneDesc sc = rigidPileScene(10000, 0.5f);
    sc.solver.iterations = 10;
    sc.solver.diagnostics = false;
    RigidSolver solver(sc);
    const StagedCopiesEnv copies(st.range(0) != 0);
    std::unique_ptr<RigidStepper> dev = makeCudaRigidStepper();
    dev->setProfiled(st.range(1) != 0);
    dev->setLanesPerBody(int(st.range(2)));
    dev->setDeviceContacts(st.range(3) != 0);
    dev->setDeviceBroadPhase(st.range(5) != 0);
    dev->setSweepBlock(int(st.range(6)));
    RigidStepper::PhaseMs phases;
    const float h = 1.f / 60.f;
    for (int i = 0; i < 30; ++i) dev->step(solver, h);  // as bench_rigid's BM_PileStep: landed
    double cpu = 0, device = 0;
    RigidStageMs sum;
    const bool read = st.range(4) != 0;
    for (auto _ : st) {
        dev->step(solver, h);
        if (read) benchmark::DoNotOptimize(solver.contacts().data());  // the records brought to the host
        const RigidStageMs& t = solver.stageMs();
        cpu += t.broad + t.narrow + t.contacts + t.adjacency + t.other;
        device += t.solve;
        sum += t;
        const RigidStepper::PhaseMs p = dev->phaseMs();
        phases.detect += p.detect;
        phases.upload += p.upload;
        phases.kernels += p.kernels;
        phases.download += p.download;
    }
    const double n = double(st.iterations());
    st.counters["detect_ms"] = phases.detect / n;
    st.counters["upload_ms"] = phases.upload / n;
    st.counters["kernels_ms"] = phases.kernels / n;
    st.counters["download_ms"] = phases.download / n;
    st.counters["cpu_ms"] = cpu / n;
    st.counters["device_ms"] = device / n;
    // The CPU part by stage (on the device machine's host threads: 5.8-10.1 ms in all on 16 threads in the
    // first runs, against ~11.6 ms on 2 threads here: which stage does not scale?).
    st.counters["broad_ms"] = sum.broad / n;
    st.counters["narrow_ms"] = sum.narrow / n;
    st.counters["contacts_ms"] = sum.contacts / n;
    st.counters["adjacency_ms"] = sum.adjacency / n;
    st.counters["other_ms"] = sum.other / n;
    st.counters["contacts"] = double(solver.contactCount());
    st.counters["lanes"] = dev->lanesPerBody();
    st.counters["colors"] = solver.numColors();
    st.counters["body_iterations"] = benchmark::Counter(double(solver.numBodies()) * sc.solver.iterations,
                                                        benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GpuRigidPile)
    ->ArgNames({"staged", "profiled", "lanes", "contacts", "read", "broad", "block"})
    ->ArgsProduct({{0, 1}, {0, 1}, {1}, {0}, {0}, {0}, {256}})
    ->ArgsProduct({{0}, {0, 1}, {4, 8}, {0}, {0}, {0}, {256}})
    ->ArgsProduct({{0}, {1}, {1, 8}, {0}, {0}, {0}, {64}})
    ->ArgsProduct({{0, 1}, {0}, {1}, {1}, {0, 1}, {0}, {256}})
    ->ArgsProduct({{0, 1}, {0}, {1}, {1}, {0}, {1}, {256}})
    ->ArgsProduct({{0}, {1}, {1}, {1}, {0}, {0, 1}, {256}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(30);

// The pile's detection of one step, made once for every BM_GpuRigidNarrow run: 60 steps of landing
// (BM_GpuRigidPile times steps 31 to 60), last step's contacts and ranges, then the next step's detection at
// its start-of-step states.
struct PileDetection {
    SceneDesc sc = rigidPileScene(10000, 0.5f);
    std::unique_ptr<RigidSolver> solver;
    std::vector<Contact> oldContacts;
    std::vector<ManifoldRange> oldRanges;
    std::vector<Collider> shapes;
    RigidStageMs cpu;  // the CPU's stages of that detection, on all host threads
    PileDetection() {
        sc.solver.iterations = 10;
        sc.solver.diagnostics = false;
        solver = std::make_unique<RigidSolver>(sc);
        for (int i = 0; i < 60; ++i) solver->step(1.f / 60.f);
        oldContacts = solver->contacts();
        oldRanges = solver->manifoldRanges();
        solver->beginStepForDevice(1.f / 60.f);
        cpu = solver->stageMs();
        for (int i = 0; i < solver->numBodies(); ++i) shapes.push_back(solver->collider(i));
    }
};

// The landed pile's broad phase on the device (gpu/broad_pipeline.h, from the boxes on the host: their
// upload, the grid's cell size on the CPU, the stages, three waits, the pairs' download) against the CPU's
// broadPhase on all host threads (cpu_ms, timed here on the same boxes).
void BM_GpuRigidBroad(benchmark::State& st) {
    if (skipWithoutDevice(st)) return;
    static const PileDetection pile;
    const std::vector<Aabb>& boxes = pile.solver->boxes();
    std::unique_ptr<BroadPhaseRunner> dev = makeCudaBroadPhase();
    std::vector<std::pair<int, int>> pairs, cpuPairs;
    dev->find(boxes, pairs);
    BroadPhaseScratch scratch;
    double cpuMs = 0;
    for (int k = 0; k < 5; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        broadPhase(boxes, cpuPairs, scratch);
        cpuMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 5;
    }
    for (auto _ : st) dev->find(boxes, pairs);
    st.counters["pairs"] = double(pairs.size());
    st.counters["equal"] = pairs == cpuPairs ? 1 : 0;
    st.counters["cpu_ms"] = cpuMs;
}
BENCHMARK(BM_GpuRigidBroad)->Unit(benchmark::kMillisecond)->UseRealTime();

// args: match 0 the narrow phase, 1 the contact matching (from the CPU's manifolds); transfers (above).
void BM_GpuRigidNarrow(benchmark::State& st) {
    if (skipWithoutDevice(st)) return;
    static const PileDetection pile;
    const RigidSolver& solver = *pile.solver;
    const std::vector<Contact>& oldContacts = pile.oldContacts;
    const std::vector<Collider>& shapes = pile.shapes;
    const float h = 1.f / 60.f;
    const bool match = st.range(0) != 0, transfers = st.range(1) != 0;
    const double cpuMs = match ? pile.cpu.contacts : pile.cpu.narrow;
    MatchView view = solver.matchView();
    view.oldContacts = oldContacts.data();
    view.oldManifolds = pile.oldRanges.data();
    view.numOldManifolds = pile.oldRanges.size();
    std::unique_ptr<NarrowPhaseRunner> dev = makeCudaNarrowPhase();
    std::vector<Manifold> mans;
    std::vector<int> count;
    std::vector<Contact> contacts;
    auto once = [&](bool all) {
        if (all)
            dev->upload(solver.states(), shapes, solver.margins(), solver.candidatePairList(),
                        solver.groundHeight());
        if (!match) {
            dev->run();
            if (all) dev->download(mans, count);
        } else if (all) {
            dev->setManifolds(solver.manifolds());
            dev->match(view, oldContacts.size(), solver.manifoldRanges(), solver.contacts().size(), h,
                       contacts);
        } else {
            dev->rematch(h);
        }
    };
    once(true);
    for (auto _ : st) once(transfers);
    st.counters["pairs"] = double(solver.candidatePairList().size());
    st.counters["touching"] = double(solver.manifoldRanges().size());
    st.counters["contacts"] = double(solver.contacts().size());
    st.counters["cpu_ms"] = cpuMs;
}
BENCHMARK(BM_GpuRigidNarrow)
    ->ArgNames({"match", "transfers"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Steps of 1/60 s before BM_GpuClothStep times: the sheet has landed on the sphere and folds against itself
// (self contacts; after 45 steps it has none yet).
constexpr int kClothWarmup = 80;

// args: cells (64 only: each call warms the sheet up on the CPU again, 85 steps, which at 128 cells would not
// fit the device check's box), lanes per vertex (1, the default for cloth alone, against a tile of 8 whose
// first lane does the cloth's terms). A cells x cells sheet with self-collision draped over a fixed sphere
// (bench_cloth's scene, warmed up on the CPU for kClothWarmup steps of 1/60 s), stepped on the device: the
// collision detected on the host between device stages (gpu/pipeline.h), no graph. Counters: detect_ms (the
// host collision stage with its transfers, per step), contacts, and cpu_ms: the CPU solver's step of the same
// warmed-up state on all host threads.
void BM_GpuClothStep(benchmark::State& st) {
    if (skipWithoutDevice(st)) return;
    SceneDesc s = vbdtest::clothOverSphere(1.2f, int(st.range(0)), true);
    s.dt = 1.0 / 60.0;
    s.solver.iterations = 10;
    s.solver.precision = Precision::Float;  // cloth runs in float
    SoftSolver cpu, dev;
    cpu.build(s);
    dev.build(s);
    cpu.setParams(s.solver);
    dev.setParams(s.solver);
    const float h = float(s.dt);
    for (int i = 0; i < kClothWarmup; ++i) cpu.step(h, s.gravity);
    WorldStateData warm;  // the same state for both: the CPU's, carried over
    saveSoft(cpu, warm);
    restoreSoft(dev, warm);
    double cpuMs = 0;
    int cpuContacts = 0;
    const int cpuSteps = 5;
    for (int i = 0; i < cpuSteps; ++i) {
        ScopedTimer timer(cpuMs);
        cpuContacts = cpu.step(h, s.gravity).contacts;
    }
    std::unique_ptr<SoftStepper> stepper = makeCudaStepper(Precision::Float);
    stepper->configure(dev);
    stepper->setLanesPerVertex(int(st.range(1)));
    stepper->step(dev, h, s.gravity);
    double detect = 0;
    int contacts = 0;
    for (auto _ : st) {
        const SoftStepStats r = stepper->step(dev, h, s.gravity);
        detect += r.collisionMs;
        contacts = r.contacts;
    }
    st.counters["vertices"] = double(dev.model().numVertices());
    st.counters["contacts"] = double(contacts);
    st.counters["detect_ms"] = benchmark::Counter(detect, benchmark::Counter::kAvgIterations);
    st.counters["cpu_ms"] = cpuMs / cpuSteps;
    st.counters["cpu_contacts"] = double(cpuContacts);
}
BENCHMARK(BM_GpuClothStep)
    ->ArgNames({"cells", "lanes"})
    ->Args({64, 1})
    ->Args({64, 8})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
