// What the app's simulation thread does on the host after each step besides the solver (SimRunner::
// stepLabs: the timeline's save and the snapshot the window draws), on the device path (the host executor
// standing in for a device, WorldOptions::hostExecutor) with the lazy publish as the app runs it, for a soft
// cube of 27^3 5-tet cells (21,952 vertices, 98,415 tets) resting on the ground, h = 1/120 s, 2 iterations:
//   BM_SimFrameHost/fromSave/double: World::saveState, then a WorldSnapshot of the frame with the plots'
//   2,000 frames of metrics.
//     fromSave 0: the snapshot copies the particles from the World (which brings the device's state to the
//     host first: SoftStepper::publishPending), as every stepped snapshot did before;
//     fromSave 1: the snapshot reads them from the frame's save only when something draws them (none here:
//     a frame the window draws from the interop's buffers).
//   The plots' 2,000 frames come from a MetricsWindow over a growing timeline, as in the app.
//   BM_PlotWindow/shared: those frames alone, copied (0) or shared (1).
//   BM_SimFrameDevice/cells/double: BM_SimFrameHost's fromSave 1 on a CUDA device, 22k and 149k vertices (the
//   window's host time outside the solver, on the simulation thread; skips without a device).
//   BM_PileDescription/shared, BM_SnapshotPile: the 10,000-box pile's scene description copied (0) or shared
//   (1), and the whole snapshot of a pile frame (CPU backend). BM_SimFramePile: BM_SimFrameHost's save and
//   snapshot for the pile (CPU backend, a timeline of 8 frames). BM_SimFramePileDevice/cuda/contacts: the
//   same with the bodies stepped on a CUDA device (cuda 1; skips without one) or the host executor (cuda 0),
//   the contacts made on the CPU (contacts 0) or on the device (1). BM_SnapshotPositions/double: the reader's
//   side of fromSave 1, on the render thread, for the frames that
//     do read them (the CPU upload, markers, labels): positions() from a save kept on the device (here the
//     host executor's memory: a copy; on CUDA one device-to-host copy).
// Run: build/bin/bench_snapshot --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <deque>

#include "../resting_cube.h"
#include "backend/parallel.h"
#include "gui/core/sim_runner.h"
#include "gui/core/world_snapshot.h"
#include "rigid/rigid_scenes.h"
#include "world/world.h"

using namespace vbd;

namespace {

std::unique_ptr<World> restingCube(bool doublePrecision) {
    WorldOptions o;
    o.hostExecutor = true;
    auto w = World::create(
        vbdbench::restingCube(doublePrecision ? Precision::Double : Precision::Float, Backend::Cuda), o);
    w->setLazyPublish(true);
    return w;
}

std::shared_ptr<vbdgui::WorldStatic> fixedData(const World& w) {
    auto f = std::make_shared<vbdgui::WorldStatic>();
    f->surfaces = w.surfaces();
    return f;
}

std::vector<FrameMetrics> framesUpTo(int n) {
    std::vector<FrameMetrics> f(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) f[size_t(i)].frame = i + 1;
    return f;
}

// The plots' window of a growing timeline a stepped frame's snapshot carries: shared 0 copies the last 2,000
// frames (as every snapshot did until the twenty-fourth session), shared 1 shares them (MetricsWindow).
void BM_PlotWindow(benchmark::State& st) {
    std::vector<FrameMetrics> timeline = framesUpTo(2000);
    timeline.reserve(size_t(1) << 22);  // the timeline's own growth is not what is measured
    vbdgui::MetricsWindow window(vbdgui::kSnapshotMetrics);
    for (auto _ : st) {
        timeline.push_back({});
        timeline.back().frame = int(timeline.size());
        const FrameMetrics* end = timeline.data() + timeline.size();
        vbdgui::SharedMetrics m = st.range(0) ? window.share(timeline.data(), end)
                                              : vbdgui::SharedMetrics::copyOf(std::vector<FrameMetrics>(
                                                    end - vbdgui::kSnapshotMetrics, end));
        benchmark::DoNotOptimize(m.span.data());
    }
}

// Times what the app's simulation thread does after each (untimed) step of w: the timeline's save, then the
// frame's snapshot with the plots' window shared from a growing timeline (as SimRunner::stepLabs).
// fromSave: the snapshot reads its particles from the save when asked (none here), else copies them now.
// ring: the saves kept, the oldest dropped as each is made (0: each dropped at once), as the app's timeline
// keeps its frames (a kept frame's memory is not the next save's).
void timeSimFrames(benchmark::State& st, World& w, bool fromSave, size_t ring = 0) {
    auto fixed = fixedData(w);
    auto mutex = std::make_shared<std::mutex>();
    auto cmds = std::make_shared<vbdgui::PendingCommands>();
    std::vector<FrameMetrics> timeline = framesUpTo(2000);
    vbdgui::MetricsWindow plots(vbdgui::kSnapshotMetrics);
    std::deque<std::shared_ptr<const WorldState>> kept;
    for (size_t i = 0; i < ring; ++i) {  // filled first, as a running app's timeline is
        w.step();
        kept.push_back(w.saveState());
    }
    using Clock = std::chrono::steady_clock;
    double saveMs = 0;
    for (auto _ : st) {
        st.PauseTiming();
        w.step();
        st.ResumeTiming();
        const Clock::time_point t0 = Clock::now();
        auto saved = w.saveState();
        if (ring > 0) {
            kept.push_back(saved);
            kept.pop_front();
        }
        saveMs += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        timeline.push_back(w.history().back());
        timeline.back().frame = int(timeline.size());
        vbdgui::WorldSnapshot snap(w, ScalarField::None, fixed,
                                   plots.share(timeline.data(), timeline.data() + timeline.size()), mutex,
                                   cmds, fromSave ? saved : nullptr);
        benchmark::DoNotOptimize(snap.numParticles());
    }
    st.counters["save_ms"] = saveMs / double(st.iterations());  // the save (and the ring's drop) alone
}

void BM_SimFrameHost(benchmark::State& st) {
    ThreadLimit oneThread(1);
    auto w = restingCube(st.range(1) != 0);
    timeSimFrames(st, *w, st.range(0) != 0);
}

// BM_SimFrameHost on a CUDA device (the device check runs it): the simulation thread's host time after each
// step of the app's window -- the timeline's save (device-to-device copies issued on the step's stream) and
// the snapshot (the frame's measures, boxes and pins already downloaded by the step; the plots shared) -- for
// the 22k-vertex cube and the paper's 703k-tet one. Skips without a device.
void BM_SimFrameDevice(benchmark::State& st) {
    ThreadLimit oneThread(1);
    std::unique_ptr<World> w;
    try {
        w = World::create(vbdbench::restingCube(st.range(1) ? Precision::Double : Precision::Float,
                                                Backend::Cuda, int(st.range(0))));
    } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        return;
    }
    w->setLazyPublish(true);
    timeSimFrames(st, *w, true);
}

// The hover readout's pick on the render thread, for a frame of a lazily published device World (the host
// executor standing in): cast 0 casts the cursor's ray over the frame's positions, which come from its save
// (the pick before the twenty-seventh session, up to 4 times a second); cast 1 reads the hit the step cast
// where the state is (World::setSurfaceRay), which the snapshot carries. A ray straight down onto the cube's
// top. args: cells (27: 22k vertices; 52: 149k), cast.
void BM_HoverPick(benchmark::State& st) {
    ThreadLimit oneThread(1);
    WorldOptions o;
    o.hostExecutor = true;
    auto w = World::create(vbdbench::restingCube(Precision::Double, Backend::Cuda, int(st.range(0))), o);
    w->setLazyPublish(true);
    const Box3 box = w->surfaceBounds()[0];
    const Vec3 top((box.min.x + box.max.x) / 2, box.max.y + 1, (box.min.z + box.max.z) / 2);
    const SurfaceRay ray{top, Vec3(0, -1, 0)};
    if (st.range(1)) w->setSurfaceRay(ray);
    w->step();
    auto saved = w->saveState();
    auto fixed = fixedData(*w);
    auto mutex = std::make_shared<std::mutex>();
    auto cmds = std::make_shared<vbdgui::PendingCommands>();
    SurfaceHit hit;
    for (auto _ : st) {
        st.PauseTiming();
        auto snap = std::make_unique<vbdgui::WorldSnapshot>(*w, ScalarField::None, fixed,
                                                            vbdgui::SharedMetrics{}, mutex, cmds, saved);
        st.ResumeTiming();
        hit = snap->surfaceHit(ray);
        benchmark::DoNotOptimize(hit);
        st.PauseTiming();
        snap.reset();
        st.ResumeTiming();
    }
    if (!hit.hit()) st.SkipWithError("the ray missed the cube");
    st.counters["vertices"] = double(w->numParticles());
}

void BM_SnapshotPositions(benchmark::State& st) {
    ThreadLimit oneThread(1);
    auto w = restingCube(st.range(0) != 0);
    w->step();
    auto saved = w->saveState();
    auto fixed = fixedData(*w);
    auto mutex = std::make_shared<std::mutex>();
    auto cmds = std::make_shared<vbdgui::PendingCommands>();
    for (auto _ : st) {
        vbdgui::WorldSnapshot snap(*w, ScalarField::None, fixed, {}, mutex, cmds, saved);
        benchmark::DoNotOptimize(snap.positions().data());
    }
}

// The 10,000-box pile after 30 steps of landing, its bodies stepped by `backend` (World::create throws
// where a CUDA device is asked for and there is none).
std::unique_ptr<World> landedPile(Backend backend = Backend::Cpu, const WorldOptions& options = {}) {
    SceneDesc d = rigidPileScene(10000, 0.5f);
    d.solver.iterations = 4;
    d.solver.backend = backend;
    auto w = World::create(d, options);
    for (int i = 0; i < 30; ++i) w->step();
    return w;
}

// BM_SimFrameHost for the landing pile on the CPU backend with a timeline of 8 frames: the save (a copy of
// the rigid solver sharing the step's contacts, 43,000-57,000 here) and the snapshot.
void BM_SimFramePile(benchmark::State& st) {
    ThreadLimit oneThread(1);
    auto w = landedPile();
    timeSimFrames(st, *w, true, 8);
}

// BM_SimFramePile with the bodies stepped on the device (cuda 1: a CUDA device, skipped without one; 0: the
// host executor), contacts 1 with the narrow phase and the matching there (VBD_CUDA_DEVICE_CONTACTS): the
// save then keeps the step's contact records on the device (PendingContacts::keep) instead of fetching them.
void BM_SimFramePileDevice(benchmark::State& st) {
    ThreadLimit oneThread(1);
    WorldOptions o;
    o.hostExecutor = st.range(0) == 0;
    setenv("VBD_CUDA_DEVICE_CONTACTS", st.range(1) ? "1" : "0", 1);  // read when the World is made
    std::unique_ptr<World> w;
    try {
        w = landedPile(Backend::Cuda, o);
    } catch (const std::exception& e) {
        unsetenv("VBD_CUDA_DEVICE_CONTACTS");
        st.SkipWithError(e.what());
        return;
    }
    unsetenv("VBD_CUDA_DEVICE_CONTACTS");
    timeSimFrames(st, *w, true, 8);
}

// The pile's scene description as a snapshot takes it: shared 0 copies it (10,000 body descriptions, each
// with its key string, as every snapshot did until the twenty-fourth session), shared 1 shares the World's.
void BM_PileDescription(benchmark::State& st) {
    auto w = landedPile();
    for (auto _ : st) {
        std::shared_ptr<const SceneDesc> d =
            st.range(0) ? w->sharedDesc() : std::make_shared<const SceneDesc>(w->desc());
        benchmark::DoNotOptimize(d.get());
    }
}

// A stepped frame's snapshot of the 10,000-box pile (CPU backend, after 30 steps of landing) with the plots'
// window shared: the bodies' views, the scene description, the rest of what the snapshot copies.
void BM_SnapshotPile(benchmark::State& st) {
    ThreadLimit oneThread(1);
    auto w = landedPile();
    auto fixed = std::make_shared<vbdgui::WorldStatic>();
    auto mutex = std::make_shared<std::mutex>();
    auto cmds = std::make_shared<vbdgui::PendingCommands>();
    for (auto _ : st) {
        vbdgui::WorldSnapshot snap(*w, ScalarField::None, fixed, {}, mutex, cmds, nullptr);
        benchmark::DoNotOptimize(snap.bodies().data());
    }
}

}  // namespace

BENCHMARK(BM_SimFrameDevice)
    ->ArgsProduct({{27, 52}, {0, 1}})
    ->ArgNames({"cells", "double"})
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PileDescription)->Arg(0)->Arg(1)->ArgName("shared")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SnapshotPile)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SimFramePile)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SimFramePileDevice)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"cuda", "contacts"})
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PlotWindow)->Arg(0)->Arg(1)->ArgName("shared")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SimFrameHost)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"fromSave", "double"})
    ->Iterations(20)  // each iteration steps first (untimed): the default minimum time would take minutes
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HoverPick)
    ->ArgNames({"cells", "cast"})
    ->ArgsProduct({{27, 52}, {0, 1}})
    ->Iterations(20)  // each iteration makes a snapshot (untimed)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_SnapshotPositions)
    ->ArgName("double")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
