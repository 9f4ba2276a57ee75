// Scripted runs (`vbdlab --actions`), under a virtual X server: frame-exact recording into numbered takes,
// World rebuilds while playing, the layout of a small window, heat maps chosen while paused, and bad
// action files refused with exit code 2 before any window opens.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "xvfb_util.h"

namespace {

using namespace vbdtest;

const std::string kScenes = std::string(VBD_SOURCE_DIR) + "/assets/scenes/";

fs::path tmp(const std::string& name) { return fs::path(VBD_BINARY_DIR) / name; }

// Pixels of the 3D view of a 1280 x 720 window (x 372 to 848, inside its borders) above y1 that differ
// between a and b by more than 8 in a channel: those above row `split`, and those from it on.
std::pair<long, long> viewChanges(const Image& a, const Image& b, int split, int y1) {
    long above = 0, from = 0;
    for (int y = 0; y < y1; ++y)
        for (int x = 372; x < 848; ++x)
            for (int c = 0; c < 3; ++c)
                if (std::abs(int(a.at(x, y)[c]) - int(b.at(x, y)[c])) > 8) {
                    ++(y < split ? above : from);
                    break;
                }
    return {above, from};
}

CommandResult runActions(const std::string& name, const std::string& json, const std::string& args) {
    const fs::path a = tmp(name + ".json");
    writeFile(a, json);
    return runUnderXvfb("VBD_VALIDATION=1", "1920x1080x24",
                        vbdlabExe() + " " + args + " --actions " + a.string());
}

// A paused 1280 x 720 run of `scene` (after the actions `first`, if any) that screenshots the window, runs
// the actions `between` (JSON objects, comma separated) and screenshots it again: the run and both images
// (left empty when the run failed).
struct ShotPair {
    CommandResult run;
    Image before, after;
};
ShotPair shotsAround(const std::string& name, const std::string& scene, const std::string& between,
                     const std::string& first = "") {
    const fs::path a = tmp(name + "_a.png"), b = tmp(name + "_b.png");
    fs::remove(a);
    fs::remove(b);
    const std::string json = "[" + (first.empty() ? "" : first + ", ") + "{\"screenshot\": \"" + a.string() +
                             "\"}, " + between + ", {\"screenshot\": \"" + b.string() +
                             "\"}, {\"quit\": true}]";
    ShotPair p;
    p.run = runActions(name, json, "--scene " + kScenes + scene + " --paused --width 1280 --height 720");
    if (p.run.code == 0) p.before = load(a.string()), p.after = load(b.string());
    return p;
}

// cube_drop at 1024 x 600 driven by the actions file `a`, killed after 120 s (a hang fails the test there).
CommandResult runCubeDrop(const fs::path& a) {
    return runUnderXvfb("VBD_VALIDATION=1", "1920x1080x24",
                        "timeout -s KILL 120 " + vbdlabExe() + " --scene " + kScenes +
                            "cube_drop.json --width 1024 --height 600 --actions " + a.string());
}

// Simulation frame numbers of the PNG images of a take (frame_000123.png).
std::vector<int> takeFrames(const fs::path& take) {
    std::vector<int> f;
    const std::regex name("frame_([0-9]{6})\\.png");
    std::smatch m;
    for (const auto& e : fs::directory_iterator(take)) {
        const std::string s = e.path().filename().string();
        if (std::regex_match(s, m, name)) f.push_back(std::stoi(m[1]));
    }
    std::sort(f.begin(), f.end());
    return f;
}

// The script: a scene loaded at frame 10 while playing, a parameter changed, 30 frames recorded,
// a screenshot. Exactly 30 images, of consecutive simulation frames.
TEST(AppActions, LoadSetRecordThirtyFramesAndScreenshot) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path rec = tmp("test_actions_rec"), shot = tmp("test_actions_shot.png");
    fs::remove_all(rec);
    fs::remove(shot);
    const std::string json =
        "[{\"speed\": \"max\"},"
        " {\"frame\": 10, \"load\": \"" +
        kScenes +
        "contrast_bar.json\"},"
        " {\"frame\": 0, \"set\": {\"solver.iterations\": 20}},"
        " {\"frame\": 5, \"record\": {\"dir\": \"" +
        rec.string() +
        "\", \"format\": \"png\", \"capture\": \"view\"}},"
        " {\"frame\": 35, \"record\": \"stop\"},"
        " {\"frame\": 36, \"screenshot\": \"" +
        shot.string() +
        "\"},"
        " {\"frame\": 37, \"quit\": true}]";
    CommandResult r = runActions("test_actions_script", json,
                                 "--scene " + kScenes + "cube_drop.json --width 1280 --height 720");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 37"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("contrast_bar.json, settings solver.iterations=20"), std::string::npos)
        << r.output;
    const fs::path take = rec / "take_001";
    const std::vector<int> frames = takeFrames(take);
    ASSERT_EQ(frames.size(), 30u) << r.output;
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(frames[i], 5 + int(i));
    nlohmann::json info = nlohmann::json::parse(std::ifstream(take / "take.json"));
    EXPECT_EQ(info["images"], 30);
    EXPECT_EQ(info["first_frame"], 5);
    EXPECT_EQ(info["last_frame"], 34);
    // Real time: one image per frame of dt = 0.016666 s (the scene's value).
    EXPECT_NEAR(info["fps"].get<double>(), 1.0 / info["dt"].get<double>(), 1e-9);
    EXPECT_NEAR(info["dt"].get<double>(), 1.0 / 60, 1e-5);
    // View capture: the 3D view alone (the window minus both columns), the same size for every image.
    Image first = load((take / "frame_000005.png").string()),
          last = load((take / "frame_000034.png").string());
    EXPECT_EQ(first.w, 1280 - int(vbdgui::kLeftW) - int(vbdgui::kRightW));
    EXPECT_EQ(first.h, 720);
    EXPECT_EQ(last.w, first.w);
    // Cut from the window, the view take holds no "REC n" badge (red, at its top right) either.
    int red = 0;
    for (int y = 0; y < 30; ++y)
        for (int x = first.w - 120; x < first.w; ++x)
            red += first.at(x, y)[0] > 220 && first.at(x, y)[1] < 110 && first.at(x, y)[2] < 110;
    EXPECT_EQ(red, 0) << "red badge pixels in a take of the view";
    Image im = load(shot.string());
    EXPECT_EQ(im.w, 1280);
    EXPECT_EQ(im.h, 720);
}

// A take of the view at a size of its own is rendered offscreen; its overlay is now drawn there too, laid out
// for the take (Dear ImGui's pipeline draws into the offscreen pass, made in the swapchain's format): a
// side-by-side take says which side is which. The captions' text in the lab colours (orange left, blue
// right) at the take's top corners of each half, and no REC badge (red, top right).
TEST(AppActions, AnOffscreenTakeOfAComparisonCarriesItsCaptions) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path rec = tmp("test_actions_rec_captions");
    fs::remove_all(rec);
    const std::string json =
        "[{\"compare\": true}, {\"set_left\": {\"solver.damping\": \"naive\"}},"
        " {\"frame\": 3, \"record\": {\"dir\": \"" +
        rec.string() +
        "\", \"format\": \"png\", \"capture\": \"view\", \"size\": [960, 540]}},"
        " {\"frame\": 5, \"record\": \"stop\"}, {\"frame\": 6, \"quit\": true}]";
    CommandResult r = runActions("test_actions_rec_captions", json,
                                 "--scene " + kScenes + "damping_comparison.json --width 1280 --height 720");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    const Image im = load((rec / "take_001" / "frame_000004.png").string());
    ASSERT_EQ(im.w, 960);
    ASSERT_EQ(im.h, 540);
    long orange = 0, blue = 0, red = 0;
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 220; ++x) {
            const unsigned char *l = im.at(x, y), *rt = im.at(480 + x, y), *badge = im.at(740 + x, y);
            orange += l[0] > 180 && l[1] > 100 && l[2] < 90 && l[0] > l[1] + 40;
            blue += rt[2] > 180 && rt[2] > rt[0] + 60;
            red += badge[0] > 220 && badge[1] < 110 && badge[2] < 110;
        }
    // "left" / "solver.damping = ..." in 13 px text: over 300 pixels of each colour measured; 100 is far
    // above what the dark sky or the grey ground could give (0 without the overlay).
    EXPECT_GT(orange, 100);
    EXPECT_GT(blue, 100);
    EXPECT_EQ(red, 0);
    // Laid out for the take, not the window: the divider between the halves at the take's x = 480 (the
    // window's view halves are 442 wide), black over the grey ground.
    for (int c = 0; c < 3; ++c) EXPECT_LT(im.at(480, 400)[c], 20) << "no divider at the take's middle";
}

// A take of the view at a chosen size keeps its framing when the window is resized mid-take: the same run
// recorded with the window left at 1280 x 720 and narrowed to 800 x 900 at frame 3 gives the same frame 6
// above the take's status bar (whose step timings are the wall clock's). The run is deterministic and the
// take's camera is the same, so the images agree to the pixel; 0.5% allows a stray edge pixel. Refitted to
// the resized view instead (the take framing what the 484 x 900 view framed), the cube filled a third more
// of the take: 33% of these pixels changed.
TEST(AppActions, ResizingTheWindowLeavesTheTakesZoomAlone) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    Image frame6[2];
    for (int run = 0; run < 2; ++run) {
        const std::string name = run ? "test_actions_take_resized" : "test_actions_take_unresized";
        const fs::path rec = tmp(name);
        fs::remove_all(rec);
        const std::string json = "[{\"record\": {\"dir\": \"" + rec.string() +
                                 "\", \"format\": \"png\", \"capture\": \"view\", \"size\": [640, 360]}}," +
                                 (run ? " {\"frame\": 3, \"window\": [800, 900]}," : "") +
                                 " {\"frame\": 7, \"record\": \"stop\"}, {\"frame\": 8, \"quit\": true}]";
        CommandResult r =
            runActions(name, json, "--scene " + kScenes + "cube_drop.json --width 1280 --height 720");
        ASSERT_EQ(r.code, 0) << r.output;
        EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
        frame6[run] = load((rec / "take_001" / "frame_000006.png").string());
        ASSERT_EQ(frame6[run].w, 640);
        ASSERT_EQ(frame6[run].h, 360);
    }
    long changed = 0;
    const int rows = 330;  // above the status bar's three lines
    for (int y = 0; y < rows; ++y)
        for (int x = 0; x < 640; ++x)
            for (int c = 0; c < 3; ++c)
                if (std::abs(int(frame6[0].at(x, y)[c]) - int(frame6[1].at(x, y)[c])) > 8) {
                    ++changed;
                    break;
                }
    EXPECT_LT(changed, 640 * rows / 200) << changed << " pixels of the take changed with the window's size";
}

// The first view of a scene is framed as F frames it: the framing at start-up came before any overlay had
// measured the status bar and legends it fits the scene above, and the pyramid sat ~30 px lower than after
// F (162,971 pixels of the view differed; the scene's base under the status bar
// in an 800 x 500 window).
// Paused at frame 0, the start-up view and the view after a `camera` frame agree above the status bar, whose
// frame rate is the wall clock's.
TEST(AppActions, TheFirstViewIsFramedAsFFramesIt) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const ShotPair s =
        shotsAround("test_actions_first_frame", "rigid_pyramid.json", "{\"camera\": {\"frame\": true}}");
    ASSERT_EQ(s.run.code, 0) << s.run.output;
    const Image &a = s.before, &b = s.after;
    ASSERT_EQ(a.w, 1280);
    ASSERT_EQ(b.w, 1280);
    // F refits from the framed camera, whose target differs from the start-up one's: a few edge pixels of
    // the float rounding (4 here) may differ; 100 is far below a framing's shift.
    const auto [view, bar] = viewChanges(a, b, 660, 660);
    EXPECT_LT(view, 100) << "the start-up view is not the one F gives";
    (void)bar;
}

// The ground shadow is one smooth darkening: where the ground is seen at a grazing angle the disc lost the
// depth test to the grid's own plane in bands of rows (z-fighting: a constant pull of 8 depth steps against a
// rounding that grows with the depth slope). Counted against the same frame without shadows: pixels left
// undarkened between a darkened one above and below, 835 under the contrast bar at 1600 x 900, 1 with the
// slope-scaled bias (a grid line's edge may make one).
TEST(AppActions, TheGroundShadowHasNoBands) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path shot[2] = {tmp("test_actions_shadow_on.png"), tmp("test_actions_shadow_off.png")};
    for (const fs::path& p : shot) fs::remove(p);
    const std::string json = "[{\"frame\": 1, \"screenshot\": {\"path\": \"" + shot[0].string() +
                             "\", \"capture\": \"view\"}}, {\"frame\": 1, \"draw\": {\"shadows\": false}},"
                             " {\"frame\": 1, \"screenshot\": {\"path\": \"" +
                             shot[1].string() +
                             "\", \"capture\": \"view\"}}, {\"frame\": 1, \"quit\": true}]";
    CommandResult r = runActions("test_actions_shadow", json,
                                 "--scene " + kScenes + "contrast_bar.json --width 1600 --height 900");
    ASSERT_EQ(r.code, 0) << r.output;
    const Image on = load(shot[0].string()), off = load(shot[1].string());
    ASSERT_EQ(on.w, off.w);
    ASSERT_EQ(on.h, off.h);
    auto dark = [&](int x, int y) {  // the shadow's darkening of the grey channel
        return int(off.at(x, y)[1]) - int(on.at(x, y)[1]);
    };
    long shadow = 0, holes = 0;
    for (int y = 1; y + 1 < int(on.h); ++y)
        for (int x = 0; x < int(on.w); ++x) {
            shadow += dark(x, y) >= 3;
            holes += dark(x, y) <= 0 && dark(x, y - 1) >= 3 && dark(x, y + 1) >= 3;
        }
    EXPECT_GT(shadow, 20000) << "no shadow under the bar";
    EXPECT_LT(holes, 20) << "bands in the shadow";
}

// A take's overlay is laid out for the take, whatever the window: a 1280 x 720 take of the same frame from an
// 800 x 500 window and from a 1280 x 720 one has the same status bar (its height: the rows of the bar's
// colour up from the bottom at the left edge). Scaled by the take's height over the window's view, the
// small window's take had every caption 1.44 times larger (laid out 1.44 times narrower, the bar wrapped to
// more lines): 69 rows against 35.
TEST(AppActions, ATakesOverlayDoesNotDependOnTheWindow) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    int bar[2] = {0, 0};
    const char* windows[2] = {"--width 800 --height 500", "--width 1280 --height 720"};
    for (int run = 0; run < 2; ++run) {
        const std::string name = "test_actions_take_overlay" + std::to_string(run);
        const fs::path rec = tmp(name);
        fs::remove_all(rec);
        const std::string json = "[{\"frame\": 2, \"record\": {\"dir\": \"" + rec.string() +
                                 "\", \"format\": \"png\", \"capture\": \"view\", \"size\": [1280, 720]}},"
                                 " {\"frame\": 4, \"record\": \"stop\"}, {\"frame\": 5, \"quit\": true}]";
        CommandResult r = runActions(name, json, "--scene " + kScenes + "cube_drop.json " + windows[run]);
        ASSERT_EQ(r.code, 0) << r.output;
        const Image im = load((rec / "take_001" / "frame_000003.png").string());
        ASSERT_EQ(im.h, 720);
        const unsigned char* bottom = im.at(1, 719);
        int y = 719;
        while (y > 0 && std::abs(int(im.at(1, y - 1)[0]) - int(bottom[0])) <= 2 &&
               std::abs(int(im.at(1, y - 1)[2]) - int(bottom[2])) <= 2)
            --y;
        bar[run] = 720 - y;
    }
    EXPECT_GT(bar[1], 30) << "no status bar in the take";  // three 13 px lines
    EXPECT_EQ(bar[0], bar[1]);
}

// Checked when they run, against the scene shown: a vertex an action names must be in it (an index past the
// end was taken silently, nothing drawn, exit code 0), and a screenshot's folder is made as a take's is (a
// missing one failed as the image was written, exit code 1, not naming the action).
TEST(AppActions, AVertexOutsideTheSceneIsExitCodeTwoAndAScreenshotMakesItsFolder) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const std::string scene = "--scene " + kScenes + "cube_drop.json --width 800 --height 500";
    CommandResult r = runActions("test_actions_bad_vertex", "[{\"frame\": 1, \"inspect\": 999999}]", scene);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("actions[0].inspect: vertex 999999 is not in the scene (729 vertices: 0 to 728)"),
              std::string::npos)
        << r.output;
    r = runActions("test_actions_bad_mark", "[{\"frame\": 1, \"mark\": {\"vertex\": 729, \"text\": \"x\"}}]",
                   scene);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("actions[0].mark: vertex 729 is not in the scene"), std::string::npos)
        << r.output;
    // Side by side, a vertex for both sides must be in each (the right one reshaped to 125 vertices).
    r = runActions("test_actions_bad_mark_sides",
                   "[{\"compare\": true}, {\"set_right\": {\"soft_bodies.0.cells\": [4, 4, 4]}},"
                   " {\"frame\": 1, \"mark\": {\"vertex\": 300}}]",
                   scene);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("actions[2].mark: vertex 300 is not in the scene on the right (125 vertices"),
              std::string::npos)
        << r.output;
    const fs::path dir = tmp("test_actions_shot_folder");
    fs::remove_all(dir);
    const fs::path shot = dir / "a" / "b.png";
    r = runActions("test_actions_shot_folder",
                   "[{\"frame\": 1, \"inspect\": 728}, {\"frame\": 1, \"screenshot\": \"" + shot.string() +
                       "\"}, {\"frame\": 1, \"quit\": true}]",
                   scene);
    EXPECT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(fs::exists(shot)) << r.output;
}

TEST(AppActions, RecordingTwiceMakesTwoTakes) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path rec = tmp("test_actions_takes");
    fs::remove_all(rec);
    const std::string dir = "{\"dir\": \"" + rec.string() + "\", \"format\": \"png\"}";
    const std::string json = "[{\"speed\": \"max\"}, {\"frame\": 2, \"record\": " + dir +
                             "}, {\"frame\": 5, \"record\": \"stop\"},"
                             " {\"frame\": 8, \"record\": " +
                             dir +
                             "}, {\"frame\": 12, \"record\": \"stop\"},"
                             " {\"frame\": 13, \"quit\": true}]";
    CommandResult r = runActions("test_actions_takes", json,
                                 "--scene " + kScenes + "cube_drop.json --width 800 --height 500");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(takeFrames(rec / "take_001"), (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(takeFrames(rec / "take_002"), (std::vector<int>{8, 9, 10, 11}));
    EXPECT_FALSE(fs::exists(rec / "take_003"));
    // A take of the window does not capture the app's "REC n" badge (red, at the view's top right: 255, 60,
    // 60 and 255, 90, 90), which was in every image of it; the title says it instead.
    const vbdgui::Layout lay = vbdgui::computeLayout(800.f, 500.f, false, true, vbdgui::PanelState{});
    const Image im = load((rec / "take_002" / "frame_000010.png").string());
    ASSERT_EQ(im.w, 800);
    int red = 0;
    for (int y = 0; y < 30; ++y)
        for (int x = int(lay.viewX + lay.viewW) - 120; x < int(lay.viewX + lay.viewW); ++x)
            red += im.at(x, y)[0] > 220 && im.at(x, y)[1] < 110 && im.at(x, y)[2] < 110;
    EXPECT_EQ(red, 0) << "red badge pixels in a take of the window";
    // The panel and the log give the absolute path of each take.
    EXPECT_NE(r.output.find(fs::absolute(rec / "take_002").lexically_normal().string()), std::string::npos)
        << r.output;
}

// The freeze of issue 15: rebuilding the World while it plays (a material edit, which carries the state
// on; a scene load; a reset). Real-time pacing, as a user would run it. Frames keep advancing: a take
// that spans the material edit holds consecutive frames across it.
TEST(AppActions, RebuildWhilePlayingKeepsFramesAdvancing) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path rec = tmp("test_actions_rebuild");
    fs::remove_all(rec);
    const std::string json = "[{\"frame\": 4, \"record\": {\"dir\": \"" + rec.string() +
                             "\", \"format\": \"png\", \"capture\": \"view\", \"size\": [160, 120]}},"
                             " {\"frame\": 6, \"set\": {\"soft_bodies.0.regions.0.youngs_scale\": 100}},"
                             " {\"frame\": 8, \"set\": {\"soft_bodies.0.regions.0.youngs_scale\": 1000}},"
                             " {\"frame\": 10, \"set\": {\"soft_bodies.0.material.youngs\": 3e5}},"
                             " {\"frame\": 12, \"record\": \"stop\"},"
                             " {\"frame\": 14, \"load\": \"" +
                             kScenes +
                             "contrast_bar.json\"},"
                             " {\"frame\": 4, \"reset\": true},"
                             " {\"frame\": 6, \"quit\": true}]";
    CommandResult r = runActions("test_actions_rebuild", json,
                                 "--scene " + kScenes + "contrast_bar.json --width 1024 --height 600");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 6"), std::string::npos) << r.output;
    EXPECT_EQ(takeFrames(rec / "take_001"), (std::vector<int>{4, 5, 6, 7, 8, 9, 10, 11}));
    Image im = load((rec / "take_001" / "frame_000008.png").string());
    EXPECT_EQ(im.w, 160);  // the offscreen view capture at the chosen size
    EXPECT_EQ(im.h, 120);
}

// A take holds one run of one scene. A load and a reset while recording close the take and go on in a new
// one from the new run's frame 0 (before, the take waited for the old frame number and then held the loaded
// scene's later frames, and take.json named the scene loaded last).
TEST(AppActions, ALoadOrResetWhileRecordingStartsANewTake) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path rec = tmp("test_actions_take_runs");
    fs::remove_all(rec);
    const std::string json = "[{\"frame\": 5, \"record\": {\"dir\": \"" + rec.string() +
                             "\", \"format\": \"png\", \"capture\": \"view\", \"size\": [160, 120]}},"
                             " {\"frame\": 10, \"load\": \"" +
                             kScenes +
                             "rigid_stack.json\"},"
                             " {\"frame\": 5, \"reset\": true},"
                             " {\"frame\": 8, \"record\": \"stop\"},"
                             " {\"frame\": 9, \"quit\": true}]";
    CommandResult r = runActions("test_actions_take_runs", json,
                                 "--scene " + kScenes + "cube_drop.json --width 1024 --height 600");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(takeFrames(rec / "take_001"), (std::vector<int>{5, 6, 7, 8, 9}));
    EXPECT_EQ(takeFrames(rec / "take_002"), (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(takeFrames(rec / "take_003"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    const std::string scenes[3] = {"cube_drop.json", "rigid_stack.json", "rigid_stack.json"};
    for (int t = 0; t < 3; ++t) {
        std::ifstream in(rec / ("take_00" + std::to_string(t + 1)) / "take.json");
        const nlohmann::json info = nlohmann::json::parse(in);
        EXPECT_EQ(fs::path(info["scene"].get<std::string>()).filename().string(), scenes[t]) << t;
    }
    EXPECT_NE(r.output.find("a new run from frame 0: a new take"), std::string::npos) << r.output;
}

// Side by side, a setting that reshapes the right side's World (its state cannot be carried over: it starts
// at frame 0) restarts the left side with it. Before, the left one went on from its frame, the two sides
// never showed one frame again, and the script waited for ever (a hang of every run; killed here after 120
// s).
TEST(AppActions, ARightSideReshapedRestartsBothSidesInLockstep) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path a = tmp("test_actions_reshape.json");
    writeFile(a,
              "[{\"frame\": 2, \"compare\": true},"
              " {\"frame\": 4, \"set_right\": {\"soft_bodies.0.cells\": [4, 4, 4]}},"
              " {\"frame\": 7, \"quit\": true}]");
    CommandResult r = runCubeDrop(a);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("actions[1].set_right: the World restarted at frame 0"), std::string::npos)
        << r.output;
    // The run's last line names both sides' settings (a run of set_right alone said "no settings").
    EXPECT_NE(r.output.find("actions done at frame 7 (cube_drop.json, no settings; right: settings "
                            "soft_bodies.0.cells=[4,4,4])"),
              std::string::npos)
        << r.output;
    // Paused, the frame the next action waits for never comes after such a restart (the checker cannot
    // foresee it): exit 2 naming the action and why, instead of waiting for ever.
    writeFile(a,
              "[{\"frame\": 2, \"compare\": true}, {\"frame\": 3, \"play\": false},"
              " {\"frame\": 3, \"set_right\": {\"soft_bodies.0.cells\": [4, 4, 4]}},"
              " {\"frame\": 3, \"step\": 1}, {\"frame\": 4, \"quit\": true}]");
    r = runCubeDrop(a);
    ASSERT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("actions[3].step: waits for frame 3 while the simulation is paused (frame 0: "
                            "actions[2].set_right restarted the World"),
              std::string::npos)
        << r.output;
}

// Boxes thrown from the camera (the B key, the `throw` action) are part of the scene: a settings edit that
// rebuilds the World (a material), one that steers it (the solver), a reset and side by side (a copy for
// the right side, whose reshaping restarts both) keep them in every World. The exit line counts the
// bodies of the World the window last showed.
TEST(AppActions, ThrownBoxesStayThroughEditsResetsAndSideBySide) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path a = tmp("test_actions_throw.json");
    writeFile(a,
              "[{\"frame\": 3, \"throw\": 2},"
              " {\"frame\": 5, \"set\": {\"soft_bodies.0.material.youngs\": 2e5}},"
              " {\"frame\": 7, \"set\": {\"solver.iterations\": 12}},"
              " {\"frame\": 9, \"reset\": true},"
              " {\"frame\": 3, \"compare\": true},"
              " {\"frame\": 5, \"set_right\": {\"soft_bodies.0.cells\": [4, 4, 4]}},"
              " {\"frame\": 7, \"quit\": true}]");
    CommandResult r = runCubeDrop(a);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 7 (cube_drop.json, settings "
                            "soft_bodies.0.material.youngs=200000.0 solver.iterations=12; 2 thrown boxes, 2 "
                            "rigid bodies in the World; right: settings"),
              std::string::npos)
        << r.output;
    // Thrown at the last action of a playing run: the boxes join the World at its next step, which the run
    // takes before it ends (held at the throw's frame, it hung with the boxes never added).
    writeFile(
        a,
        "[{\"frame\": 2, \"compare\": true}, {\"frame\": 3, \"throw\": 3}, {\"frame\": 3, \"quit\": true}]");
    r = runCubeDrop(a);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 4 (cube_drop.json, no settings; 3 thrown boxes, 3 rigid "
                            "bodies in the World; right: no settings)"),
              std::string::npos)
        << r.output;
}

// The smallest window the app allows keeps a 3D view of at least kMinViewW x 500 px: the columns shrink
// and the plots collapse to a bar.
TEST(AppActions, SmallWindowKeepsA3DView) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path shot = tmp("test_actions_small.png");
    fs::remove(shot);
    const std::string json =
        "[{\"frame\": 3, \"screenshot\": \"" + shot.string() + "\"}, {\"frame\": 4, \"quit\": true}]";
    CommandResult r = runActions("test_actions_small", json,
                                 "--scene " + kScenes + "cube_drop.json --width 800 --height 500");
    ASSERT_EQ(r.code, 0) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex("3D view ([0-9]+)x([0-9]+)"))) << r.output;
    const int vw = std::stoi(m[1]), vh = std::stoi(m[2]);
    EXPECT_GE(vw, int(vbdgui::kMinViewW));
    EXPECT_EQ(vh, 500);
    Image im = load(shot.string());
    ASSERT_EQ(im.w, 800);
    const int x0 = int(vbdgui::kLeftMinW);  // the controls at their minimum width, the plots a bar
    ASSERT_EQ(vw, 800 - x0 - int(vbdgui::kCollapsedW));
    // No panel over the view: Dear ImGui's window background (near black) covers almost none of it (the
    // status bar at its bottom and the legend are translucent boxes: the top 400 rows are checked), and
    // the cube is in it.
    auto panelBg = [](const unsigned char* p) { return p[0] < 22 && p[1] < 22 && p[2] < 22; };
    EXPECT_LT(fraction(im, x0 + 2, x0 + vw - 2, 0, 400, panelBg), 0.02);
    auto orange = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[1] > p[2] + 20; };
    EXPECT_GT(fraction(im, x0, x0 + vw, 0, 500, orange), 0.01);
}

// A heat map chosen while paused is computed at once (not left stale or uniform): on the contrast bar at
// frame 0 the dominance ratio ||D_i|| / max_j ||H_ij|| is lowest at the stiff/soft interface, so the
// legend spans a real range and the bar shows more than one colour of the ramp.
TEST(AppActions, HeatFieldChosenWhilePausedIsNotUniform) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path shot = tmp("test_actions_paused_heat.png");
    fs::remove(shot);
    const std::string json = "[{\"heat\": \"dominance\"}, {\"screenshot\": {\"path\": \"" + shot.string() +
                             "\", \"capture\": \"view\"}}, {\"quit\": true}]";
    CommandResult r =
        runActions("test_actions_paused_heat", json,
                   "--scene " + kScenes + "contrast_bar.json --paused --width 1280 --height 720");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("actions done at frame 0"), std::string::npos) << r.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex("heat map range ([-0-9.e]+) to ([-0-9.e]+)")))
        << r.output;
    const double lo = std::stod(m[1]), hi = std::stod(m[2]);
    // README: 2.28 at the interface against 3.2 inside either half; corners reach higher. A stale or
    // uniform field would give lo = hi.
    EXPECT_GT(lo, 1.0);
    EXPECT_GT(hi, 1.5 * lo);
    Image im = load(shot.string());
    ASSERT_GT(im.w, 0);
    // The ramp from deep blue (low end) over light blue to green (heatMap in shaders/common.glsl): the
    // interface shows the deep blue, the halves the light blue. Lit and shaded, hence the margins.
    auto deep = [](const unsigned char* p) { return p[2] > p[0] + 60 && p[2] > p[1] + 20 && p[1] < 90; };
    auto light = [](const unsigned char* p) { return p[2] > p[0] + 60 && p[1] > 130; };
    const double d = fraction(im, 0, im.w, 0, im.h * 3 / 4, deep),
                 l = fraction(im, 0, im.w, 0, im.h * 3 / 4, light);
    EXPECT_GT(d, 0.001) << "deep " << d << " light " << l;
    EXPECT_GT(l, 0.01) << "deep " << d << " light " << l;
}

// A residual map asked for before the first step has no values (the residual is measured while a step
// iterates) and was drawn all at its low end with no legend. The legend's place now says why, as does the
// screenshot's log line. With the surfaces hidden the map itself draws nothing: the same frame without and
// with it differs by the note's box alone, at the view's bottom (cube_drop has no regions legend), and
// nowhere else in the view above the status bar. A rigid-only scene says it has nothing to colour.
TEST(AppActions, AResidualMapBeforeTheFirstStepSaysWhyItIsEmpty) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const std::string heat = "{\"heat\": \"residual\"}";
    const ShotPair hidden =
        shotsAround("test_actions_residual0", "cube_drop.json", heat, "{\"draw\": {\"surfaces\": false}}");
    CommandResult r = hidden.run;
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(
        r.output.find("at frame 0; left heat map: no range (none yet: it is measured while a step iterates"),
        std::string::npos)
        << r.output;
    const Image &a = hidden.before, &b = hidden.after;
    ASSERT_EQ(a.w, 1280);
    ASSERT_EQ(b.w, 1280);
    // The legend's place: the view's bottom, above the status bar's three lines (y 560 to 650).
    const auto [elsewhere, changed] = viewChanges(a, b, 560, 650);
    EXPECT_GT(changed, 3000) << "no note where the legend goes";
    EXPECT_EQ(elsewhere, 0);
    // With the surfaces shown the body keeps its own colour: mapped, the empty field's values sat at the
    // scale's low end and painted the cube the dark blue the legend calls converged (90,529 pixels changed).
    const ShotPair shown = shotsAround("test_actions_residual0_shown", "cube_drop.json", heat);
    ASSERT_EQ(shown.run.code, 0) << shown.run.output;
    EXPECT_EQ(viewChanges(shown.before, shown.after, 560, 650).first, 0)
        << "the body changed colour with an empty heat map";
    r = runActions("test_actions_residual0_rigid",
                   "[{\"heat\": \"residual\"}, {\"screenshot\": \"" +
                       tmp("test_actions_residual0_rigid.png").string() + "\"}, {\"quit\": true}]",
                   "--scene " + kScenes + "rigid_stack.json --paused --width 1280 --height 720");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("heat map: no range (colours soft bodies and cloths: this scene has none)"),
              std::string::npos)
        << r.output;
}

// In a single view the corner caption says when the coarse space runs (the side captions do it side by
// side): coarse_bar, paused, with it and after `solver.coarse.enabled = false` (a solver setting: it acts on
// the next step, so nothing else in the view changes). The caption's box and text change the view's top
// strip and nothing below it.
TEST(AppActions, ASingleViewSaysWhenTheCoarseSpaceRuns) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const ShotPair s = shotsAround("test_actions_coarse_caption", "coarse_bar.json",
                                   "{\"set\": {\"solver.coarse.enabled\": false}}");
    ASSERT_EQ(s.run.code, 0) << s.run.output;
    const Image &a = s.before, &b = s.after;
    ASSERT_EQ(a.w, 1280);
    ASSERT_EQ(b.w, 1280);
    const auto [top, below] = viewChanges(a, b, 30, 600);
    EXPECT_GT(top, 1500) << "no caption with the coarse space on";  // a ~230 x 20 px box and its text
    EXPECT_EQ(below, 0);
}

// The window's vertex buffer path is chosen per World and backend and said on stderr (and in the status
// line): the CPU backend names itself as the reason; switched to solver.backend = auto the buffers are
// remade and the line names the next obstacle here (no CUDA device, or lavapipe's missing exportable
// timeline under Xvfb) -- or, where everything is there, the interop.
TEST(AppActions, WindowVertexLineNamesWhyTheInteropDoesNotRun) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const std::string json =
        "[{\"speed\": \"max\"}, {\"frame\": 2, \"set\": {\"solver.backend\": \"auto\"}},"
        " {\"frame\": 6, \"quit\": true}]";
    CommandResult r = runActions("test_actions_vertex_line", json,
                                 "--scene " + kScenes + "cube_drop.json --width 1280 --height 720");
    ASSERT_EQ(r.code, 0) << r.output;
    const std::string cpu =
        "vbdlab: window (left): vertex buffer: CPU upload (no interop: the soft bodies step on "
        "the CPU: CPU backend (solver.backend = cpu))\n";
    const size_t first = r.output.find(cpu);
    ASSERT_NE(first, std::string::npos) << r.output;
    std::smatch m;
    const std::string after = r.output.substr(first + cpu.size());
    ASSERT_TRUE(std::regex_search(after, m, std::regex("vbdlab: window \\(left\\): vertex buffer: ([^\n]*)")))
        << r.output;
    const std::string line = m[1];
    const bool interop = line.rfind("CUDA-Vulkan interop (", 0) == 0;
    EXPECT_TRUE(interop || line.rfind("CPU upload (no interop: ", 0) == 0) << line;
    EXPECT_EQ(line.find("solver.backend = cpu"), std::string::npos) << line;
}

// Settings the World refuses at run time (here solver.backend: cuda where no CUDA device is usable) keep the
// World's own, which goes on stepping: the run reaches its last action (it used to wait for frames that never
// came: the refusal stopped playing), and the refused value leaves the lab's settings (a later edit that
// rebuilds the World is not refused for it). The run then ends with exit code 2 (it asked for something it
// did not get). Run --headless, without a display. Where a device is usable the
// backend switches instead, and the run ends the same way.
TEST(AppActions, RefusedSettingsKeepTheWorldSteppingToTheLastAction) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path a = tmp("test_actions_refused_backend.json");
    writeFile(a,
              "[{\"speed\": \"max\"}, {\"frame\": 2, \"set\": {\"solver.backend\": \"cuda\"}},"
              " {\"frame\": 5, \"set\": {\"soft_bodies.0.material.youngs\": 2e6}},"
              " {\"frame\": 8, \"quit\": true}]");
    CommandResult r = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout 120 " + vbdlabExe() +
                                 " --headless --scene " + kScenes + "cube_drop.json --actions " + a.string());
    EXPECT_NE(r.output.find("actions done at frame 8"), std::string::npos) << r.output;
    if (r.output.find("keeping the current settings") != std::string::npos) {
        // It went on, but what it ran is not what it asked for: exit code 2 at its end (it was 0).
        ASSERT_EQ(r.code, 2) << r.output;  // 124: timed out waiting for frame 8
        EXPECT_NE(r.output.find("the run went on after 1 refusal of a scene or setting"), std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find("cube_drop.json: solver.backend: cuda: "), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("(paused)"), std::string::npos) << r.output;
        // The refused value left the lab's settings: the edit at frame 5 rebuilds the World on the CPU (it
        // was refused again, for the backend it still held).
        EXPECT_EQ(r.output.find("keeping the current scene"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("settings soft_bodies.0.material.youngs=2000000.0)"), std::string::npos)
            << r.output;
        // A rebuild refused for it (the backend with a setting that rebuilds): the lab's settings go back to
        // the running World's (before, the exit line named the refused ones, and later rebuilds kept them).
        writeFile(a,
                  "[{\"speed\": \"max\"}, {\"frame\": 2, \"set\": {\"solver.backend\": \"cuda\","
                  " \"soft_bodies.0.material.youngs\": 2e6}}, {\"frame\": 8, \"quit\": true}]");
        r = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout 120 " + vbdlabExe() +
                       " --headless --scene " + kScenes + "cube_drop.json --actions " + a.string());
        ASSERT_EQ(r.code, 2) << r.output;
        EXPECT_NE(r.output.find("cube_drop.json: solver.backend: cuda: "), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("(keeping the current scene)"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("actions done at frame 8 (cube_drop.json, no settings)"), std::string::npos)
            << r.output;
    } else {
        EXPECT_EQ(r.code, 0) << r.output;
        EXPECT_NE(r.output.find("CUDA backend"), std::string::npos) << r.output;
    }
}

// A lost Vulkan device mid-take (the actions' fault: the frame's submit fails with VK_ERROR_DEVICE_LOST after
// its upload). With "device_lost" the app makes a new device and goes on: the run says where it failed and
// that a new device took over, the take so far is closed (its images of consecutive frames and a take.json
// that counts them: a take with a gap would not be one), the frames after it are drawn (a screenshot at frame
// 30 shows the orange cube in the view), and the run reaches its quit -- with exit code 1 and a line saying
// why, since a scripted run's outputs have a gap. With "device_gone" no new device can be made: exit code 1
// (not 2: nothing in the input was wrong), without hanging, the take closed.
// Before the twenty-seventh session every lost device ended the run; before the twenty-sixth the error left
// the main loop as "cannot start the GUI" (code 2) and the take had no take.json. Headless, without a
// display.
TEST(AppActions, ALostDeviceMidTakeIsReplacedAndTheRunGoesOn) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    for (const std::string fault : {"device_lost", "device_gone"}) {
        SCOPED_TRACE(fault);
        const bool gone = fault == "device_gone";
        const fs::path rec = tmp("test_actions_lost_device"), shot = tmp("test_actions_lost_device.png");
        fs::remove_all(rec);
        fs::remove(shot);
        const fs::path a = tmp("test_actions_lost_device.json");
        writeFile(a, "[{\"speed\": \"max\"}, {\"frame\": 1, \"record\": {\"format\": \"png\", \"dir\": \"" +
                         rec.string() + "\"}}, {\"frame\": 12, \"fault\": \"" + fault +
                         "\"}, {\"frame\": 30, \"screenshot\": \"" + shot.string() +
                         "\"}, {\"frame\": 40, \"quit\": true}]");
        CommandResult r = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY VBD_VALIDATION=1 timeout 120 " +
                                     vbdlabExe() + " --headless --width 800 --height 500 --scene " + kScenes +
                                     "cube_drop.json --actions " + a.string());
        ASSERT_EQ(r.code, 1) << r.output;  // 124: it hung
        EXPECT_NE(r.output.find("rendering failed at frame 12"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("VK_ERROR_DEVICE_LOST"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("cannot start the GUI"), std::string::npos) << r.output;
        if (gone) {
            EXPECT_EQ(r.output.find("a new Vulkan device"), std::string::npos) << r.output;
        }
        EXPECT_NE(r.output.find(gone ? "no new Vulkan device" : "actions done at frame 40"),
                  std::string::npos)
            << r.output;
        std::vector<int> want(11);
        for (int f = 0; f < 11; ++f) want[size_t(f)] = f + 1;
        EXPECT_EQ(takeFrames(rec / "take_001"), want);
        std::ifstream info(rec / "take_001" / "take.json");
        ASSERT_TRUE(info.good()) << "no take.json";
        const nlohmann::json j = nlohmann::json::parse(info);
        EXPECT_EQ(j["images"], 11);
        EXPECT_EQ(j["last_frame"], 11);
        if (gone) {
            EXPECT_FALSE(fs::exists(shot));
            continue;
        }
        ASSERT_NE(r.output.find("a new Vulkan device"), std::string::npos) << r.output;
        EXPECT_NE(
            r.output.find("replaced a lost Vulkan device 1 time; the take in progress was closed there"),
            std::string::npos)
            << r.output;
        // The validation layers found nothing on either device (the count is the run's, both devices').
        EXPECT_NE(r.output.find(", 0 validation messages"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
        const Image im = load(shot.string());
        ASSERT_EQ(im.w, 800);
        auto orange = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[1] > p[2] + 20; };
        const int x0 = int(vbdgui::kLeftMinW);
        EXPECT_GT(fraction(im, x0, 800 - int(vbdgui::kCollapsedW), 0, 500, orange), 0.01);
    }
}

// The actions' cursor rests the pointer on the sagging beam at a frame the run is held at: the hover readout
// (a tooltip naming the vertex and its det F, drawn beside the pointer) appears there and nowhere else, and
// "none" takes it away again. Three window shots of the same frame (held at the actions' gate): without a
// pointer, with it, and after "none". Within the 3D view (above its legend and status line), the first and
// the last are the same pixels, and the second differs from them only in the tooltip's box right of and
// below the pointer (Dear ImGui places it 16 px off the cursor). Headless, without a display.
TEST(AppActions, TheCursorShowsTheHoverReadoutWhereItRests) {
    std::string why;
    if (!haveVulkanDevice(why)) GTEST_SKIP() << "no Vulkan device: " << why;
    const fs::path shot[3] = {tmp("test_actions_cursor_a.png"), tmp("test_actions_cursor_b.png"),
                              tmp("test_actions_cursor_c.png")};
    for (const fs::path& p : shot) fs::remove(p);
    const int cx = 620, cy = 380;  // on the beam, in the 1280 x 720 window's view (x 370 to 850)
    const fs::path a = tmp("test_actions_cursor.json");
    writeFile(a, "[{\"heat\": \"det_f\"}, {\"frame\": 20, \"screenshot\": \"" + shot[0].string() +
                     "\"}, {\"frame\": 20, \"cursor\": [" + std::to_string(cx) + ", " + std::to_string(cy) +
                     "]}, {\"frame\": 20, \"screenshot\": \"" + shot[1].string() +
                     "\"}, {\"frame\": 20, \"cursor\": \"none\"}, {\"frame\": 20, \"screenshot\": \"" +
                     shot[2].string() + "\"}, {\"frame\": 20, \"quit\": true}]");
    CommandResult r = runCommand("env -u DISPLAY -u WAYLAND_DISPLAY timeout 120 " + vbdlabExe() +
                                 " --headless --width 1280 --height 720 --scene " + kScenes +
                                 "beam_sag.json --actions " + a.string());
    ASSERT_EQ(r.code, 0) << r.output;
    const Image im[3] = {load(shot[0].string()), load(shot[1].string()), load(shot[2].string())};
    for (const Image& i : im) ASSERT_EQ(i.w, 1280);
    const int x0 = 380, x1 = 840, y0 = 0, y1 = 600;  // inside the view, above the legend
    auto differs = [&](const Image& p, const Image& q, int x, int y) {
        for (int c = 0; c < 3; ++c)
            if (std::abs(int(p.at(x, y)[c]) - int(q.at(x, y)[c])) > 2) return true;
        return false;
    };
    long inBox = 0, outside = 0, after = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            if (differs(im[0], im[2], x, y)) ++after;
            if (!differs(im[0], im[1], x, y)) continue;
            if (x >= cx && y >= cy && y < cy + 60)
                ++inBox;
            else
                ++outside;
        }
    EXPECT_GT(inBox, 2000) << "no tooltip beside the pointer";  // two lines of text on a box ~200 x 40 px
    EXPECT_EQ(outside, 0);
    EXPECT_EQ(after, 0) << "the readout stayed after \"cursor\": \"none\"";
}

// Bad actions: exit code 2 naming the file, the action and the key, before any window (so without a
// display too), and nothing created where the actions would have written.
struct BadCase {
    const char* json;
    const char* key;
};

TEST(AppActions, BadActionsAreExitCodeTwoNamingTheActionAndKey) {
    const fs::path out = tmp("test_actions_bad_out");
    fs::remove_all(out);
    const std::string rec = "{\"record\": {\"dir\": \"" + out.string() + "\"}}";
    const BadCase cases[] = {
        {"[{\"frame\": 1, \"heat\": \"dominanse\"}]", "actions[0].heat"},
        {"[{\"frame\": 1, \"scren\": \"x.png\"}]", "actions[0].scren"},
        {"[{\"frame\": 1, \"set\": {\"solver.iterationz\": 3}}]", "actions[0].set.solver.iterationz"},
        {"[{\"frame\": 1, \"set\": {\"solver.iterations\": -1}}]", "actions[0].set.solver.iterations"},
        {"[{\"frame\": -1, \"quit\": true}]", "actions[0].frame"},
        {"[{\"play\": false}, {\"frame\": 20, \"quit\": true}]", "actions[1].frame"},
        {"[{\"heat_right\": \"residual\"}]", "actions[0].heat_right"},
        {"[{\"load\": \"no_such_scene.json\"}]", "actions[0].load"},
        {"[{\"window\": [640, 480]}]", "actions[0].window[0]"},
        {"[{\"frame\": 1, \"heat\": \"residual\", \"quit\": true}]", "actions[0].quit"},
        {"{\"steps\": [{\"title\": \"one\", \"actions\": [{\"quit\": 1}]}]}", "steps[0].actions[0].quit"},
        {"[{\"frame\": 3}, {\"frame\": 4, \"record\": {\"every\": 0}}]", "actions[1].record.every"},
        {"[{\"frame\": 2, \"fault\": \"gpu_on_fire\"}]", "actions[0].fault"},
        {"[{\"frame\": 2, \"fault\": true}]", "actions[0].fault"},
        {"[{\"frame\": 2, \"cursor\": [10]}]", "actions[0].cursor"},
        {"[{\"frame\": 2, \"cursor\": [10, -4]}]", "actions[0].cursor[1]"},
        {"[{\"frame\": 2, \"throw\": 0}]", "actions[0].throw"},
        {"[{\"set\": {\"solver.iterations\": 0}}]",
         "actions[0].set.solver.iterations: must be in [1, 100000]"},
        {"[{\"frame\": 2, \"throw\": true}]", "actions[0].throw"},
        {"[{\"frame\": 1 \"quit\": true}]", "line 1, column"},
    };
    for (const BadCase& c : cases) {
        const fs::path a = tmp("test_actions_bad.json");
        writeFile(a, std::string(c.json).substr(0, std::string(c.json).size() - 1) +
                         (std::string(c.json)[0] == '[' ? ", " + rec + "]" : "}"));
        CommandResult r = runCommand("env -u DISPLAY " + vbdlabExe() + " --scene " + kScenes +
                                     "contrast_bar.json --actions " + a.string());
        EXPECT_EQ(r.code, 2) << c.json << "\n" << r.output;
        EXPECT_NE(r.output.find("test_actions_bad.json: " + std::string(c.key)), std::string::npos)
            << c.json << "\n"
            << r.output;
        EXPECT_FALSE(fs::exists(out)) << c.json;
    }
}

}  // namespace
