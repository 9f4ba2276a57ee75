#pragma once
// Where the particle vertex buffer comes from. Two implementations of one seam:
//  - CPU upload: smooth normals from World::positions() and the ParticleVertex records written into a
//    persistently mapped host-visible buffer per frame in flight;
//  - CUDA-Vulkan interop (render/interop_vertex_source.cpp): device-local buffers exported to CUDA, whose
//    kernel writes the same records from the device step's positions; the graphics submit waits on a
//    timeline semaphore at VERTEX_INPUT (sync()).
// Both fill the records with the engine's VertexRecordStage (gpu/render_vertices.h): one source. Where the
// World's rigid bodies step on the device, the interop source also has CUDA write each frame's body instance
// records (gpu/body_instances.h, BodyInstanceStage) into an exported instance buffer per slot, in the same
// frame and under the same semaphores; otherwise the renderer fills its host-visible instance buffer with the
// same record function.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/body_instances.h"
#include "gpu/interop_cuda.h"
#include "gpu/render_vertices.h"
#include "render/vk_context.h"
#include "world/world.h"

namespace vbdgui {

// What the graphics submit that reads a slot waits for and signals (timeline semaphores; VK_NULL_HANDLE:
// nothing, the CPU path's writes are visible at submit).
struct FrameSync {
    VkSemaphore wait = VK_NULL_HANDLE;  // at VK_PIPELINE_STAGE_VERTEX_INPUT_BIT
    uint64_t waitValue = 0;
    VkSemaphore signal = VK_NULL_HANDLE;
    uint64_t signalValue = 0;
    // The slot's buffer when its memory is written outside Vulkan: the submit acquires it from
    // VK_QUEUE_FAMILY_EXTERNAL before the draw and releases it back after.
    VkBuffer external = VK_NULL_HANDLE;
    // The slot's exported body instance buffer when CUDA wrote this frame's instances into it (acquired and
    // released as `external`); VK_NULL_HANDLE: the bodies are drawn from the CPU upload.
    VkBuffer externalInstances = VK_NULL_HANDLE;
};

// The sync of a submit that reads a slot before another submit that signals its renderDone (the app's
// offscreen capture, made and finished before the window's frame): the same waits and buffers, no signal (a
// timeline value is signalled once).
inline FrameSync waitOnly(FrameSync s) {
    s.signal = VK_NULL_HANDLE;
    s.signalValue = 0;
    return s;
}

class VertexSource {
  public:
    virtual ~VertexSource() = default;
    // Fills frame slot `slot` from world; scalar01 (empty = none) holds the per-particle heat-map value.
    // Every upload must be followed by one submit of sync(slot) (the interop path counts frames). bodies:
    // world's body instance table (draw order), which the interop writes from the device rigid step's states
    // when it can (sync(slot).externalInstances says whether it did).
    virtual void upload(const vbd::World& world, const std::vector<float>& scalar01,
                        const vbd::BodyInstanceTable& bodies, uint32_t slot) = 0;
    virtual VkBuffer buffer(uint32_t slot) const = 0;  // ParticleVertex[count()]
    virtual uint32_t count() const = 0;
    virtual FrameSync sync(uint32_t slot) const { return {}; }
    virtual bool interop() const { return false; }
    // The interop's host-executor stand-in for CUDA (render/interop_host.h): tests without a GPU.
    virtual bool hostStandIn() const { return false; }
    // The window's path (gui/core/interop_slots.h), interop only: the simulation thread writes through
    // writer() (upload() is not called), and the submit that reads slot `slot` written with value simDone
    // waits for it and signals renderDone; bodies: the write also wrote the slot's body instances.
    virtual std::shared_ptr<vbd::ExternalVertexWriter> writer() const { return nullptr; }
    virtual FrameSync externalSync(uint32_t slot, uint64_t simDone, uint64_t renderDone, bool bodies) const {
        return {};
    }
};

// ParticleVertex (render/geometry.h) as the engine's record layout.
vbd::VertexLayout particleVertexLayout();
// The CSR of incident surface triangles of world's particles (all surfaces, draw order).
vbd::SurfaceAdjacency particleAdjacency(const vbd::World& world);
// The body instance table of `bodies` (World::bodies()) in the renderer's palette (bodyColor).
vbd::BodyInstanceTable bodyInstanceTable(const std::vector<vbd::RigidBodyView>& bodies);

std::unique_ptr<VertexSource> makeCpuVertexSource(const Context& ctx, const vbd::World& world,
                                                  uint32_t slots);

// The interop source when wantInterop and the build, the Vulkan device, a CUDA device with its UUID and the
// World's backend allow it; otherwise the CPU source. line: which one runs and why, for the log / status.
std::unique_ptr<VertexSource> makeVertexSource(const Context& ctx, const vbd::World& world, uint32_t slots,
                                               bool wantInterop, std::string& line);

// The interop source, or nullptr with the reason in why (render/interop_vertex_source.cpp).
std::unique_ptr<VertexSource> makeInteropVertexSource(const Context& ctx, const vbd::World& world,
                                                      uint32_t slots, std::string& why);

}  // namespace vbdgui
