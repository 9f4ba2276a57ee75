// Guided lessons in the app, under a virtual X server: every lesson of assets/lessons plays all its steps
// with --autoplay, exits 0 and writes one screenshot per step; a lesson with a bad action is refused with
// exit code 2 naming the lesson, the step and the key, before any window opens.
#include <gtest/gtest.h>

#include <cctype>
#include <iterator>

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

}  // namespace
