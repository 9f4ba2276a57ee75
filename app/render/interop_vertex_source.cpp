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
#include "render/interop_host.h"
#include "render/interop_vulkan.h"
#include "render/vertex_source.h"

namespace vbdgui {

namespace {

// The World's device steps run on the host executor (WorldOptions::hostExecutor: its backend line names the
// "device" so), which the host writer stands in for CUDA for (render/interop_host.h); whether its rigid
// bodies step there too (DeviceRigidBodies::cudaDevice is -1 both for host memory and for no device rigid
// step).
bool onHostExecutor(const vbd::World& world) {
    return world.backendLine().rfind("CUDA backend on host executor", 0) == 0;
}
bool hostRigidStep(const vbd::World& world) {
    return onHostExecutor(world) &&
           world.backendLine().find("rigid bodies on the device") != std::string::npos;
}

class InteropVertexSource final : public VertexSource {
  public:
    // cudaDevice -1: the host executor's stand-in (the header of render/interop_host.h).
    InteropVertexSource(const Context& ctx, const vbd::World& world, uint32_t slots, int cudaDevice)
        : ctx_(ctx), n_(uint32_t(world.numParticles())), lastFrame_(slots, 0), bodiesWritten_(slots, 0) {
        if (cudaDevice < 0) {
            host_ = true;
            makeHost(world, slots);
            return;
        }
        vbd::ExternalVertexTarget t;
        t.cudaDevice = cudaDevice;
        const vbd::DeviceRigidBodies bodies = world.deviceBodies();
        const size_t numBodies = bodies.cudaDevice == cudaDevice ? world.bodies().size() : 0;
        try {
            makeBuffers(slots, numBodies, t.slots, t.instanceSlots, 0);
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
    bool hostStandIn() const override { return host_; }
    bool instanceBuffers() const { return !instances_.empty(); }

  private:
    // One exported vertex buffer per slot, and one instance buffer per slot for numBodies bodies; their
    // descriptors into fds and instanceFds. extra: memory properties beyond DEVICE_LOCAL.
    void makeBuffers(uint32_t slots, size_t numBodies, std::vector<vbd::ExternalMemoryFd>& fds,
                     std::vector<vbd::ExternalMemoryFd>& instanceFds, VkMemoryPropertyFlags extra) {
        for (uint32_t s = 0; s < slots; ++s) {
            vbd::ExternalMemoryFd fd;
            buffers_.push_back(createExportableBuffer(ctx_,
                                                      std::max<VkDeviceSize>(sizeof(ParticleVertex) * n_, 64),
                                                      VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd, extra));
            fds.push_back(fd);
        }
        for (uint32_t s = 0; s < slots && numBodies > 0; ++s) {
            vbd::ExternalMemoryFd fd;
            instances_.push_back(createExportableBuffer(ctx_, sizeof(BodyInstance) * numBodies,
                                                        VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, fd, extra));
            instanceFds.push_back(fd);
        }
    }

    // The host executor's stand-in: the same exported buffers (so that the submits' ownership transfers are
    // those of the CUDA path), in host-visible memory the host writer fills through a mapping, and timeline
    // semaphores the writer signals and waits on from the host (not exported: lavapipe lacks
    // VK_KHR_external_semaphore_fd).
    void makeHost(const vbd::World& world, uint32_t slots) {
        HostInteropTarget t;
        t.device = ctx_.device;
        const size_t numBodies = hostRigidStep(world) ? world.bodies().size() : 0;
        std::vector<vbd::ExternalMemoryFd> fds, instanceFds;
        try {
            makeBuffers(slots, numBodies, fds, instanceFds,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
            for (auto* bufs : {&buffers_, &instances_})
                for (Buffer& b : *bufs)
                    VK_CHECK(vkMapMemory(ctx_.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
            for (const Buffer& b : buffers_) t.slots.push_back(b.mapped);
            for (const Buffer& b : instances_) t.instanceSlots.push_back(b.mapped);
            t.instanceCapacity = int(numBodies);
            simDone_ = t.simDone = createTimeline(ctx_);
            renderDone_ = t.renderDone = createTimeline(ctx_);
            writer_ = makeHostVertexWriter(t, int(n_), particleAdjacency(world), particleVertexLayout());
        } catch (...) {
            for (const auto* v : {&fds, &instanceFds})
                for (const auto& f : *v)
                    if (f.fd >= 0) close(f.fd);
            releaseVulkan();
            throw;
        }
        for (const auto* v : {&fds, &instanceFds})  // nothing imports them
            for (const auto& f : *v)
                if (f.fd >= 0) close(f.fd);
    }

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
    bool host_ = false;  // the host executor's stand-in
    uint64_t frame_ = 0;
    std::vector<uint64_t> lastFrame_;  // the frame each slot holds
    std::vector<char> bodiesWritten_;  // the slot's instance buffer holds that frame's bodies
};

// The host executor's stand-in (render/interop_host.h) where ctx can export host-visible buffer memory and
// has timeline semaphores (lavapipe), else nullptr with the reason.
std::unique_ptr<VertexSource> makeHostInterop(const Context& ctx, const vbd::World& world, uint32_t slots,
                                              std::string& why) {
    why = exportableMemoryUnavailable(ctx, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (why.empty() && !ctx.external.timeline) why = ctx.deviceName() + " lacks timeline semaphores";
    if (!why.empty()) return nullptr;
    try {
        auto src = std::make_unique<InteropVertexSource>(ctx, world, slots, -1);
        why = ctx.deviceName() + ": records written by the host executor's writer thread (a test stand-in " +
              "for CUDA), no host copy of the state" +
              (src->instanceBuffers() ? "; rigid body instances too" : "");
        return src;
    } catch (const std::exception& e) {
        why = "host executor: " + std::string(e.what());
        return nullptr;
    }
}

}  // namespace

std::unique_ptr<VertexSource> makeInteropVertexSource(const Context& ctx, const vbd::World& world,
                                                      uint32_t slots, std::string& why) {
    const vbd::DeviceParticles dev = world.deviceParticles();
    const vbd::DeviceRigidBodies bodies = world.deviceBodies();
    if (onHostExecutor(world) && (dev.x || (world.numParticles() == 0 && hostRigidStep(world))))
        return makeHostInterop(ctx, world, slots, why);
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
