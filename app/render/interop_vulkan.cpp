#include "render/interop_vulkan.h"

#include <string>

namespace vbdgui {

namespace {

template <typename Fn>
Fn deviceProc(const Context& ctx, const char* name) {
    auto fn = reinterpret_cast<Fn>(vkGetDeviceProcAddr(ctx.device, name));
    if (!fn) throw VulkanError(std::string(name) + " is not available on " + ctx.deviceName());
    return fn;
}

}  // namespace

std::string exportableMemoryUnavailable(const Context& ctx, VkBufferUsageFlags usage) {
    if (!ctx.external.memoryFd) return ctx.deviceName() + " lacks VK_KHR_external_memory_fd";
    auto info =
        vkInfo<VkPhysicalDeviceExternalBufferInfo>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO);
    info.usage = usage;
    info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    auto props = vkInfo<VkExternalBufferProperties>(VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES);
    vkGetPhysicalDeviceExternalBufferProperties(ctx.physical, &info, &props);
    if (!(props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        return ctx.deviceName() + " cannot export vertex-buffer memory as an OPAQUE_FD";
    return "";
}

std::string interopUnavailable(const Context& ctx) {
    std::string why = exportableMemoryUnavailable(ctx, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!why.empty()) return why;
    if (!ctx.external.timeline)
        return ctx.deviceName() + " lacks timeline semaphores (VK_KHR_timeline_semaphore)";
    if (!ctx.external.semaphoreFd) return ctx.deviceName() + " lacks VK_KHR_external_semaphore_fd";
    auto type = vkInfo<VkSemaphoreTypeCreateInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO_KHR);
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE_KHR;
    auto info = vkInfo<VkPhysicalDeviceExternalSemaphoreInfo>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO);
    info.pNext = &type;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    auto props = vkInfo<VkExternalSemaphoreProperties>(VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES);
    vkGetPhysicalDeviceExternalSemaphoreProperties(ctx.physical, &info, &props);
    if (!(props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT))
        return ctx.deviceName() + " cannot export a timeline semaphore as an OPAQUE_FD";
    return "";
}

Buffer createExportableBuffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                              vbd::ExternalMemoryFd& out, VkMemoryPropertyFlags extra) {
    auto getFd = deviceProc<PFN_vkGetMemoryFdKHR>(ctx, "vkGetMemoryFdKHR");
    Buffer b;
    b.size = size;
    auto ext = vkInfo<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    auto bci = vkInfo<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bci.pNext = &ext;
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(ctx.device, &bci, nullptr, &b.buffer));
    try {
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
        auto dedicated =
            vkInfo<VkMemoryDedicatedAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
        dedicated.buffer = b.buffer;
        auto exp = vkInfo<VkExportMemoryAllocateInfo>(VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO);
        exp.pNext = &dedicated;
        exp.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        auto mai = vkInfo<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
        mai.pNext = &exp;
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = ctx.memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | extra);
        VK_CHECK(vkAllocateMemory(ctx.device, &mai, nullptr, &b.memory));
        VK_CHECK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
        auto fdi = vkInfo<VkMemoryGetFdInfoKHR>(VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR);
        fdi.memory = b.memory;
        fdi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        int fd = -1;
        VK_CHECK(getFd(ctx.device, &fdi, &fd));
        out.fd = fd;
        out.allocationBytes = req.size;
        out.bufferBytes = size;
        out.dedicated = true;
    } catch (...) {
        ctx.destroy(b);
        throw;
    }
    return b;
}

namespace {

// A timeline semaphore (initial value 0), exported as an OPAQUE_FD when `exported`.
VkSemaphore makeTimeline(const Context& ctx, bool exported) {
    auto exp = vkInfo<VkExportSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO);
    exp.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    auto type = vkInfo<VkSemaphoreTypeCreateInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO_KHR);
    type.pNext = exported ? &exp : nullptr;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE_KHR;
    type.initialValue = 0;
    auto sci = vkInfo<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
    sci.pNext = &type;
    VkSemaphore s = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(ctx.device, &sci, nullptr, &s));
    return s;
}

}  // namespace

VkSemaphore createTimeline(const Context& ctx) {
    if (!ctx.external.timeline) throw VulkanError(ctx.deviceName() + " lacks timeline semaphores");
    return makeTimeline(ctx, false);
}

VkSemaphore createExportableTimeline(const Context& ctx, int& fd) {
    auto getFd = deviceProc<PFN_vkGetSemaphoreFdKHR>(ctx, "vkGetSemaphoreFdKHR");
    VkSemaphore s = makeTimeline(ctx, true);
    auto fdi = vkInfo<VkSemaphoreGetFdInfoKHR>(VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR);
    fdi.semaphore = s;
    fdi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    const VkResult r = getFd(ctx.device, &fdi, &fd);
    if (r < 0) {
        vkDestroySemaphore(ctx.device, s, nullptr);
        vkFail(r, "vkGetSemaphoreFdKHR", __FILE__, __LINE__);
    }
    return s;
}

void externalOwnership(VkCommandBuffer cb, uint32_t queueFamily, VkBuffer buffer, bool acquire) {
    if (!buffer) return;
    auto b = vkInfo<VkBufferMemoryBarrier>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER);
    b.srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : queueFamily;
    b.dstQueueFamilyIndex = acquire ? queueFamily : VK_QUEUE_FAMILY_EXTERNAL;
    b.dstAccessMask = acquire ? VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT : 0;
    b.buffer = buffer;
    b.size = VK_WHOLE_SIZE;
    // The acquire's first scope is the stage the submit waits simDone at (VERTEX_INPUT), so that it chains
    // after that semaphore wait (an execution dependency chain needs the wait's second scope and the
    // barrier's first to meet; TOP_OF_PIPE does not).
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                         acquire ? VK_PIPELINE_STAGE_VERTEX_INPUT_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                         0, 0, nullptr, 1, &b, 0, nullptr);
}

}  // namespace vbdgui
