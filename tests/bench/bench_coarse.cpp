// Cost of the coarse correction against a plain VBD sweep on the experiment bar (layers, contrast 1e4):
//   BM_PlainSweep          one color sweep
//   BM_SweepWithCoarse     one sweep + coarse correction (stiff_rigid or element+contrast, Hessian), with
//                          the refactorization rule of coarse_correction.h in effect
//   BM_CoarseFactor        one assembly + factorization of P^T A P
// Run: build/bin/bench_coarse (single-threaded: the experiment's timings are per thread).
#include <benchmark/benchmark.h>

#include <memory>

#include "backend/parallel.h"
#include "coarse/coarse_correction.h"
#include "coarse/coarse_experiment.h"
#include "scene/scene.h"

using namespace vbd;

namespace {

SceneDesc bar() {
    return coarse::experimentScene(
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/coarse_bar.json"), "layers", 1e4);
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
    const SceneDesc sd = bar();
    SoftSolver s;
    start(s, sd, nullptr);
    for (auto _ : st) s.sweep();
}

void BM_SweepWithCoarse(benchmark::State& st) {
    ThreadLimit one(1);
    const SceneDesc sd = bar();
    coarse::CoarseCorrection hook;
    hook.configure(descFor(int(st.range(0))));
    SoftSolver s;
    start(s, sd, &hook);
    int it = 0;
    for (auto _ : st) {
        s.sweep();
        hook.afterSweep(s, ++it);
    }
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
        hook.afterSweep(s, 1);  // factor + one correction
        s.model().x = x;
    }
}

}  // namespace

BENCHMARK(BM_PlainSweep)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SweepWithCoarse)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CoarseFactor)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
