// AVBD rigid-body throughput: one full step (collision detection, warm start, 10 colored
// Gauss-Seidel iterations with dual updates, velocities) at h = 1/60, diagnostics off.
//   pyramid: the 20-row pyramid (210 boxes, ~1600 contact points), settled for 1 s first.
//   pile:    10,000 boxes in columns, after 0.5 s of falling and landing.
// Counter body_iterations = bodies x iterations per step, reported per second; *_ms counters split
// the step into stages (RigidStageMs: broad phase, narrow phase, contact matching, adjacency and
// coloring, sweeps, dual updates, the rest), averaged over the timed steps; page_faults counts the process's
// minor page faults per timed step (buffers growing inside the window). BM_PileDetect: the pile's detection
// alone, all of it on the CPU or the CPU's share when the narrow phase and the matching run on the device.
// BM_PileContactViews: the contact markers of the landed pile (what an app snapshot computed every frame).
// BM_PileSolverCopy: a copy of the landed pile's solver (the World's save, every frame of the app's
// timeline); BM_PileTimeline: steps with such a save after each, the save and the matching timed (step_ms:
// the whole step, which copies the per-body arrays a save shares before it writes them in place). Run:
// build/bin/bench_rigid --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <deque>
#include <memory>
#include <vector>

#include "backend/parallel.h"
#include "rigid/collision.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"

using namespace vbd;

namespace {

constexpr float kH = 1.0f / 60.0f;

// Minor page faults of the process so far: a buffer that grows inside the timed window faults its new pages
// in (the kernel zeroes each 4 KiB page), which the stage times include.
long minorFaults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

void runStep(benchmark::State& st, const SceneDesc& base, int warmSteps) {
    ThreadLimit limit(int(st.range(0)));
    SceneDesc sc = base;
    sc.solver.iterations = 10;
    sc.solver.diagnostics = false;
    sc.solver.threads = int(st.range(0));
    RigidSolver solver(sc);
    for (int i = 0; i < warmSteps; ++i) solver.step(kH);
    RigidStageMs sum;
    const long faults0 = minorFaults();
    for (auto _ : st) {
        solver.step(kH);
        sum += solver.stageMs();
    }
    // Per-step stage times (ms), averaged over the timed steps.
    const double n = double(st.iterations());
    st.counters["broad_ms"] = sum.broad / n;
    st.counters["narrow_ms"] = sum.narrow / n;
    st.counters["contacts_ms"] = sum.contacts / n;
    st.counters["adjacency_ms"] = sum.adjacency / n;
    st.counters["solve_ms"] = sum.solve / n;
    st.counters["dual_ms"] = sum.dual / n;
    st.counters["other_ms"] = sum.other / n;
    st.counters["page_faults"] = double(minorFaults() - faults0) / n;
    st.counters["body_iterations"] = benchmark::Counter(double(solver.numBodies()) * sc.solver.iterations,
                                                        benchmark::Counter::kIsIterationInvariantRate);
    st.counters["contacts"] = double(solver.contacts().size());
    st.counters["colors"] = solver.numColors();
}

void BM_PyramidStep(benchmark::State& st) {
    static const SceneDesc sc = rigidPyramidScene(20, 0.5f);
    runStep(st, sc, 60);
}

void BM_PileStep(benchmark::State& st) {
    static const SceneDesc sc = rigidPileScene(10000, 0.5f);
    runStep(st, sc, 30);
}

// The pile's detection on the CPU as the device step does it, timed alone (manual time) on the landed pile's
// state (60 steps), detected again each iteration. args: threads; device 0: RigidSolver::beginStepForDevice
// (broad phase, narrow phase, contact matching, lists and coloring: what the device step leaves to the CPU by
// default); 1: what the CPU keeps when the narrow phase and the matching run on the device
// (RigidStepper::setDeviceContacts): beginDetectionForDevice (poses, bounds, broad phase, candidate pairs),
// rangesForDevice (the ranges from the point counts) and listsForDevice (lists, coloring, dual owners, joint
// warm start), the counts coming from the CPU's collidePair, untimed; 2: also the broad phase on the device
// (RigidStepper::setDeviceBroadPhase): boundsForDevice and candidatesForDevice instead of
// beginDetectionForDevice, the pairs coming from the CPU's broadPhase, untimed.
void BM_PileDetect(benchmark::State& st) {
    ThreadLimit limit(int(st.range(0)));
    static const SceneDesc base = rigidPileScene(10000, 0.5f);
    SceneDesc sc = base;
    sc.solver.iterations = 10;
    sc.solver.diagnostics = false;
    sc.solver.threads = int(st.range(0));
    const bool device = st.range(1) != 0, deviceBroad = st.range(1) == 2;
    BroadPhaseScratch scratch;
    RigidSolver solver(sc);
    for (int i = 0; i < 60; ++i) solver.step(kH);
    std::vector<Mat33> rot(size_t(solver.numBodies()));
    std::vector<Collider> shapes;
    for (int i = 0; i < solver.numBodies(); ++i) shapes.push_back(solver.collider(i));
    std::vector<int> counts;
    std::vector<Manifold> mans;
    RigidStageMs sum;
    using Clock = std::chrono::steady_clock;
    for (auto _ : st) {
        if (!device) {
            const auto t0 = Clock::now();
            solver.beginStepForDevice(kH);
            st.SetIterationTime(std::chrono::duration<double>(Clock::now() - t0).count());
            sum += solver.stageMs();
            continue;
        }
        auto t0 = Clock::now();
        auto t1 = t0;
        if (deviceBroad) {  // the CPU's bounds and candidate filter around the device's broad phase
            solver.boundsForDevice(kH);
            const auto tb = Clock::now();
            broadPhase(solver.boxes(), solver.overlapsForDevice(), scratch);  // the device's list, untimed
            const auto tc = Clock::now();
            solver.candidatesForDevice();
            t1 = Clock::now();
            t0 += tc - tb;
        } else {
            solver.beginDetectionForDevice(kH);
            t1 = Clock::now();
        }
        const auto& pairs = solver.candidatePairList();
        for (size_t i = 0; i < rot.size(); ++i) rot[i] = toMatrix(solver.states()[i].rotation);
        counts.resize(pairs.size());
        mans.resize(pairs.size());
        parallelFor(pairs.size(), [&](size_t k) {
            counts[k] = collidePair(pairs[k].first, pairs[k].second, solver.states().data(), rot.data(),
                                    shapes.data(), solver.margins().data(), solver.groundHeight(), mans[k]);
        });
        const auto t2 = Clock::now();
        solver.rangesForDevice(counts.data());
        solver.listsForDevice();
        const auto t3 = Clock::now();
        sum += solver.stageMs();  // the three parts' stages (beginDetectionForDevice starts them at zero)
        st.SetIterationTime(std::chrono::duration<double>((t1 - t0) + (t3 - t2)).count());
    }
    // Per detection (ms): with device 1, narrow_ms is the candidate pairs alone and contacts_ms the ranges.
    const double n = double(st.iterations());
    st.counters["broad_ms"] = sum.broad / n;
    st.counters["narrow_ms"] = sum.narrow / n;
    st.counters["contacts_ms"] = sum.contacts / n;
    st.counters["adjacency_ms"] = sum.adjacency / n;
    st.counters["other_ms"] = sum.other / n;
    st.counters["pairs"] = double(solver.candidatePairList().size());
    st.counters["touching"] = double(solver.manifoldRanges().size());
}

// The 10,000-box pile after 60 steps (1 s), made once for the benchmarks that only read it.
const RigidSolver& landedPile() {
    static const RigidSolver solver = [] {
        SceneDesc sc = rigidPileScene(10000, 0.5f);
        sc.solver.iterations = 10;
        sc.solver.diagnostics = false;
        RigidSolver s(sc);
        for (int i = 0; i < 60; ++i) s.step(kH);
        return s;
    }();
    return solver;
}

// The landed pile's contact markers as the app draws them (RigidSolver::contactViews: every contact's
// midpoint and normal): what each of the app's snapshots computed on the simulation thread
// before it asked for them only while the contact markers are shown.
void BM_PileContactViews(benchmark::State& st) {
    const RigidSolver& solver = landedPile();
    for (auto _ : st) benchmark::DoNotOptimize(solver.contactViews());
    st.counters["contacts"] = double(solver.contactCount());
}

// A copy of the landed pile's solver: what the World's saveState (the app's timeline, every frame) costs.
void BM_PileSolverCopy(benchmark::State& st) {
    const RigidSolver& solver = landedPile();
    for (auto _ : st) {
        RigidSolver copy(solver);
        benchmark::DoNotOptimize(copy.contactCount());
    }
    st.counters["contacts"] = double(solver.contactCount());
}

// The app's timeline on the landed pile, one thread: a step, then (saves:1) a copy of the solver kept in a
// ring of 8 frames whose oldest is dropped (drop_ms, inside save_ms). Timed: the save and the step's contact
// matching (contacts_ms), where a step writes its new list; page_faults per step. The saved frames share
// their lists with the solver, and a step writes into storage recycled from the dropped frame's list: with
// saves the matching should cost what it costs without (fresh storage would fault its pages in and zero
// them).
void BM_PileTimeline(benchmark::State& st) {
    ThreadLimit limit(1);
    const bool saves = st.range(0) != 0;
    RigidSolver solver(landedPile());
    std::deque<std::shared_ptr<const RigidSolver>> ring;
    // The ring filled first: its first frames take fresh memory, which a running app's timeline has done long
    // before.
    for (int i = 0; i < 12; ++i) {
        solver.step(kH);
        if (saves) ring.push_back(std::make_shared<const RigidSolver>(solver));
        if (ring.size() > 8) ring.pop_front();
    }
    double saveMs = 0, contactsMs = 0, dropMs = 0, stepMs = 0;
    long faults = 0;
    const RecordStats before = solver.contactStorage(), bodiesBefore = solver.bodyStorage();
    for (auto _ : st) {
        const long f0 = minorFaults();
        const auto ts = std::chrono::steady_clock::now();
        solver.step(kH);
        stepMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ts).count();
        const double matching = solver.stageMs().contacts;
        const auto t0 = std::chrono::steady_clock::now();
        std::shared_ptr<const RigidSolver> dropped;
        if (saves) {
            ring.push_back(std::make_shared<const RigidSolver>(solver));
            if (ring.size() > 8) {
                dropped = std::move(ring.front());
                ring.pop_front();
            }
        }
        const auto tc = std::chrono::steady_clock::now();
        dropped.reset();
        dropMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tc).count();
        const double save =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        faults += minorFaults() - f0;
        saveMs += save;
        contactsMs += matching;
        st.SetIterationTime((save + matching) * 1e-3);
    }
    const double n = double(st.iterations());
    st.counters["save_ms"] = saveMs / n;
    st.counters["contacts_ms"] = contactsMs / n;
    st.counters["page_faults"] = double(faults) / n;
    st.counters["drop_ms"] = dropMs / n;
    // The whole step: with saves it also copies the per-body arrays it writes in place where the saved copy
    // shares them (RigidSolver::bodyStorage).
    st.counters["step_ms"] = stepMs / n;
    // Over the timed steps: lists copied, and new storage for lists (0 and 0 where the dropped frames' lists
    // are recycled).
    st.counters["copied"] = double(solver.contactStorage().copies - before.copies);
    st.counters["allocated"] = double(solver.contactStorage().allocations - before.allocations);
    st.counters["body_copies"] = double(solver.bodyStorage().copies - bodiesBefore.copies) / n;
    st.counters["body_allocated"] = double(solver.bodyStorage().allocations - bodiesBefore.allocations);
}

}  // namespace

BENCHMARK(BM_PileTimeline)
    ->ArgName("saves")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(24);
BENCHMARK(BM_PileSolverCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PileContactViews)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PileDetect)
    ->ArgNames({"threads", "device"})
    ->ArgsProduct({{1, 2}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(20);
BENCHMARK(BM_PyramidStep)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PileStep)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

BENCHMARK_MAIN();
