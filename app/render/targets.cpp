#include "render/targets.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "render/interop_vulkan.h"

namespace vbdgui {

VkRenderPass makeRenderPass(const Context& ctx, VkFormat color, VkImageLayout finalLayout) {
    VkAttachmentDescription att[2]{};
    att[0].format = color;
    att[0].samples = VK_SAMPLE_COUNT_1_BIT;
    att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att[0].finalLayout = finalLayout;
    att[1] = att[0];
    att[1].format = ctx.depthFormat();
    att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference cref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference dref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &cref;
    sub.pDepthStencilAttachment = &dref;
    // Entry: wait for the previous frame's use of colour (acquire semaphore signals at colour output)
    // and depth before clearing them. Exit: colour writes visible to the transfer that reads back.
    VkSubpassDependency dep[2]{};
    dep[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    dep[0].dstSubpass = 0;
    dep[0].srcStageMask =
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    dep[0].dstStageMask =
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT;
    dep[0].srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    dep[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                           VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                           VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    dep[1].srcSubpass = 0;
    dep[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    dep[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    auto rp = vkInfo<VkRenderPassCreateInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO);
    rp.attachmentCount = 2;
    rp.pAttachments = att;
    rp.subpassCount = 1;
    rp.pSubpasses = &sub;
    rp.dependencyCount = 2;
    rp.pDependencies = dep;
    VkRenderPass pass;
    VK_CHECK(vkCreateRenderPass(ctx.device, &rp, nullptr, &pass));
    return pass;
}

static VkFramebuffer makeFramebuffer(const Context& ctx, VkRenderPass pass, VkImageView color,
                                     VkImageView depth, uint32_t w, uint32_t h) {
    VkImageView views[2] = {color, depth};
    auto fci = vkInfo<VkFramebufferCreateInfo>(VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO);
    fci.renderPass = pass;
    fci.attachmentCount = 2;
    fci.pAttachments = views;
    fci.width = w;
    fci.height = h;
    fci.layers = 1;
    VkFramebuffer fb;
    VK_CHECK(vkCreateFramebuffer(ctx.device, &fci, nullptr, &fb));
    return fb;
}

// ---------------------------------------------------------------------------------------------------
OffscreenTarget::OffscreenTarget(const Context& ctx, uint32_t w, uint32_t h, VkFormat fmt)
    : ctx_(ctx), width_(w), height_(h), format_(fmt) {
    pass_ = makeRenderPass(ctx, fmt, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    color_ = ctx.createImage(w, h, fmt, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             VK_IMAGE_ASPECT_COLOR_BIT);
    depth_ = ctx.createImage(w, h, ctx.depthFormat(), VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                             VK_IMAGE_ASPECT_DEPTH_BIT);
    fb_ = makeFramebuffer(ctx, pass_, color_.view, depth_.view, w, h);
    readback_ = ctx.createBuffer(VkDeviceSize(w) * h * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    auto ai = vkInfo<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = ctx.pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(ctx.device, &ai, &cb_));
    auto fci = vkInfo<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    VK_CHECK(vkCreateFence(ctx.device, &fci, nullptr, &fence_));
}

OffscreenTarget::~OffscreenTarget() {
    vkDeviceWaitIdle(ctx_.device);
    vkDestroyFence(ctx_.device, fence_, nullptr);
    vkFreeCommandBuffers(ctx_.device, ctx_.pool, 1, &cb_);
    vkDestroyFramebuffer(ctx_.device, fb_, nullptr);
    ctx_.destroy(color_);
    ctx_.destroy(depth_);
    ctx_.destroy(readback_);
    vkDestroyRenderPass(ctx_.device, pass_, nullptr);
}

void OffscreenTarget::externalOwnership(VkBuffer buffer, bool acquire) {
    vbdgui::externalOwnership(cb_, ctx_.queueFamily, buffer, acquire);
}

Pixels OffscreenTarget::render(const float clear[4], const std::function<void(VkCommandBuffer)>& record,
                               const FrameSync& sync) {
    return render(clear, record, std::vector<FrameSync>{sync});
}

Pixels OffscreenTarget::render(const float clear[4], const std::function<void(VkCommandBuffer)>& record,
                               const std::vector<FrameSync>& syncs) {
    VK_CHECK(vkResetCommandBuffer(cb_, 0));
    auto bi = vkInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cb_, &bi));
    VkClearValue cv[2];
    std::memcpy(cv[0].color.float32, clear, 4 * sizeof(float));
    cv[1].depthStencil = {1.0f, 0};
    auto rbi = vkInfo<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
    rbi.renderPass = pass_;
    rbi.framebuffer = fb_;
    rbi.renderArea = {{0, 0}, {width_, height_}};
    rbi.clearValueCount = 2;
    rbi.pClearValues = cv;
    for (const FrameSync& s : syncs) {
        externalOwnership(s.external, true);
        externalOwnership(s.externalInstances, true);
    }
    vkCmdBeginRenderPass(cb_, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    record(cb_);
    vkCmdEndRenderPass(cb_);
    for (const FrameSync& s : syncs) {
        externalOwnership(s.external, false);
        externalOwnership(s.externalInstances, false);
    }
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {width_, height_, 1};
    vkCmdCopyImageToBuffer(cb_, color_.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_.buffer, 1,
                           &copy);
    auto hb = vkInfo<VkBufferMemoryBarrier>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER);
    hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    hb.srcQueueFamilyIndex = hb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    hb.buffer = readback_.buffer;
    hb.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                         &hb, 0, nullptr);
    VK_CHECK(vkEndCommandBuffer(cb_));
    auto si = vkInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb_;
    // The interop's vertex buffers: wait until CUDA wrote them (vertex fetch is the first reader), signal
    // where asked when the draw is done so that CUDA may write the slot again.
    std::vector<VkSemaphore> waits, signals;
    std::vector<uint64_t> waitValues, signalValues;
    for (const FrameSync& s : syncs) {
        if (!s.wait) continue;
        waits.push_back(s.wait);
        waitValues.push_back(s.waitValue);
        if (!s.signal) continue;
        signals.push_back(s.signal);
        signalValues.push_back(s.signalValue);
    }
    const std::vector<VkPipelineStageFlags> waitStages(waits.size(), VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
    auto tsi = vkInfo<VkTimelineSemaphoreSubmitInfoKHR>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO_KHR);
    if (!waits.empty()) {
        tsi.waitSemaphoreValueCount = uint32_t(waitValues.size());
        tsi.pWaitSemaphoreValues = waitValues.data();
        tsi.signalSemaphoreValueCount = uint32_t(signalValues.size());
        tsi.pSignalSemaphoreValues = signalValues.data();
        si.pNext = &tsi;
        si.waitSemaphoreCount = uint32_t(waits.size());
        si.pWaitSemaphores = waits.data();
        si.pWaitDstStageMask = waitStages.data();
        si.signalSemaphoreCount = uint32_t(signals.size());
        si.pSignalSemaphores = signals.data();
    }
    VK_CHECK(vkResetFences(ctx_.device, 1, &fence_));
    VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &si, fence_));
    VK_CHECK(vkWaitForFences(ctx_.device, 1, &fence_, VK_TRUE, UINT64_MAX));
    Pixels px;
    px.width = width_;
    px.height = height_;
    px.rgba.resize(size_t(width_) * height_ * 4);
    std::memcpy(px.rgba.data(), readback_.mapped, px.rgba.size());
    if (format_ == VK_FORMAT_B8G8R8A8_UNORM)
        for (size_t i = 0; i < px.rgba.size(); i += 4) std::swap(px.rgba[i], px.rgba[i + 2]);
    // Opaque, as the window's readback: translucent overlay boxes blend their alpha into the target's.
    for (size_t i = 3; i < px.rgba.size(); i += 4) px.rgba[i] = 255;
    return px;
}

// ---------------------------------------------------------------------------------------------------
Swapchain::Swapchain(const Context& ctx, uint32_t w, uint32_t h) : ctx_(ctx) {
    uint32_t n = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, ctx.surface, &n, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(n);
    vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, ctx.surface, &n, formats.data());
    if (formats.empty()) throw VulkanError("the window surface reports no formats");
    // UNORM so that ImGui's colours are shown as authored; the scene shaders encode gamma themselves.
    format_ = formats[0].format;
    colorSpace_ = formats[0].colorSpace;
    for (const auto& f : formats)
        if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) {
            format_ = f.format;
            colorSpace_ = f.colorSpace;
            break;
        }
    pass_ = makeRenderPass(ctx, format_, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    recreate(w, h);
}

Swapchain::~Swapchain() {
    vkDeviceWaitIdle(ctx_.device);
    destroyImages();
    if (swapchain_) vkDestroySwapchainKHR(ctx_.device, swapchain_, nullptr);
    vkDestroyRenderPass(ctx_.device, pass_, nullptr);
}

Swapchain::Swapchain(const Context& ctx, uint32_t w, uint32_t h, Headless headless)
    : ctx_(ctx), headlessFrames_(std::max(headless.frames, 1u)) {
    format_ = VK_FORMAT_R8G8B8A8_UNORM;
    canCopy_ = true;
    minImages_ = headlessFrames_;
    pass_ = makeRenderPass(ctx, format_, finalLayout());
    recreate(w, h);
}

void Swapchain::destroyImages() {
    for (auto fb : framebuffers_) vkDestroyFramebuffer(ctx_.device, fb, nullptr);
    for (auto v : views_) vkDestroyImageView(ctx_.device, v, nullptr);
    for (auto s : renderDone_) vkDestroySemaphore(ctx_.device, s, nullptr);
    framebuffers_.clear();
    views_.clear();
    renderDone_.clear();
    images_.clear();
    ctx_.destroy(depth_);
    for (Image& img : owned_) ctx_.destroy(img);
    owned_.clear();
}

void Swapchain::recreate(uint32_t w, uint32_t h) {
    vkDeviceWaitIdle(ctx_.device);
    if (headless()) {
        if (w == 0 || h == 0) return;
        destroyImages();
        extent_ = {w, h};
        for (uint32_t i = 0; i < headlessFrames_; ++i) {
            owned_.push_back(ctx_.createImage(
                w, h, format_, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                VK_IMAGE_ASPECT_COLOR_BIT));
            images_.push_back(owned_.back().image);
        }
        depth_ = ctx_.createImage(w, h, ctx_.depthFormat(), VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                  VK_IMAGE_ASPECT_DEPTH_BIT);
        for (const Image& img : owned_) {
            framebuffers_.push_back(makeFramebuffer(ctx_, pass_, img.view, depth_.view, w, h));
            auto sem = vkInfo<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
            VkSemaphore s;
            VK_CHECK(vkCreateSemaphore(ctx_.device, &sem, nullptr, &s));
            renderDone_.push_back(s);
        }
        return;
    }
    VkSurfaceCapabilitiesKHR caps;
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx_.physical, ctx_.surface, &caps));
    if (caps.currentExtent.width != UINT32_MAX) {
        extent_ = caps.currentExtent;
    } else {
        extent_.width = std::clamp(w, caps.minImageExtent.width, caps.maxImageExtent.width);
        extent_.height = std::clamp(h, caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    if (extent_.width == 0 || extent_.height == 0) return;  // minimised: keep the old swapchain
    minImages_ = std::max(2u, caps.minImageCount);
    uint32_t count = caps.maxImageCount ? std::min(minImages_ + 1, caps.maxImageCount) : minImages_ + 1;
    canCopy_ = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;

    auto sci = vkInfo<VkSwapchainCreateInfoKHR>(VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR);
    sci.surface = ctx_.surface;
    sci.minImageCount = count;
    sci.imageFormat = format_;
    sci.imageColorSpace = colorSpace_;
    sci.imageExtent = extent_;
    sci.imageArrayLayers = 1;
    sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | (canCopy_ ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
    sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    sci.preTransform = caps.currentTransform;
    sci.compositeAlpha =
        (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
            ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
            : VkCompositeAlphaFlagBitsKHR(caps.supportedCompositeAlpha & -caps.supportedCompositeAlpha);
    // FIFO is the one mode every implementation has; it also caps the frame rate at the display's.
    sci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    sci.clipped = VK_TRUE;
    VkSwapchainKHR old = swapchain_;
    sci.oldSwapchain = old;
    VK_CHECK(vkCreateSwapchainKHR(ctx_.device, &sci, nullptr, &swapchain_));
    destroyImages();
    if (old) vkDestroySwapchainKHR(ctx_.device, old, nullptr);

    uint32_t n = 0;
    vkGetSwapchainImagesKHR(ctx_.device, swapchain_, &n, nullptr);
    images_.resize(n);
    vkGetSwapchainImagesKHR(ctx_.device, swapchain_, &n, images_.data());
    depth_ = ctx_.createImage(extent_.width, extent_.height, ctx_.depthFormat(),
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
    for (VkImage img : images_) {
        auto vci = vkInfo<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
        vci.image = img;
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = format_;
        vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView v;
        VK_CHECK(vkCreateImageView(ctx_.device, &vci, nullptr, &v));
        views_.push_back(v);
        framebuffers_.push_back(makeFramebuffer(ctx_, pass_, v, depth_.view, extent_.width, extent_.height));
        auto sem = vkInfo<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
        VkSemaphore s;
        VK_CHECK(vkCreateSemaphore(ctx_.device, &sem, nullptr, &s));
        renderDone_.push_back(s);
    }
}

}  // namespace vbdgui
