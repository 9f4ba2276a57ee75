// The engine half of the CUDA-Vulkan interop without a GPU: device matching by UUID, the CSR of incident
// surface triangles, and the record fill (gpu/render_vertices.h) run by the host executor on the device
// step's own state against the CPU vertex source's fill of the published state -- byte for byte: both round
// the same double positions to float and then run the same float functor (render_vertices.h says why one).
// The CUDA import itself skips without a device (the render test tests/render/test_interop.cpp draws a frame
// through it where there is one).
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstring>

#include "backend/parallel.h"
#include "gpu/backend_choice.h"
#include "gpu/host_exec.h"
#include "gpu/interop_cuda.h"
#include "gpu/soft_stepper.h"
#include "mesh/surface.h"
#include "scene/scene.h"

using namespace vbd;

namespace {

DeviceUuid uuid(unsigned char first, unsigned char last) {
    DeviceUuid u{};
    u[0] = first;
    u[15] = last;
    return u;
}

}  // namespace

TEST(GpuInterop, MatchesTheCudaDeviceWithTheVulkanUuid) {
    const std::vector<DeviceUuid> cuda = {uuid(1, 1), uuid(2, 9), uuid(3, 3)};
    EXPECT_EQ(matchCudaDevice(uuid(2, 9), cuda), 1);
    EXPECT_EQ(matchCudaDevice(uuid(3, 3), cuda), 2);
    EXPECT_EQ(matchCudaDevice(uuid(2, 8), cuda), -1);  // one byte off: another GPU
    EXPECT_EQ(matchCudaDevice(uuid(1, 1), {}), -1);    // no CUDA device
    // A driver without a UUID reports zeros; zeros never identify a device, even against another zero UUID.
    EXPECT_EQ(matchCudaDevice(DeviceUuid{}, {DeviceUuid{}, uuid(1, 1)}), -1);
    // The first of two devices with one UUID (CUDA lists a GPU once; this pins the rule, not a real case).
    EXPECT_EQ(matchCudaDevice(uuid(4, 4), {uuid(4, 4), uuid(4, 4)}), 0);
    DeviceUuid lavapipe{};
    std::memcpy(lavapipe.data(), "mesa22.3.6\0\0\0\0\0\0", 16);
    EXPECT_EQ(uuidString(lavapipe), "6d657361-3232-2e33-2e36-000000000000");
}

TEST(GpuInterop, IncidentTrianglesInDrawOrder) {
    // Two triangles sharing the edge 1-2, a vertex (4) on none.
    const std::vector<std::array<int, 3>> tris = {{0, 1, 2}, {2, 1, 3}};
    const SurfaceAdjacency a = buildSurfaceAdjacency(5, tris);
    EXPECT_EQ(a.offsets, (std::vector<int>{0, 1, 3, 5, 6, 6}));
    EXPECT_EQ(a.incident, (std::vector<int>{0, 0, 1, 0, 1, 1}));
    EXPECT_THROW(buildSurfaceAdjacency(3, tris), std::invalid_argument);  // vertex 3 out of range

    // Records: unit right triangles in z = 0 and their normals; vertex 4 has none (normal 0, as before).
    const std::vector<Vec3> x = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {5, 5, 5}};
    const std::vector<float> scalar = {0.5f, 0.25f};  // shorter than x: the rest get 0
    std::vector<float> out(5 * 8, -1.0f);
    fillVertexRecords(x.data(), 5, a, scalar.data(), 2, VertexLayout{}, out.data());
    const float expect[5][8] = {{0, 0, 0, 0.5f, 0, 0, 1, 0},
                                {1, 0, 0, 0.25f, 0, 0, 1, 0},
                                {0, 1, 0, 0, 0, 0, 1, 0},
                                {1, 1, 0, 0, 0, 0, 1, 0},
                                {5, 5, 5, 0, 0, 0, 0, 0}};
    for (int i = 0; i < 5; ++i)
        for (int w = 0; w < 8; ++w) EXPECT_EQ(out[size_t(i * 8 + w)], expect[i][w]) << i << "," << w;
}

// The device step's double state on the host executor, rounded to float and through VertexRecordStage,
// against the CPU vertex source's call (fillVertexRecords on the published float positions), after steps that
// move and deform the mesh, with a heat-map field.
TEST(GpuInterop, HostRunOfTheRecordKernelEqualsTheCpuRecordsBytewise) {
    ThreadLimit oneThread(1);
    const SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json", {});
    ASSERT_EQ(d.solver.precision, Precision::Double);
    SoftSolver solver;
    solver.build(d);
    solver.setParams(d.solver);
    auto stepper = makeHostPipelineStepper(Precision::Double);
    stepper->configure(solver);
    EXPECT_FALSE(stepper->deviceParticles().current);  // configured, not stepped
    for (int s = 0; s < 40; ++s) stepper->step(solver, float(d.dt / d.substeps), d.gravity);
    const DeviceParticles dev = stepper->deviceParticles();
    ASSERT_TRUE(dev.current);
    ASSERT_TRUE(dev.doublePrecision);
    EXPECT_EQ(dev.stream, nullptr);
    EXPECT_EQ(dev.cudaDevice, -1);
    const SoftModel& m = solver.model();
    ASSERT_EQ(dev.n, m.numVertices());

    std::vector<std::array<int, 3>> tris;
    TetMesh tm;
    tm.tets = m.tets;
    tm.X.resize(m.x0.size());
    tris = extractBoundary(tm).tris;
    ASSERT_GT(tris.size(), 100u);
    const SurfaceAdjacency adj = buildSurfaceAdjacency(dev.n, tris);
    std::vector<float> scalar(size_t(dev.n));
    for (size_t i = 0; i < scalar.size(); ++i) scalar[i] = float(i % 7) / 7.0f;

    const size_t words = size_t(dev.n) * 8;
    std::vector<float> cpu(words), kernel(words, 123.0f);
    fillVertexRecords(m.x.data(), dev.n, adj, scalar.data(), dev.n, VertexLayout{}, cpu.data());
    // The interop's host run: the device state rounded to float on the executor, then the record functor.
    HostExec ex;
    Vec3* xf = ex.alloc<Vec3>(size_t(dev.n));
    ex.forEach(dev.n, ToFloatStage<double>{static_cast<const Vec3d*>(dev.x), xf});
    VertexRecordStage stage;
    stage.x = xf;
    stage.adj = {adj.offsets.data(), adj.incident.data(), adj.tris.data()};
    stage.scalar = scalar.data();
    stage.numScalars = dev.n;
    stage.out = kernel.data();
    ex.forEach(dev.n, stage);
    ex.release(xf);
    EXPECT_EQ(std::memcmp(cpu.data(), kernel.data(), words * sizeof(float)), 0);
    // Not a trivial equality: the mesh moved from its rest shape (it fell onto the ground).
    float moved = 0;
    for (size_t i = 0; i < m.x.size(); ++i) moved = std::max(moved, norm(m.x[i] - m.x0[i]));
    EXPECT_GT(moved, 0.01f);
}

TEST(GpuInterop, CudaImportRefusesWithoutADevice) {
    const CudaProbe& p = probeCuda();
    if (p.compiled && p.devices > 0)
        GTEST_SKIP() << "a CUDA device exists: tests/render/test_interop.cpp covers it";
    std::string error;
    EXPECT_TRUE(cudaDeviceUuids(error).empty());
    EXPECT_FALSE(error.empty());
    // The descriptors are taken (closed) even when the import cannot run.
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    ExternalVertexTarget t;
    t.slots.push_back({fds[0], 64, 64, true});
    t.simDoneFd = fds[1];
    const SurfaceAdjacency adj = buildSurfaceAdjacency(0, {});
    EXPECT_THROW(importExternalVertexTarget(t, 0, adj, VertexLayout{}), std::runtime_error);
    EXPECT_EQ(close(fds[0]), -1);
    EXPECT_EQ(close(fds[1]), -1);
}
