// One frame: upload what the labs show, draw the 3D view(s) and Dear ImGui into the swapchain image,
// and read back what a capture asks for (the window, or the 3D view rendered offscreen at a chosen size).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include "gui/app.h"
#include "gui/panels.h"
#include "render/interop_vulkan.h"

namespace vbdgui {

namespace {

using Clock = std::chrono::steady_clock;

// The view rectangle of lab l in a target of `area` (side by side: two halves).
VkRect2D labArea(VkRect2D area, int l, int labs) {
    const float w = float(area.extent.width) / float(labs);
    const int32_t x0 = area.offset.x + int32_t(w * float(l)), x1 = area.offset.x + int32_t(w * float(l + 1));
    return {{x0, area.offset.y}, {uint32_t(std::max(x1 - x0, 1)), area.extent.height}};
}

}  // namespace

// A snapshot whose frame the simulation thread wrote into a slot that still holds it, with the heat-map
// scalars this frame draws, is drawn from there (by the window's submit, and first by an offscreen capture's:
// renderOffscreen); any other (a CPU step, an edit, a slot rewritten since, a heat-map scale or tint changed
// since the write) is uploaded from the snapshot.
void GuiApp::uploadLabs() {
    const auto t0 = Clock::now();
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        Lab& lab = app_.labs[l];
        if (!lab.gpu || !lab.world) continue;
        ExternalFrame ext;
        if (lab.link) {
            // This frame's scalars first: they are the next writes' too, and the slot's must be the same.
            lab.gpu->prepareScalars(*lab.world, effectiveDraw_[l], &lab.world->materialTags());
            lab.link->setScalars(lab.gpu->scalars01(), lab.gpu->heatScale());
            const InteropFrame f = lab.world->interopFrame();
            ext.renderDone = lab.link->scalarsCurrent(f) ? lab.link->slots().beginDraw(f) : 0;
            lab.drewFromSlot = ext.renderDone != 0;
            if (ext.renderDone) {
                ext.slot = f.slot;
                ext.simDone = f.simDone;
                ext.bodies = f.bodies;
            } else {
                lab.link->slots().release();
            }
        }
        lab.gpu->update(*lab.world, effectiveDraw_[l], frameIndex_, &lab.world->materialTags(),
                        ext.slot >= 0 ? &ext : nullptr);
        if (lab.link)  // the next writes' body table
            lab.link->setBodies(lab.gpu->bodyTable().items, lab.gpu->bodyTableBodies());
    }
    app_.timing.uploadMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Draws the labs into `area` of the render pass open on cb with renderer r.
void GuiApp::recordScene(VkCommandBuffer cb, VkRect2D area, const Renderer& r, const OrbitCamera& cam) {
    const int labs = app_.compare ? 2 : 1;
    for (int l = 0; l < labs; ++l) {
        const Lab& lab = app_.labs[l];
        if (!lab.gpu) continue;
        r.draw(cb, *lab.gpu, frameIndex_, cam, labArea(area, l, labs), effectiveDraw_[l]);
    }
}

// The 3D view(s) alone at w x h, with the same camera (the aspect is the target's), read back at once.
// It runs in this frame's slot after the upload, before the swapchain frame reads the same buffers. A lab
// drawn from an interop slot: this submit waits for simDone like the window's but does not signal
// renderDone, which lets CUDA rewrite the slot; the window's submit, made after this one has finished
// (render() waits for its fence), signals it once both have read the slot.
bool GuiApp::overlayInTakes() const {
    return swap_->format() == VK_FORMAT_B8G8R8A8_UNORM || swap_->format() == VK_FORMAT_R8G8B8A8_UNORM;
}

void GuiApp::renderOffscreen(int w, int h, Pixels& out) {
    if (!offscreen_ || int(offscreen_->width()) != w || int(offscreen_->height()) != h) {
        offscreenRenderer_.reset();
        offscreen_.reset();
        // The swapchain's format: Dear ImGui's pipeline, made for the window's pass, draws the take's
        // overlay. A surface without 8-bit UNORM colour (the take reads 4 bytes a pixel back) gets RGBA8 and
        // no overlay.
        offscreen_ = std::make_unique<OffscreenTarget>(
            *ctx_, uint32_t(w), uint32_t(h), overlayInTakes() ? swap_->format() : VK_FORMAT_R8G8B8A8_UNORM);
        offscreenRenderer_ = std::make_unique<Renderer>(*ctx_, offscreen_->pass());
    }
    std::vector<FrameSync> waits;
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        if (!app_.labs[l].gpu) continue;
        waits.push_back(waitOnly(app_.labs[l].gpu->frameSync(frameIndex_)));
    }
    // Each lab's area has the window view's aspect there and the capture's here: the camera refitted so that
    // the capture frames what the view frames -- the view as it was when the take started, while one runs.
    const float labs = app_.compare ? 2.0f : 1.0f;
    const Layout& v = app_.layout;
    const float labAspect = app_.rec.on && app_.rec.viewAspect > 0 ? app_.rec.viewAspect
                                                                   : v.viewW / labs / std::max(v.viewH, 1.0f);
    const OrbitCamera cam = app_.camera.refitted(labAspect, float(w) / labs / float(std::max(h, 1)));
    // The take's overlay (captions, legends, labels, the status bar) laid out for its size: a take of a
    // side-by-side comparison without its captions did not say which side was which.
    ImDrawList overlay(ImGui::GetDrawListSharedData());
    if (overlayInTakes()) captureOverlay(app_, cam, float(w), float(h), overlay);
    ImDrawList* lists[1] = {&overlay};
    ImDrawData dd;
    dd.Valid = true;
    dd.CmdLists = lists;
    dd.CmdListsCount = 1;
    dd.TotalVtxCount = overlay.VtxBuffer.Size;
    dd.TotalIdxCount = overlay.IdxBuffer.Size;
    dd.DisplayPos = ImVec2(0, 0);
    dd.DisplaySize = ImVec2(float(w), float(h));
    dd.FramebufferScale = ImVec2(1, 1);
    out = offscreen_->render(
        kClearColor,
        [&](VkCommandBuffer cb) {
            recordScene(cb, VkRect2D{{0, 0}, {uint32_t(w), uint32_t(h)}}, *offscreenRenderer_, cam);
            if (dd.TotalVtxCount > 0) ImGui_ImplVulkan_RenderDrawData(&dd, cb);
        },
        waits);
}

void GuiApp::readbackWindow(FrameSlot& f, uint32_t image, VkExtent2D ext, Pixels& out) {
    const VkDeviceSize bytes = VkDeviceSize(ext.width) * ext.height * 4;
    if (readback_.size < bytes) {
        ctx_->destroy(readback_);
        readback_ = ctx_->createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    }
    VkImage img = swap_->image(image);
    transitionImage(f.cb, img, VK_IMAGE_ASPECT_COLOR_BIT, swap_->finalLayout(),
                    VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                    VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {ext.width, ext.height, 1};
    vkCmdCopyImageToBuffer(f.cb, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_.buffer, 1, &region);
    transitionImage(f.cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                    swap_->finalLayout(), VK_ACCESS_TRANSFER_READ_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                    VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    out.width = ext.width;
    out.height = ext.height;
}

void GuiApp::recreateSwapchain() {
    int w, h;
    framebufferSize(w, h);
    swap_->recreate(uint32_t(w), uint32_t(h));
    ImGui_ImplVulkan_SetMinImageCount(swap_->minImageCount());
}

// Waits for the slot's previous frame and acquires an image; false when the swapchain had to be rebuilt.
bool GuiApp::acquire(FrameSlot& f, uint32_t& image) {
    VK_CHECK(vkWaitForFences(ctx_->device, 1, &f.fence, VK_TRUE, UINT64_MAX));
    if (swap_->headless()) {  // one image per frame slot, free once the slot's fence signalled
        if (resized_) {
            resized_ = false;
            recreateSwapchain();
        }
        image = frameIndex_ % swap_->imageCount();
        VK_CHECK(vkResetFences(ctx_->device, 1, &f.fence));
        return true;
    }
    const VkResult r =
        vkAcquireNextImageKHR(ctx_->device, swap_->handle(), UINT64_MAX, f.acquired, VK_NULL_HANDLE, &image);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        recreateSwapchain();
        return false;
    }
    if (r != VK_SUBOPTIMAL_KHR) VK_CHECK(r);
    VK_CHECK(vkResetFences(ctx_->device, 1, &f.fence));
    return true;
}

// The 3D view(s) and the UI into the swapchain image.
void GuiApp::recordWindow(FrameSlot& f, uint32_t image) {
    VkClearValue cv[2];
    std::memcpy(cv[0].color.float32, kClearColor, sizeof kClearColor);
    cv[1].depthStencil = {1.0f, 0};
    auto rbi = vkInfo<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
    rbi.renderPass = swap_->pass();
    rbi.framebuffer = swap_->framebuffer(image);
    rbi.renderArea = {{0, 0}, swap_->extent()};
    rbi.clearValueCount = 2;
    rbi.pClearValues = cv;
    const int labs = app_.compare ? 2 : 1;
    for (int l = 0; l < labs; ++l)
        if (app_.labs[l].gpu) {
            const FrameSync sync = app_.labs[l].gpu->frameSync(frameIndex_);
            externalOwnership(f.cb, ctx_->queueFamily, sync.external, true);
            externalOwnership(f.cb, ctx_->queueFamily, sync.externalInstances, true);
        }
    vkCmdBeginRenderPass(f.cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    const VkExtent2D ext = swap_->extent();
    const Layout& lay = app_.layout;
    const int32_t x0 = int32_t(lay.viewX), y0 = int32_t(lay.viewY);
    const int32_t x1 = std::min(int32_t(lay.viewX + lay.viewW), int32_t(ext.width));
    const int32_t y1 = std::min(int32_t(lay.viewY + lay.viewH), int32_t(ext.height));
    if (x1 > x0 && y1 > y0)
        recordScene(f.cb, VkRect2D{{x0, y0}, {uint32_t(x1 - x0), uint32_t(y1 - y0)}}, *renderer_,
                    app_.camera);
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), f.cb);
    vkCmdEndRenderPass(f.cb);
    for (int l = 0; l < labs; ++l)
        if (app_.labs[l].gpu) {
            const FrameSync sync = app_.labs[l].gpu->frameSync(frameIndex_);
            externalOwnership(f.cb, ctx_->queueFamily, sync.external, false);
            externalOwnership(f.cb, ctx_->queueFamily, sync.externalInstances, false);
        }
}

void GuiApp::submitAndPresent(FrameSlot& f, uint32_t image) {
    VkSemaphore done = swap_->renderDone(image);
    // The swapchain's binary semaphores (none headless: nothing is acquired or presented), then per lab
    // drawn from an exported buffer: wait simDone at VERTEX_INPUT (CUDA wrote the records), signal
    // renderDone (CUDA may write the slot again).
    const bool present = !swap_->headless();
    std::vector<VkSemaphore> waits, signals;
    std::vector<VkPipelineStageFlags> stages;
    std::vector<uint64_t> waitValues, signalValues;  // 0 for the binary semaphores: ignored
    if (present) {
        waits.push_back(f.acquired);
        stages.push_back(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
        waitValues.push_back(0);
        signals.push_back(done);
        signalValues.push_back(0);
    }
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        if (!app_.labs[l].gpu) continue;
        const FrameSync s = app_.labs[l].gpu->frameSync(frameIndex_);
        if (!s.wait) continue;
        waits.push_back(s.wait);
        stages.push_back(VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
        waitValues.push_back(s.waitValue);
        signals.push_back(s.signal);
        signalValues.push_back(s.signalValue);
    }
    auto tsi = vkInfo<VkTimelineSemaphoreSubmitInfoKHR>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO_KHR);
    tsi.waitSemaphoreValueCount = uint32_t(waitValues.size());
    tsi.pWaitSemaphoreValues = waitValues.data();
    tsi.signalSemaphoreValueCount = uint32_t(signalValues.size());
    tsi.pSignalSemaphoreValues = signalValues.data();
    auto si = vkInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    if (waits.size() > (present ? 1u : 0u)) si.pNext = &tsi;
    // injectDeviceLost: the failure after the frame's upload, as a lost device gives it (the interop slot's
    // draw begun, its renderDone never signalled).
    if (faultDeviceLost_) {
        faultDeviceLost_ = false;  // once: the new device's frames submit
        vkFail(VK_ERROR_DEVICE_LOST, "vkQueueSubmit (a fault injected by the actions)", __FILE__, __LINE__);
    }
    si.waitSemaphoreCount = uint32_t(waits.size());
    si.pWaitSemaphores = waits.data();
    si.pWaitDstStageMask = stages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &f.cb;
    si.signalSemaphoreCount = uint32_t(signals.size());
    si.pSignalSemaphores = signals.data();
    VK_CHECK(vkQueueSubmit(ctx_->queue, 1, &si, f.fence));
    if (!present) return;
    auto pi = vkInfo<VkPresentInfoKHR>(VK_STRUCTURE_TYPE_PRESENT_INFO_KHR);
    pi.waitSemaphoreCount = 1;
    pi.pWaitSemaphores = &done;
    VkSwapchainKHR sc = swap_->handle();
    pi.swapchainCount = 1;
    pi.pSwapchains = &sc;
    pi.pImageIndices = &image;
    const VkResult r = vkQueuePresentKHR(ctx_->queue, &pi);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR || resized_) {
        resized_ = false;
        recreateSwapchain();
    } else {
        VK_CHECK(r);
    }
}

// The swapchain image copied out by readbackWindow, once the frame's fence has signalled.
void GuiApp::finishReadback(FrameSlot& f, Pixels& px) {
    VK_CHECK(vkWaitForFences(ctx_->device, 1, &f.fence, VK_TRUE, UINT64_MAX));
    px.rgba.resize(size_t(px.width) * px.height * 4);
    std::memcpy(px.rgba.data(), readback_.mapped, px.rgba.size());
    if (swap_->bgr())
        for (size_t i = 0; i < px.rgba.size(); i += 4) std::swap(px.rgba[i], px.rgba[i + 2]);
    for (size_t i = 3; i < px.rgba.size(); i += 4) px.rgba[i] = 255;
}

bool GuiApp::renderFrame(const CaptureRequest& cap, CaptureResult* out) {
    FrameSlot& f = frames_[frameIndex_];
    uint32_t image = 0;
    if (!acquire(f, image)) return false;
    const bool offscreen = cap.offscreenW > 0 && cap.offscreenH > 0 && out;
    uploadLabs();
    if (offscreen) renderOffscreen(cap.offscreenW, cap.offscreenH, out->offscreen);
    VK_CHECK(vkResetCommandBuffer(f.cb, 0));
    auto bi = vkInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(f.cb, &bi));
    recordWindow(f, image);
    const bool copy = cap.window && out && swap_->canCopy();
    if (copy) readbackWindow(f, image, swap_->extent(), out->window);
    VK_CHECK(vkEndCommandBuffer(f.cb));
    submitAndPresent(f, image);
    if (copy) finishReadback(f, out->window);
    frameIndex_ = (frameIndex_ + 1) % kFramesInFlight;
    return true;
}

}  // namespace vbdgui
