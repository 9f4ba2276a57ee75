// Cloth step cost at 10 iterations: a 64x64 sheet with self-collision and a 128x128 sheet without, both
// draped over a fixed sphere (warmed up until the sheet touches the sphere and folds, so contacts exist).
//   counters: vertices, contacts (pairs closer than 2 r at the last detection), collision_share (share of
//   the step spent in collision detection: spatial hash, narrow phase and bounds;
//   SoftStepStats::collisionMs).
// BM_SoftPileStep: one substep of assets/scenes/soft_pile.json (27 soft cubes in a fixed box, soft-soft
// contact), warmed up until the cubes have landed on each other; same counters.
// Run: build/bin/bench_cloth --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>

#include "../scene/cloth_drape.h"
#include "backend/parallel.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

SceneDesc drape(int cells, bool self) {
    SceneDesc s = vbdtest::clothOverSphere(1.2f, cells, self);
    s.dt = 1.0 / 60.0;
    s.solver.iterations = 10;
    return s;
}

// The benchmark loop of whole steps, with the vertex and contact counts and the share of the step spent in
// collision detection as counters.
void timedSteps(benchmark::State& st, SoftSolver& solver, float h, const Vec3& gravity) {
    double collision = 0, total = 0;
    int contacts = 0;
    for (auto _ : st) {
        auto t0 = std::chrono::steady_clock::now();
        SoftStepStats r = solver.step(h, gravity);
        total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        collision += r.collisionMs;
        contacts = r.contacts;
    }
    st.counters["vertices"] = double(solver.model().numVertices());
    st.counters["contacts"] = double(contacts);
    st.counters["collision_share"] = total > 0 ? collision / total : 0.0;
}

void BM_ClothStep10(benchmark::State& st) {
    ThreadLimit limit(int(st.range(2)));
    const SceneDesc s = drape(int(st.range(0)), st.range(1) != 0);
    SoftSolver solver;
    solver.build(s);
    const float h = float(s.dt);
    for (int i = 0; i < 40; ++i) solver.step(h, s.gravity);  // 0.67 s: draped over the sphere, folding
    timedSteps(st, solver, h, s.gravity);
}

void BM_SoftPileStep(benchmark::State& st) {
    ThreadLimit limit(int(st.range(0)));
    SceneDesc s = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/soft_pile.json");
    s.solver.diagnostics = false;
    SoftSolver solver;
    solver.build(s);
    const float h = float(s.dt / s.substeps);
    for (int i = 0; i < 120; ++i) solver.step(h, s.gravity);  // 1 s: every layer has landed
    timedSteps(st, solver, h, s.gravity);
}

}  // namespace

// args: threads
BENCHMARK(BM_SoftPileStep)
    ->Arg(1)
    ->Arg(2)
    ->ArgNames({"threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// args: cells, self-collision, threads
BENCHMARK(BM_ClothStep10)
    ->Args({64, 1, 1})
    ->Args({64, 1, 2})
    ->Args({128, 0, 1})
    ->Args({128, 0, 2})
    ->ArgNames({"cells", "self", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
