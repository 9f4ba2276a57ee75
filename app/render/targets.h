#pragma once
// Render targets: an offscreen colour + depth image with CPU readback (render command, tests) and the
// window's swapchain (resize, minimise). Both use the same render pass shape (one subpass, colour +
// depth) so that the scene renderer and Dear ImGui record into either.
#include <cstdint>
#include <functional>
#include <vector>

#include "render/vertex_source.h"
#include "render/vk_context.h"

namespace vbdgui {

VkRenderPass makeRenderPass(const Context& ctx, VkFormat color, VkImageLayout finalLayout);

// RGBA8 pixels, rows top to bottom.
struct Pixels {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
    const uint8_t* at(uint32_t x, uint32_t y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};

class OffscreenTarget {
  public:
    // format: the colour attachment's (the app passes its swapchain's, so that a pipeline made for the
    // window's pass, Dear ImGui's, draws in this one too: render passes with the same attachment formats are
    // compatible); read back as RGBA whichever of the two 8-bit orders it is.
    OffscreenTarget(const Context& ctx, uint32_t width, uint32_t height,
                    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM);
    ~OffscreenTarget();
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;

    // Clears to clear[4], lets record(cb) draw inside the render pass, then reads the image back. sync: the
    // timeline semaphores of the vertex buffer drawn (SceneGpu::frameSync; none for the CPU upload).
    Pixels render(const float clear[4], const std::function<void(VkCommandBuffer)>& record,
                  const FrameSync& sync = {});
    // The same with the buffers of several scenes drawn (the app's two labs). A sync whose signal is
    // VK_NULL_HANDLE only waits: a later submit that reads the same slot signals its renderDone (a
    // timeline value is signalled once, and CUDA may rewrite the slot only after the last reader).
    Pixels render(const float clear[4], const std::function<void(VkCommandBuffer)>& record,
                  const std::vector<FrameSync>& syncs);
    VkRenderPass pass() const { return pass_; }
    uint32_t width() const { return width_; }
    uint32_t height() const { return height_; }

  private:
    void externalOwnership(VkBuffer buffer, bool acquire);
    const Context& ctx_;
    uint32_t width_, height_;
    VkFormat format_;
    VkRenderPass pass_ = VK_NULL_HANDLE;
    Image color_, depth_;
    VkFramebuffer fb_ = VK_NULL_HANDLE;
    Buffer readback_;
    VkCommandBuffer cb_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
};

// The window's images. Headless (`vbdlab --headless`, no surface): the same interface over `frames` plain
// images that the app renders into and reads back but never presents, so that the whole window frame (UI,
// both labs, captures, the interop's semaphores) runs on a machine without a display.
class Swapchain {
  public:
    Swapchain(const Context& ctx, uint32_t width, uint32_t height);
    struct Headless {
        uint32_t frames;
    };
    Swapchain(const Context& ctx, uint32_t width, uint32_t height, Headless headless);
    ~Swapchain();
    Swapchain(const Swapchain&) = delete;
    Swapchain& operator=(const Swapchain&) = delete;

    // Rebuilds images, views, depth and framebuffers for a new window size (waits for the device).
    void recreate(uint32_t width, uint32_t height);
    VkRenderPass pass() const { return pass_; }
    VkSwapchainKHR handle() const { return swapchain_; }
    VkFormat format() const { return format_; }
    VkExtent2D extent() const { return extent_; }
    uint32_t imageCount() const { return uint32_t(images_.size()); }
    uint32_t minImageCount() const { return minImages_; }
    VkImage image(uint32_t i) const { return images_[i]; }
    VkFramebuffer framebuffer(uint32_t i) const { return framebuffers_[i]; }
    VkSemaphore renderDone(uint32_t i) const { return renderDone_[i]; }  // one per image (safe reuse)
    bool canCopy() const { return canCopy_; }  // images support TRANSFER_SRC (screenshots)
    bool bgr() const { return format_ == VK_FORMAT_B8G8R8A8_UNORM; }
    bool headless() const { return headlessFrames_ > 0; }
    // The layout the render pass leaves an image in: PRESENT_SRC for the window, TRANSFER_SRC headless.
    VkImageLayout finalLayout() const {
        return headless() ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    }

  private:
    void destroyImages();
    const Context& ctx_;
    VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_B8G8R8A8_UNORM;
    VkColorSpaceKHR colorSpace_ = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    VkExtent2D extent_{0, 0};
    uint32_t minImages_ = 2;
    VkRenderPass pass_ = VK_NULL_HANDLE;
    std::vector<VkImage> images_;
    std::vector<VkImageView> views_;
    std::vector<VkFramebuffer> framebuffers_;
    std::vector<VkSemaphore> renderDone_;
    Image depth_;
    bool canCopy_ = false;
    uint32_t headlessFrames_ = 0;
    std::vector<Image> owned_;  // headless: the images themselves
};

}  // namespace vbdgui
