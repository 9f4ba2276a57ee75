// Start-up, the main loop and shut-down of the interactive app (gui/app.h lists where the rest lives).
#include "gui/app.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include "gui/action_runner.h"
#include "gui/lesson_player.h"
#include "gui/panels.h"
#include "math/error.h"
#include "render/device_choice.h"
#include "render/image_io.h"
#include "render/world_source.h"

namespace vbdgui {

bool available() { return true; }

double wallSeconds() {
    static const auto t0 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool checkOptions(const GuiOptions& opt, std::string& error) {
    if (opt.lesson.empty() && (opt.autoplay || !opt.screenshotDir.empty())) {
        error = std::string(opt.autoplay ? "--autoplay" : "--screenshot-dir") + ": needs --lesson NAME";
        return false;
    }
    if (opt.headless && opt.actions.empty() && opt.screenshot.empty() && opt.frames < 0 &&
        !(opt.autoplay && !opt.lesson.empty())) {
        error =
            "--headless: needs a run that ends by itself (--actions, --screenshot, --frames, or --lesson "
            "with --autoplay)";
        return false;
    }
    // With an actions file the actions say when to take a screenshot and when to quit: --frames held the run
    // at its frame (an action after it waited for ever) and --screenshot was never written when the list
    // ended first.
    if (!opt.actions.empty() && (opt.frames >= 0 || !opt.screenshot.empty())) {
        error = std::string(opt.frames >= 0 ? "--frames" : "--screenshot") +
                ": not with --actions (the actions say when: {\"frame\": N, \"screenshot\": \"out.png\"}, "
                "{\"frame\": N, \"quit\": true})";
        return false;
    }
    // --frames and --screenshot wait for a frame (--screenshot alone: frame 60) that a paused headless run
    // never reaches: nobody can press play (an actions file says when to play; a lesson too).
    const int waitsFor = opt.frames >= 0 ? opt.frames : (opt.screenshot.empty() ? 0 : 60);
    if (opt.headless && opt.paused && waitsFor > 0 && opt.actions.empty() && opt.lesson.empty()) {
        error = "--paused: the run would wait for ever for frame " + std::to_string(waitsFor) + " (" +
                (opt.frames >= 0 ? "--frames" : "--screenshot") +
                "); leave out --paused, or use --frames 0 for the first frame";
        return false;
    }
    if (!opt.lesson.empty() && !opt.actions.empty()) {
        error = "--lesson: a lesson brings its own actions (leave out --actions)";
        return false;
    }
    if (opt.actions.empty() && opt.lesson.empty()) return true;
    try {
        ActionContext ctx;
        ctx.scene = opt.scene.empty() ? defaultScenePath() : opt.scene;
        ctx.paused = opt.paused;
        if (!opt.lesson.empty())
            loadLesson(opt.lesson, ctx);
        else
            loadActions(opt.actions, ctx);
        return true;
    } catch (const vbd::InputError& e) {
        error = e.what();
        return false;
    }
}

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void imguiCheck(VkResult r) {
    if (r < 0) vkFail(r, "Dear ImGui Vulkan backend", __FILE__, __LINE__);
}

VkSurfaceKHR makeSurface(VkInstance inst, void* user) {
    VkSurfaceKHR s = VK_NULL_HANDLE;
    VK_CHECK(glfwCreateWindowSurface(inst, static_cast<GLFWwindow*>(user), nullptr, &s));
    return s;
}

// The World is built on the simulation thread through the same function `vbdlab render` uses.
WorldFactory guiWorldFactory() {
    return [](const vbd::SceneDesc& d, std::string* note) { return createWorld(d, note); };
}

}  // namespace

GuiApp::GuiApp(const GuiOptions& opt) : opt_(opt), sim_(guiWorldFactory()) {}

GuiApp::~GuiApp() {
    if (app_.rec.pipe) pclose(app_.rec.pipe);
    releaseDevice();
    if (imguiGlfw_) ImGui_ImplGlfw_Shutdown();
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

void GuiApp::releaseDevice() {
    if (ctx_) vkDeviceWaitIdle(ctx_->device);  // unchecked: a lost device returns at once
    for (int l = 0; l < 2; ++l) dropLabGpu(l);
    // Also after an Init that failed half way (its backend data is set before its device objects are made).
    if (imguiVulkan_ || (ImGui::GetCurrentContext() && ImGui::GetIO().BackendRendererUserData))
        ImGui_ImplVulkan_Shutdown();
    imguiVulkan_ = false;
    if (ctx_) {
        if (imguiPool_) vkDestroyDescriptorPool(ctx_->device, imguiPool_, nullptr);
        for (auto& f : frames_) {
            if (f.fence) vkDestroyFence(ctx_->device, f.fence, nullptr);
            if (f.acquired) vkDestroySemaphore(ctx_->device, f.acquired, nullptr);
            f = FrameSlot{};  // the command buffers go with the context's pool
        }
        ctx_->destroy(readback_);
    }
    imguiPool_ = VK_NULL_HANDLE;
    offscreenRenderer_.reset();
    offscreen_.reset();
    renderer_.reset();
    swap_.reset();
    if (ctx_) releasedValidation_ += ctx_->validationMessages();  // the teardown's own included
    ctx_.reset();
}

// A lost Vulkan device is gone for good (the Vulkan spec: every object made with it must be destroyed), but
// the physical device usually comes back (a driver reset): the app releases everything made with the device
// and makes it all again -- the context, swapchain, renderers, ImGui's Vulkan side and each lab's buffers
// with the window's interop -- while the simulation thread, the timeline and the UI's state go on. No
// Vulkan call is made while the UI builds its frame (between ImGui::NewFrame and Render), so a failure never
// leaves an ImGui frame open.
bool GuiApp::recreateDevice() {
    releaseDevice();
    try {
        if (faultDeviceGone_)
            throw VulkanError("no Vulkan device after the loss (a fault injected by the actions)");
        initVulkan();
        initImGuiVulkan();
        for (int l = 0; l < 2; ++l) {
            app_.labs[l].vertexLine.clear();  // said again: the interop is made anew (or not)
            if (app_.labs[l].world) makeLabGpu(l);
        }
    } catch (const VulkanError& e) {
        std::fprintf(stderr, "vbdlab: no new Vulkan device: %s\n", e.what());
        return false;
    }
    resized_ = true;  // the new swapchain's size is read afresh
    ++deviceRecoveries_;
    std::fprintf(stderr, "vbdlab: a new Vulkan device (%s): the run goes on\n", ctx_->deviceName().c_str());
    return true;
}

void GuiApp::initWindow() {
    // Every layout is designed for at least kMinWindowW x kMinWindowH (gui/core/layout.h): a smaller size
    // asked for is raised to it, and said (the `window` action refuses one, naming its least).
    if (opt_.width < int(kMinWindowW) || opt_.height < int(kMinWindowH))
        std::fprintf(stderr, "vbdlab: window %dx%d raised to the least, %dx%d\n", opt_.width, opt_.height,
                     std::max(opt_.width, int(kMinWindowW)), std::max(opt_.height, int(kMinWindowH)));
    if (opt_.headless) {  // no GLFW: the frames go into the headless images (render/targets.h)
        headlessW_ = std::max(opt_.width, int(kMinWindowW));
        headlessH_ = std::max(opt_.height, int(kMinWindowH));
        return;
    }
    if (!glfwInit())
        throw VulkanError("cannot open a window (glfwInit failed: is DISPLAY a running X server?)");
    if (!glfwVulkanSupported()) throw VulkanError("GLFW finds no Vulkan loader or driver");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    const int w = std::max(opt_.width, int(kMinWindowW)), h = std::max(opt_.height, int(kMinWindowH));
    window_ = glfwCreateWindow(w, h, "VBD Lab", nullptr, nullptr);
    if (!window_) throw VulkanError("glfwCreateWindow failed");
    // Every layout is designed for at least this size (gui/core/layout.h).
    glfwSetWindowSizeLimits(window_, int(kMinWindowW), int(kMinWindowH), GLFW_DONT_CARE, GLFW_DONT_CARE);
    glfwSetWindowUserPointer(window_, this);
    glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* win, int, int) {
        static_cast<GuiApp*>(glfwGetWindowUserPointer(win))->resized_ = true;
    });
}

void GuiApp::initVulkan() {
    ContextOptions co;
    co.validation = validationRequested();
    co.preferUuid =
        cudaStepDeviceUuid();  // the GPU a CUDA backend would step on (the panel can switch to it)
    if (opt_.headless) {       // no surface: the frames go into plain images (render/targets.h)
        ctx_ = std::make_unique<Context>(co);
        swap_ = std::make_unique<Swapchain>(*ctx_, uint32_t(headlessW_), uint32_t(headlessH_),
                                            Swapchain::Headless{kFramesInFlight});
    } else {
        uint32_t n = 0;
        const char** exts = glfwGetRequiredInstanceExtensions(&n);
        co.instanceExtensions.assign(exts, exts + n);
        co.swapchain = true;
        co.makeSurface = &makeSurface;
        co.surfaceUser = window_;
        ctx_ = std::make_unique<Context>(co);
        int w, h;
        glfwGetFramebufferSize(window_, &w, &h);
        swap_ = std::make_unique<Swapchain>(*ctx_, uint32_t(w), uint32_t(h));
    }
    renderer_ = std::make_unique<Renderer>(*ctx_, swap_->pass());
    for (auto& f : frames_) {
        VkCommandBufferAllocateInfo ai =
            vkInfo<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        ai.commandPool = ctx_->pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(ctx_->device, &ai, &f.cb));
        auto fci = vkInfo<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        VK_CHECK(vkCreateFence(ctx_->device, &fci, nullptr, &f.fence));
        auto sci = vkInfo<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
        VK_CHECK(vkCreateSemaphore(ctx_->device, &sci, nullptr, &f.acquired));
    }
}

void GuiApp::initImGui() {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // layout is fixed by the app; no imgui.ini next to the user's files
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0;
    if (!opt_.headless) {
        imguiGlfw_ = ImGui_ImplGlfw_InitForVulkan(window_, true);
    } else {  // buildUi sets the display size and the clock each frame; there is no input
        io.BackendPlatformName = "vbdlab headless";
        io.DisplaySize = ImVec2(float(headlessW_), float(headlessH_));
    }
    initImGuiVulkan();
}

void GuiApp::initImGuiVulkan() {
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16}};
    auto dpi = vkInfo<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    dpi.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dpi.maxSets = 16;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = sizes;
    VK_CHECK(vkCreateDescriptorPool(ctx_->device, &dpi, nullptr, &imguiPool_));
    ImGui_ImplVulkan_InitInfo ii{};
    ii.Instance = ctx_->instance;
    ii.PhysicalDevice = ctx_->physical;
    ii.Device = ctx_->device;
    ii.QueueFamily = ctx_->queueFamily;
    ii.Queue = ctx_->queue;
    ii.DescriptorPool = imguiPool_;
    ii.MinImageCount = swap_->minImageCount();
    // The backend takes the next of ImageCount vertex buffers at each draw call, and a frame with an
    // offscreen capture makes two (the capture's overlay, then the window's): 2 kFramesInFlight keeps the
    // buffers of the frames still in flight untouched.
    ii.ImageCount = std::max(swap_->imageCount(), 2 * kFramesInFlight);
    ii.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    ii.CheckVkResultFn = &imguiCheck;
    imguiVulkan_ = ImGui_ImplVulkan_Init(&ii, swap_->pass());
    ctx_->oneShot([](VkCommandBuffer cb) { ImGui_ImplVulkan_CreateFontsTexture(cb); });
    ImGui_ImplVulkan_DestroyFontUploadObjects();
}

void GuiApp::framebufferSize(int& w, int& h) const {
    if (!window_) {
        w = headlessW_;
        h = headlessH_;
        return;
    }
    glfwGetFramebufferSize(window_, &w, &h);
}

void GuiApp::resizeWindow(int w, int h) {
    if (!window_) {  // as the window manager would: never below the layouts' minimum (initWindow)
        headlessW_ = std::max(w, int(kMinWindowW));
        headlessH_ = std::max(h, int(kMinWindowH));
        resized_ = true;
        return;
    }
    glfwSetWindowSize(window_, w, h);
}

void GuiApp::buildUi() {
    ImGui_ImplVulkan_NewFrame();
    if (window_) {
        ImGui_ImplGlfw_NewFrame();
    } else {
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(float(headlessW_), float(headlessH_));
        const double now = wallSeconds();
        io.DeltaTime = headlessClock_ > 0 ? float(std::max(now - headlessClock_, 1e-4)) : 1.0f / 60.0f;
        headlessClock_ = now;
    }
    // Until the pointer first moves, there is no mouse: a scripted run's screenshots show no tooltip of
    // wherever the (virtual) pointer happens to rest.
    ImGuiIO& io = ImGui::GetIO();
    if (!mouseMoved_) {
        if (renderedFrames_ == 0) firstMouse_ = io.MousePos;
        mouseMoved_ = io.MousePos.x != firstMouse_.x || io.MousePos.y != firstMouse_.y;
        if (!mouseMoved_) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    }
    if (cursor_) io.MousePos = *cursor_;
    ImGui::NewFrame();
    int fw, fh;
    framebufferSize(fw, fh);
    controlPanel(app_, float(fh));
    plotsPanel(app_, float(fw), float(fh));
    viewportOverlay(app_);
    lessonWindow(app_);
    handleInput();
    ImGui::Render();
}

void GuiApp::reportTiming(int nowFrame) {
    if (timed_ > 0)
        std::fprintf(stderr,
                     "vbdlab: mean over %d frames: %.1f ms a frame (%.1f FPS); simulation thread %.1f ms a "
                     "step (%.2f ms of it outside the solver), upload %.2f ms, render %.1f ms\n",
                     timed_, sum_.frameMs / timed_, 1000.0 * timed_ / sum_.frameMs, sum_.simMs / timed_,
                     sum_.simHostMs / timed_, sum_.uploadMs / timed_, sum_.renderMs / timed_);
    if (snapshotsShown_ > 0)
        std::fprintf(stderr, "vbdlab: the window read the particles of %ld of %ld snapshots\n",
                     snapshotsRead_, snapshotsShown_);
    if (hoverHostCasts_ > 0)
        std::fprintf(stderr, "vbdlab: the hover readout cast %ld rays over the positions\n", hoverHostCasts_);
    // The simulation thread's own reads of a lazily published device state (World::stateFetches; 0 on the
    // CPU backend, whose state is always on the host): each is a download of every particle.
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l)
        if (const auto& w = app_.labs[l].world)
            std::fprintf(
                stderr,
                "vbdlab: the simulation (%s) brought the particles to the host %zu times in %d frames\n",
                l == 0 ? "left" : "right", w->stateFetches(), w->frame());
    std::fprintf(stderr, "vbdlab: frame %d, 3D view %.0fx%.0f, %d validation messages\n", nowFrame,
                 app_.layout.viewW, app_.layout.viewH, validationMessages());
}

// The action's screenshot: the window or its 3D view; the log line gives each heat map's range.
void GuiApp::writeScreenshot(const Pixels& window, int frame) {
    writePng(app_.screenshotRequest, app_.screenshotCapture == Capture::View ? cropToView(window) : window);
    std::string heat;
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        const Lab& lab = app_.labs[l];
        if (!lab.gpu || lab.draw.field == vbd::ScalarField::None) continue;
        if (!lab.gpu->range.valid) {
            if (lab.world && lab.draw.field != vbd::ScalarField::Color)
                heat += "; " + lab.label + " heat map: no range (" +
                        emptyFieldReason(lab.draw.field, lab.draw.logScale, lab.world->frame(),
                                         lab.world->numParticles()) +
                        ")";
            continue;
        }
        auto v = [&](float x) { return lab.draw.logScale ? std::pow(10.0, double(x)) : double(x); };
        char buf[96];
        std::snprintf(buf, sizeof buf, "; %s heat map range %.6g to %.6g", lab.label.c_str(),
                      v(lab.gpu->range.lo), v(lab.gpu->range.hi));
        heat += buf;
    }
    std::fprintf(stderr, "vbdlab: wrote %s at frame %d%s\n", app_.screenshotRequest.c_str(), frame,
                 heat.c_str());
    app_.screenshotRequest.clear();
}

void GuiApp::accumulateTiming() {
    app_.timing.frameMs = msSince(lastFrame_);
    app_.timing.fps = 1000.0 / std::max(app_.timing.frameMs, 1e-3);
    lastFrame_ = Clock::now();
    if (renderedFrames_ > 3) {  // skip start-up (pipeline and font upload)
        sum_.frameMs += app_.timing.frameMs, sum_.simMs += app_.timing.simMs;
        sum_.simHostMs += app_.timing.simHostMs;
        sum_.uploadMs += app_.timing.uploadMs, sum_.renderMs += app_.timing.renderMs;
        ++timed_;
    }
}

// One frame of the main loop: requests, simulation snapshots, actions, UI, render, captures. False when
// the run is over (the --screenshot frame was written, or --frames reached).
bool GuiApp::iterate() {
    if (window_) glfwPollEvents();
    int fw, fh;
    framebufferSize(fw, fh);
    if (fw == 0 || fh == 0) {  // minimised: nothing to draw into
        glfwWaitEvents();
        return true;
    }
    app_.layout = computeLayout(float(fw), float(fh), app_.compare, app_.showPlots, app_.panels);
    pollSimulation();
    if (actions_) actions_->update(*this);
    updateLesson();
    applyRequests();
    prepareDrawOptions();
    const bool recordDue = recordCaptureDue();
    buildUi();
    const int nowFrame = shownFrame();
    // Screenshot once the scene reached its frame and ImGui has laid its windows out (a few frames).
    const bool screenshotMode = !opt_.screenshot.empty();
    const bool shotNow =
        screenshotMode && nowFrame >= 0 && nowFrame >= targetFrames_ && renderedFrames_ >= 3 && !settling();
    CaptureRequest cap = recordDue ? recordCaptureRequest() : CaptureRequest{};
    cap.window |= shotNow || !app_.screenshotRequest.empty();
    CaptureResult px;
    const auto tr = Clock::now();
    if (!renderFrame(cap, &px)) return true;
    app_.timing.renderMs = msSince(tr) - app_.timing.uploadMs;
    ++renderedFrames_;
    if (recordDue) recordFrame(px);
    if (window_) {
        // The take's count where a take of the window does not capture it (overlay.cpp recordingIndicator).
        const std::string title =
            app_.rec.on ? "VBD Lab - REC " + std::to_string(app_.rec.written) : "VBD Lab";
        if (title != title_) glfwSetWindowTitle(window_, (title_ = title).c_str());
    }
    if (!app_.screenshotRequest.empty() && !px.window.rgba.empty()) writeScreenshot(px.window, nowFrame);
    if (shotNow) {
        writePng(opt_.screenshot, px.window);
        reportTiming(nowFrame);
        std::fprintf(stderr, "vbdlab: wrote %s (%ux%u) after %d frames; %d validation messages\n",
                     opt_.screenshot.c_str(), px.window.width, px.window.height, nowFrame,
                     validationMessages());
        return false;
    }
    if (!screenshotMode && !actions_ && !lesson_ && targetFrames_ >= 0 && nowFrame >= targetFrames_ &&
        renderedFrames_ > targetFrames_ + 2)
        return false;
    accumulateTiming();
    return true;
}

int GuiApp::run() {
    initWindow();
    initVulkan();
    initImGui();
    if (!loadInitialScene()) return 2;
    if (!opt_.actions.empty()) {
        ActionContext ac;
        ac.scene = app_.scenePath;
        ac.paused = opt_.paused;
        actions_ = std::make_unique<ActionRunner>(loadActions(opt_.actions, ac));
    }
    app_.timeline.playing = !opt_.paused;
    if (!opt_.lesson.empty()) {
        app_.lesson.openRequest = findLesson(opt_.lesson);
        openLesson();
        if (!lesson_) return 2;
    }
    const bool batch = !opt_.screenshot.empty() || actions_ || opt_.autoplay;
    targetFrames_ = opt_.frames >= 0 ? opt_.frames : (!opt_.screenshot.empty() ? 60 : -1);
    if (batch && !swap_->canCopy()) {
        std::fprintf(stderr,
                     "vbdlab: this Vulkan surface cannot be read back; use `vbdlab render` for images\n");
        return 1;
    }
    sim_.setGate(Gate::Screenshot, targetFrames_);
    lastFrame_ = Clock::now();
    bool failed = false;
    for (;;) {
        try {
            while ((!window_ || !glfwWindowShouldClose(window_)) && quitCode_ < 0 && iterate()) {
            }
            break;
        } catch (const VulkanError& e) {
            // A lost device (or another failed Vulkan call) mid-run. The take so far is closed (its images,
            // take.json, the mp4's end: its frames would have a gap), the teardown frees the interop without
            // waiting for the frames the renderer will never finish (gpu/bounded_wait.h), and a new device
            // takes over (recreateDevice). Where none can be made, or the devices keep failing, the run stops
            // with what it made kept.
            std::fprintf(stderr, "vbdlab: rendering failed at frame %d: %s\n", sim_.frame(), e.what());
            if (app_.rec.on) {
                stopRecording();
                ++takesClosedOnLoss_;
            }
            constexpr int kMaxRecoveries = 3;
            if (deviceRecoveries_ < kMaxRecoveries && recreateDevice()) continue;
            failed = true;
            break;
        }
    }
    if (app_.rec.on) stopRecording();
    if (quitCode_ >= 0 && !failed) reportTiming(sim_.frame());
    sim_.setPlaying(false);
    if (ctx_) vkDeviceWaitIdle(ctx_->device);  // its result is not checked: a lost device returns at once
    if (failed) {
        std::fprintf(stderr, "vbdlab: the run stopped (exit code 1)\n");
        return 1;
    }
    if (quitCode_ > 0) return quitCode_;
    // A scripted run that went on after a lost device has a gap: the failed frame is not drawn, and a take in
    // progress then was closed there. It says so, and exits with 1 so that its caller looks.
    if (deviceRecoveries_ > 0 && batch) {
        const std::string takes = takesClosedOnLoss_ == 0   ? "no take was in progress"
                                  : takesClosedOnLoss_ == 1 ? "the take in progress was closed there"
                                                            : std::to_string(takesClosedOnLoss_) +
                                                                  " takes in progress were closed there";
        std::fprintf(stderr, "vbdlab: the run replaced a lost Vulkan device %d time%s; %s (exit code 1)\n",
                     deviceRecoveries_, deviceRecoveries_ == 1 ? "" : "s", takes.c_str());
        return 1;
    }
    if (validationMessages() > 0 && validationRequested() && batch) return 1;
    if (refusedInScript_ > 0 && batch) {
        std::fprintf(
            stderr,
            "vbdlab: the run went on after %d refusal%s of a scene or setting (a side each), keeping the "
            "current ones (exit code 2)\n",
            refusedInScript_, refusedInScript_ == 1 ? "" : "s");
        return 2;
    }
    return 0;
}

int runGui(const GuiOptions& opt) {
    try {
        GuiApp app(opt);
        return app.run();
    } catch (const VulkanError& e) {
        std::fprintf(
            stderr,
            "vbdlab: cannot start the GUI: %s\n"
            "  headless alternatives: `vbdlab sim SCENE --frames N --out DIR` (simulation, CSV) and\n"
            "  `vbdlab render SCENE --frames N --out DIR` (offscreen PNG frames, needs a Vulkan device)\n",
            e.what());
        return 2;
    } catch (const vbd::InputError& e) {
        std::fprintf(stderr, "vbdlab: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vbdlab: error: %s\n", e.what());
        return 1;
    }
}

}  // namespace vbdgui
