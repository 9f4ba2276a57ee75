// The interop vertex source (render/vertex_source.h): Vulkan exports one device-local vertex buffer per
// frame slot and two timeline semaphores; CUDA (engine/gpu/interop_cuda.h) imports them and writes each
// frame's records from the device step's positions. Where the rigid bodies step on the device, each slot
// also has an exported body instance buffer that the same frame's write fills from the device rigid step's
// states (sized for the World's bodies at creation: a body set grown since is drawn from the CPU upload).
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
        : ctx_(ctx), n_(uint32_t(world.numParticles())), lastFrame_(slots, 0), bodiesWritten_(slots, 0) {
        vbd::ExternalVertexTarget t;
        t.cudaDevice = cudaDevice;
        const vbd::DeviceRigidBodies bodies = world.deviceBodies();
        const size_t numBodies = bodies.cudaDevice == cudaDevice ? world.bodies().size() : 0;
        try {
            for (uint32_t s = 0; s < slots; ++s) {
                vbd::ExternalMemoryFd fd;
                buffers_.push_back(
                    createExportableBuffer(ctx, std::max<VkDeviceSize>(sizeof(ParticleVertex) * n_, 64),
                                           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd));
                t.slots.push_back(fd);
            }
            for (uint32_t s = 0; s < slots && numBodies > 0; ++s) {
                vbd::ExternalMemoryFd fd;
                instances_.push_back(createExportableBuffer(ctx, sizeof(BodyInstance) * numBodies,
                                                            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd));
                t.instanceSlots.push_back(fd);
            }
            simDone_ = createExportableTimeline(ctx, t.simDoneFd);
            renderDone_ = createExportableTimeline(ctx, t.renderDoneFd);
        } catch (...) {
            for (const auto* fds : {&t.slots, &t.instanceSlots})
                for (const auto& s : *fds)
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

    void upload(const vbd::World& world, const std::vector<float>& scalar,
                const vbd::BodyInstanceTable& bodies, uint32_t slot) override {
        ++frame_;
        const uint64_t slots = lastFrame_.size();
        const vbd::BodyInstanceFrame b{world.deviceBodies(), bodies.items.data(), int(bodies.items.size()),
                                       int(world.bodies().size())};
        bodiesWritten_[slot] = writer_->write(
            world.deviceParticles(), world.positions().data(), scalar.data(), int(scalar.size()),
            instances_.empty() ? nullptr : &b, slot, frame_ > slots ? frame_ - slots : 0, frame_);
        lastFrame_[slot] = frame_;
    }
    VkBuffer buffer(uint32_t slot) const override { return buffers_[slot].buffer; }
    uint32_t count() const override { return n_; }
    FrameSync sync(uint32_t slot) const override {
        return externalSync(slot, lastFrame_[slot], lastFrame_[slot], bodiesWritten_[slot] != 0);
    }
    std::shared_ptr<vbd::ExternalVertexWriter> writer() const override { return writer_; }
    FrameSync externalSync(uint32_t slot, uint64_t simDone, uint64_t renderDone, bool bodies) const override {
        return {simDone_,
                simDone,
                renderDone_,
                renderDone,
                buffers_[slot].buffer,
                bodies && slot < instances_.size() ? instances_[slot].buffer : VK_NULL_HANDLE};
    }
    bool interop() const override { return true; }
    bool instanceBuffers() const { return !instances_.empty(); }

  private:
    void releaseVulkan() {
        for (auto* bufs : {&buffers_, &instances_})
            for (auto& b : *bufs) ctx_.destroy(b);
        buffers_.clear();
        instances_.clear();
        for (VkSemaphore* s : {&simDone_, &renderDone_})
            if (*s) vkDestroySemaphore(ctx_.device, *s, nullptr), *s = VK_NULL_HANDLE;
    }

    const Context& ctx_;
    uint32_t n_;
    std::vector<Buffer> buffers_;
    std::vector<Buffer> instances_;  // per slot: exported BodyInstance buffers (none without device bodies)
    VkSemaphore simDone_ = VK_NULL_HANDLE, renderDone_ = VK_NULL_HANDLE;
    std::shared_ptr<vbd::ExternalVertexWriter> writer_;
    uint64_t frame_ = 0;
    std::vector<uint64_t> lastFrame_;  // the frame each slot holds
    std::vector<char> bodiesWritten_;  // the slot's instance buffer holds that frame's bodies
};

}  // namespace

std::unique_ptr<VertexSource> makeInteropVertexSource(const Context& ctx, const vbd::World& world,
                                                      uint32_t slots, std::string& why) {
    const vbd::DeviceParticles dev = world.deviceParticles();
    const vbd::DeviceRigidBodies bodies = world.deviceBodies();
    // A scene of soft bodies whose soft step runs on the CPU has nothing on the device to write vertices
    // from; a rigid-only scene whose bodies step on the device writes instances only.
    if (!dev.x && !(world.numParticles() == 0 && bodies.cudaDevice >= 0)) {
        why = (world.numParticles() == 0 ? "the rigid bodies step on the CPU: "
                                         : "the soft bodies step on the CPU: ") +
              world.backendLine();
        return nullptr;
    }
    const int stepDevice = dev.x ? dev.cudaDevice : bodies.cudaDevice;
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
    if (cuda != stepDevice) {
        why = ctx.deviceName() + " is CUDA device " + std::to_string(cuda) + ", the device step runs on " +
              std::to_string(stepDevice);
        return nullptr;
    }
    try {
        auto src = std::make_unique<InteropVertexSource>(ctx, world, slots, cuda);
        why = ctx.deviceName() + " = CUDA device " + std::to_string(cuda) + ", UUID " + vbd::uuidString(vk) +
              ": records written on the device, no host copy" +
              (src->instanceBuffers() ? "; rigid body instances too"
               : world.bodies().empty()
                   ? ""
                   : "; rigid body instances: CPU upload (the rigid bodies step on the CPU)");
        return src;
    } catch (const std::exception& e) {
        why = e.what();
        return nullptr;
    }
}

}  // namespace vbdgui
