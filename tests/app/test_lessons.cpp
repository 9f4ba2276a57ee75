// Guided lessons in the app, under a virtual X server: every lesson of assets/lessons plays all its steps
// with --autoplay, exits 0 and writes one screenshot per step; a lesson with a bad action is refused with
// exit code 2 naming the lesson, the step and the key, before any window opens.
#include <gtest/gtest.h>

#include <cctype>
#include <iterator>

#include "gui/core/layout.h"
#include "gui/core/lesson.h"
#include "xvfb_util.h"

namespace {

using namespace vbdtest;

const std::string kLessons = std::string(VBD_SOURCE_DIR) + "/assets/lessons";

fs::path tmp(const std::string& name) { return fs::path(VBD_BINARY_DIR) / name; }

class LessonAutoplay : public ::testing::TestWithParam<std::string> {};

// The window is the default 1600 x 900; no pause between steps (the test only needs each step's end).
TEST_P(LessonAutoplay, PlaysEveryStepWritesAScreenshotEachAndExitsZero) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const std::string name = GetParam();
    vbdgui::ActionContext ctx;
    ctx.scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/default.json";
    const vbdgui::Lesson L = vbdgui::loadLesson(kLessons + "/" + name, ctx);
    const fs::path dir = tmp("test_lessons_" + name);
    fs::remove_all(dir);
    CommandResult r = runUnderXvfb(
        "VBD_VALIDATION=1", "1920x1080x24",
        vbdlabExe() + " --lesson " + name + " --autoplay --step-pause 0 --screenshot-dir " + dir.string());
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(r.output.find("vulkan validation:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("lesson " + L.name + " done (" + std::to_string(L.steps.size()) + " steps)"),
              std::string::npos)
        << r.output;
    size_t pngs = 0;
    for (const auto& e : fs::directory_iterator(dir)) pngs += e.path().extension() == ".png";
    EXPECT_EQ(pngs, L.steps.size()) << r.output;
    for (int s = 0; s < int(L.steps.size()); ++s) {
        const Image im = load((dir / vbdgui::stepScreenshotName(L, s)).string());
        EXPECT_EQ(im.w, 1600) << "step " << s + 1;
        EXPECT_EQ(im.h, 900) << "step " << s + 1;
    }
}

std::vector<std::string> lessonNames() {
    std::vector<std::string> n;
    for (const std::string& d : vbdgui::listLessons(kLessons)) n.push_back(fs::path(d).filename().string());
    return n;
}

INSTANTIATE_TEST_SUITE_P(AllLessons, LessonAutoplay, ::testing::ValuesIn(lessonNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                             std::string s = i.param;
                             for (char& c : s)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return "L" + s;
                         });

// A copy of a lesson with one bad action in its second step: refused before any window (no display
// needed), exit code 2, the message names the lesson, the step and the key; no screenshot is written.
TEST(Lessons, BadActionIsExitTwoNamingLessonStepAndKey) {
    const fs::path dir = tmp("test_lessons_bad/02-broken"), shots = tmp("test_lessons_bad_shots");
    fs::remove_all(dir.parent_path());
    fs::remove_all(shots);
    fs::create_directories(dir);
    fs::copy_file(kLessons + "/02-dominance/lesson.md", dir / "lesson.md");
    std::ifstream in(kLessons + "/02-dominance/actions.json");
    std::string a((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string good = "{\"inspect\": 382}";
    ASSERT_NE(a.find(good), std::string::npos);
    a.replace(a.find(good), good.size(), "{\"set\": {\"solver.iterationz\": 3}}");
    writeFile(dir / "actions.json", a);
    CommandResult r = runCommand("env -u DISPLAY " + vbdlabExe() + " --lesson " + dir.string() +
                                 " --autoplay --screenshot-dir " + shots.string());
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("actions.json: steps[1].actions[7].set.solver.iterationz: unknown key"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(lesson 02-broken, step 2 \"One interface vertex\")"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(shots));
    // lesson.md and actions.json must agree on the steps.
    writeFile(dir / "actions.json", "{\"steps\": [{\"title\": \"only\", \"actions\": []}]}");
    r = runCommand("env -u DISPLAY " + vbdlabExe() + " --lesson " + dir.string() + " --autoplay");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("actions.json: steps: must be {\"steps\": [...]} with one group per step of "
                            "lesson.md (3 steps there, 1 here)"),
              std::string::npos)
        << r.output;
    r = runCommand("env -u DISPLAY " + vbdlabExe() + " --lesson no-such-lesson");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("no lesson 'no-such-lesson' (lessons: 01-conditioning"), std::string::npos)
        << r.output;
}

// A narrow window collapses the left column and the step floats over the 3D view's top right, where the
// right side's caption says what that side runs. The step goes below the captions: in a 1000 x 700 window
// its window, 88% opaque, hid the caption (44 blue pixels of "right / solver.chebyshev_rho = 0.9" showed
// through it; 382 show now, in 13 px text, counted as in test_app_actions' take captions).
TEST(Lessons, AFloatingStepLeavesTheSideCaptionsReadable) {
    VBD_REQUIRE_XVFB_AND_VULKAN();
    const fs::path dir = tmp("test_lessons_narrow/01-narrow"), shots = tmp("test_lessons_narrow_shots");
    fs::remove_all(dir.parent_path());
    fs::remove_all(shots);
    fs::create_directories(dir);
    writeFile(dir / "lesson.md",
              "# Narrow\n\n## Side by side\nOn the right the same 40 sweeps with Chebyshev acceleration: "
              "a step's text long enough to wrap over three lines in the floating window, as a lesson's does."
              "\n> the right side's caption.\n");
    writeFile(dir / "actions.json", "{\"steps\": [{\"title\": \"Side by side\", \"actions\": [{\"load\": \"" +
                                        std::string(VBD_SOURCE_DIR) +
                                        "/assets/scenes/hanging_bar_40.json\"}, {\"compare\": true},"
                                        " {\"set_right\": {\"solver.chebyshev_rho\": 0.9}}, {\"play\": true},"
                                        " {\"frame\": 2, \"play\": false}]}]}");
    CommandResult r = runUnderXvfb(
        "VBD_VALIDATION=1", "1920x1080x24",
        vbdlabExe() + " --lesson " + dir.string() +
            " --autoplay --step-pause 0 --width 1000 --height 700 --screenshot-dir " + shots.string());
    ASSERT_EQ(r.code, 0) << r.output;
    const vbdgui::Layout lay = vbdgui::computeLayout(1000.f, 700.f, true, true, vbdgui::PanelState{});
    ASSERT_TRUE(lay.leftCollapsed) << "the step floats over the view only with the left column collapsed";
    const Image im = load((shots / "01-narrow-step1.png").string());
    ASSERT_EQ(im.w, 1000);
    const int x0 = int(lay.viewX + lay.viewW / 2), y0 = int(lay.viewY);
    long blue = 0;
    for (int y = y0 + 6; y < y0 + 40; ++y)
        for (int x = x0 + 8; x < x0 + 200; ++x)
            blue += im.at(x, y)[2] > 180 && im.at(x, y)[2] > im.at(x, y)[0] + 60;
    EXPECT_GT(blue, 100) << "the right side's caption is hidden";
}

}  // namespace
