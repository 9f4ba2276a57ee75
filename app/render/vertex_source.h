#pragma once
// Where the particle vertex buffer comes from: the one seam the CUDA-Vulkan interop issue replaces.
// The CPU implementation recomputes smooth normals from World::positions() and writes ParticleVertex
// records into a persistently mapped host-visible buffer per frame in flight. A CUDA implementation
// would export that memory (VK_KHR_external_memory_fd), let a kernel write the same records, and make
// the graphics submit wait on a timeline semaphore at VERTEX_INPUT (REFERENCES.md "CUDA-Vulkan").
#include <cstdint>
#include <memory>
#include <vector>

#include "render/vk_context.h"
#include "world/world.h"

namespace vbdgui {

class VertexSource {
  public:
    virtual ~VertexSource() = default;
    // Fills frame slot `slot` from world; scalar01 (empty = none) holds the per-particle heat-map value.
    virtual void upload(const vbd::World& world, const std::vector<float>& scalar01, uint32_t slot) = 0;
    virtual VkBuffer buffer(uint32_t slot) const = 0;  // ParticleVertex[count()]
    virtual uint32_t count() const = 0;
};

std::unique_ptr<VertexSource> makeCpuVertexSource(const Context& ctx, uint32_t particles, uint32_t slots);

}  // namespace vbdgui
