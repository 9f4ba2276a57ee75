// The app end to end under a virtual X server: `vbdlab --scene F --frames N --screenshot OUT.png` must exit
// 0, print no Vulkan validation message, and leave a PNG that holds both the panels and the scene.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "gui/app_state.h"
#include "render/vk_context.h"

namespace {

namespace fs = std::filesystem;

struct CommandResult {
    int code = -1;
    std::string output;
};

CommandResult runCommand(const std::string& cmd) {
    CommandResult r;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// Runs `inner` under xvfb-run and returns inner's own exit status: xvfb-run sometimes replaces it with its
// own (e.g. 5, "problem while cleaning up temporary directory", when the client exits quickly).
CommandResult runUnderXvfb(const std::string& env, const std::string& screen, const std::string& inner) {
    CommandResult r = runCommand(env + " " + std::string(XVFB_RUN) + " -a -s \"-screen 0 " + screen +
                                 "\" sh -c '" + inner + "; echo vbdlab-exit=$?'");
    const size_t at = r.output.rfind("vbdlab-exit=");
    r.code = at == std::string::npos ? -1 : std::atoi(r.output.c_str() + at + 12);
    return r;
}

std::string vbdlabExe() {
    const char* env = std::getenv("VBDLAB");  // lets the test run against an installed binary
    return env && *env ? env : VBDLAB_EXE;
}

bool haveVulkanDevice(std::string& why) {
    try {
        vbdgui::ContextOptions o;
        vbdgui::Context ctx(o);
        return true;
    } catch (const vbdgui::VulkanError& e) {
        why = e.what();
        return false;
    }
}

struct Image {
    int w = 0, h = 0;
    std::vector<unsigned char> px;
    const unsigned char* at(int x, int y) const { return &px[(size_t(y) * size_t(w) + size_t(x)) * 4]; }
};

Image load(const std::string& path) {
    Image im;
    int comp = 0;
    unsigned char* d = stbi_load(path.c_str(), &im.w, &im.h, &comp, 4);
    if (d) {
        im.px.assign(d, d + size_t(im.w) * size_t(im.h) * 4);
        stbi_image_free(d);
    }
    return im;
}

// Fraction of pixels in [x0, x1) x [y0, y1) that satisfy pred.
template <typename P>
double fraction(const Image& im, int x0, int x1, int y0, int y1, P pred) {
    long n = 0, hit = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x, ++n) hit += pred(im.at(x, y)) ? 1 : 0;
    return n ? double(hit) / double(n) : 0;
}

TEST(AppSmoke, ScreenshotHoldsPanelsAndScene) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;

    const fs::path out = fs::path(VBD_BINARY_DIR) / "test_app_smoke.png";
    fs::remove(out);
    const std::string scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json";
    const std::string cmd = vbdlabExe() + " --scene " + scene +
                            " --frames 20 --width 1600 --height 900 --screenshot " + out.string();
    CommandResult r = runUnderXvfb("VBD_VALIDATION=1", "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("0 validation messages"), std::string::npos) << r.output;

    Image im = load(out.string());
    ASSERT_EQ(im.w, 1600);
    ASSERT_EQ(im.h, 900);
    const int left = int(vbdgui::kLeftPanelWidth), right = im.w - int(vbdgui::kRightPanelWidth);
    // Panel: Dear ImGui text is light grey on a near-black window, a few percent of the pixels (the
    // bounds leave room for a short or a dense panel); the background is darker than the scene's clear
    // colour.
    auto text = [](const unsigned char* p) { return p[0] > 150 && p[1] > 150 && p[2] > 150; };
    const double panelText = fraction(im, 0, left, 0, im.h, text);
    EXPECT_GT(panelText, 0.01);
    EXPECT_LT(panelText, 0.40);
    // Scene: the cube is drawn in the soft-body orange (r > g > b by a margin) somewhere in the viewport,
    // covering at least 0.2 % of it (the framed cube covers far more; nothing else is orange).
    auto orange = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[1] > p[2] + 20; };
    EXPECT_GT(fraction(im, left, right, 0, im.h, orange), 0.002);
    // The panel's window background is near black over most of its area.
    auto dark = [](const unsigned char* p) { return p[0] < 45 && p[1] < 45 && p[2] < 45; };
    EXPECT_GT(fraction(im, 0, left, 0, im.h, dark), 0.5);
    // Ground grid: the floor below the horizon is lighter than the clear colour over much of the viewport.
    auto clearColour = [](const unsigned char* p) {
        const int c[3] = {33, 36, 43};  // kClearColor * 255
        return std::abs(p[0] - c[0]) <= 2 && std::abs(p[1] - c[1]) <= 2 && std::abs(p[2] - c[2]) <= 2;
    };
    EXPECT_LT(fraction(im, left, right, im.h / 2, im.h, clearColour), 0.5);
    // Plots: the convergence curve is drawn in the lab colour (255, 170, 90) in the right panel.
    auto curve = [](const unsigned char* p) { return p[0] > 230 && p[1] > 140 && p[1] < 200 && p[2] < 130; };
    EXPECT_GT(fraction(im, right, im.w, 0, im.h / 3, curve), 0.0005);
}

TEST(AppSmoke, BadSceneInScreenshotModeIsExitCodeTwo) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path bad = fs::path(VBD_BINARY_DIR) / "test_app_bad_scene.json";
    {
        FILE* f = std::fopen(bad.string().c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("{ \"name\": \"bad\", \"dt\": -1, \"no_such_key\": 3 }", f);
        std::fclose(f);
    }
    const std::string cmd = vbdlabExe() + " --scene " + bad.string() + " --frames 2 --screenshot " +
                            (fs::path(VBD_BINARY_DIR) / "unused.png").string();
    CommandResult r = runUnderXvfb("", "1280x720x24", cmd);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(bad.filename().string()), std::string::npos)
        << r.output;  // message names the file
}

TEST(AppSmoke, NoDisplayNamesTheHeadlessCommands) {
    const std::string cmd =
        "env -u DISPLAY -u WAYLAND_DISPLAY " + vbdlabExe() + " --frames 1 --screenshot /nonexistent/x.png";
    CommandResult r = runCommand(cmd);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("vbdlab render"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("vbdlab sim"), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST(RenderCommand, WritesOnePngPerFrameWithTheScene) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_render_command";
    fs::remove_all(dir);
    const std::string cmd = "VBD_VALIDATION=1 " + vbdlabExe() + " render " + std::string(VBD_SOURCE_DIR) +
                            "/assets/scenes/cube_drop.json --frames 3 --width 200 --height 150 --out " +
                            dir.string();
    CommandResult r = runCommand(cmd);
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    for (int f = 1; f <= 3; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "frame_%05d.png", f);
        Image im = load((dir / name).string());
        ASSERT_EQ(im.w, 200) << name;
        ASSERT_EQ(im.h, 150) << name;
        // The camera frames the scene's bounds with a 30 % margin, so the cube covers a sizeable part
        // of the image (>= 2 %) and does not fill it (<= 60 %).
        auto orange = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[1] > p[2] + 20; };
        const double cover = fraction(im, 0, im.w, 0, im.h, orange);
        EXPECT_GT(cover, 0.02) << name;
        EXPECT_LT(cover, 0.60) << name;
    }
    EXPECT_FALSE(fs::exists(dir / "frame_00004.png"));
}

TEST(RenderCommand, BadSceneIsExitCodeTwoAndWritesNothing) {
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_render_bad";
    fs::remove_all(dir);
    const fs::path bad = fs::path(VBD_BINARY_DIR) / "test_render_bad_scene.json";
    FILE* f = std::fopen(bad.string().c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{ \"soft_bodies\": [ { \"type\": \"box_grid\", \"cells\": [0, 1, 1] } ] }", f);
    std::fclose(f);
    CommandResult r =
        runCommand(vbdlabExe() + " render " + bad.string() + " --frames 2 --out " + dir.string());
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_FALSE(fs::exists(dir)) << "a refused scene must not create the output folder";
}

}  // namespace

namespace {

TEST(AppSmoke, ResizeAndRecordingStayValidationClean) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path out = fs::path(VBD_BINARY_DIR) / "test_app_resize.png";
    const fs::path rec = fs::path(VBD_BINARY_DIR) / "test_app_recording";
    fs::remove(out);
    fs::remove_all(rec);
    // The window starts at 1280x720 and is resized to 1024x640 after three frames (swapchain re-creation
    // with two frames in flight), while every frame is recorded as PNG.
    const std::string cmd =
        vbdlabExe() + " --scene " + std::string(VBD_SOURCE_DIR) +
        "/assets/scenes/cube_drop.json --frames 5 --width 1280 --height 720 --screenshot " + out.string();
    CommandResult r =
        runUnderXvfb("VBD_VALIDATION=1 VBDLAB_GUI_SETUP=resize=1024x640,record,record_dir=" + rec.string(),
                     "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    Image im = load(out.string());
    EXPECT_EQ(im.w, 1024);
    EXPECT_EQ(im.h, 640);
    // Recording started with the first frame: frames before and after the resize are on disk, with the
    // sizes of the window at the time.
    Image first = load((rec / "frame_00000.png").string());
    EXPECT_EQ(first.w, 1280);
    EXPECT_EQ(first.h, 720);
    int n = 0;
    for (const auto& e : fs::directory_iterator(rec)) n += e.path().extension() == ".png" ? 1 : 0;
    EXPECT_GE(n, 10);  // the screenshot waits ten rendered frames when resizing
}

}  // namespace

namespace {

TEST(AppSmoke, NoVulkanDeviceNamesTheHeadlessCommands) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    // An ICD list that names no driver: the window opens but no Vulkan device exists.
    const std::string cmd =
        vbdlabExe() + " --frames 1 --screenshot " + (fs::path(VBD_BINARY_DIR) / "unused.png").string();
    CommandResult r = runUnderXvfb(
        "VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json", "1280x720x24", cmd);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("vbdlab sim"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("vbdlab render"), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST(AppSmoke, Mp4RecordingPipesRawFramesIntoFfmpeg) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    // A stand-in ffmpeg first on PATH records its arguments and how many bytes it was fed.
    const fs::path bin = fs::path(VBD_BINARY_DIR) / "fake_ffmpeg";
    fs::create_directories(bin);
    const fs::path args = bin / "args.txt", bytes = bin / "bytes.txt";
    fs::remove(args);
    fs::remove(bytes);
    {
        FILE* f = std::fopen((bin / "ffmpeg").string().c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fprintf(f, "#!/bin/sh\necho \"$@\" > %s\nwc -c > %s\n", args.string().c_str(),
                     bytes.string().c_str());
        std::fclose(f);
        fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
    }
    const std::string cmd =
        vbdlabExe() + " --scene " + std::string(VBD_SOURCE_DIR) +
        "/assets/scenes/cube_drop.json --frames 5 --width 640 --height 360 --screenshot " +
        (fs::path(VBD_BINARY_DIR) / "test_app_mp4.png").string();
    CommandResult r = runUnderXvfb("PATH=" + bin.string() + ":$PATH VBDLAB_GUI_SETUP=record,mp4,record_dir=" +
                                       (fs::path(VBD_BINARY_DIR) / "test_app_mp4").string(),
                                   "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 0) << r.output;
    std::string a, b;
    {
        std::ifstream fa(args), fb(bytes);
        std::getline(fa, a);
        std::getline(fb, b);
    }
    EXPECT_NE(a.find("-f rawvideo -pix_fmt rgba -s 640x360"), std::string::npos) << a;
    EXPECT_NE(a.find("test_app_mp4.mp4"), std::string::npos) << a;
    // Whole RGBA frames of the window only, and at least the three frames before the screenshot.
    const long long n = std::atoll(b.c_str()), frame = 640LL * 360 * 4;
    EXPECT_EQ(n % frame, 0) << n;
    EXPECT_GE(n / frame, 3) << n;
}

}  // namespace

namespace {

TEST(AppSmoke, FailedSceneLoadShowsTheErrorAndKeepsThePreviousScene) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path bad = fs::path(VBD_BINARY_DIR) / "test_app_load_bad.json";
    {
        FILE* f = std::fopen(bad.string().c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("{ \"solver\": { \"iterations\": 0 } }", f);
        std::fclose(f);
    }
    const fs::path out = fs::path(VBD_BINARY_DIR) / "test_app_load_bad.png";
    fs::remove(out);
    const std::string cmd =
        vbdlabExe() + " --scene " + std::string(VBD_SOURCE_DIR) +
        "/assets/scenes/cube_drop.json --frames 30 --width 1280 --height 720 --screenshot " + out.string();
    // The GUI is asked to open the invalid scene after three frames, as the scene picker would.
    CommandResult r =
        runUnderXvfb("VBD_VALIDATION=1 VBDLAB_GUI_SETUP=load_after=" + bad.string(), "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("test_app_load_bad.json"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("keeping the current scene"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("after 30 frames"), std::string::npos) << r.output;  // the cube kept stepping
    Image im = load(out.string());
    ASSERT_GT(im.w, 0);
    // The panel shows the error in red (1, 0.35, 0.3) and the viewport still shows the orange cube.
    auto red = [](const unsigned char* p) { return p[0] > 200 && p[1] < 120 && p[2] < 110; };
    EXPECT_GT(fraction(im, 0, int(vbdgui::kLeftPanelWidth), 0, im.h / 3, red), 0.001);
    auto orange = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[1] > p[2] + 20; };
    EXPECT_GT(
        fraction(im, int(vbdgui::kLeftPanelWidth), im.w - int(vbdgui::kRightPanelWidth), 0, im.h, orange),
        0.002);
}

}  // namespace
