// The window's device paths without a GPU: vbdlab under VBD_HOST_EXECUTOR=1 makes its Worlds with the host
// executor standing in for a CUDA device (WorldOptions::hostExecutor), and draws them through the interop's
// stand-in writer (render/interop_host.h: the exported buffers and timeline semaphores of the CUDA path,
// written by a host thread). What the device check measures on a GPU (the window's rows: snapshots whose
// particles the window read, the simulation's fetches, the hover, a lost device) is checked here on lavapipe,
// together with the pixels: a frame drawn from an interop slot must look like the CPU backend's frame.
// Headless (no display needed).
#include <gtest/gtest.h>

#include <regex>

#include "xvfb_util.h"

namespace {

using namespace vbdtest;

const std::string kScenes = std::string(VBD_SOURCE_DIR) + "/assets/scenes/";

fs::path tmp(const std::string& name) { return fs::path(VBD_BINARY_DIR) / name; }

// vbdlab headless at 1280 x 720 over cube_drop with the actions `json`; hostExecutor: VBD_HOST_EXECUTOR=1.
CommandResult runWindow(const std::string& name, const std::string& json, bool hostExecutor) {
    const fs::path a = tmp(name + ".json");
    writeFile(a, json);
    return runCommand(std::string("env -u DISPLAY -u WAYLAND_DISPLAY VBD_VALIDATION=1 ") +
                      (hostExecutor ? "VBD_HOST_EXECUTOR=1 " : "") + "timeout 120 " + vbdlabExe() +
                      " --headless --width 1280 --height 720 --scene " + kScenes +
                      "cube_drop.json --actions " + a.string());
}

// "the window read the particles of N of M snapshots" (the last such line): {N, M}, or {-1, -1}.
std::pair<long, long> snapshotsRead(const std::string& out) {
    const std::regex re("read the particles of ([0-9]+) of ([0-9]+) snapshots");
    std::pair<long, long> last{-1, -1};
    for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
        last = {std::stol((*it)[1]), std::stol((*it)[2])};
    return last;
}

// "brought the particles to the host N times": N, or -1.
long worldFetches(const std::string& out) {
    std::smatch m;
    return std::regex_search(out, m, std::regex("brought the particles to the host ([0-9]+) times"))
               ? std::stol(m[1])
               : -1;
}

// Pixels of the 3D view (1280 x 720 window: x 370 to 850; above the legend and status line) where a and b
// differ by more than `by` in some channel.
bool pixelDiffers(const Image& a, const Image& b, int x, int y, int by) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(int(a.at(x, y)[c]) - int(b.at(x, y)[c])) > by) return true;
    return false;
}

// ... counted over the view from its top down to y1 (600: above the legend).
long viewPixelsOff(const Image& a, const Image& b, int by, int y1 = 600) {
    long n = 0;
    for (int y = 0; y < y1; ++y)
        for (int x = 380; x < 840; ++x) n += pixelDiffers(a, b, x, y, by) ? 1 : 0;
    return n;
}

const char* kHostInterop = "vertex buffer: host-executor interop";

// The det F heat map of a frame drawn from an interop slot is that frame's: the falling cube's frame 40
// (after its bounce, the volume ratio changing every frame), held there by the actions, on the host executor
// with the interop and on the CPU backend with the upload; then, still held, a fixed range, and a log scale
// with another range.
// Before, the simulation thread wrote each slot with the scalars of the frame the render thread had drawn
// last (a frame or more earlier), and a held or paused scene kept them: here 32,681 of the view's 276,000
// pixels (the cube's faces) differed by more than 2 (the same geometry, other colours); and a scale changed
// after the write kept the slot's colours under the new legend (29,561 pixels). The window read the particles
// of only the snapshots made before the first device step, and the simulation never brought them to the host.
TEST(DeviceWindow, AFrameDrawnFromTheInteropCarriesItsOwnHeatMap) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    // The log scale keeps the fixed range's values (rescaleRange: alone, it hardly recolours so narrow a
    // range), and a new range in it does.
    const char* kSteps[3] = {"", ", {\"frame\": 40, \"range\": [0.999, 1.0003]}",
                             ", {\"frame\": 40, \"log\": true}, {\"frame\": 40, \"range\": [0.998, 1.0001]}"};
    Image shot[2][3];
    for (const bool host : {true, false}) {
        SCOPED_TRACE(host ? "host executor" : "CPU backend");
        const std::string name = host ? "test_devwin_heat_host" : "test_devwin_heat_cpu";
        std::string json = std::string("[{\"frame\": 0, \"set\": {\"solver.backend\": \"") +
                           (host ? "cuda" : "cpu") + "\"}}, {\"frame\": 0, \"heat\": \"det_f\"}";
        for (int k = 0; k < 3; ++k) {
            const fs::path png = tmp(name + "_" + std::to_string(k) + ".png");
            fs::remove(png);
            json += std::string(kSteps[k]) + ", {\"frame\": 40, \"screenshot\": \"" + png.string() + "\"}";
        }
        CommandResult r = runWindow(name, json + ", {\"frame\": 41, \"quit\": true}]", host);
        ASSERT_EQ(r.code, 0) << r.output;
        EXPECT_NE(r.output.find(", 0 validation messages"), std::string::npos) << r.output;
        const auto [read, shown] = snapshotsRead(r.output);
        if (host) {
            EXPECT_NE(r.output.find(kHostInterop), std::string::npos) << r.output;
            EXPECT_LE(read, 6) << r.output;  // the snapshots made before the first device step (3 or 4)
            EXPECT_GE(shown - read, 10) << r.output;
            EXPECT_EQ(worldFetches(r.output), 0) << r.output;
        } else {
            EXPECT_EQ(read, shown) << r.output;  // the CPU upload reads every snapshot's particles
        }
        for (int k = 0; k < 3; ++k) {
            shot[host ? 0 : 1][k] = load(tmp(name + "_" + std::to_string(k) + ".png").string());
            ASSERT_EQ(shot[host ? 0 : 1][k].w, 1280);
        }
    }
    // The two backends' states differ in their last bits (the CPU's SIMD sweep adds the terms in another
    // order): the same pixels up to a rounding of the colour map. Each scale recolours the cube.
    for (int k = 0; k < 3; ++k) {
        SCOPED_TRACE(k);
        EXPECT_EQ(viewPixelsOff(shot[0][k], shot[1][k], 2), 0)
            << "off by > 8: " << viewPixelsOff(shot[0][k], shot[1][k], 8);
        if (k > 0) {
            EXPECT_GT(viewPixelsOff(shot[1][k], shot[1][k - 1], 8), 5000);
        }
    }
}

// A switch of backend mid-run (to the CPU at frame 15, back to the device at frame 25) remakes the lab's
// buffers: the frame after each switch, and the next, look as the CPU backend's throughout, legend included
// (0 pixels off above the status bar). Before, the legend read the range of the buffers' last update, made
// after the UI: absent when the buffers were remade on the frame drawn (21,500 pixels in a helper's runs;
// whether the remake falls on the screenshot's frame depends on timing, so this test guards the result, not
// that case), and a frame behind on both backends (the "1: rest" marker placed with the previous frame's
// range).
TEST(DeviceWindow, ASwitchOfBackendKeepsTheLegendOfTheFrame) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const int frames[4] = {16, 17, 26, 27};
    Image shot[2][4];
    for (const bool host : {true, false}) {
        SCOPED_TRACE(host ? "host executor" : "CPU backend");
        const std::string name = host ? "test_devwin_switch_host" : "test_devwin_switch_cpu";
        const std::string dev = host ? "cuda" : "cpu";
        std::string json =
            "[{\"frame\": 0, \"set\": {\"solver.backend\": \"" + dev +
            "\"}}, {\"frame\": 0, \"heat\": \"det_f\"}, {\"frame\": 15, \"set\": "
            "{\"solver.backend\": \"cpu\"}}, {\"frame\": 25, \"set\": {\"solver.backend\": \"" +
            dev + "\"}}";
        for (int k = 0; k < 4; ++k) {
            const fs::path png = tmp(name + "_" + std::to_string(frames[k]) + ".png");
            fs::remove(png);
            json +=
                ", {\"frame\": " + std::to_string(frames[k]) + ", \"screenshot\": \"" + png.string() + "\"}";
        }
        CommandResult r = runWindow(name, json + ", {\"frame\": 28, \"quit\": true}]", host);
        ASSERT_EQ(r.code, 0) << r.output;
        if (host) {
            EXPECT_NE(r.output.find(kHostInterop), std::string::npos) << r.output;
        }
        for (int k = 0; k < 4; ++k) {
            shot[host ? 0 : 1][k] = load(tmp(name + "_" + std::to_string(frames[k]) + ".png").string());
            ASSERT_EQ(shot[host ? 0 : 1][k].w, 1280);
        }
    }
    for (int k = 0; k < 4; ++k) {
        SCOPED_TRACE(frames[k]);
        // The 3D view down to the status bar, legend included: in this 480-pixel view the bar has three lines
        // of 13 pixels and a margin of 9 (gui/overlay.cpp statusLines), its top at 720 - 48 = 672.
        EXPECT_EQ(viewPixelsOff(shot[0][k], shot[1][k], 2, 670), 0);
    }
}

// The hover readout over a scene playing on the device: the step casts the cursor's ray where the state is
// and the snapshot carries the hit (World::setSurfaceRay), so the readout reads no particles: the window
// casts no ray over the positions, reads the particles of only the snapshots made before the first device
// step, as without the cursor (the first test), the simulation fetches none, and the frame-50 shot shows the
// readout beside the pointer and nothing else changed (against the same run without the cursor). Casting over
// the positions instead (the CPU path) reads a snapshot's particles every time the pick runs (without the ray
// sent to the step: "the hover readout cast 2 rays over the positions", 5 snapshots read against 4). The
// cursor comes at frame 5, once the device steps.
TEST(DeviceWindow, TheHoverReadoutOverAPlayingDeviceSceneReadsNoParticles) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const int cx = 600, cy = 440;  // on the front face of the cube resting from frame 40
    Image shot[2];
    long reads[2] = {-1, -1};
    for (const bool cursor : {false, true}) {
        SCOPED_TRACE(cursor ? "cursor" : "no cursor");
        const fs::path png = tmp(cursor ? "test_devwin_hover_on.png" : "test_devwin_hover_off.png");
        fs::remove(png);
        const std::string at =
            cursor ? ", {\"frame\": 5, \"cursor\": [" + std::to_string(cx) + ", " + std::to_string(cy) + "]}"
                   : "";
        CommandResult r = runWindow(cursor ? "test_devwin_hover_on" : "test_devwin_hover_off",
                                    "[{\"speed\": \"max\"}, {\"frame\": 0, \"set\": {\"solver.backend\": "
                                    "\"cuda\"}}, {\"frame\": 0, \"heat\": \"det_f\"}" +
                                        at + ", {\"frame\": 50, \"screenshot\": \"" + png.string() +
                                        "\"}, {\"frame\": 60, \"quit\": true}]",
                                    true);
        ASSERT_EQ(r.code, 0) << r.output;
        ASSERT_NE(r.output.find(kHostInterop), std::string::npos) << r.output;
        reads[cursor ? 1 : 0] = snapshotsRead(r.output).first;
        // No ray cast over the positions (the line appears only when some were).
        EXPECT_EQ(r.output.find("rays over the positions"), std::string::npos) << r.output;
        EXPECT_EQ(worldFetches(r.output), 0) << r.output;
        shot[cursor ? 1 : 0] = load(png.string());
        ASSERT_EQ(shot[cursor ? 1 : 0].w, 1280);
    }
    // Only the snapshots made before the first device step (3 or 4 by the run's timing, as without the
    // cursor): none for the hover.
    EXPECT_GE(reads[0], 0);
    EXPECT_LE(reads[1], 6);
    long inBox = 0, outside = 0;
    for (int y = 0; y < 600; ++y)
        for (int x = 380; x < 840; ++x) {
            if (!pixelDiffers(shot[0], shot[1], x, y, 2)) continue;
            if (x >= cx && y >= cy && y < cy + 60)
                ++inBox;
            else
                ++outside;
        }
    EXPECT_GT(inBox, 2000) << "no readout beside the pointer";  // two lines of text on a box ~200 x 40 px
    EXPECT_EQ(outside, 0);
}

// A lost Vulkan device while the window draws from the interop (the actions' fault fails a frame's submit
// after its slot's draw was begun): the stand-in writer is torn down with that slot held, a new device takes
// over with the interop made anew (the window line again), the run reaches its end, and what it draws after
// the recovery is the CPU backend's frame (a screenshot at frame 30, heat map on).
TEST(DeviceWindow, ALostDeviceRemakesTheInteropAndTheFramesStayRight) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    Image shot[2];
    for (const bool host : {true, false}) {
        SCOPED_TRACE(host ? "host executor" : "CPU backend");
        const fs::path png = tmp(host ? "test_devwin_lost_host.png" : "test_devwin_lost_cpu.png");
        fs::remove(png);
        const std::string fault = host ? ", {\"frame\": 12, \"fault\": \"device_lost\"}" : "";
        CommandResult r =
            runWindow(host ? "test_devwin_lost_host" : "test_devwin_lost_cpu",
                      std::string("[{\"frame\": 0, \"set\": "
                                  "{\"solver.backend\": \"") +
                          (host ? "cuda" : "cpu") + "\"}}, {\"frame\": 0, \"heat\": \"det_f\"}" + fault +
                          ", {\"frame\": 30, \"screenshot\": \"" + png.string() +
                          "\"}, {\"frame\": 40, \"quit\": true}]",
                      host);
        shot[host ? 0 : 1] = load(png.string());
        if (!host) {
            ASSERT_EQ(r.code, 0) << r.output;
            continue;
        }
        ASSERT_EQ(r.code, 1) << r.output;  // 124: it hung
        EXPECT_NE(r.output.find("rendering failed at frame 12"), std::string::npos) << r.output;
        const size_t renewed = r.output.find("a new Vulkan device");
        ASSERT_NE(renewed, std::string::npos) << r.output;
        // The window line is said again for the new device (before the "new device" line or after it, as
        // the labs are remade), naming the stand-in: two in all.
        size_t lines = 0;
        for (size_t at = r.output.find(kHostInterop); at != std::string::npos;
             at = r.output.find(kHostInterop, at + 1))
            ++lines;
        EXPECT_EQ(lines, 2u) << r.output;
        EXPECT_NE(r.output.find("actions done at frame 40"), std::string::npos) << r.output;
        // No take was recording: the exit line says so (it said a take in progress was closed).
        EXPECT_NE(r.output.find("replaced a lost Vulkan device 1 time; no take was in progress"),
                  std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find(", 0 validation messages"), std::string::npos) << r.output;
        EXPECT_EQ(worldFetches(r.output), 0) << r.output;
    }
    ASSERT_EQ(shot[0].w, 1280);
    ASSERT_EQ(shot[1].w, 1280);
    EXPECT_EQ(viewPixelsOff(shot[0], shot[1], 2), 0) << "off by > 8: " << viewPixelsOff(shot[0], shot[1], 8);
}

}  // namespace
