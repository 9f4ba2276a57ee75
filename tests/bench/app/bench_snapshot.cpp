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
//   BM_SnapshotPositions/double: the reader's side of fromSave 1, on the render thread, for the frames that
//     do read them (the CPU upload, markers, labels): positions() from a save kept on the device (here the
//     host executor's memory: a copy; on CUDA one device-to-host copy).
// Run: build/bin/bench_snapshot --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "../resting_cube.h"
#include "backend/parallel.h"
#include "gui/core/world_snapshot.h"
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

void BM_SimFrameHost(benchmark::State& st) {
    ThreadLimit oneThread(1);
    auto w = restingCube(st.range(1) != 0);
    auto fixed = fixedData(*w);
    auto mutex = std::make_shared<std::mutex>();
    auto cmds = std::make_shared<vbdgui::PendingCommands>();
    const std::vector<FrameMetrics> plots(2000);  // the plots' window of metrics each snapshot copies
    for (auto _ : st) {
        st.PauseTiming();
        w->step();
        st.ResumeTiming();
        auto saved = w->saveState();
        vbdgui::WorldSnapshot snap(*w, ScalarField::None, fixed, std::vector<FrameMetrics>(plots), mutex,
                                   cmds, st.range(0) ? saved : nullptr);
        benchmark::DoNotOptimize(snap.numParticles());
    }
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

}  // namespace

BENCHMARK(BM_SimFrameHost)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"fromSave", "double"})
    ->Iterations(20)  // each iteration steps first (untimed): the default minimum time would take minutes
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SnapshotPositions)
    ->ArgName("double")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
