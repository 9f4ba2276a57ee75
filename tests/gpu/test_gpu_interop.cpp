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
#include "gpu/body_instances.h"
#include "gpu/host_exec.h"
#include "gpu/interop_cuda.h"
#include "gpu/rigid_stepper.h"
#include "gpu/soft_stepper.h"
#include "mesh/surface.h"
#include "scene/scene.h"
#include "world/world.h"

#include "gpu_scenes.h"

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

// The record as the renderer wrote it before gpu/body_instances.h (app/render/renderer.cpp, field by field
// from World::bodies()): the oracle of the layout shaders/body.vert reads.
BodyInstanceRecord formerRendererRecord(const RigidBodyView& b, const std::array<float, 3>& c) {
    BodyInstanceRecord r{};
    r.rot[0] = b.rotation.x, r.rot[1] = b.rotation.y, r.rot[2] = b.rotation.z, r.rot[3] = b.rotation.w;
    r.pos[0] = b.position.x, r.pos[1] = b.position.y, r.pos[2] = b.position.z, r.pos[3] = 1;
    const bool box = b.shape == ShapeType::Box;
    const float h = b.shape == ShapeType::Capsule ? b.halfHeight : 0.0f;
    const Vec3 scale = box ? b.size : Vec3(b.radius, b.radius + h, b.radius);
    r.scale[0] = scale.x, r.scale[1] = scale.y, r.scale[2] = scale.z;
    r.color[0] = c[0], r.color[1] = c[1], r.color[2] = c[2], r.color[3] = 1;
    return r;
}

// The interop's body instance kernel run by the host executor on the device rigid step's states (what the
// CUDA kernel reads in place) against the CPU upload's fill from the published views, on every rigid-only
// built-in scene after half a second of steps: byte for byte (the record is copies and 2 * half, r + h:
// nothing to round differently). Both against the renderer's former field-by-field fill, in draw order
// (boxes, then spheres and capsules). The device states stop being current once the solver's are edited.
TEST(GpuInterop, HostRunOfTheBodyInstanceKernelEqualsTheCpuRecordsBytewise) {
    ThreadLimit oneThread(1);
    const std::vector<std::string> scenes = vbdtest::rigidOnlyScenes();
    ASSERT_GE(scenes.size(), 8u);
    int roundBodies = 0;
    for (const std::string& f : scenes) {
        SCOPED_TRACE(f);
        const SceneDesc d = loadSceneFile(f, {});
        RigidSolver solver(d);
        solver.setParams(d.solver);
        auto stepper = makeHostRigidStepper();
        EXPECT_EQ(stepper->deviceBodies(solver).state, nullptr);  // nothing stepped yet
        EXPECT_FALSE(stepper->deviceBodies(solver).current);
        const int steps = 30 * d.substeps;
        for (int s = 0; s < steps; ++s) stepper->step(solver, float(d.dt / d.substeps));
        const DeviceRigidBodies dev = stepper->deviceBodies(solver);
        ASSERT_TRUE(dev.current);
        ASSERT_NE(dev.state, nullptr);
        EXPECT_NE(static_cast<const void*>(dev.state), static_cast<const void*>(solver.states().data()));
        EXPECT_EQ(dev.cudaDevice, -1);
        ASSERT_EQ(dev.n, solver.numBodies());

        const std::vector<RigidBodyView> views = solver.views();
        std::vector<std::array<float, 3>> colors(views.size());
        for (size_t i = 0; i < colors.size(); ++i)
            colors[i] = {float(i % 5) / 5.0f, float(i % 3) / 3.0f, views[i].fixed ? 0.5f : 1.0f};
        const BodyInstanceTable table = bodyInstanceTable(views, colors);
        ASSERT_EQ(table.items.size(), views.size());
        const size_t n = table.items.size();
        std::vector<BodyInstanceRecord> cpu(n), kernel(n), former;
        std::memset(static_cast<void*>(kernel.data()), 0x7f, n * sizeof(BodyInstanceRecord));
        fillBodyInstances(views, table, cpu.data());
        HostExec().forEach(int(n), BodyInstanceStage{dev.state, table.items.data(), kernel.data()});
        EXPECT_EQ(std::memcmp(cpu.data(), kernel.data(), n * sizeof(BodyInstanceRecord)), 0);
        for (int pass = 0; pass < 2; ++pass)
            for (size_t i = 0; i < views.size(); ++i)
                if ((views[i].shape == ShapeType::Box) == (pass == 0))
                    former.push_back(formerRendererRecord(views[i], colors[i]));
        ASSERT_EQ(former.size(), n);
        EXPECT_EQ(std::memcmp(former.data(), cpu.data(), n * sizeof(BodyInstanceRecord)), 0);
        EXPECT_EQ(table.boxes, int(std::count_if(views.begin(), views.end(), [](const RigidBodyView& v) {
                      return v.shape == ShapeType::Box;
                  })));
        roundBodies += int(n) - table.boxes;
        // Not a trivial equality: the records are not those of the scene's initial poses (bodies fell,
        // settled or spun).
        std::vector<BodyInstanceRecord> initial(n);
        fillBodyInstances(RigidSolver(d).views(), table, initial.data());
        EXPECT_NE(std::memcmp(initial.data(), cpu.data(), n * sizeof(BodyInstanceRecord)), 0);
        // An edit of the solver's states (a drag, a restored frame) leaves the device copy stale.
        RigidBodyState st = solver.states()[0];
        st.position.y += 0.5f;
        solver.setState(0, st);
        EXPECT_FALSE(stepper->deviceBodies(solver).current);
    }
    EXPECT_GT(roundBodies, 0);  // spheres or capsules were among them (chain, pendulum)
}

// The CUDA kernel of the body instances where a device exists: a rigid-only built-in scene stepped by the
// CUDA World, the kernel run on the device rigid states in place against the CPU fill of the World's bodies.
// The record only copies the pose and colour and doubles the half extents (exact), so nothing can round
// differently: byte for byte.
TEST(GpuInterop, CudaBodyInstanceKernelEqualsTheCpuRecordsBytewise) {
    const std::string why = vbdtest::noCudaDevice();
    if (!why.empty()) GTEST_SKIP() << why;
    for (const char* scene : {"rigid_pyramid.json", "rigid_heavy_chain.json"}) {
        SCOPED_TRACE(scene);
        SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {});
        d.solver.backend = Backend::Cuda;
        auto world = World::create(d);
        for (int f = 0; f < 20; ++f) world->step();
        const DeviceRigidBodies dev = world->deviceBodies();
        ASSERT_TRUE(dev.current);
        ASSERT_EQ(dev.cudaDevice, 0);
        const std::vector<RigidBodyView> views = world->bodies();
        std::vector<std::array<float, 3>> colors(views.size(), {0.25f, 0.5f, 0.75f});
        const BodyInstanceTable table = bodyInstanceTable(views, colors);
        std::vector<BodyInstanceRecord> cpu(table.items.size());
        fillBodyInstances(views, table, cpu.data());
        const std::vector<BodyInstanceRecord> kernel = deviceBodyInstanceRecords(dev, table.items);
        ASSERT_EQ(kernel.size(), cpu.size());
        EXPECT_EQ(std::memcmp(kernel.data(), cpu.data(), cpu.size() * sizeof(BodyInstanceRecord)), 0);
    }
}

TEST(GpuInterop, CudaImportRefusesWithoutADevice) {
    const CudaProbe& p = probeCuda();
    if (p.compiled && p.devices > 0)
        GTEST_SKIP() << "a CUDA device exists: tests/render/test_interop.cpp covers it";
    std::string error;
    EXPECT_TRUE(cudaDeviceUuids(error).empty());
    EXPECT_FALSE(error.empty());
    // The descriptors are taken (closed) even when the import cannot run.
    int fds[2], inst[2];
    ASSERT_EQ(pipe(fds), 0);
    ASSERT_EQ(pipe(inst), 0);
    ExternalVertexTarget t;
    t.slots.push_back({fds[0], 64, 64, true});
    t.simDoneFd = fds[1];
    t.instanceSlots.push_back({inst[0], 64, 64, true});  // a body instance buffer
    t.renderDoneFd = inst[1];
    const SurfaceAdjacency adj = buildSurfaceAdjacency(0, {});
    EXPECT_THROW(importExternalVertexTarget(t, 0, adj, VertexLayout{}), std::runtime_error);
    for (int fd : {fds[0], fds[1], inst[0], inst[1]}) EXPECT_EQ(close(fd), -1);
}
