#pragma once
// Where the particle vertex buffer comes from. Two implementations of one seam:
//  - CPU upload: smooth normals from World::positions() and the ParticleVertex records written into a
//    persistently mapped host-visible buffer per frame in flight;
//  - CUDA-Vulkan interop (render/interop_vertex_source.cpp): device-local buffers exported to CUDA, whose
//    kernel writes the same records from the device step's positions; the graphics submit waits on a
//    timeline semaphore at VERTEX_INPUT (sync()).
// Both fill the records with the engine's VertexRecordStage (gpu/render_vertices.h): one source.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
};

class VertexSource {
  public:
    virtual ~VertexSource() = default;
    // Fills frame slot `slot` from world; scalar01 (empty = none) holds the per-particle heat-map value.
    // Every upload must be followed by one submit of sync(slot) (the interop path counts frames).
    virtual void upload(const vbd::World& world, const std::vector<float>& scalar01, uint32_t slot) = 0;
    virtual VkBuffer buffer(uint32_t slot) const = 0;  // ParticleVertex[count()]
    virtual uint32_t count() const = 0;
    virtual FrameSync sync(uint32_t slot) const { return {}; }
    virtual bool interop() const { return false; }
    // The window's path (gui/core/interop_slots.h), interop only: the simulation thread writes through
    // writer() (upload() is not called), and the submit that reads slot `slot` written with value simDone
    // waits for it and signals renderDone.
    virtual std::shared_ptr<vbd::ExternalVertexWriter> writer() const { return nullptr; }
    virtual FrameSync externalSync(uint32_t slot, uint64_t simDone, uint64_t renderDone) const { return {}; }
};

// ParticleVertex (render/geometry.h) as the engine's record layout.
vbd::VertexLayout particleVertexLayout();
// The CSR of incident surface triangles of world's particles (all surfaces, draw order).
vbd::SurfaceAdjacency particleAdjacency(const vbd::World& world);

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
