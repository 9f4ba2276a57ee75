// The app end to end under a virtual X server: `vbdlab --scene F --frames N --screenshot OUT.png` must exit
// 0, print no Vulkan validation message, and leave a PNG that holds both the panels and the scene.
#include <gtest/gtest.h>

#include "gui/core/layout.h"
#include "xvfb_util.h"

namespace {

using namespace vbdtest;

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
    const int left = int(vbdgui::kLeftW), right = im.w - int(vbdgui::kRightW);
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
    // Plots: the convergence curve is drawn in the lab colour (230, 159, 0) in the right panel.
    auto curve = [](const unsigned char* p) { return p[0] > 200 && p[1] > 130 && p[1] < 190 && p[2] < 60; };
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
    EXPECT_NE(r.output.find("--headless"), std::string::npos) << r.output;
    // --headless alone would run forever with nobody to close it: bad input, before anything starts.
    CommandResult h =
        runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout 60 " + vbdlabExe() + " --headless");
    EXPECT_EQ(h.code, 2) << h.output;
    EXPECT_NE(h.output.find("--headless: needs a run that ends by itself"), std::string::npos) << h.output;
    // Runs that would wait for ever or fail in the driver: refused before anything starts (each hung, or
    // failed in vkBindImageMemory, before).
    const std::string scene = " --scene " + std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json";
    const struct {
        const char* args;
        const char* says;
    } refused[] = {
        {" --headless --frames 3 --paused --screenshot /nonexistent/x.png",
         "--paused: the run would wait for ever"},
        {" --headless --paused --screenshot /nonexistent/x.png", "for frame 60 (--screenshot)"},
        {" --headless --frames -3 --screenshot /nonexistent/x.png", "--frames"},
        {" --headless --width 100000 --frames 1 --screenshot /nonexistent/x.png", "--width"},
        {" --headless --autoplay", "--autoplay: needs --lesson NAME"},
        // The actions say when to screenshot and quit (an action after --frames waited for ever).
        {" --headless --frames 10 --actions " VBD_SOURCE_DIR "/docs/screenshots/actions/hover.json",
         "--frames: not with --actions"},
        {" --headless --screenshot /nonexistent/x.png --actions " VBD_SOURCE_DIR
         "/docs/screenshots/actions/hover.json",
         "--screenshot: not with --actions"},
        // Where the images go: checked and made before the window opens (these failed after the run with
        // exit code 1 and no reason, or were ignored: an empty path, a PNG written as x.jpg, nan seconds).
        {" --headless --frames 3 --screenshot /proc/vbd_none/x.png",
         "--screenshot: cannot create the folder"},
        {" --headless --frames 3 --screenshot /tmp/x.jpg", "--screenshot: must end in .png"},
        {" --headless --frames 3 --screenshot ''", "--screenshot: must name a file"},
        {" --headless --frames 3 --screenshot /tmp", "--screenshot: must end in .png"},
        {" --headless --lesson 2 --autoplay --screenshot-dir /proc/vbd_none",
         "--screenshot-dir: cannot create the folder"},
        {" --headless --lesson 2 --autoplay --step-pause nan", "--step-pause: must be a number of seconds"},
    };
    for (const auto& c : refused) {
        CommandResult p = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout -s KILL 60 " + vbdlabExe() +
                                     scene + c.args);
        EXPECT_EQ(p.code, 2) << c.args << "\n" << p.output;
        EXPECT_NE(p.output.find(c.says), std::string::npos) << c.args << "\n" << p.output;
    }
}

// A first scene that cannot run is bad input in every run that ends by itself: one that does not parse (with
// --frames alone it said so and exited 0), and one that parses but whose World is refused (a mesh of random
// bytes: the run spun at full CPU for ever, waiting for frames no World would make). Headless, no display.
TEST(AppSmoke, AFirstSceneThatCannotRunEndsAScriptedRunWithTwo) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_app_first_scene";
    fs::create_directories(dir);
    std::string garbage(3000, '\0');
    for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = char((i * 7919 + 13) % 251);
    std::ofstream(dir / "garbage.obj", std::ios::binary) << garbage;
    std::ofstream(dir / "refused.json") << R"({"soft_bodies": [{"type": "mesh", "path": "garbage.obj"}]})";
    std::ofstream(dir / "malformed.json") << "{bad";
    std::ofstream(dir / "actions.json") << R"([{"frame": 0, "play": true}, {"frame": 3, "quit": true}])";
    const struct {
        const char* scene;
        std::string args;
        const char* says;
    } runs[] = {
        {"refused.json", " --actions " + (dir / "actions.json").string(), "garbage.obj"},
        {"refused.json", " --frames 3", "garbage.obj"},
        {"refused.json", " --frames 3 --screenshot " + (dir / "x.png").string(), "garbage.obj"},
        {"malformed.json", " --frames 3", "malformed JSON"},
    };
    for (const auto& c : runs) {
        CommandResult r = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout -s KILL 60 " + vbdlabExe() +
                                     " --headless --scene " + (dir / c.scene).string() + c.args);
        EXPECT_EQ(r.code, 2) << c.scene << c.args << "\n" << r.output;  // 137: killed, it hung
        EXPECT_NE(r.output.find(c.says), std::string::npos) << r.output;
    }
    EXPECT_FALSE(fs::exists(dir / "x.png"));
}

// A headless scripted run without a quit action ends with its list, once the last action's effect is drawn
// (it ran until killed before: nobody can close a window that is not there).
TEST(AppSmoke, AHeadlessListWithoutQuitEndsWithTheList) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path shot = fs::path(VBD_BINARY_DIR) / "test_app_no_quit.png";
    const fs::path actions = fs::path(VBD_BINARY_DIR) / "test_app_no_quit.json";
    fs::remove(shot);
    std::ofstream(actions) << "[{\"frame\": 3, \"screenshot\": \"" << shot.string() << "\"}]";
    CommandResult r =
        runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout -s KILL 120 " + vbdlabExe() +
                   " --headless --width 1024 --height 600 --scene " + std::string(VBD_SOURCE_DIR) +
                   "/assets/scenes/cube_drop.json --actions " + actions.string());
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(fs::exists(shot)) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 3 (cube_drop.json, no settings); the list has no quit"),
              std::string::npos)
        << r.output;
}

// --headless renders the window's frames without a display (render/targets.h): the same scene and panels as
// the window under Xvfb, validation-clean, with no DISPLAY at all. The state at the screenshot frame is the
// same in both (the screenshot gate stops the simulation there); what may differ is what depends on wall
// time (the timing lines and plots, the real-time ratio in the status bar, the FPS). Compared: the 3D view
// above the status bar and the left panel above its timing lines, pixel by pixel. Measured: 0 of the view's
// pixels differ by more than 8/255 in a channel, and 0.02-0.13% of the panel's (the real-time ratio next to
// the frame number); the bound, 0.5%, leaves room for such text; a frame of another time (frame 19 against
// 20: the cube has moved) differs in 3.4% of the view.
TEST(AppSmoke, HeadlessFrameIsTheWindowsFrameWithoutADisplay) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const std::string scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json";
    auto args = [&](const fs::path& out, int frames) {
        return " --scene " + scene + " --frames " + std::to_string(frames) +
               " --width 1280 --height 720 --screenshot " + out.string();
    };
    const fs::path win = fs::path(VBD_BINARY_DIR) / "test_app_window.png";
    const fs::path head = fs::path(VBD_BINARY_DIR) / "test_app_headless.png";
    const fs::path other = fs::path(VBD_BINARY_DIR) / "test_app_headless_19.png";
    for (const fs::path& p : {win, head, other}) fs::remove(p);
    CommandResult w = runUnderXvfb("VBD_VALIDATION=1", "1280x720x24", vbdlabExe() + args(win, 20));
    ASSERT_EQ(w.code, 0) << w.output;
    CommandResult h = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY VBD_VALIDATION=1 " + vbdlabExe() +
                                 " --headless" + args(head, 20));
    ASSERT_EQ(h.code, 0) << h.output;
    EXPECT_NE(h.output.find("0 validation messages"), std::string::npos) << h.output;
    CommandResult o =
        runCommand("env -u DISPLAY -u WAYLAND_DISPLAY " + vbdlabExe() + " --headless" + args(other, 19));
    ASSERT_EQ(o.code, 0) << o.output;
    const Image a = load(win.string()), b = load(head.string()), c = load(other.string());
    ASSERT_EQ(a.w, 1280);
    ASSERT_EQ(a.h, 720);
    ASSERT_EQ(b.w, a.w);
    ASSERT_EQ(b.h, a.h);
    ASSERT_EQ(c.w, a.w);
    auto differing = [](const Image& x, const Image& y, int x0, int x1, int y0, int y1) {
        long n = 0, off = 0;
        for (int yy = y0; yy < y1; ++yy)
            for (int xx = x0; xx < x1; ++xx, ++n) {
                const unsigned char *p = x.at(xx, yy), *q = y.at(xx, yy);
                bool d = false;
                for (int k = 0; k < 3; ++k) d |= std::abs(int(p[k]) - int(q[k])) > 8;
                off += d ? 1 : 0;
            }
        return double(off) / double(n);
    };
    const vbdgui::Layout lay = vbdgui::computeLayout(1280.f, 720.f, false, true, vbdgui::PanelState{});
    const int vx0 = int(lay.viewX), vx1 = int(lay.viewX + lay.viewW), vy1 = int(lay.viewH) - 40;
    const double view = differing(a, b, vx0, vx1, 0, vy1), panel = differing(a, b, 0, vx0, 0, 360);
    std::printf(
        "  headless vs window: %.4f%% of the view, %.4f%% of the panel differ; frame 19: %.2f%% of the "
        "view\n",
        100 * view, 100 * panel, 100 * differing(a, c, vx0, vx1, 0, vy1));
    EXPECT_LT(view, 0.005);
    EXPECT_LT(panel, 0.005);
    EXPECT_GT(differing(a, c, vx0, vx1, 0, vy1), 0.005);  // the comparison sees another frame
}

// The camera a run starts with frames the World's first state, whatever frame the simulation had reached
// when the UI first saw it: a scripted run (whose first action holds the simulation at frame 0 until it runs)
// and a --frames run (the simulation plays at real time while the UI starts) give the same view at frame 20,
// pixel for pixel. (The camera framed the first snapshot the UI saw: the --frames run's view had the grid
// shifted.)
TEST(AppSmoke, TheStartingCameraDoesNotDependOnWhenTheUiFirstSawTheWorld) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const std::string scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json";
    Image shots[2];
    for (int k = 0; k < 2; ++k) {
        const fs::path png = fs::path(VBD_BINARY_DIR) / ("test_app_pace_" + std::to_string(k) + ".png");
        const fs::path act = fs::path(VBD_BINARY_DIR) / "test_app_pace.json";
        fs::remove(png);
        std::string run = " --frames 20 --screenshot " + png.string();
        if (k == 1) {
            writeFile(act, "[{\"speed\": \"max\"}, {\"frame\": 20, \"screenshot\": \"" + png.string() +
                               "\"}, {\"frame\": 20, \"quit\": true}]");
            run = " --actions " + act.string();
        }
        CommandResult r = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout 120 " + vbdlabExe() +
                                     " --headless --width 1280 --height 720 --scene " + scene + run);
        ASSERT_EQ(r.code, 0) << r.output;
        shots[k] = load(png.string());
        ASSERT_EQ(shots[k].w, 1280);
    }
    const vbdgui::Layout lay = vbdgui::computeLayout(1280.f, 720.f, false, true, vbdgui::PanelState{});
    const int vx0 = int(lay.viewX), vx1 = int(lay.viewX + lay.viewW), vy1 = int(lay.viewH) - 40;
    long off = 0;
    for (int y = 0; y < vy1; ++y)
        for (int x = vx0; x < vx1; ++x)
            for (int c = 0; c < 3; ++c) off += shots[0].at(x, y)[c] != shots[1].at(x, y)[c] ? 1 : 0;
    EXPECT_EQ(off, 0) << "channel values of the view that differ";
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
    const fs::path actions = fs::path(VBD_BINARY_DIR) / "test_app_resize.json";
    fs::remove(out);
    fs::remove_all(rec);
    // The window starts at 1280x720 and is resized to 1024x640 at frame 3 (swapchain re-creation with two
    // frames in flight), while every frame is recorded as PNG.
    writeFile(actions, "[{\"record\": {\"dir\": \"" + rec.string() +
                           "\", \"format\": \"png\"}}, {\"frame\": 3, \"window\": [1024, 640]},"
                           " {\"frame\": 5, \"screenshot\": \"" +
                           out.string() + "\"}, {\"frame\": 6, \"quit\": true}]");
    const std::string cmd = vbdlabExe() + " --scene " + std::string(VBD_SOURCE_DIR) +
                            "/assets/scenes/cube_drop.json --width 1280 --height 720 --actions " +
                            actions.string();
    CommandResult r = runUnderXvfb("VBD_VALIDATION=1", "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    Image im = load(out.string());
    EXPECT_EQ(im.w, 1024);
    EXPECT_EQ(im.h, 640);
    // Recording started with frame 0: frames before and after the resize are on disk, with the sizes of the
    // window at the time, one image per simulation frame 0..5 (the quit at frame 6 stops the take first).
    Image first = load((rec / "take_001" / "frame_000000.png").string());
    EXPECT_EQ(first.w, 1280);
    EXPECT_EQ(first.h, 720);
    Image last = load((rec / "take_001" / "frame_000005.png").string());
    EXPECT_EQ(last.w, 1024);
    EXPECT_EQ(last.h, 640);
    int n = 0;
    for (const auto& e : fs::directory_iterator(rec / "take_001"))
        n += e.path().extension() == ".png" ? 1 : 0;
    EXPECT_EQ(n, 6);
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
    writeFile(bin / "ffmpeg",
              "#!/bin/sh\necho \"$@\" > " + args.string() + "\nwc -c > " + bytes.string() + "\n");
    fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_app_mp4",
                   actions = fs::path(VBD_BINARY_DIR) / "test_app_mp4.json";
    fs::remove_all(dir);
    writeFile(actions, "[{\"record\": {\"dir\": \"" + dir.string() +
                           "\", \"format\": \"mp4\"}}, {\"frame\": 4, \"quit\": true}]");
    const std::string cmd = vbdlabExe() + " --scene " + std::string(VBD_SOURCE_DIR) +
                            "/assets/scenes/cube_drop.json --width 800 --height 500 --actions " +
                            actions.string();
    CommandResult r = runUnderXvfb("PATH=" + bin.string() + ":$PATH", "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 0) << r.output;
    std::string a, b;
    {
        std::ifstream fa(args), fb(bytes);
        std::getline(fa, a);
        std::getline(fb, b);
    }
    EXPECT_NE(a.find("-f rawvideo -pix_fmt rgba -s 800x500"), std::string::npos) << a;
    // Real time: -r 1/dt with the scene's dt = 0.0166667 s (printed to 6 digits).
    const size_t rate = a.find("-r ");
    ASSERT_NE(rate, std::string::npos) << a;
    EXPECT_NEAR(std::atof(a.c_str() + rate + 3), 1 / 0.0166667, 1e-3) << a;
    EXPECT_NE(a.find((dir / "take_001" / "take.mp4").string()), std::string::npos) << a;
    // Whole RGBA frames of the window only: one per simulation frame 0..3.
    const long long n = std::atoll(b.c_str()), frame = 800LL * 500 * 4;
    EXPECT_EQ(n, 4 * frame) << n;
}

}  // namespace

namespace {

TEST(AppSmoke, SceneTheEngineRefusesShowsTheErrorAndKeepsThePreviousScene) {
    if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN)) GTEST_SKIP() << "xvfb-run is not installed";
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    // It parses (so the actions file is accepted) but the World refuses it: a mesh body whose surface is
    // open (one triangle), which TetGen cannot fill. The World is built on the simulation thread; the cube
    // must keep stepping meanwhile.
    const fs::path bad = fs::path(VBD_BINARY_DIR) / "test_app_load_bad.json";
    writeFile(fs::path(VBD_BINARY_DIR) / "test_app_open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    writeFile(bad, "{ \"soft_bodies\": [ { \"type\": \"mesh\", \"path\": \"test_app_open.obj\" } ] }");
    const fs::path out = fs::path(VBD_BINARY_DIR) / "test_app_load_bad.png",
                   actions = fs::path(VBD_BINARY_DIR) / "test_app_load_bad_actions.json";
    fs::remove(out);
    writeFile(actions, "[{\"speed\": \"max\"}, {\"frame\": 3, \"load\": \"" + bad.string() +
                           "\"}, {\"frame\": 30, \"screenshot\": \"" + out.string() +
                           "\"}, {\"frame\": 31, \"quit\": true}]");
    const std::string cmd = vbdlabExe() + " --scene " + std::string(VBD_SOURCE_DIR) +
                            "/assets/scenes/cube_drop.json --width 1280 --height 720 --actions " +
                            actions.string();
    CommandResult r = runUnderXvfb("VBD_VALIDATION=1", "1920x1080x24", cmd);
    ASSERT_EQ(r.code, 2)
        << r.output;  // it went on, but the scene it asked for never ran (exit code 0 before)
    EXPECT_NE(r.output.find("the run went on after 1 refusal of a scene or setting"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("open surface"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("keeping the current scene"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 31"), std::string::npos)
        << r.output;  // the cube kept stepping
    Image im = load(out.string());
    ASSERT_GT(im.w, 0);
    // The panel shows the error in red (1, 0.35, 0.3) and the viewport still shows the orange cube.
    auto red = [](const unsigned char* p) { return p[0] > 200 && p[1] < 120 && p[2] < 110; };
    EXPECT_GT(fraction(im, 0, int(vbdgui::kLeftW), 0, im.h / 3, red), 0.001);
    auto orange = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[1] > p[2] + 20; };
    EXPECT_GT(fraction(im, int(vbdgui::kLeftW), im.w - int(vbdgui::kRightW), 0, im.h, orange), 0.002);
}

}  // namespace

namespace {

// `--vertices interop` insists on the CUDA-Vulkan interop: where it cannot run (here: the soft bodies step on
// the CPU) the command refuses with the reason, before writing anything; `auto` falls back and says so.
TEST(RenderCommand, InteropVerticesRefusedWithTheReasonAutoFallsBack) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_render_interop";
    fs::remove_all(dir);
    const std::string base =
        vbdlabExe() + " render " + std::string(VBD_SOURCE_DIR) +
        "/assets/scenes/cube_drop.json --frames 1 --width 64 --height 48 --backend cpu --out " + dir.string();
    CommandResult r = runCommand(base + " --vertices interop");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(
        r.output.find("--vertices: interop is not available here (vertex buffer: CPU upload (no interop: the "
                      "soft bodies step on the CPU: CPU backend (solver.backend = cpu)))"),
        std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(dir));
    r = runCommand(base + " --vertices auto");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("vbdlab: vertex buffer: CPU upload (no interop: the soft bodies step on the CPU"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("vbdlab: scene update "), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(dir / "frame_00001.png"));
    r = runCommand(base + " --vertices sometimes");
    EXPECT_EQ(r.code, 2) << r.output;
}

}  // namespace
