#pragma once
// The interactive app: a GLFW window, the Vulkan swapchain with two frames in flight, the scene renderer,
// Dear ImGui panels, the simulation thread, the timeline, the recorder and the action runner. Its
// methods live in one file per concern:
//   app.cpp       start-up, the main loop, shut-down
//   labs.cpp      scenes and Worlds: loading, settings, rebuilds, what the simulation thread publishes
//   frame.cpp     recording and submitting one frame, with window, view or offscreen captures
//   input.cpp     keys, mouse, camera, picking, the hover value
//   recorder.cpp  recording takes (frame exact, PNG or MP4)
//   action_runner.cpp  scripted runs
//   lesson_player.cpp  guided lessons (one action group per step), lesson_panel.cpp their panel
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include "gui/app_state.h"
#include "gui/core/actions.h"
#include "gui/gui.h"
#include "render/targets.h"

namespace vbdgui {

class ActionRunner;
class LessonPlayer;

constexpr uint32_t kFramesInFlight = 2;

// Seconds since the first call (steady clock): the actions' and lessons' pauses (no GLFW clock headless).
double wallSeconds();

struct FrameSlot {
    VkCommandBuffer cb = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
};

// What one frame must read back: the window (for a window or view-crop capture), and/or the 3D view
// rendered offscreen at a chosen size.
struct CaptureRequest {
    bool window = false;
    int offscreenW = 0, offscreenH = 0;  // 0: none
};

struct CaptureResult {
    Pixels window, offscreen;
};

class GuiApp {
  public:
    explicit GuiApp(const GuiOptions& opt);
    ~GuiApp();
    int run();

    // --- used by the action runner and the panels' requests (labs.cpp) ---
    AppState& state() { return app_; }
    SimRunner& sim() { return sim_; }
    // Loads a scene file into both labs (restart); false with the parser's message for a bad file.
    bool loadSceneFile(const std::string& path, std::string& error);
    // Applies key.path settings (JSON values) to lab 0, 1 or both (-1): solver keys steer the running
    // World, others rebuild it and carry its state. False with the scene parser's message.
    bool applySettings(int lab, const std::vector<std::pair<std::string, std::string>>& kv,
                       std::string& error);
    void setCompare(bool on);
    void resizeWindow(int w, int h);
    void quit(int code) { quitCode_ = code; }
    // A run that ends by itself (--screenshot, --actions, --frames, a lesson's --autoplay): nobody is there
    // to pick another scene, so a scene that cannot run is bad input (exit code 2) rather than a panel
    // message.
    bool scripted() const {
        return !opt_.screenshot.empty() || !opt_.actions.empty() || opt_.autoplay || opt_.frames >= 0;
    }
    // The next frame's submit fails as on a lost Vulkan device (the actions' "fault": tests of that path).
    // The actions' faults: the next frame's submit fails as on a lost device; with `gone`, making a new
    // device fails too (no device any more).
    void injectDeviceLost(bool gone) {
        faultDeviceLost_ = true;
        faultDeviceGone_ = gone;
    }
    // The actions' cursor: the pointer at window pixel (x, y) from the next frame on (-FLT_MAX: none).
    void setCursor(float x, float y) { cursor_ = ImVec2(x, y); }
    // True while a request to the simulation thread or the GPU buffers has not caught up with it, or the
    // camera's framing has not yet been drawn with the overlay's insets it was fitted into.
    bool settling() const;
    int renderedFrames() const { return renderedFrames_; }
    // The frame this UI frame draws: lab 0's snapshot's, when every shown lab's snapshot is at it (the labs
    // step in lockstep, but a poll may take one lab's snapshot before a publish and the other's after it);
    // -1 otherwise or before the first snapshot. Screenshots and actions go by it, not by the simulation
    // thread's newest frame, which may already be one ahead of what is drawn.
    int shownFrame() const;
    void framebufferSize(int& w, int& h) const;
    // Starts / stops a recording take (recorder.cpp).
    void startRecording(int fromFrame = -1);  // -1: the simulation thread's frame
    void stopRecording();
    const GuiOptions& options() const { return opt_; }

  private:
    // app.cpp
    void initWindow();
    void initVulkan();
    void initImGui();
    void initImGuiVulkan();
    // Everything made with the Vulkan device, in the destructor's order (the ImGui context, the window and
    // the simulation stay).
    void releaseDevice();
    // After a lost device: a new device and everything made with it; false when none can be made.
    bool recreateDevice();
    bool iterate();
    void buildUi();
    void writeScreenshot(const Pixels& window, int frame);
    void accumulateTiming();
    void reportTiming(int nowFrame);
    // labs.cpp
    bool loadInitialScene();
    void applyRequests();
    void applyTimeline();
    void throwBoxes();
    bool worldsSettling() const;  // settling() but for the camera's framing
    // Fits the camera to [lo, hi] between the overlay's insets as last measured (AppState::framing).
    void frameBox(const glm::vec3& lo, const glm::vec3& hi);
    void addThrownAfterBuild(Lab& lab);
    void rebuildLabs();
    void pollSimulation();
    void handleEvent(const SimEvent& e);
    void prepareDrawOptions();
    // frame.cpp
    bool renderFrame(const CaptureRequest& cap, CaptureResult* out);
    void recreateSwapchain();
    bool acquire(FrameSlot& f, uint32_t& image);
    void recordWindow(FrameSlot& f, uint32_t image);
    void submitAndPresent(FrameSlot& f, uint32_t image);
    void finishReadback(FrameSlot& f, Pixels& px);
    void uploadLabs();
    void makeLabGpu(int l);
    void dropLabGpu(int l);
    void recordScene(VkCommandBuffer cb, VkRect2D area, const Renderer& r, const OrbitCamera& cam);
    // Whether an offscreen take draws the view's overlay (the swapchain's colour is 8-bit UNORM).
    bool overlayInTakes() const;
    void renderOffscreen(int w, int h, Pixels& out);
    void readbackWindow(FrameSlot& f, uint32_t image, VkExtent2D ext, Pixels& out);
    // input.cpp
    void handleInput();
    void handleKeys();
    void handlePick(int labUnder, float mx, float my);
    void updateDrag(float mx, float my);
    void updateHover(int labUnder, float mx, float my);
    // lesson_player.cpp: opens the lesson asked for (--lesson, the Lessons panel) and plays its steps.
    void updateLesson();
    void openLesson();
    // recorder.cpp
    bool recordCaptureDue();
    CaptureRequest recordCaptureRequest() const;
    void recordFrame(const CaptureResult& px);
    void writeTakeInfo();
    Pixels cropToView(const Pixels& window) const;

    GuiOptions opt_;
    AppState app_;
    SimRunner sim_;
    std::unique_ptr<ActionRunner> actions_;
    std::unique_ptr<LessonPlayer> lesson_;
    GLFWwindow* window_ = nullptr;  // nullptr headless (GuiOptions::headless)
    int headlessW_ = 0, headlessH_ = 0;
    double headlessClock_ = 0;
    std::unique_ptr<Context> ctx_;
    std::unique_ptr<Swapchain> swap_;
    std::unique_ptr<Renderer> renderer_;
    std::unique_ptr<OffscreenTarget> offscreen_;   // view captures at a chosen size
    std::unique_ptr<Renderer> offscreenRenderer_;  // pipelines for the offscreen pass
    FrameSlot frames_[kFramesInFlight];
    Buffer readback_;
    VkDescriptorPool imguiPool_ = VK_NULL_HANDLE;
    bool imguiVulkan_ = false, imguiGlfw_ = false;
    uint32_t frameIndex_ = 0;
    bool resized_ = false;
    int renderedFrames_ = 0;
    std::string pendingScene_;       // scene file being loaded ("" = built-in demo)
    std::string title_ = "VBD Lab";  // the window's title as last set
    std::uint64_t pendingLoadTicket_ = 0;
    std::uint64_t lastTicket_ = 0;  // newest request made to the simulation thread
    // Each lab's last rebuild posted: its ticket and the settings it was built from (Lab::builtScene).
    std::uint64_t postedBuildTicket_[2] = {0, 0};
    SceneSettings postedBuildScene_[2];
    std::uint64_t seenTicket_ = 0;  // newest request the snapshots held by the labs reflect
    bool mouseMoved_ = false;       // no mouse before the pointer moves (scripted runs)
    ImVec2 firstMouse_{0, 0};
    vbd::ScalarField postedField_[2] = {vbd::ScalarField::None, vbd::ScalarField::None};
    int postedInspect_ = -1;
    bool postedContacts_[2] = {false, false};  // the contact markers each lab's snapshots carry
    DrawOptions effectiveDraw_[2];             // this frame's drawing options (shared colour scale applied)
    int quitCode_ = -1;
    // The built-in scene replaced the one asked for (it did not load, or its World was refused): its World's
    // arrival keeps the reason on the panel instead of clearing it.
    bool keepSceneError_ = false;
    // Scenes and settings the simulation refused while a scripted run went on (it keeps the current ones, as
    // the panel says): the run still ends with exit code 2, since what it recorded is not what it asked for.
    int refusedInScript_ = 0;
    bool faultDeviceLost_ = false, faultDeviceGone_ = false;
    int deviceRecoveries_ = 0;    // recreateDevice's successes this run
    int takesClosedOnLoss_ = 0;   // takes in progress that a lost device closed
    int releasedValidation_ = 0;  // validation messages of the devices released this run
    // The run's validation messages, every device's.
    int validationMessages() const { return releasedValidation_ + (ctx_ ? ctx_->validationMessages() : 0); }
    std::optional<ImVec2> cursor_;  // setCursor (nullopt: the mouse's)
    int hoverWaits_ = 0;            // UI frames the hover readout has waited for a device's cast
    int targetFrames_ = -1;         // --frames (with --screenshot: the frame of the shot)
    using Clock = std::chrono::steady_clock;
    Clock::time_point lastFrame_;
    // The last hover pick (updateHover): the ray it was cast along, in which lab and World, and what it hit.
    struct HoverPick {
        glm::vec3 origin{0}, dir{0};
        int lab = -1, particle = -1;
        std::uint64_t generation = 0;
        int frame = -1;
        Clock::time_point at;
        bool pending = false;  // waiting for a device's cast (the particle is the one before, or none)
        Clock::time_point waitFrom{};  // since when
    } hoverPick_;
    // This frame's hover ray per lab (nullopt: none), which the simulation thread casts with its next steps
    // (WorldSnapshot::castRay), and the last few sent (a snapshot's cast of one of them is the hit under the
    // cursor of at most that many frames ago).
    std::optional<vbd::SurfaceRay> hoverRay_[2];
    std::vector<vbd::SurfaceRay> sentRays_[2];
    Timing sum_;  // accumulated over the run, reported on exit
    int timed_ = 0;
    // Snapshots the window was done with, and how many of them it read the particles of (WorldSnapshot::
    // positionsRead: with the interop none should, unless a reader of positions is shown), reported on exit.
    long snapshotsShown_ = 0, snapshotsRead_ = 0;
    long hoverHostCasts_ = 0;  // hover readouts cast over the positions (not by a device step)
};

}  // namespace vbdgui
