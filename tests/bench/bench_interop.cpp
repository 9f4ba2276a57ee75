// The renderer's particle vertex records (gpu/render_vertices.h) per frame, on the soft cubes of bench_gpu
// (size 0: 27^3 cells, 21,952 vertices; size 1: 52^3 cells, 148,877 vertices; their boundary surfaces drawn):
//   BM_VertexRecordsHost/size: the CPU vertex source's fill (positions, smooth normals, scalar) on this
//     machine's threads -- the host time per frame the CUDA-Vulkan interop removes from the app's frame.
//   BM_VertexRecordsDevice/size: the interop's kernels on the device from the double state (rounding to
//   float,
//     then the records) into plain device memory, timed with CUDA events; reports an error without a device.
//   BM_BodyInstanceTableHost / BM_BodyInstancesHost: the rigid body instances of the 10,000-box pile
//     (rigid/rigid_scenes.h) on the host: the views and the draw-order table, which the renderer still builds
//     every frame on both paths, and the records' fill, which the interop's instance kernel removes.
// Counter: records per second. Run: build/bin/bench_interop --benchmark_repetitions=3
// --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "gpu/backend_choice.h"
#include "gpu/body_instances.h"
#include "gpu/interop_cuda.h"
#include "gpu/render_vertices.h"
#include "gpu/soft_stepper.h"
#include "mesh/surface.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

const int kCells[2] = {27, 52};

struct Cube {
    SceneDesc desc;
    SoftSolver solver;
    SurfaceAdjacency adj;
};

// Built once per size (building and coloring 700k tets takes seconds).
Cube& cube(int size) {
    static std::map<int, std::unique_ptr<Cube>> cache;
    auto& c = cache[size];
    if (c) return *c;
    c = std::make_unique<Cube>();
    SoftBodyDesc b;
    b.min = Vec3(0, 0.001f, 0);
    b.max = Vec3(1, 1.001f, 1);
    b.cells = {kCells[size], kCells[size], kCells[size]};
    c->desc.dt = 1.0 / 120.0;
    c->desc.substeps = 1;
    c->desc.solver.diagnostics = false;
    c->desc.softBodies.push_back(b);
    c->solver.build(c->desc);
    c->solver.setParams(c->desc.solver);
    const SoftModel& m = c->solver.model();
    TetMesh tm;
    tm.tets = m.tets;
    tm.X.resize(m.x0.size());
    c->adj = buildSurfaceAdjacency(m.numVertices(), extractBoundary(tm).tris);
    return *c;
}

void BM_VertexRecordsHost(benchmark::State& st) {
    Cube& c = cube(int(st.range(0)));
    const SoftModel& m = c.solver.model();
    std::vector<float> out(size_t(m.numVertices()) * 8);
    for (auto _ : st) {
        fillVertexRecords(m.x.data(), m.numVertices(), c.adj, nullptr, 0, VertexLayout{}, out.data());
        benchmark::DoNotOptimize(out.data());
    }
    st.counters["records_per_s"] =
        benchmark::Counter(double(m.numVertices()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_VertexRecordsHost)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VertexRecordsDevice(benchmark::State& st) {
    const CudaProbe& p = probeCuda();
    if (p.devices <= 0) {
        st.SkipWithError(p.compiled ? ("no CUDA device: " + p.error).c_str()
                                    : "built without CUDA (nvcc was not found at configure time)");
        return;
    }
    Cube& c = cube(int(st.range(0)));
    auto stepper = makeCudaStepper(Precision::Double);
    stepper->configure(c.solver);
    stepper->step(c.solver, float(c.desc.dt), c.desc.gravity,
                  false);  // the device state exists and is current
    const DeviceParticles dev = stepper->deviceParticles();
    for (auto _ : st) st.SetIterationTime(deviceVertexRecordSeconds(dev, c.adj, 100));
    st.counters["records_per_s"] =
        benchmark::Counter(double(dev.n), benchmark::Counter::kIsIterationInvariantRate);
}
// A fixed count: each iteration allocates and uploads the adjacency (milliseconds) around 100 timed frames of
// microseconds, and the manual-time loop would otherwise run until 0.5 s of frames, minutes of wall time.
BENCHMARK(BM_VertexRecordsDevice)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(20);

// The pile's bodies at their initial poses (the records only copy them: their values do not matter).
const RigidSolver& pile() {
    static const RigidSolver solver(rigidPileScene(10000));
    return solver;
}

std::vector<std::array<float, 3>> pileColors(size_t n) {
    std::vector<std::array<float, 3>> c(n);
    for (size_t i = 0; i < n; ++i) c[i] = {float(i % 7) / 7.0f, 0.5f, 0.5f};
    return c;
}

void BM_BodyInstanceTableHost(benchmark::State& st) {
    const RigidSolver& s = pile();
    const auto colors = pileColors(size_t(s.numBodies()));
    for (auto _ : st) {
        const BodyInstanceTable t = bodyInstanceTable(s.views(), colors);
        benchmark::DoNotOptimize(t.items.data());
    }
    st.counters["records_per_s"] =
        benchmark::Counter(double(s.numBodies()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BodyInstanceTableHost)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BodyInstancesHost(benchmark::State& st) {
    const RigidSolver& s = pile();
    const std::vector<RigidBodyView> views = s.views();
    const BodyInstanceTable t = bodyInstanceTable(views, pileColors(views.size()));
    std::vector<BodyInstanceRecord> out(t.items.size());
    for (auto _ : st) {
        fillBodyInstances(views, t, out.data());
        benchmark::DoNotOptimize(out.data());
    }
    st.counters["records_per_s"] =
        benchmark::Counter(double(out.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_BodyInstancesHost)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
