#pragma once
// The Vulkan half of the CUDA-Vulkan interop (engine/gpu/interop_cuda.h is the CUDA half): device-local
// buffers whose memory is exportable as an OPAQUE_FD (VkExternalMemoryBufferCreateInfo +
// VkExportMemoryAllocateInfo, a dedicated allocation as CUDA prefers for imports) and exportable timeline
// semaphores. The descriptors go to CUDA, which then owns them.
#include <string>

#include "gpu/interop_cuda.h"
#include "render/vk_context.h"

namespace vbdgui {

// Why ctx cannot share memory and semaphores with CUDA ("" when it can): the missing extension or feature.
std::string interopUnavailable(const Context& ctx);
// Only the memory half (VK_KHR_external_memory_fd and an exportable device-local buffer type).
std::string exportableMemoryUnavailable(const Context& ctx, VkBufferUsageFlags usage);

// A device-local buffer in its own exportable allocation; out gets the fd (the caller owns it until CUDA
// imports it) and the sizes CUDA needs. extra: memory properties beyond DEVICE_LOCAL (the host executor's
// stand-in maps it: HOST_VISIBLE). Throws VulkanError.
Buffer createExportableBuffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                              vbd::ExternalMemoryFd& out, VkMemoryPropertyFlags extra = 0);
// Records the queue family ownership transfer of a buffer whose memory CUDA writes: acquire (from
// VK_QUEUE_FAMILY_EXTERNAL, before the vertex fetch reads it; the timeline wait already ordered CUDA's write)
// or release (back, after the draw, so that CUDA's next write of it needs no Vulkan-side access). No-op for
// VK_NULL_HANDLE.
void externalOwnership(VkCommandBuffer cb, uint32_t queueFamily, VkBuffer buffer, bool acquire);
// A timeline semaphore (initial value 0) exportable as an OPAQUE_FD; fd as above. Throws VulkanError.
VkSemaphore createExportableTimeline(const Context& ctx, int& fd);
// A timeline semaphore (initial value 0) that stays in Vulkan (the host executor's stand-in signals and waits
// on it from the host). Throws VulkanError.
VkSemaphore createTimeline(const Context& ctx);

}  // namespace vbdgui
