// The Vulkan half of the CUDA-Vulkan interop on whatever Vulkan device exists (lavapipe on CI): the
// extensions the Context found and enabled, the exportable allocation and timeline semaphore where the
// device offers them (a skip naming what is missing where not), the fallback to the CPU vertex source with
// its reason, and -- with a CUDA device that is the Vulkan device -- a frame drawn from the CUDA-written
// buffer against the CPU path's frame.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

#include "cube_scene.h"
#include "gpu/backend_choice.h"
#include "gui/core/sim_runner.h"
#include "render/interop_vulkan.h"
#include "render/renderer.h"
#include "render/targets.h"
#include "scene/scene.h"
#include "world/world.h"

namespace vbdgui {
namespace {

constexpr uint32_t kW = 320, kH = 240;

class Interop : public ::testing::Test {
  protected:
    void SetUp() override {
        ContextOptions o;
        o.validation = true;
        try {
            ctx = std::make_unique<Context>(o);
        } catch (const VulkanError& e) {
            GTEST_SKIP() << "no Vulkan device: " << e.what();
        }
    }
    void TearDown() override {
        if (ctx) {
            EXPECT_EQ(ctx->validationMessages(), 0);
        }
    }
    std::unique_ptr<Context> ctx;
};

vbd::SceneDesc cubeScene(vbd::Backend backend) {
    vbd::SceneDesc d;
    d.softBodies.push_back(vbdtest::cubeBody(0.0f, 1.0f, 4));
    d.softBodies[0].key = "soft_bodies[0]";
    d.softBodies[0].min.y += 0.5f, d.softBodies[0].max.y += 0.5f;  // falls half a metre
    d.solver.backend = backend;
    return d;
}

bool isOpenFd(int fd) {
    struct stat st {};
    return fd >= 0 && fstat(fd, &st) == 0;
}

// Timeline semaphores the host signals, reads and waits on (the tests play CUDA's part), destroyed with it.
class HostTimelines {
  public:
    explicit HostTimelines(const Context& ctx) : device_(ctx.device) {
        signal_ =
            reinterpret_cast<PFN_vkSignalSemaphoreKHR>(vkGetDeviceProcAddr(device_, "vkSignalSemaphoreKHR"));
        value_ = reinterpret_cast<PFN_vkGetSemaphoreCounterValueKHR>(
            vkGetDeviceProcAddr(device_, "vkGetSemaphoreCounterValueKHR"));
        wait_ =
            reinterpret_cast<PFN_vkWaitSemaphoresKHR>(vkGetDeviceProcAddr(device_, "vkWaitSemaphoresKHR"));
    }
    ~HostTimelines() {
        for (VkSemaphore s : made_) vkDestroySemaphore(device_, s, nullptr);
    }
    HostTimelines(const HostTimelines&) = delete;
    HostTimelines& operator=(const HostTimelines&) = delete;
    bool loaded() const { return signal_ && value_ && wait_; }
    VkSemaphore make() {
        auto type = vkInfo<VkSemaphoreTypeCreateInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO_KHR);
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE_KHR;
        auto sci = vkInfo<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
        sci.pNext = &type;
        VkSemaphore s = VK_NULL_HANDLE;
        if (vkCreateSemaphore(device_, &sci, nullptr, &s) == VK_SUCCESS) made_.push_back(s);
        return s;
    }
    VkResult signal(VkSemaphore s, uint64_t v) const {
        auto si = vkInfo<VkSemaphoreSignalInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO_KHR);
        si.semaphore = s;
        si.value = v;
        return signal_(device_, &si);
    }
    VkResult value(VkSemaphore s, uint64_t* v) const { return value_(device_, s, v); }
    // The submit's fence says its commands finished; the timeline signal of the same batch may reach the host
    // a moment later (lavapipe under load read 1 for frame 2), so the host waits for it (5 s bound).
    VkResult waitFor(VkSemaphore s, uint64_t v) const {
        auto wi = vkInfo<VkSemaphoreWaitInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO_KHR);
        wi.semaphoreCount = 1;
        wi.pSemaphores = &s;
        wi.pValues = &v;
        return wait_(device_, &wi, 5'000'000'000ull);
    }

  private:
    VkDevice device_;
    PFN_vkSignalSemaphoreKHR signal_ = nullptr;
    PFN_vkGetSemaphoreCounterValueKHR value_ = nullptr;
    PFN_vkWaitSemaphoresKHR wait_ = nullptr;
    std::vector<VkSemaphore> made_;
};

// The cube's orange pixels (the scene is drawn when they cover part of the frame).
long orangePixels(const Pixels& px) {
    long orange = 0;
    for (size_t i = 0; i + 3 < px.rgba.size(); i += 4)
        orange += px.rgba[i] > px.rgba[i + 1] + 30 && px.rgba[i + 1] > px.rgba[i + 2] + 20;
    return orange;
}

// Steps `world` 30 frames and draws each from `interop`'s slot f % 2 (check(f) runs after the step and the
// interop update: what must hold of the frame's device data); every tenth frame is drawn again from the CPU
// upload `cpu` of the same World. Returns the largest per-channel difference of those frames, and counts the
// differing channels in *differ.
template <typename Check>
int interopAgainstCpuFrames(Context& ctx, vbd::World& world, SceneGpu& interop, SceneGpu& cpu, long* differ,
                            const Check& check) {
    OffscreenTarget target(ctx, kW, kH);
    Renderer renderer(ctx, target.pass());
    OrbitCamera cam;
    glm::vec3 lo, hi;
    sceneBounds(world, lo, hi);
    cam.frame(lo, hi, float(kW) / float(kH));
    DrawOptions opt;
    auto draw = [&](const SceneGpu& g, uint32_t s) {
        return [&, s](VkCommandBuffer cb) { renderer.draw(cb, g, s, cam, VkRect2D{{0, 0}, {kW, kH}}, opt); };
    };
    int worst = 0;
    *differ = 0;
    for (int f = 1; f <= 30; ++f) {
        world.step();
        const uint32_t slot = uint32_t(f % 2);
        interop.update(world, opt, slot);
        check(f, slot);
        if (::testing::Test::HasFatalFailure()) return worst;
        const Pixels a = target.render(kClearColor, draw(interop, slot), interop.frameSync(slot));
        if (f % 10 != 0) continue;
        cpu.update(world, opt, 0);
        const Pixels b = target.render(kClearColor, draw(cpu, 0));
        for (size_t i = 0; i < a.rgba.size(); ++i) {
            const int d = std::abs(int(a.rgba[i]) - int(b.rgba[i]));
            worst = std::max(worst, d);
            *differ += d > 0;
        }
    }
    return worst;
}

TEST_F(Interop, ExportableVertexBufferWhereTheDeviceOffersIt) {
    const std::string why = exportableMemoryUnavailable(*ctx, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!why.empty()) GTEST_SKIP() << "no exportable memory: " << why;
    EXPECT_TRUE(ctx->external.memoryFd);
    vbd::ExternalMemoryFd fd;
    Buffer b = createExportableBuffer(*ctx, 32 * 1000, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd);
    EXPECT_NE(b.buffer, VkBuffer(VK_NULL_HANDLE));
    EXPECT_EQ(b.mapped, nullptr);  // device-local: only the GPU (Vulkan or CUDA) writes it
    EXPECT_TRUE(isOpenFd(fd.fd));
    EXPECT_EQ(fd.bufferBytes, 32u * 1000u);
    EXPECT_GE(fd.allocationBytes, fd.bufferBytes);  // CUDA imports the whole allocation, maps the buffer
    EXPECT_TRUE(fd.dedicated);
    close(fd.fd);  // nobody imported it: ours to close
    ctx->destroy(b);
}

TEST_F(Interop, ExportableTimelineSemaphoreWhereTheDeviceOffersIt) {
    const std::string why = interopUnavailable(*ctx);
    if (!why.empty()) GTEST_SKIP() << "no CUDA-Vulkan interop on this device: " << why;
    int fd = -1;
    VkSemaphore s = createExportableTimeline(*ctx, fd);
    EXPECT_NE(s, VkSemaphore(VK_NULL_HANDLE));
    EXPECT_TRUE(isOpenFd(fd));
    close(fd);
    vkDestroySemaphore(ctx->device, s, nullptr);
}

// The graphics half of the per-frame ordering without CUDA: the offscreen submit waits on one timeline at
// VERTEX_INPUT and signals another (the interop's simDone / renderDone). The host plays CUDA's part and
// signals simDone; after the frame, renderDone holds the frame's value and the image shows the scene. Where
// the device exports memory, an exported buffer goes through the acquire / release from the external queue
// family (under the validation layer, like every test here).
TEST_F(Interop, OffscreenSubmitWaitsAndSignalsTimelines) {
    if (!ctx->external.timeline) GTEST_SKIP() << ctx->deviceName() << " lacks timeline semaphores";
    HostTimelines tl(*ctx);
    ASSERT_TRUE(tl.loaded());
    const VkSemaphore simDone = tl.make(), renderDone = tl.make();
    ASSERT_TRUE(simDone && renderDone);
    {
        auto world = vbd::World::create(cubeScene(vbd::Backend::Cpu));
        OffscreenTarget target(*ctx, kW, kH);
        Renderer renderer(*ctx, target.pass());
        SceneGpu gpu(*ctx, *world, 1);
        // An exported buffer in the submit's ownership transfers (its contents are not drawn here).
        vbd::ExternalMemoryFd fd;
        const bool exportable = exportableMemoryUnavailable(*ctx, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT).empty();
        Buffer ext =
            exportable ? createExportableBuffer(*ctx, 256, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd) : Buffer{};
        if (exportable) close(fd.fd);
        OrbitCamera cam;
        glm::vec3 lo, hi;
        sceneBounds(*world, lo, hi);
        cam.frame(lo, hi, float(kW) / float(kH));
        DrawOptions opt;
        for (uint64_t f = 1; f <= 3; ++f) {
            world->step();
            gpu.update(*world, opt, 0);
            ASSERT_EQ(tl.signal(simDone, f), VK_SUCCESS);
            const Pixels px = target.render(
                kClearColor,
                [&](VkCommandBuffer cb) {
                    renderer.draw(cb, gpu, 0, cam, VkRect2D{{0, 0}, {kW, kH}}, opt);
                },
                FrameSync{simDone, f, renderDone, f, ext.buffer});
            ASSERT_EQ(tl.waitFor(renderDone, f), VK_SUCCESS) << "frame " << f;
            uint64_t v = 0;
            ASSERT_EQ(tl.value(renderDone, &v), VK_SUCCESS);
            EXPECT_EQ(v, f);
            EXPECT_GT(orangePixels(px), long(kW * kH / 100)) << "frame " << f;
        }
        ctx->destroy(ext);
    }
}

// The app's offscreen capture reads the slots the window's submit reads next (gui/frame.cpp
// renderOffscreen): it must wait for every drawn slot's simDone, and signal only the renderDone values it is
// given: the app gives it its syncs through waitOnly, whose renderDone is left to the window's submit (a
// timeline value is signalled once; signalled twice, the window's signal would be invalid).
// Two scenes here, as in the app's comparison: one wait-only, one that waits and signals.
TEST_F(Interop, OffscreenSubmitWaitsForEverySlotAndSignalsOnlyWhatItIsGiven) {
    if (!ctx->external.timeline) GTEST_SKIP() << ctx->deviceName() << " lacks timeline semaphores";
    HostTimelines tl(*ctx);
    ASSERT_TRUE(tl.loaded());
    // [0], [1]: simDone of the two scenes; [2], [3]: their renderDone.
    VkSemaphore sem[4] = {};
    for (VkSemaphore& x : sem) ASSERT_NE(x = tl.make(), VkSemaphore(VK_NULL_HANDLE));
    {
        auto world = vbd::World::create(cubeScene(vbd::Backend::Cpu));
        OffscreenTarget target(*ctx, kW, kH);
        Renderer renderer(*ctx, target.pass());
        SceneGpu gpu(*ctx, *world, 1);
        OrbitCamera cam;
        glm::vec3 lo, hi;
        sceneBounds(*world, lo, hi);
        cam.frame(lo, hi, float(kW) / float(kH));
        DrawOptions opt;
        Buffer ext[2];
        if (exportableMemoryUnavailable(*ctx, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT).empty())
            for (Buffer& b : ext) {
                vbd::ExternalMemoryFd fd;
                b = createExportableBuffer(*ctx, 256, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd);
                close(fd.fd);
            }
        // Frame 1 signals the second scene's simDone first, frame 2 the first's: a submit that waited for one
        // of them only would be done before the other is signalled in one of the two.
        for (uint64_t f = 1; f <= 2; ++f) {
            world->step();
            gpu.update(*world, opt, 0);
            // Scene 0's sync as the app's offscreen capture makes it (waitOnly): its renderDone (sem[2]) is
            // the window's submit's to signal. Exported buffers where the device has them: the ownership
            // transfers of both (the validation layers count any error).
            const std::vector<FrameSync> syncs{waitOnly(FrameSync{sem[0], f, sem[2], f, ext[0].buffer}),
                                               FrameSync{sem[1], f, sem[3], f, ext[1].buffer}};
            auto frame = std::async(std::launch::async, [&] {
                return target.render(
                    kClearColor,
                    [&](VkCommandBuffer cb) {
                        renderer.draw(cb, gpu, 0, cam, VkRect2D{{0, 0}, {kW, kH}}, opt);
                    },
                    syncs);
            });
            const int first = f == 1 ? 1 : 0;
            // Neither simDone is signalled: the submit waits (a frame takes a few ms here without the waits).
            EXPECT_EQ(frame.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
                << "frame " << f;
            EXPECT_EQ(tl.signal(sem[first], f), VK_SUCCESS);
            EXPECT_EQ(frame.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
                << "frame " << f << ": the submit did not wait for scene " << 1 - first << "'s simDone";
            EXPECT_EQ(tl.signal(sem[1 - first], f), VK_SUCCESS);
            ASSERT_EQ(frame.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "frame " << f;
            const Pixels px = frame.get();
            EXPECT_EQ(tl.waitFor(sem[3], f), VK_SUCCESS) << "frame " << f;
            uint64_t v = 7;
            ASSERT_EQ(tl.value(sem[2], &v), VK_SUCCESS);
            EXPECT_EQ(v, 0u) << "frame " << f << ": the wait-only sync's renderDone was signalled";
            EXPECT_GT(orangePixels(px), long(kW * kH / 100)) << "frame " << f;
        }
        for (Buffer& b : ext) ctx->destroy(b);
    }
}

TEST_F(Interop, CpuBackendFallsBackToTheCpuVertexSourceNamingWhy) {
    auto world = vbd::World::create(cubeScene(vbd::Backend::Cpu));
    SceneGpu gpu(*ctx, *world, 2, true);
    EXPECT_FALSE(gpu.interopVertices());
    EXPECT_EQ(gpu.vertexLine(), "vertex buffer: CPU upload (no interop: the soft bodies step on the CPU: " +
                                    world->backendLine() + ")");
    EXPECT_EQ(gpu.frameSync(0).wait, VkSemaphore(VK_NULL_HANDLE));
    SceneGpu plain(*ctx, *world, 1);
    EXPECT_EQ(plain.vertexLine(), "vertex buffer: CPU upload");
}

vbd::SceneDesc rigidPyramid(vbd::Backend backend) {
    vbd::SceneDesc d =
        vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    d.solver.backend = backend;
    return d;
}

TEST_F(Interop, RigidOnlySceneOnTheCpuFallsBackNamingWhy) {
    auto world = vbd::World::create(rigidPyramid(vbd::Backend::Cpu));
    ASSERT_TRUE(world->positions().empty());
    EXPECT_EQ(world->deviceBodies().cudaDevice, -1);
    SceneGpu gpu(*ctx, *world, 2, true);
    EXPECT_FALSE(gpu.interopVertices());
    EXPECT_EQ(gpu.vertexLine(), "vertex buffer: CPU upload (no interop: the rigid bodies step on the CPU: " +
                                    world->backendLine() + ")");
    world->step();
    gpu.update(*world, DrawOptions{}, 0);
    EXPECT_EQ(gpu.frameSync(0).externalInstances, VkBuffer(VK_NULL_HANDLE));  // drawn from the CPU upload
    EXPECT_EQ(gpu.bodyTable().items.size(), world->bodies().size());
}

// A rigid-only scene where it runs: the device rigid step's states, CUDA writes the body instance records
// into the exported instance buffer of the slot, the frame is drawn from it and compared with the CPU upload
// of the same World. The records are copies of the same floats on both paths (BodyInstanceStage and
// fillBodyInstances call one record function that only copies and doubles), so the frames are the same
// pixels: the bound is 0.
TEST_F(Interop, FrameFromCudaWrittenBodyInstancesEqualsTheCpuFrame) {
    const vbd::CudaProbe& p = vbd::probeCuda();
    if (!p.compiled) GTEST_SKIP() << "built without CUDA (nvcc was not found at configure time)";
    if (p.devices <= 0) GTEST_SKIP() << "no CUDA device: " << p.error;
    auto world = vbd::World::create(rigidPyramid(vbd::Backend::Cuda));
    SceneGpu interop(*ctx, *world, 2, true);
    if (!interop.interopVertices()) GTEST_SKIP() << interop.vertexLine();
    EXPECT_NE(interop.vertexLine().find("rigid body instances too"), std::string::npos)
        << interop.vertexLine();
    SceneGpu cpu(*ctx, *world, 1, false);
    long differ = 0;
    interopAgainstCpuFrames(*ctx, *world, interop, cpu, &differ, [&](int f, uint32_t slot) {
        ASSERT_TRUE(world->deviceBodies().current) << "frame " << f;
        ASSERT_NE(interop.frameSync(slot).externalInstances, VkBuffer(VK_NULL_HANDLE)) << "frame " << f;
    });
    EXPECT_EQ(differ, 0);
}

// Where it runs: the CUDA step's World, drawn once from the interop buffer and once from the CPU upload of
// the published state. Positions are the same floats on both paths (the double state rounded to float), so
// the rasterized coverage is identical; normals may differ in the last bits (nvcc contracts the cross
// products into FMAs), which moves a shaded channel by at most one step of 1/255 -- 2 allows for one
// rounding on each side.
TEST_F(Interop, FrameFromTheCudaWrittenBufferEqualsTheCpuFrame) {
    const vbd::CudaProbe& p = vbd::probeCuda();
    if (!p.compiled) GTEST_SKIP() << "built without CUDA (nvcc was not found at configure time)";
    if (p.devices <= 0) GTEST_SKIP() << "no CUDA device: " << p.error;
    auto world = vbd::World::create(cubeScene(vbd::Backend::Cuda));
    SceneGpu interop(*ctx, *world, 2, true);
    if (!interop.interopVertices()) GTEST_SKIP() << interop.vertexLine();
    SceneGpu cpu(*ctx, *world, 1, false);
    long differ = 0;
    const int worst = interopAgainstCpuFrames(*ctx, *world, interop, cpu, &differ, [&](int f, uint32_t) {
        ASSERT_TRUE(world->deviceParticles().current) << "frame " << f;
    });
    EXPECT_LE(worst, 2) << differ << " channels differ";
}

// The window's path (gui/core/interop_slots.h) where it runs: the simulation thread steps the CUDA World
// and writes each frame's records into an exported slot; this thread takes the snapshot's frame as the
// window does (beginDraw), draws it with the submit waiting simDone and signalling renderDone, and compares
// with the CPU upload of the same snapshot (same bound as above: same floats, FMA contraction in normals).
TEST_F(Interop, WindowFrameWrittenByTheSimulationThreadEqualsTheCpuFrame) {
    const vbd::CudaProbe& p = vbd::probeCuda();
    if (!p.compiled) GTEST_SKIP() << "built without CUDA (nvcc was not found at configure time)";
    if (p.devices <= 0) GTEST_SKIP() << "no CUDA device: " << p.error;
    SimRunner sim;
    const std::uint64_t t = sim.setWorld(0, vbd::World::create(cubeScene(vbd::Backend::Cuda)));
    while (sim.appliedTicket() < t) std::this_thread::yield();
    std::shared_ptr<WorldSnapshot> snap = sim.snapshot(0);
    ASSERT_TRUE(snap);
    OffscreenTarget target(*ctx, kW, kH);
    Renderer renderer(*ctx, target.pass());
    auto window = std::make_unique<SceneGpu>(*ctx, *snap, 2, true, true);
    if (!window->interopVertices()) GTEST_SKIP() << window->vertexLine();
    auto link = std::make_shared<WindowVertexLink>(snap->generation(), window->windowWriter(),
                                                   int(kWindowInteropSlots));
    sim.setVertexLink(0, link);
    SceneGpu cpu(*ctx, *snap, 1, false);
    OrbitCamera cam;
    glm::vec3 lo, hi;
    sceneBounds(*snap, lo, hi);
    cam.frame(lo, hi, float(kW) / float(kH));
    DrawOptions opt;
    auto draw = [&](const SceneGpu& g, uint32_t s) {
        return [&, s](VkCommandBuffer cb) { renderer.draw(cb, g, s, cam, VkRect2D{{0, 0}, {kW, kH}}, opt); };
    };
    int interopFrames = 0;
    for (int f = 1; f <= 20; ++f) {
        sim.requestSteps(1);
        while (sim.frame() < f) std::this_thread::yield();
        snap = sim.snapshot(0);
        const InteropFrame fr = snap->interopFrame();
        ASSERT_GE(fr.slot, 0) << "frame " << f << ": the device step wrote no slot";
        ExternalFrame ext{fr.slot, fr.simDone, link->slots().beginDraw(fr)};
        ASSERT_GT(ext.renderDone, 0u) << "frame " << f;
        const uint32_t slot = uint32_t(f % 2);
        window->update(*snap, opt, slot, nullptr, &ext);
        ASSERT_NE(window->frameSync(slot).wait, VkSemaphore(VK_NULL_HANDLE));
        const Pixels a = target.render(kClearColor, draw(*window, slot), window->frameSync(slot));
        ++interopFrames;
        cpu.update(*snap, opt, 0);
        const Pixels b = target.render(kClearColor, draw(cpu, 0));
        int worst = 0;
        for (size_t i = 0; i < a.rgba.size(); ++i)
            worst = std::max(worst, std::abs(int(a.rgba[i]) - int(b.rgba[i])));
        EXPECT_LE(worst, 2) << "frame " << f;
    }
    EXPECT_EQ(interopFrames, 20);
    sim.setVertexLink(0, nullptr);
    link->detach();
    window.reset();
}

}  // namespace
}  // namespace vbdgui
