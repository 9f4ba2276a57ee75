// VBD soft-body throughput on cantilever beams of ~1k, ~10k and ~100k vertices, 1 and 2 threads.
//   sweep:  one colored Gauss-Seidel sweep; counter tet_vertex_evals = 4 * tets per sweep (each tet is
//           evaluated once for each of its vertices), reported per second.
//   step:   one full step at 10 iterations without per-iteration diagnostics (ms per step).
//   sweep_precision: the ~10k beam's sweep in float (0) and double (1) state (solver.precision), same
//           scene and thread counts, so the double/float cost ratio is read off one run.
// Run: build/bin/bench_soft --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "backend/parallel.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

SceneDesc beam(int size, Precision precision = Precision::Float) {
    // cells (n, m, m): vertices (n+1)(m+1)^2
    static const int dims[3][2] = {{39, 4}, {99, 9}, {249, 19}};
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

void BM_Sweep(benchmark::State& st) {
    ThreadLimit limit(int(st.range(1)));
    SoftSolver solver;
    solver.build(beam(int(st.range(0))));
    solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));  // a deformed state with velocities
    for (auto _ : st) solver.sweep();
    st.counters["vertices"] = double(solver.model().numVertices());
    st.counters["colors"] = double(solver.model().colorGroups.size());
    st.counters["tet_vertex_evals"] = benchmark::Counter(double(4 * solver.model().tets.size()),
                                                         benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SweepPrecision(benchmark::State& st) {
    ThreadLimit limit(int(st.range(1)));
    SoftSolver solver;
    solver.build(beam(1, st.range(0) ? Precision::Double : Precision::Float));
    solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    for (auto _ : st) solver.sweep();
    st.counters["tet_vertex_evals"] = benchmark::Counter(double(4 * solver.model().tets.size()),
                                                         benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Step10(benchmark::State& st) {
    ThreadLimit limit(int(st.range(1)));
    SoftSolver solver;
    solver.build(beam(int(st.range(0))));
    for (auto _ : st) solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    st.counters["vertices"] = double(solver.model().numVertices());
}

}  // namespace

BENCHMARK(BM_Sweep)
    ->ArgsProduct({{0, 1, 2}, {1, 2}})
    ->ArgNames({"beam", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SweepPrecision)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->ArgNames({"double", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Step10)
    ->ArgsProduct({{0, 1, 2}, {1, 2}})
    ->ArgNames({"beam", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
