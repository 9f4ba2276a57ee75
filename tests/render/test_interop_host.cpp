// The interop's host-executor writer (render/interop_host.h) driven directly on whatever Vulkan device exists
// (lavapipe on CI), as the CUDA writer's contract says: a write signals simDone with its frame once its
// records are in the slot's buffer (the CPU upload's records of the positions rounded to float, byte for
// byte), a write waits for renderDone to reach the value it is given (holding the later writes, as a stream
// does), and a teardown with a write waiting for a renderDone nobody will signal (a lost device) returns
// after the bounded wait, signalling renderDone itself so that the queue drains.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "render/geometry.h"
#include "render/interop_host.h"
#include "render/interop_vulkan.h"
#include "render/vertex_source.h"
#include "render/vk_context.h"

namespace vbdgui {
namespace {

using Clock = std::chrono::steady_clock;

class InteropHost : public ::testing::Test {
  protected:
    void SetUp() override {
        ContextOptions o;
        o.validation = true;
        try {
            ctx = std::make_unique<Context>(o);
        } catch (const VulkanError& e) {
            GTEST_SKIP() << "no Vulkan device: " << e.what();
        }
        if (!ctx->external.timeline) GTEST_SKIP() << ctx->deviceName() << " lacks timeline semaphores";
        value = reinterpret_cast<PFN_vkGetSemaphoreCounterValueKHR>(
            vkGetDeviceProcAddr(ctx->device, "vkGetSemaphoreCounterValueKHR"));
        signal = reinterpret_cast<PFN_vkSignalSemaphoreKHR>(
            vkGetDeviceProcAddr(ctx->device, "vkSignalSemaphoreKHR"));
        ASSERT_TRUE(value && signal);
        for (int s = 0; s < 2; ++s)
            buffers[s] =
                ctx->createBuffer(sizeof(ParticleVertex) * kN, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true);
        t.device = ctx->device;
        t.simDone = createTimeline(*ctx);
        t.renderDone = createTimeline(*ctx);
        for (Buffer& b : buffers) t.slots.push_back(b.mapped);
        // Two triangles over four vertices (a quad).
        adj = vbd::buildSurfaceAdjacency(kN, {{{0, 1, 2}}, {{0, 2, 3}}});
    }
    void TearDown() override {
        if (!ctx) return;
        for (Buffer& b : buffers) ctx->destroy(b);
        for (VkSemaphore s : {t.simDone, t.renderDone})
            if (s) vkDestroySemaphore(ctx->device, s, nullptr);
        EXPECT_EQ(ctx->validationMessages(), 0);
    }
    uint64_t counter(VkSemaphore s) const {
        uint64_t v = 0;
        EXPECT_EQ(value(ctx->device, s, &v), VK_SUCCESS);
        return v;
    }
    void signalRenderDone(uint64_t v) const {
        auto si = vkInfo<VkSemaphoreSignalInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO_KHR);
        si.semaphore = t.renderDone;
        si.value = v;
        ASSERT_EQ(signal(ctx->device, &si), VK_SUCCESS);
    }
    // Slot s holds the records the CPU upload makes from x rounded to float.
    void expectRecords(int s, const vbd::Vec3d* x, const std::vector<float>& scalar) const {
        std::vector<vbd::Vec3> xf(kN);
        for (int i = 0; i < kN; ++i) xf[size_t(i)] = vbd::Vec3(x[i]);
        std::vector<float> want(size_t(kN) * 8);
        vbd::fillVertexRecords(xf.data(), kN, adj, scalar.data(), int(scalar.size()), particleVertexLayout(),
                               want.data());
        EXPECT_EQ(std::memcmp(buffers[s].mapped, want.data(), want.size() * sizeof(float)), 0)
            << "slot " << s;
    }

    static constexpr int kN = 4;
    std::unique_ptr<Context> ctx;
    Buffer buffers[2];
    HostInteropTarget t;
    vbd::SurfaceAdjacency adj;
    PFN_vkGetSemaphoreCounterValueKHR value = nullptr;
    PFN_vkSignalSemaphoreKHR signal = nullptr;
};

TEST_F(InteropHost, WritesSignalTheirFrameAndWaitForTheRenderer) {
    auto writer = makeHostVertexWriter(t, kN, adj, particleVertexLayout());
    vbd::Vec3d x[kN] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0.1}, {0, 1, 1.0 / 3.0}};  // 1/3: rounded to float
    vbd::DeviceParticles src;
    src.x = x;
    src.n = kN;
    src.doublePrecision = true;
    src.current = true;
    EXPECT_TRUE(writer->readsInPlace(src));
    src.cudaDevice = 0;  // another device's memory: not in place
    EXPECT_FALSE(writer->readsInPlace(src));
    src.cudaDevice = -1;
    const std::vector<float> scalar = {0.0f, 0.25f, 0.5f, 1.0f};
    writer->write(src, nullptr, scalar.data(), kN, nullptr, 0, 0, 1);
    writer->finish();
    EXPECT_EQ(counter(t.simDone), 1u);
    expectRecords(0, x, scalar);
    // The positions are copied at the call: the state may move on at once.
    const vbd::Vec3d first[kN] = {x[0], x[1], x[2], x[3]};
    x[2].z = 0.7;
    writer->write(src, nullptr, scalar.data(), kN, nullptr, 1, 3, 2);  // waits for renderDone >= 3
    x[2].z = 5.0;
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_EQ(counter(t.simDone), 1u);  // held by the renderer
    signalRenderDone(3);
    writer->finish();
    EXPECT_EQ(counter(t.simDone), 2u);
    const vbd::Vec3d second[kN] = {first[0], first[1], {1, 1, 0.7}, first[3]};
    expectRecords(1, second, scalar);
    expectRecords(0, first, scalar);  // slot 0 untouched
}

// A write held by a renderDone nobody signals (the renderer's device lost with that frame unsubmitted): the
// writer's teardown waits kInteropTeardownWait, signals renderDone itself up to that value, and the queue
// drains (the held write and the one queued behind it run: simDone reaches the last frame).
TEST_F(InteropHost, TeardownReleasesAWriteTheRendererNeverSignals) {
    auto writer = makeHostVertexWriter(t, kN, adj, particleVertexLayout());
    vbd::Vec3d x[kN] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    vbd::DeviceParticles src;
    src.x = x;
    src.n = kN;
    src.doublePrecision = true;
    src.current = true;
    writer->write(src, nullptr, nullptr, 0, nullptr, 0, 0, 1);
    writer->write(src, nullptr, nullptr, 0, nullptr, 1, 7, 2);  // renderDone 7 never comes
    writer->write(src, nullptr, nullptr, 0, nullptr, 0, 0, 3);  // queued behind it
    const auto t0 = Clock::now();
    writer.reset();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_GE(s, 1.9);  // the bounded wait (2 s) first
    EXPECT_LT(s, 10.0);
    EXPECT_EQ(counter(t.renderDone), 7u);
    EXPECT_EQ(counter(t.simDone), 3u);
    expectRecords(0, x, {});
}

}  // namespace
}  // namespace vbdgui
