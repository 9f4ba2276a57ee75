// VBD soft-body throughput on cantilever beams, 1 and 2 threads:
//   beam 0: 40x5x5 cells (1,296 vertices, 5,000 tets), beam 1: 80x10x10 (9,801 vertices, 40,000 tets; the
//   peer harness's beam_10k), beam 2: 249x19x19 (100,000 vertices, 449,445 tets; beam_100k).
//   BM_Sweep:  one colored Gauss-Seidel sweep in float or double state, with the SIMD tet blocks or the
//              scalar kernel (the one CUDA runs); counter tet_vertex_evals = 4 * tets per sweep (each tet is
//              evaluated once for each of its vertices), reported per second of wall time.
//   BM_SweepGrain: the 10k and 100k sweeps on 2 threads against the task grain (vertices per TBB task).
//   BM_SweepMesh: the torus of assets/scenes/mesh_drop.json tetrahedralized by TetGen to 36k vertices (an
//              unstructured mesh in TetGen's vertex order), SIMD sweep.
//   BM_Step10: one full step at 10 iterations without per-iteration diagnostics (ms per step).
//   BM_FrameMeasuresHost: the particles' frame metrics on the host (mechanical energy, min det F), what
//              a publishing device step costs the World after every frame.
// Times are wall-clock; the "CPU" column is the process's CPU time (all threads), which on a shared, loaded
// machine tells how much of the wall time the process actually ran.
// Run: build/bin/bench_soft --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "backend/parallel.h"
#include "scene/scene.h"
#include "soft/soft_fields.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

SceneDesc beam(int size, Precision precision) {
    // cells (n, m, m): vertices (n+1)(m+1)^2, tets 5 n m^2 (5-tet cells)
    static const int dims[3][2] = {{40, 5}, {80, 10}, {249, 19}};
    const int n = dims[size][0], m = dims[size][1];
    SceneDesc s;
    s.dt = 1.0 / 60.0;
    s.ground.enabled = false;
    s.solver.iterations = 10;
    s.solver.diagnostics = false;
    s.solver.precision = precision;
    SoftBodyDesc b;
    const float len = 4.f, w = len * float(m) / float(n);
    b.min = Vec3(0, 1, 0);
    b.max = Vec3(len, 1 + w, w);
    b.cells = {n, m, m};
    b.material.youngs = 1e6;
    b.material.damping = 0.01;
    FixedDesc f;
    f.box = {Vec3(-0.01f, 0.9f, -0.1f), Vec3(0.01f, 2 + w, w + 0.1f)};
    b.fixed.push_back(f);
    s.softBodies.push_back(b);
    return s;
}

void setCounters(benchmark::State& st, const SoftSolver& solver) {
    st.counters["vertices"] = double(solver.model().numVertices());
    st.counters["colors"] = double(solver.model().colorGroups.size());
    st.counters["tet_vertex_evals"] = benchmark::Counter(double(4 * solver.model().tets.size()),
                                                         benchmark::Counter::kIsIterationInvariantRate);
}

// args: beam, threads, double, simd
void BM_Sweep(benchmark::State& st) {
    ThreadLimit limit(int(st.range(1)));
    SoftSolver solver;
    solver.build(beam(int(st.range(0)), st.range(2) ? Precision::Double : Precision::Float));
    solver.setSweepOptions({st.range(3) != 0, 0});
    solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));  // a deformed state with velocities
    for (auto _ : st) solver.sweep();
    setCounters(st, solver);
}

// args: beam, increments: the float state's two forms (soft/state_update.h), 1 thread, SIMD. The increment
// form gathers x_prev and dx (two arrays) where the absolute form gathers x.
void BM_SweepFloatForm(benchmark::State& st) {
    ThreadLimit limit(1);
    SoftSolver solver;
    solver.build(beam(int(st.range(0)), Precision::Float));
    SoftSolver::SweepOptions o;
    o.floatIncrement = st.range(1) != 0;
    solver.setSweepOptions(o);
    solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    for (auto _ : st) solver.sweep();
    setCounters(st, solver);
}

// args: beam, double, grain (2 threads, SIMD)
void BM_SweepGrain(benchmark::State& st) {
    ThreadLimit limit(2);
    SoftSolver solver;
    solver.build(beam(int(st.range(0)), st.range(1) ? Precision::Double : Precision::Float));
    solver.setSweepOptions({true, size_t(st.range(2))});
    solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    for (auto _ : st) solver.sweep();
    setCounters(st, solver);
}

// args: threads, double
void BM_SweepMesh(benchmark::State& st) {
    ThreadLimit limit(int(st.range(0)));
    SceneDesc s = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/mesh_drop.json",
                                {"soft_bodies.0.max_volume=3e-5", "solver.diagnostics=false",
                                 st.range(1) ? "solver.precision=double" : "solver.precision=float"});
    SoftSolver solver;
    solver.build(s);
    solver.step(1.f / 120.f, Vec3(0, -9.81f, 0));
    for (auto _ : st) solver.sweep();
    setCounters(st, solver);
}

// args: beam, threads, double
void BM_Step10(benchmark::State& st) {
    ThreadLimit limit(int(st.range(1)));
    SoftSolver solver;
    solver.build(beam(int(st.range(0)), st.range(2) ? Precision::Double : Precision::Float));
    for (auto _ : st) solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    st.counters["vertices"] = double(solver.model().numVertices());
}

// What World::measure spends on the host after every frame of a device step that publishes (the particles'
// part of the metrics: SoftSolver::mechanicalEnergy, minVolumeRatio), which World::setLazyPublish moves to
// the device's reductions (gpu/frame_measure_stages.h). args: beam, threads, double.
void BM_FrameMeasuresHost(benchmark::State& st) {
    ThreadLimit limit(int(st.range(1)));
    SoftSolver solver;
    solver.build(beam(int(st.range(0)), st.range(2) ? Precision::Double : Precision::Float));
    const Vec3 g(0, -9.81f, 0);
    for (auto _ : st) {
        benchmark::DoNotOptimize(solver.mechanicalEnergy(g).total());
        benchmark::DoNotOptimize(minVolumeRatio(solver.model()));
    }
    st.counters["tets"] = double(solver.model().tets.size());
}

}  // namespace

BENCHMARK(BM_FrameMeasuresHost)
    ->ArgsProduct({{2}, {1, 2}, {0, 1}})
    ->ArgNames({"beam", "threads", "double"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_Sweep)
    ->ArgsProduct({{0, 1, 2}, {1, 2}, {0, 1}, {0, 1}})
    ->ArgNames({"beam", "threads", "double", "simd"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_SweepFloatForm)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->ArgNames({"beam", "increments"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_SweepGrain)
    ->ArgsProduct({{1, 2}, {0, 1}, {16, 32, 64, 128, 256, 512}})
    ->ArgNames({"beam", "double", "grain"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_SweepMesh)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->ArgNames({"threads", "double"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_Step10)
    ->ArgsProduct({{0, 1, 2}, {1, 2}, {0, 1}})
    ->ArgNames({"beam", "threads", "double"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

BENCHMARK_MAIN();
