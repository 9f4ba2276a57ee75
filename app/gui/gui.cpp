// The interactive app: a GLFW window, the Vulkan swapchain with two frames in flight, the scene renderer,
// Dear ImGui panels, camera and picking, side-by-side comparison, recording and screenshot mode.
#include "gui/gui.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include "gui/panels.h"
#include "gui/sim_runner.h"
#include "math/error.h"
#include "render/image_io.h"
#include "render/picking.h"
#include "render/targets.h"
#include "render/world_source.h"

namespace vbdgui {

bool available() { return true; }

namespace {

constexpr uint32_t kFramesInFlight = 2;
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void imguiCheck(VkResult r) {
    if (r < 0) vkFail(r, "Dear ImGui Vulkan backend", __FILE__, __LINE__);
}

// Leave one hardware thread to the renderer (lavapipe rasterises on the CPU too) unless the scene sets a
// thread count itself: on two cores this made both the frame rate and the step faster (less contention).
vbd::SolverDesc guiSolver(vbd::SolverDesc s) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    if (s.threads == 0) s.threads = int(hw > 1 ? hw - 1 : 1);
    return s;
}

struct FrameSlot {
    VkCommandBuffer cb = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
};

class GuiApp {
  public:
    explicit GuiApp(const GuiOptions& opt) : opt_(opt) {}
    ~GuiApp();
    int run();

  private:
    void initWindow();
    void initVulkan();
    void initImGui();
    bool loadInitialScene();
    void applySetupString();
    void applySceneRequest();
    void rebuildLab(Lab& lab);
    void simulate();
    void handleInput();
    bool renderFrame(bool capture, Pixels* shot);
    void record(Pixels& px);

    GuiOptions opt_;
    AppState app_;
    SimRunner sim_;
    GLFWwindow* window_ = nullptr;
    std::unique_ptr<Context> ctx_;
    std::unique_ptr<Swapchain> swap_;
    std::unique_ptr<Renderer> renderer_;
    FrameSlot frames_[kFramesInFlight];
    Buffer readback_;
    VkDescriptorPool imguiPool_ = VK_NULL_HANDLE;
    bool imguiVulkan_ = false, imguiGlfw_ = false;
    uint32_t frameIndex_ = 0;
    bool resized_ = false;
    int renderedFrames_ = 0;
    std::string pendingScene_;  // scene file being loaded ("" = built-in demo)
    bool pendingSceneSet_ = false;
    std::string loadAfter_;          // VBDLAB_GUI_SETUP load_after=PATH
    int resizeW_ = 0, resizeH_ = 0;  // VBDLAB_GUI_SETUP resize=WxH after a few frames
    Timing sum_;                     // accumulated over the run, reported on exit
    int timed_ = 0;
};

VkSurfaceKHR makeSurface(VkInstance inst, void* user) {
    VkSurfaceKHR s = VK_NULL_HANDLE;
    VK_CHECK(glfwCreateWindowSurface(inst, static_cast<GLFWwindow*>(user), nullptr, &s));
    return s;
}

GuiApp::~GuiApp() {
    if (app_.rec.pipe) pclose(app_.rec.pipe);
    if (ctx_) vkDeviceWaitIdle(ctx_->device);
    for (auto& lab : app_.labs) lab.gpu.reset();
    if (imguiVulkan_) ImGui_ImplVulkan_Shutdown();
    if (imguiGlfw_) ImGui_ImplGlfw_Shutdown();
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
    if (ctx_) {
        if (imguiPool_) vkDestroyDescriptorPool(ctx_->device, imguiPool_, nullptr);
        for (auto& f : frames_) {
            if (f.fence) vkDestroyFence(ctx_->device, f.fence, nullptr);
            if (f.acquired) vkDestroySemaphore(ctx_->device, f.acquired, nullptr);
        }
        ctx_->destroy(readback_);
    }
    renderer_.reset();
    swap_.reset();
    ctx_.reset();
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

void GuiApp::initWindow() {
    if (!glfwInit())
        throw VulkanError("cannot open a window (glfwInit failed: is DISPLAY a running X server?)");
    if (!glfwVulkanSupported()) throw VulkanError("GLFW finds no Vulkan loader or driver");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    window_ = glfwCreateWindow(opt_.width, opt_.height, "VBD Lab", nullptr, nullptr);
    if (!window_) throw VulkanError("glfwCreateWindow failed");
    glfwSetWindowUserPointer(window_, this);
    glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) {
        static_cast<GuiApp*>(glfwGetWindowUserPointer(w))->resized_ = true;
    });
}

void GuiApp::initVulkan() {
    ContextOptions co;
    co.validation = validationRequested();
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
    imguiGlfw_ = ImGui_ImplGlfw_InitForVulkan(window_, true);
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
    ii.ImageCount = std::max(swap_->imageCount(), kFramesInFlight);
    ii.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    ii.CheckVkResultFn = &imguiCheck;
    imguiVulkan_ = ImGui_ImplVulkan_Init(&ii, swap_->pass());
    ctx_->oneShot([](VkCommandBuffer cb) { ImGui_ImplVulkan_CreateFontsTexture(cb); });
    ImGui_ImplVulkan_DestroyFontUploadObjects();
}

// A scene that fails to load or build shows its error in the panel and the previous one keeps running.
bool GuiApp::loadInitialScene() {
    app_.sceneFiles = listScenes();
    app_.scenePath = opt_.scene;
    vbd::SceneDesc desc = defaultScene();
    if (opt_.scene.empty()) {
        // The same default scene as the headless fallback (assets/scenes/default.json); the built-in demo
        // (beam, cloth, bodies) stays in the scene picker and is used when no asset scene exists.
        for (size_t i = 0; i < app_.sceneFiles.size(); ++i) {
            std::string err;
            if (std::filesystem::path(app_.sceneFiles[i]).filename() == "default.json" &&
                loadScene(app_.sceneFiles[i], {}, desc, err)) {
                app_.sceneIndex = int(i);
                app_.scenePath = app_.sceneFiles[i];
            }
        }
    } else {
        std::string err;
        if (!loadScene(opt_.scene, {}, desc, err)) {
            std::fprintf(stderr, "vbdlab: error: %s\n", err.c_str());
            if (!opt_.screenshot.empty()) return false;  // batch use: bad input is exit code 2
            app_.sceneError = err;                       // interactive: show it over the built-in scene
            desc = defaultScene();
            app_.scenePath.clear();
        }
        std::error_code ec;
        for (size_t i = 0; i < app_.sceneFiles.size(); ++i)
            if (std::filesystem::equivalent(app_.sceneFiles[i], opt_.scene, ec)) app_.sceneIndex = int(i);
    }
    app_.labs[0].desc = desc;
    app_.labs[0].rebuild = true;
    app_.labs[1].label = "B";
    applySetupString();
    return true;
}

// VBDLAB_GUI_SETUP: the initial panel state for scripted screenshots and recordings, comma-separated:
// compare, heat=color|residual|det_f|dominance, wireframe, contacts, iterations=N, coarse, rho=R (a "_right"
// suffix applies a key to the right lab only), record, record_dir=PATH, mp4 (record through ffmpeg when it is
// on PATH), resize=WxH and load_after=SCENE.json (both after 3 frames).
// Example: VBDLAB_GUI_SETUP="compare,heat=residual,iterations_right=40". The panels change all of it later.
void GuiApp::applySetupString() {
    const char* env = std::getenv("VBDLAB_GUI_SETUP");
    if (!env) return;
    std::string s = env;
    app_.labs[1].desc = app_.labs[0].desc;  // the right lab starts as a copy; "_right" keys change it
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t end = s.find(',', pos);
        if (end == std::string::npos) end = s.size();
        std::string item = s.substr(pos, end - pos), key = item, value;
        pos = end + 1;
        if (size_t eq = item.find('='); eq != std::string::npos)
            key = item.substr(0, eq), value = item.substr(eq + 1);
        bool right = key.size() > 6 && key.compare(key.size() - 6, 6, "_right") == 0;
        if (right) key.resize(key.size() - 6);
        for (int l = 0; l < 2; ++l) {
            if (right && l == 0) continue;
            Lab& lab = app_.labs[l];
            if (key == "compare") app_.compare = true;
            if (key == "heat") {
                if (value == "color") lab.draw.field = vbd::ScalarField::Color;
                if (value == "residual")
                    lab.draw.field = vbd::ScalarField::Residual, lab.draw.logScale = true;
                if (value == "det_f") lab.draw.field = vbd::ScalarField::VolumeRatio;
                if (value == "dominance") lab.draw.field = vbd::ScalarField::DiagonalDominance;
            }
            if (key == "wireframe") lab.draw.wireframe = true;
            if (key == "contacts") lab.draw.contacts = true;
            if (key == "iterations" && !value.empty()) lab.desc.solver.iterations = std::atoi(value.c_str());
            if (key == "coarse") lab.desc.solver.coarse.enabled = true;
            if (key == "double") lab.desc.solver.precision = vbd::Precision::Double;
            if (key == "rho" && !value.empty()) lab.desc.solver.chebyshevRho = std::atof(value.c_str());
        }
        if (key == "ellipse_pair") app_.ellipse.pair = true;  // the kappa = 25 pair in the lab panel
        if (key == "ellipse_nd") app_.ellipse.nd = true;      // the random n-D mode
        if (key == "inspect" && !value.empty()) app_.inspectParticle = std::atoi(value.c_str());
        if (key == "record") app_.rec.on = true;
        if (key == "load_after" && !value.empty()) loadAfter_ = value;  // load this scene after 3 frames
        if (key == "mp4") {
            app_.rec.ffmpeg = ffmpegAvailable() ? 1 : 0;
            app_.rec.mp4 = app_.rec.ffmpeg == 1;
        }
        if (key == "record_dir" && !value.empty()) app_.rec.dir = value;
        if (key == "resize" && value.find('x') != std::string::npos) {  // exercises swapchain re-creation
            resizeW_ = std::atoi(value.c_str());
            resizeH_ = std::atoi(value.c_str() + value.find('x') + 1);
        }
    }
    app_.labs[1].rebuild = app_.compare;
}

void GuiApp::rebuildLab(Lab& lab) {
    lab.rebuild = false;
    const int index = &lab == &app_.labs[0] ? 0 : 1;
    try {
        std::string note;
        vbd::SceneDesc desc = lab.desc;
        desc.solver = guiSolver(desc.solver);
        auto world = createWorld(desc, &note);
        if (lab.gpu) vkDeviceWaitIdle(ctx_->device);
        lab.gpu.reset();
        sim_.setWorld(index, std::move(world));
        lab.world = sim_.snapshot(index);
        lab.note = note;
        lab.gpu = std::make_unique<SceneGpu>(*ctx_, *lab.world, kFramesInFlight);
        lab.recent.clear();
        lab.shownFrame = lab.world->frame();
        lab.solverDirty = false;
        app_.sceneError.clear();
        if (index == 0 && pendingSceneSet_) {
            app_.scenePath = pendingScene_;
            app_.sceneIndex = -1;
            std::error_code ec;
            for (size_t i = 0; i < app_.sceneFiles.size() && !app_.scenePath.empty(); ++i)
                if (std::filesystem::equivalent(app_.sceneFiles[i], app_.scenePath, ec))
                    app_.sceneIndex = int(i);
        }
    } catch (const std::exception& e) {
        // Keep the previous World (if any) running; say why the new one was refused.
        app_.sceneError = e.what();
        std::fprintf(stderr, "vbdlab: %s%s\n", e.what(), lab.world ? " (keeping the current scene)" : "");
        if (lab.world) lab.desc = lab.world->desc();
    }
    if (index == 0) pendingSceneSet_ = false;
}

void GuiApp::applySceneRequest() {
    if (app_.loadRequest) {
        app_.loadRequest = false;
        vbd::SceneDesc desc = defaultScene();
        std::string err;
        if (!app_.loadPath.empty() && !loadScene(app_.loadPath, {}, desc, err)) {
            app_.sceneError = err;  // the previous scene keeps running
            std::fprintf(stderr, "vbdlab: %s (keeping the current scene)\n", err.c_str());
        } else {
            pendingScene_ = app_.loadPath;  // becomes the current scene once its World is built
            pendingSceneSet_ = true;
            for (int l = 0; l < 2; ++l) {
                app_.labs[l].desc = desc;
                app_.labs[l].rebuild = l == 0 || app_.compare;
            }
            app_.frameRequest = true;
        }
    }
    if (app_.resetRequest) {
        app_.resetRequest = false;
        for (int l = 0; l < (app_.compare ? 2 : 1); ++l) app_.labs[l].rebuild = true;
    }
    while (app_.throwRequests > 0) {
        // The box joins the running World (World::addRigidBody, applied by the simulation thread before its
        // next step), leaving the camera along the view direction at 8 m/s.
        --app_.throwRequests;
        glm::vec3 eye = app_.camera.eye(), dir = glm::normalize(app_.camera.target - eye);
        vbd::RigidBodyDesc b;
        b.key = "rigid_bodies[" + std::to_string(app_.labs[0].desc.rigidBodies.size()) + "]";
        b.size = {0.4f, 0.4f, 0.4f};
        glm::vec3 p = eye + 0.6f * app_.camera.distance * dir;
        b.position = {p.x, p.y, p.z};
        b.velocity = {8 * dir.x, 8 * dir.y, 8 * dir.z};
        for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
            app_.labs[l].desc.rigidBodies.push_back(b);  // so that a reset keeps it
            if (app_.labs[l].world)
                app_.labs[l].world->addRigidBody(b);
            else
                app_.labs[l].rebuild = true;
        }
    }
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l)
        if (app_.labs[l].rebuild) rebuildLab(app_.labs[l]);
    if (app_.frameRequest && app_.labs[0].world) {
        glm::vec3 lo, hi;
        sceneBounds(*app_.labs[0].world, lo, hi);
        app_.camera.frame(lo, hi, app_.viewW / float(app_.compare ? 2 : 1) / std::max(app_.viewH, 1.0f));
        app_.frameRequest = false;
    }
}

// Hands the UI's requests to the simulation thread and picks up its latest snapshots.
void GuiApp::simulate() {
    const int labs = app_.compare ? 2 : 1;
    sim_.setActive(labs);
    sim_.setPlaying(app_.playing);
    if (app_.stepRequests > 0) sim_.requestSteps(app_.stepRequests);
    app_.stepRequests = 0;
    for (int l = 0; l < labs; ++l) {
        Lab& lab = app_.labs[l];
        sim_.setField(l, lab.draw.field);
        if (!lab.world) continue;
        if (lab.solverDirty) {
            lab.world->setSolver(guiSolver(lab.desc.solver));  // queued for the worker's next step
            lab.solverDirty = false;
        }
        auto snap = sim_.snapshot(l);
        if (!snap) continue;
        lab.world = snap;
        lab.stepMs = sim_.lastStepMs(l);
        if (snap->frame() != lab.shownFrame) {
            lab.shownFrame = snap->frame();
            lab.recent.push_back(snap->lastConvergence());
            while (lab.recent.size() > size_t(kRecentFrames)) lab.recent.pop_front();
        }
    }
    std::string err = sim_.takeError();
    if (!err.empty()) {
        app_.sceneError = err;
        app_.playing = false;
    }
    app_.timing.simMs = sim_.lastTickMs();
}

void GuiApp::handleInput() {
    ImGuiIO& io = ImGui::GetIO();
    if (!io.WantCaptureKeyboard) {
        if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) app_.playing = !app_.playing;
        if (ImGui::IsKeyPressed(GLFW_KEY_N) || ImGui::IsKeyPressed(GLFW_KEY_S))
            app_.stepRequests++, app_.playing = false;
        if (ImGui::IsKeyPressed(GLFW_KEY_R)) app_.resetRequest = true;
        if (ImGui::IsKeyPressed(GLFW_KEY_F)) app_.frameRequest = true;
        if (ImGui::IsKeyPressed(GLFW_KEY_B)) app_.throwRequests++;
        if (ImGui::IsKeyPressed(GLFW_KEY_V)) app_.rec.on = !app_.rec.on;
    }
    const float mx = io.MousePos.x, my = io.MousePos.y;
    const bool inView =
        mx >= app_.viewX && mx < app_.viewX + app_.viewW && my >= app_.viewY && my < app_.viewY + app_.viewH;
    const int labs = app_.compare ? 2 : 1;
    const float subW = app_.viewW / float(labs);
    int labUnder = std::clamp(int((mx - app_.viewX) / subW), 0, labs - 1);
    auto rayAt = [&](int lab) {
        return app_.camera.ray(mx - app_.viewX - subW * float(lab), my - app_.viewY, subW, app_.viewH);
    };
    PickState& pk = app_.pick;
    if (!io.WantCaptureMouse && inView) {
        if (io.MouseWheel != 0) app_.camera.zoom(io.MouseWheel);
        if (ImGui::IsMouseClicked(0) && io.KeyShift && app_.labs[labUnder].world) {
            PickHit hit = pick(*app_.labs[labUnder].world, rayAt(labUnder));
            if (hit.particle >= 0 || hit.body >= 0) {
                pk.active = true;
                pk.lab = labUnder;
                pk.particle = hit.particle;
                if (hit.particle >= 0) app_.inspectParticle = hit.particle;
                pk.body = hit.body;
                pk.depth = hit.t;
                pk.anchor = pk.target = hit.point;
                if (hit.body >= 0) {
                    auto b = app_.labs[labUnder].world->bodies()[size_t(hit.body)];
                    vbd::Vec3 local = vbd::rotateInv(
                        b.rotation, vbd::Vec3(hit.point.x, hit.point.y, hit.point.z) - b.position);
                    pk.grabLocal = {local.x, local.y, local.z};
                }
            }
        }
    }
    if (pk.active) {
        Lab& lab = app_.labs[pk.lab];
        if (!ImGui::IsMouseDown(0) || !lab.world) {
            if (lab.world) {
                if (pk.particle >= 0) lab.world->setDrag(-1, {}, 0);
                if (pk.body >= 0) lab.world->setBodyDrag(-1, {}, {}, 0);
            }
            pk.active = false;
            lab.draw.drag = false;
            lab.draw.highlightParticle = -1;
        } else {
            // The target stays at the grab depth along the current cursor ray (a plane facing the camera).
            Ray r = rayAt(pk.lab);
            pk.target = r.origin + pk.depth * r.dir;
            vbd::Vec3 t(pk.target.x, pk.target.y, pk.target.z);
            glm::vec3 from;
            if (pk.particle >= 0) {
                lab.world->setDrag(pk.particle, t, pk.stiffness);
                const auto& x = lab.world->positions()[size_t(pk.particle)];
                from = {x.x, x.y, x.z};
            } else {
                lab.world->setBodyDrag(pk.body, vbd::Vec3(pk.grabLocal.x, pk.grabLocal.y, pk.grabLocal.z), t,
                                       pk.stiffness);
                auto b = lab.world->bodies()[size_t(pk.body)];
                vbd::Vec3 w = b.position + vbd::rotate(b.rotation, vbd::Vec3(pk.grabLocal.x, pk.grabLocal.y,
                                                                             pk.grabLocal.z));
                from = {w.x, w.y, w.z};
            }
            lab.draw.drag = true;
            lab.draw.dragFrom = from;
            lab.draw.dragTo = pk.target;
            lab.draw.highlightParticle = pk.particle;
        }
        return;
    }
    if (!io.WantCaptureMouse && inView) {
        if (ImGui::IsMouseDragging(0) && !io.KeyShift)
            app_.camera.orbit(-io.MouseDelta.x * 0.008f, io.MouseDelta.y * 0.008f);
        if (ImGui::IsMouseDragging(1) || ImGui::IsMouseDragging(2))
            app_.camera.pan(io.MouseDelta.x, io.MouseDelta.y, app_.viewH);
    }
}

// Records and submits one frame; with capture, also copies the swapchain image (scene + panels) to shot.
bool GuiApp::renderFrame(bool capture, Pixels* shot) {
    FrameSlot& f = frames_[frameIndex_];
    VK_CHECK(vkWaitForFences(ctx_->device, 1, &f.fence, VK_TRUE, UINT64_MAX));
    uint32_t image = 0;
    VkResult r =
        vkAcquireNextImageKHR(ctx_->device, swap_->handle(), UINT64_MAX, f.acquired, VK_NULL_HANDLE, &image);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        int w, h;
        glfwGetFramebufferSize(window_, &w, &h);
        swap_->recreate(uint32_t(w), uint32_t(h));
        ImGui_ImplVulkan_SetMinImageCount(swap_->minImageCount());
        return false;
    }
    if (r != VK_SUBOPTIMAL_KHR) VK_CHECK(r);
    VK_CHECK(vkResetFences(ctx_->device, 1, &f.fence));

    auto tu = Clock::now();
    const int labs = app_.compare ? 2 : 1;
    for (int l = 0; l < labs; ++l)
        if (app_.labs[l].gpu && app_.labs[l].world)
            app_.labs[l].gpu->update(*app_.labs[l].world, app_.labs[l].draw, frameIndex_);
    app_.timing.uploadMs = msSince(tu);

    VK_CHECK(vkResetCommandBuffer(f.cb, 0));
    auto bi = vkInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(f.cb, &bi));
    VkClearValue cv[2];
    std::memcpy(cv[0].color.float32, kClearColor, sizeof kClearColor);
    cv[1].depthStencil = {1.0f, 0};
    auto rbi = vkInfo<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
    rbi.renderPass = swap_->pass();
    rbi.framebuffer = swap_->framebuffer(image);
    rbi.renderArea = {{0, 0}, swap_->extent()};
    rbi.clearValueCount = 2;
    rbi.pClearValues = cv;
    vkCmdBeginRenderPass(f.cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    const VkExtent2D ext = swap_->extent();
    const float subW = app_.viewW / float(labs);
    for (int l = 0; l < labs; ++l) {
        if (!app_.labs[l].gpu) continue;
        int32_t x0 = int32_t(app_.viewX + subW * float(l)), y0 = int32_t(app_.viewY);
        int32_t x1 = std::min(int32_t(app_.viewX + subW * float(l + 1)), int32_t(ext.width));
        int32_t y1 = std::min(int32_t(app_.viewY + app_.viewH), int32_t(ext.height));
        if (x1 <= x0 || y1 <= y0) continue;
        VkRect2D area{{x0, y0}, {uint32_t(x1 - x0), uint32_t(y1 - y0)}};
        renderer_->draw(f.cb, *app_.labs[l].gpu, frameIndex_, app_.camera, area, app_.labs[l].draw);
    }
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), f.cb);
    vkCmdEndRenderPass(f.cb);
    const bool copy = capture && swap_->canCopy();
    if (copy) {
        const VkDeviceSize bytes = VkDeviceSize(ext.width) * ext.height * 4;
        if (readback_.size < bytes) {
            ctx_->destroy(readback_);
            readback_ = ctx_->createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
        }
        VkImage img = swap_->image(image);
        transitionImage(f.cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                        VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                        VK_PIPELINE_STAGE_TRANSFER_BIT);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {ext.width, ext.height, 1};
        vkCmdCopyImageToBuffer(f.cb, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback_.buffer, 1, &region);
        transitionImage(f.cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                        VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_READ_BIT, 0,
                        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    }
    VK_CHECK(vkEndCommandBuffer(f.cb));

    VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    VkSemaphore done = swap_->renderDone(image);
    auto si = vkInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.waitSemaphoreCount = 1;
    si.pWaitSemaphores = &f.acquired;
    si.pWaitDstStageMask = &waitStage;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &f.cb;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &done;
    VK_CHECK(vkQueueSubmit(ctx_->queue, 1, &si, f.fence));
    auto pi = vkInfo<VkPresentInfoKHR>(VK_STRUCTURE_TYPE_PRESENT_INFO_KHR);
    pi.waitSemaphoreCount = 1;
    pi.pWaitSemaphores = &done;
    VkSwapchainKHR sc = swap_->handle();
    pi.swapchainCount = 1;
    pi.pSwapchains = &sc;
    pi.pImageIndices = &image;
    r = vkQueuePresentKHR(ctx_->queue, &pi);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR || resized_) {
        resized_ = false;
        int w, h;
        glfwGetFramebufferSize(window_, &w, &h);
        swap_->recreate(uint32_t(w), uint32_t(h));
        ImGui_ImplVulkan_SetMinImageCount(swap_->minImageCount());
    } else {
        VK_CHECK(r);
    }
    if (copy && shot) {
        VK_CHECK(vkWaitForFences(ctx_->device, 1, &f.fence, VK_TRUE, UINT64_MAX));
        shot->width = ext.width;
        shot->height = ext.height;
        shot->rgba.resize(size_t(ext.width) * ext.height * 4);
        std::memcpy(shot->rgba.data(), readback_.mapped, shot->rgba.size());
        if (swap_->bgr())
            for (size_t i = 0; i < shot->rgba.size(); i += 4) std::swap(shot->rgba[i], shot->rgba[i + 2]);
        for (size_t i = 3; i < shot->rgba.size(); i += 4) shot->rgba[i] = 255;
    }
    frameIndex_ = (frameIndex_ + 1) % kFramesInFlight;
    return true;
}

void GuiApp::record(Pixels& px) {
    RecordState& rec = app_.rec;
    if (rec.mp4) {
        if (!rec.pipe) {
            std::string cmd = "ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgba -s " +
                              std::to_string(px.width) + "x" + std::to_string(px.height) +
                              " -r 60 -i - -pix_fmt yuv420p -vf \"pad=ceil(iw/2)*2:ceil(ih/2)*2\" \"" +
                              rec.dir + ".mp4\"";
            rec.pipe = popen(cmd.c_str(), "w");
            rec.status = rec.pipe ? "recording to " + rec.dir + ".mp4" : "cannot start ffmpeg";
            if (!rec.pipe) {
                rec.on = false;
                return;
            }
        }
        std::fwrite(px.rgba.data(), 1, px.rgba.size(), rec.pipe);
    } else {
        std::filesystem::create_directories(rec.dir);
        char name[64];
        std::snprintf(name, sizeof name, "/frame_%05d.png", rec.frame);
        writePng(rec.dir + name, px);
        rec.status = "PNG sequence in " + rec.dir + "/ (" + std::to_string(rec.frame + 1) + " frames)";
    }
    ++rec.frame;
}

int GuiApp::run() {
    initWindow();
    initVulkan();
    initImGui();
    if (!loadInitialScene()) return 2;
    const bool screenshotMode = !opt_.screenshot.empty();
    const int targetFrames = opt_.frames >= 0 ? opt_.frames : (screenshotMode ? 60 : -1);
    if (screenshotMode && !swap_->canCopy()) {
        std::fprintf(stderr,
                     "vbdlab: this Vulkan surface cannot be read back; use `vbdlab render` for images\n");
        return 1;
    }
    sim_.setStopAt(targetFrames);
    auto last = Clock::now();
    while (!glfwWindowShouldClose(window_)) {
        glfwPollEvents();
        int fw, fh;
        glfwGetFramebufferSize(window_, &fw, &fh);
        if (fw == 0 || fh == 0) {  // minimised: nothing to draw into
            glfwWaitEvents();
            continue;
        }
        // Layout: control panel left, plots right, the scene in between.
        app_.viewX = leftPanelWidth(app_);
        app_.viewY = 0;
        app_.viewW = std::max(1.0f, float(fw) - app_.viewX - (app_.showPlots ? kRightPanelWidth : 0.0f));
        app_.viewH = float(fh);
        applySceneRequest();
        simulate();

        ImGui_ImplVulkan_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        controlPanel(app_, float(fh));
        if (app_.showPlots) plotsPanel(app_, float(fw) - kRightPanelWidth, float(fh));
        viewportOverlay(app_);
        handleInput();
        ImGui::Render();

        const int nowFrame = app_.labs[0].world ? app_.labs[0].world->frame() : 0;
        // Screenshot once the scene reached its frame and ImGui has laid its windows out (a few frames).
        const bool shotNow =
            screenshotMode && nowFrame >= targetFrames && renderedFrames_ >= (resizeW_ > 0 ? 10 : 3);
        const bool capture = shotNow || app_.rec.on;
        Pixels px;
        auto tr = Clock::now();
        if (!renderFrame(capture, &px)) continue;
        app_.timing.renderMs = msSince(tr) - app_.timing.uploadMs;
        ++renderedFrames_;
        if (renderedFrames_ == 3 && resizeW_ > 0 && resizeH_ > 0)
            glfwSetWindowSize(window_, resizeW_, resizeH_);
        if (renderedFrames_ == 3 && !loadAfter_.empty()) app_.loadRequest = true, app_.loadPath = loadAfter_;
        if (app_.rec.on && !px.rgba.empty()) record(px);
        if (!app_.rec.on && app_.rec.pipe) {
            pclose(app_.rec.pipe);
            app_.rec.pipe = nullptr;
            app_.rec.status = "wrote " + app_.rec.dir + ".mp4";
        }
        if (shotNow) {
            writePng(opt_.screenshot, px);
            if (timed_ > 0)
                std::fprintf(
                    stderr,
                    "vbdlab: mean over %d frames: %.1f ms a frame (%.1f FPS); simulation thread %.1f ms a "
                    "step, upload %.2f ms, render %.1f ms\n",
                    timed_, sum_.frameMs / timed_, 1000.0 * timed_ / sum_.frameMs, sum_.simMs / timed_,
                    sum_.uploadMs / timed_, sum_.renderMs / timed_);
            std::fprintf(stderr, "vbdlab: wrote %s (%ux%u) after %d frames; %d validation messages\n",
                         opt_.screenshot.c_str(), px.width, px.height, nowFrame, ctx_->validationMessages());
            break;
        }
        if (!screenshotMode && targetFrames >= 0 && nowFrame >= targetFrames &&
            renderedFrames_ > targetFrames + 2)
            break;
        app_.timing.frameMs = msSince(last);
        app_.timing.fps = 1000.0 / std::max(app_.timing.frameMs, 1e-3);
        last = Clock::now();
        if (renderedFrames_ > 3) {  // skip start-up (pipeline and font upload)
            sum_.frameMs += app_.timing.frameMs, sum_.simMs += app_.timing.simMs;
            sum_.uploadMs += app_.timing.uploadMs, sum_.renderMs += app_.timing.renderMs;
            ++timed_;
        }
    }
    sim_.setPlaying(false);
    vkDeviceWaitIdle(ctx_->device);
    return ctx_->validationMessages() > 0 && validationRequested() && screenshotMode ? 1 : 0;
}

}  // namespace

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
