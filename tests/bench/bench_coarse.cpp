// Cost of the coarse correction against a plain VBD sweep on the experiment bar (layers, contrast 1e4):
//   BM_PlainSweep/p          one color sweep (p = 0 float state, 1 double state)
//   BM_SweepWithCoarse/b/p   one sweep + coarse correction (b = 0 stiff_rigid, 1 element+contrast; Hessian),
//                            with the refactorization rule of coarse_correction.h in effect
//   BM_CoarseFactor/b        one assembly + factorization of the coarse matrix, plus one correction
//   BM_CantileverSweep/n/c   the uniform cantilever (30n x 3n x 3n cells), one sweep (c = 0) or one
//   sweep +
//                            aggregate correction (c = 1), double state; counters split sweep and correction
//   BM_CantileverIterate/n/c the same through the step's own iterate() (what a step pays per sweep)
// Run: build/bin/bench_coarse (single-threaded: the experiment's timings are per thread).
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "../scene/cantilever.h"
#include "backend/parallel.h"
#include "coarse/coarse_correction.h"
#include "experiments/coarse_experiment.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

SceneDesc bar(int precision = 1) {
    SceneDesc sd = experiments::experimentScene(
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/coarse_bar.json"), "layers", 1e4);
    sd.solver.precision = precision ? Precision::Double : Precision::Float;
    return sd;
}

void start(SoftSolver& s, const SceneDesc& sd, SweepHook* hook) {
    s.build(sd);
    SolverDesc p = sd.solver;
    p.iterations = 0;
    p.diagnostics = false;
    p.coarse.enabled = false;
    s.setParams(p);
    s.setSweepHook(hook);
    s.step(float(sd.dt), sd.gravity);
}

CoarseDesc descFor(int which) {
    CoarseDesc d;
    d.enabled = true;
    d.basis = which == 0 ? CoarseBasis::StiffRigid : CoarseBasis::Element;
    d.filter = which == 0 ? CoarseFilter::None : CoarseFilter::Contrast;
    return d;
}

void BM_PlainSweep(benchmark::State& st) {
    ThreadLimit one(1);
    const SceneDesc sd = bar(int(st.range(0)));
    SoftSolver s;
    start(s, sd, nullptr);
    for (auto _ : st) s.sweep();
}

// The benchmark loop of a sweep followed by a correction (none when hook is null), with the split per
// iteration as counters: the sweep itself and the correction (gradient, solve, line search).
void timedSweeps(benchmark::State& st, SoftSolver& s, coarse::CoarseCorrection* hook) {
    int it = 0;
    double sweepS = 0, hookS = 0;
    using C = std::chrono::steady_clock;
    for (auto _ : st) {
        const auto t0 = C::now();
        s.sweep();
        const auto t1 = C::now();
        if (hook) s.correct(*hook, ++it);
        sweepS += std::chrono::duration<double>(t1 - t0).count();
        hookS += std::chrono::duration<double>(C::now() - t1).count();
    }
    const double n = double(std::max<int64_t>(1, st.iterations()));
    st.counters["sweep_us"] = benchmark::Counter(sweepS * 1e6 / n);
    st.counters["correction_us"] = benchmark::Counter(hookS * 1e6 / n);
}

void BM_SweepWithCoarse(benchmark::State& st) {
    ThreadLimit one(1);
    const SceneDesc sd = bar(int(st.range(1)));
    coarse::CoarseCorrection hook;
    hook.configure(descFor(int(st.range(0))));
    SoftSolver s;
    start(s, sd, &hook);
    timedSweeps(st, s, &hook);
    st.counters["columns"] = hook.numColumns();
    st.counters["factorizations"] = hook.stats().factorizations;
}

void BM_CoarseFactor(benchmark::State& st) {
    ThreadLimit one(1);
    const SceneDesc sd = bar();
    coarse::CoarseCorrection hook;
    hook.configure(descFor(int(st.range(0))));
    hook.setRefactorEverySweep(true);
    hook.setLineSearch(false);
    SoftSolver s;
    start(s, sd, &hook);
    const std::vector<Vec3> x = s.model().x;
    for (auto _ : st) {
        s.correct(hook, 1);  // factor + one correction
        s.model().x = x;     // back to the same state (the solver reseeds from the edit)
    }
}

SceneDesc cantilever(int n) { return vbdtest::aggregateCantilever(30 * n, 3 * n, 3 * n); }

// The cantilever of args (n, c) built and stepped once, the aggregate hook set when c = 1.
SceneDesc startCantilever(const benchmark::State& st, SoftSolver& s, coarse::CoarseCorrection& hook) {
    SceneDesc sd = cantilever(int(st.range(0)));
    hook.configure(sd.solver.coarse);
    start(s, sd, st.range(1) ? &hook : nullptr);
    return sd;
}

void BM_CantileverSweep(benchmark::State& st) {
    ThreadLimit one(1);
    coarse::CoarseCorrection hook;
    SoftSolver s;
    startCantilever(st, s, hook);
    timedSweeps(st, s, st.range(1) ? &hook : nullptr);
    st.counters["columns"] = hook.numColumns();
    st.counters["factorizations"] = hook.stats().factorizations;
    const double n = std::max(1, hook.stats().corrections);
    st.counters["accepted"] = hook.stats().accepted / n;
    st.counters["full_steps"] = hook.stats().fullSteps / n;
}

// The same inside a step, as SoftSolver::step runs it: iterate(k) = one sweep, then the correction when a
// hook is set (no diagnostics, no tolerance). BM_CantileverSweep calls the solver's public sweep() /
// correct(), which outside a step also compare the state with the published model and publish after every
// call (twice per corrected sweep, once per plain one); this is the cost a step pays.
void BM_CantileverIterate(benchmark::State& st) {
    ThreadLimit one(1);
    coarse::CoarseCorrection hook;
    SoftSolver s;
    const SceneDesc sd = startCantilever(st, s, hook);
    s.beginStep(float(sd.dt), sd.gravity);
    int it = 0;
    for (auto _ : st) s.iterate(++it);
    s.endStep();
    st.counters["accepted"] = hook.stats().accepted;
}

}  // namespace

BENCHMARK(BM_CantileverIterate)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CantileverSweep)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlainSweep)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SweepWithCoarse)->Args({0, 0})->Args({0, 1})->Args({1, 1})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CoarseFactor)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
