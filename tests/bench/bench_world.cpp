// What a World costs the host around its step, on the device path (the host executor standing in for a
// device, WorldOptions::hostExecutor), for a soft cube of 27^3 5-tet cells (21,952 vertices, 98,415 tets)
// resting on the ground, h = 1/120 s, 2 iterations:
//   BM_WorldSaveState/backend/double: World::saveState after a step, what the app's timeline does every
//   frame.
//     backend 0: the CPU backend; 1: the device path publishing every step; 2: the device path with the lazy
//     publish (World::setLazyPublish), whose save is a copy within the device's memory (SoftStepper::
//     saveOnDevice: here the host executor's copy, on CUDA five device-to-device copies on the step's
//     stream). The saved bytes are a counter.
// Run: build/bin/bench_world --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "backend/parallel.h"
#include "resting_cube.h"
#include "world/world.h"

using namespace vbd;

namespace {

void BM_WorldSaveState(benchmark::State& st) {
    ThreadLimit oneThread(1);
    const SceneDesc s = vbdbench::restingCube(st.range(1) ? Precision::Double : Precision::Float,
                                              st.range(0) > 0 ? Backend::Cuda : Backend::Cpu);
    WorldOptions o;
    o.hostExecutor = true;
    auto w = World::create(s, o);
    w->setLazyPublish(st.range(0) == 2);
    size_t bytes = 0;
    for (auto _ : st) {
        st.PauseTiming();
        w->step();
        st.ResumeTiming();
        auto saved = w->saveState();
        bytes = saved->bytes();
        benchmark::DoNotOptimize(saved);
    }
    st.counters["bytes"] = double(bytes);
}

}  // namespace

BENCHMARK(BM_WorldSaveState)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"backend", "double"})
    ->Iterations(20)  // each iteration steps first (untimed): the default minimum time would take minutes
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
