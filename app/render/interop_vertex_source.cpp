// The interop vertex source (render/vertex_source.h): Vulkan exports one device-local vertex buffer per
// frame slot and two timeline semaphores; CUDA (engine/gpu/interop_cuda.h) imports them and writes each
// frame's records from the device step's positions.
//
// Ordering, per frame f = 1, 2, ... in slot s, with S slots:
//   CUDA (on the device step's stream, after the step): wait renderDone >= f - S (the draw that last read
//   slot s), write the records, signal simDone = f;
//   Vulkan: the submit that draws frame f waits simDone >= f at VERTEX_INPUT and signals renderDone = f.
// Each semaphore has one signaller whose values only grow, so S frames can be in flight; the host waits for
// neither. Teardown: the CUDA writer first (it waits for the device and releases its imports), then the
// Vulkan buffers and semaphores.
#include <unistd.h>
#include <algorithm>

#include "render/geometry.h"
#include "render/interop_vulkan.h"
#include "render/vertex_source.h"

namespace vbdgui {

namespace {

class InteropVertexSource final : public VertexSource {
  public:
    InteropVertexSource(const Context& ctx, const vbd::World& world, uint32_t slots, int cudaDevice)
        : ctx_(ctx), n_(uint32_t(world.positions().size())), lastFrame_(slots, 0) {
        vbd::ExternalVertexTarget t;
        t.cudaDevice = cudaDevice;
        try {
            for (uint32_t s = 0; s < slots; ++s) {
                vbd::ExternalMemoryFd fd;
                buffers_.push_back(
                    createExportableBuffer(ctx, std::max<VkDeviceSize>(sizeof(ParticleVertex) * n_, 64),
                                           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd));
                t.slots.push_back(fd);
            }
            simDone_ = createExportableTimeline(ctx, t.simDoneFd);
            renderDone_ = createExportableTimeline(ctx, t.renderDoneFd);
        } catch (...) {
            for (const auto& s : t.slots)
                if (s.fd >= 0) close(s.fd);
            for (int fd : {t.simDoneFd, t.renderDoneFd})
                if (fd >= 0) close(fd);
            releaseVulkan();
            throw;
        }
        try {
            writer_ =
                vbd::importExternalVertexTarget(t, int(n_), particleAdjacency(world), particleVertexLayout());
        } catch (...) {
            releaseVulkan();  // the import closed or kept every descriptor
            throw;
        }
    }
    ~InteropVertexSource() override {
        // CUDA's mappings and imports go before the memory they map. The window's simulation thread holds
        // the writer only under WindowVertexLink's mutex, and the app detaches it before this runs.
        writer_.reset();
        vkDeviceWaitIdle(ctx_.device);
        releaseVulkan();
    }

    void upload(const vbd::World& world, const std::vector<float>& scalar, uint32_t slot) override {
        ++frame_;
        const uint64_t slots = lastFrame_.size();
        writer_->write(world.deviceParticles(), world.positions().data(), scalar.data(), int(scalar.size()),
                       slot, frame_ > slots ? frame_ - slots : 0, frame_);
        lastFrame_[slot] = frame_;
    }
    VkBuffer buffer(uint32_t slot) const override { return buffers_[slot].buffer; }
    uint32_t count() const override { return n_; }
    FrameSync sync(uint32_t slot) const override {
        return externalSync(slot, lastFrame_[slot], lastFrame_[slot]);
    }
    std::shared_ptr<vbd::ExternalVertexWriter> writer() const override { return writer_; }
    FrameSync externalSync(uint32_t slot, uint64_t simDone, uint64_t renderDone) const override {
        return {simDone_, simDone, renderDone_, renderDone, buffers_[slot].buffer};
    }
    bool interop() const override { return true; }

  private:
    void releaseVulkan() {
        for (auto& b : buffers_) ctx_.destroy(b);
        buffers_.clear();
        for (VkSemaphore* s : {&simDone_, &renderDone_})
            if (*s) vkDestroySemaphore(ctx_.device, *s, nullptr), *s = VK_NULL_HANDLE;
    }

    const Context& ctx_;
    uint32_t n_;
    std::vector<Buffer> buffers_;
    VkSemaphore simDone_ = VK_NULL_HANDLE, renderDone_ = VK_NULL_HANDLE;
    std::shared_ptr<vbd::ExternalVertexWriter> writer_;
    uint64_t frame_ = 0;
    std::vector<uint64_t> lastFrame_;  // the frame each slot holds
};

}  // namespace

std::unique_ptr<VertexSource> makeInteropVertexSource(const Context& ctx, const vbd::World& world,
                                                      uint32_t slots, std::string& why) {
    const vbd::DeviceParticles dev = world.deviceParticles();
    if (!dev.x) {
        why = "the soft bodies step on the CPU: " + world.backendLine();
        return nullptr;
    }
    why = interopUnavailable(ctx);
    if (!why.empty()) return nullptr;
    std::string cudaError;
    const std::vector<vbd::DeviceUuid> uuids = vbd::cudaDeviceUuids(cudaError);
    vbd::DeviceUuid vk{};
    std::copy(ctx.external.uuid.begin(), ctx.external.uuid.end(), vk.begin());
    const int cuda = vbd::matchCudaDevice(vk, uuids);
    if (cuda < 0) {
        why = "no CUDA device has the UUID of " + ctx.deviceName() + " (" + vbd::uuidString(vk) + ")" +
              (cudaError.empty() ? "" : ": " + cudaError);
        return nullptr;
    }
    if (cuda != dev.cudaDevice) {
        why = ctx.deviceName() + " is CUDA device " + std::to_string(cuda) + ", the device step runs on " +
              std::to_string(dev.cudaDevice);
        return nullptr;
    }
    try {
        auto src = std::make_unique<InteropVertexSource>(ctx, world, slots, cuda);
        why = ctx.deviceName() + " = CUDA device " + std::to_string(cuda) + ", UUID " + vbd::uuidString(vk) +
              ": records written on the device, no host copy";
        return src;
    } catch (const std::exception& e) {
        why = e.what();
        return nullptr;
    }
}

}  // namespace vbdgui
