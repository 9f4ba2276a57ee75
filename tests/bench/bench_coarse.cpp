// Cost of the coarse correction against a plain VBD sweep on the experiment bar (layers, contrast 1e4):
//   BM_PlainSweep/p          one color sweep (p = 0 float state, 1 double state)
//   BM_SweepWithCoarse/b/p   one sweep + coarse correction (b = 0 stiff_rigid, 1 element+contrast; Hessian),
//                            with the refactorization rule of coarse_correction.h in effect
//   BM_CoarseFactor/b        one assembly + factorization of the coarse matrix, plus one correction
//   BM_CantileverSweep/n/c   the uniform cantilever (30n x 3n x 3n cells), one sweep (c = 0) or one
//   sweep +
//                            aggregate correction (c = 1), double state; counters split sweep and correction
//   BM_CantileverIterate/n/c the same through the step's own iterate() (what a step pays per sweep)
//   BM_EnvelopeSolve/n       the two triangular solves of the cantilever's factored coarse matrix (n as
//   above)
// Run: build/bin/bench_coarse (single-threaded: the experiment's timings are per thread).
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "../scene/cantilever.h"
#include "backend/parallel.h"
#include "coarse/coarse_correction.h"
#include "coarse/envelope_cholesky.h"
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

// The factorizations inside the timed loop (the refactorization watch's) apart from the per-sweep work:
// factor_ms, the cost of one; factor_us, their time per iteration of this loop; steady_us = us_per_iteration
// (the loop's wall time per iteration) - factor_us, the cost of a sweep (+ correction) between
// factorizations. A factorization is a set-up whose share of an iteration depends on how many iterations
// share it: ~35 ms on the 60 x 6 x 6 cantilever, over however many iterations the benchmark chose, was ~8 %
// of a corrected sweep. The first factorization runs before the loop.
void factorCounters(benchmark::State& st, const coarse::CoarseCorrection& hook, int before, double msBefore,
                    double usPerIteration) {
    const int n = hook.stats().factorizations;
    const double its = double(std::max<int64_t>(1, st.iterations()));
    const double factorUs = (hook.stats().setupMs - msBefore) * 1e3 / its;
    st.counters["factorizations"] = n - before;
    st.counters["factor_ms"] = n > 0 ? hook.stats().setupMs / n : 0.0;
    st.counters["factor_us"] = factorUs;
    st.counters["steady_us"] = usPerIteration - factorUs;
}

void BM_CantileverSweep(benchmark::State& st) {
    ThreadLimit one(1);
    coarse::CoarseCorrection hook;
    SoftSolver s;
    startCantilever(st, s, hook);
    if (st.range(1)) {  // the first corrected sweep: the first factorization
        s.sweep();
        s.correct(hook, 1);
    }
    const int before = hook.stats().factorizations;
    const double msBefore = hook.stats().setupMs;
    timedSweeps(st, s, st.range(1) ? &hook : nullptr);
    st.counters["columns"] = hook.numColumns();
    factorCounters(st, hook, before, msBefore,
                   double(st.counters["sweep_us"]) + double(st.counters["correction_us"]));
    const double n = std::max(1, hook.stats().corrections);
    st.counters["accepted"] = hook.stats().accepted / n;
    st.counters["full_steps"] = hook.stats().fullSteps / n;
}

// The same inside a step, as SoftSolver::step runs it: iterate(k) = one sweep, then the correction when a
// hook is set (no diagnostics, no tolerance); the watch's refactorizations stay in the loop.
// BM_CantileverSweep calls the solver's public sweep() / correct(), which outside a step also compare the
// state with the published model and publish after every call (twice per corrected sweep, once per plain
// one); this is the cost a step pays.
void BM_CantileverIterate(benchmark::State& st) {
    ThreadLimit one(1);
    coarse::CoarseCorrection hook;
    SoftSolver s;
    const SceneDesc sd = startCantilever(st, s, hook);
    s.beginStep(float(sd.dt), sd.gravity);
    int it = 0;
    s.iterate(++it);  // the first factorization (with the hook), outside the timing
    const int before = hook.stats().factorizations;
    const double msBefore = hook.stats().setupMs;
    const auto t0 = std::chrono::steady_clock::now();
    for (auto _ : st) s.iterate(++it);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    s.endStep();
    st.counters["accepted"] = hook.stats().accepted;
    factorCounters(st, hook, before, msBefore, us / double(std::max<int64_t>(1, st.iterations())));
}

// The reused factor's solve alone (a corrected sweep runs one), on the matrix the aggregate correction
// assembled after one sweep.
void BM_EnvelopeSolve(benchmark::State& st) {
    ThreadLimit one(1);
    coarse::CoarseCorrection hook;
    SoftSolver s;
    SceneDesc sd = cantilever(int(st.range(0)));
    hook.configure(sd.solver.coarse);
    start(s, sd, &hook);
    s.sweep();
    s.correct(hook, 1);
    coarse::EnvelopeCholesky chol;
    chol.analyze(hook.coarseMatrix());
    if (!chol.factorize(hook.coarseMatrix())) st.SkipWithError("not positive definite");
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(hook.coarseMatrix().rows(), -1.0, 1.0);
    for (auto _ : st) benchmark::DoNotOptimize(chol.solve(b));
    st.counters["envelope"] = double(chol.envelopeSize());
}

void BM_HangingBarSteps(benchmark::State& st) {
    ThreadLimit one(1);
    SceneDesc sd = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/hanging_bar_40.json");
    sd.solver.diagnostics = false;
    sd.solver.coarse.enabled = st.range(0) != 0;
    sd.solver.coarse.basis = CoarseBasis::Aggregate;
    constexpr int kSteps = 120;
    double factorizations = 0, setupMs = 0, wallMs = 0;
    for (auto _ : st) {
        st.PauseTiming();
        coarse::CoarseCorrection hook;
        hook.configure(sd.solver.coarse);
        SoftSolver s;
        s.build(sd);
        s.setParams(sd.solver);
        if (st.range(0)) s.setSweepHook(&hook);
        st.ResumeTiming();
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < kSteps; ++k) s.step(float(sd.dt), sd.gravity);
        wallMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        factorizations += hook.stats().factorizations;
        setupMs += hook.stats().setupMs;
    }
    const double runs = double(std::max<int64_t>(1, st.iterations()));
    st.counters["ms_per_step"] = wallMs / (runs * kSteps);
    st.counters["factorizations_per_step"] = factorizations / (runs * kSteps);
    st.counters["factor_ms_per_step"] = setupMs / (runs * kSteps);
}

}  // namespace

BENCHMARK(BM_HangingBarSteps)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_EnvelopeSolve)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
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
