// The window-free half of the lessons: lesson.md parsed into steps (title, text, what to look at), the
// bold numbers a step quotes, lesson names resolved, and the checks that refuse a bad lesson.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "gui/core/lesson.h"
#include "math/error.h"

namespace vbdgui {
namespace {

namespace fs = std::filesystem;

std::string parseError(const std::string& md) {
    try {
        Lesson L;
        parseLessonText(md, "lesson.md", L);
    } catch (const vbd::InputError& e) {
        return e.what();
    }
    return "";
}

TEST(LessonText, StepsTitlesTextAndLook) {
    Lesson L;
    parseLessonText(
        "# Title of it\n\n## First\nLine one\ncontinues **87 sweeps**.\n\nSecond paragraph.\n> look here\n"
        "## Second\nText **with emphasis** and **0.47**, **1e-6**.\n",
        "lesson.md", L);
    EXPECT_EQ(L.title, "Title of it");
    ASSERT_EQ(L.steps.size(), 2u);
    EXPECT_EQ(L.steps[0].title, "First");
    EXPECT_EQ(L.steps[0].text, "Line one continues **87 sweeps**.\nSecond paragraph.");
    EXPECT_EQ(L.steps[0].look, "look here");
    EXPECT_EQ(plainText(L.steps[0].text), "Line one continues 87 sweeps.\nSecond paragraph.");
    EXPECT_EQ(quotedNumbers(L.steps[0].text), (std::vector<std::string>{"87 sweeps"}));
    // Emphasis without a number is not a quote.
    EXPECT_EQ(quotedNumbers(L.steps[1].text), (std::vector<std::string>{"0.47", "1e-6"}));
}

TEST(LessonText, FirstNumber) {
    double v = 0;
    EXPECT_TRUE(firstNumber("87 sweeps", v));
    EXPECT_EQ(v, 87);
    EXPECT_TRUE(firstNumber("rho 0.852", v));
    EXPECT_DOUBLE_EQ(v, 0.852);
    EXPECT_TRUE(firstNumber("1e-6", v));
    EXPECT_DOUBLE_EQ(v, 1e-6);
    EXPECT_TRUE(firstNumber("2.1e4 J", v));
    EXPECT_DOUBLE_EQ(v, 2.1e4);
    EXPECT_FALSE(firstNumber("no number", v));
}

TEST(LessonText, RefusesWhatItCannotShow) {
    EXPECT_NE(parseError("## Step\ntext\n").find("lesson.md: no \"# Title\" line"), std::string::npos);
    EXPECT_NE(parseError("text first\n# Title\n").find("lesson.md: line 1: must start with"),
              std::string::npos);
    EXPECT_NE(parseError("# Title\njust text\n").find("no steps"), std::string::npos);
    EXPECT_NE(parseError("# Title\n## Empty\n\n## Next\ntext\n").find("step 1: needs a title and text"),
              std::string::npos);
    EXPECT_NE(parseError("# Title\n## A\ntext\n# Again\n").find("line 4"), std::string::npos);
}

std::string actionsError(const std::string& text) {
    ActionContext ctx;
    ctx.scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/contrast_bar.json";
    try {
        parseActions(text, "a.json", ctx);
    } catch (const vbd::InputError& e) {
        return e.what();
    }
    return "";
}

// The verbs lessons add to the actions language, accepted and refused with the key named.
TEST(LessonActions, MarkCaptionPlotPause) {
    EXPECT_EQ(
        actionsError("[{\"mark\": {\"vertex\": 3, \"text\": \"here\"}},"
                     " {\"mark\": {\"region\": {\"min\": [0,0,0], \"max\": [1,1,1]}}},"
                     " {\"mark\": {\"arrow\": {\"from\": [0,0,0], \"to\": [1,1,1]}}}, {\"mark\": \"clear\"},"
                     " {\"caption\": \"a line\"}, {\"plot\": \"com_y\"}, {\"pause\": 0.5},"
                     " {\"lab\": {\"nd\": true, \"nd_kappa\": 1e6, \"nd_coupling\": 0.6}},"
                     " {\"compare\": true}, {\"mark_right\": {\"vertex\": 1}}]"),
        "");
    EXPECT_NE(actionsError("[{\"mark\": {\"vertex\": 3, \"arrow\": {\"from\": [0,0,0], \"to\": [1,1,1]}}}]")
                  .find("a.json: actions[0].mark: needs exactly one of vertex, region, arrow"),
              std::string::npos);
    EXPECT_NE(actionsError("[{\"mark\": {\"arrow\": {\"from\": [0,0]}}}]").find("actions[0].mark.arrow.from"),
              std::string::npos);
    EXPECT_NE(actionsError("[{\"mark\": {\"vertex\": 1, \"colour\": 2}}]")
                  .find("actions[0].mark.colour: unknown key"),
              std::string::npos);
    EXPECT_NE(actionsError("[{\"mark_right\": {\"vertex\": 1}}]")
                  .find("actions[0].mark_right: side-by-side is off"),
              std::string::npos);
    EXPECT_NE(actionsError("[{\"caption\": 3}]").find("actions[0].caption: must be a string"),
              std::string::npos);
    EXPECT_NE(
        actionsError("[{\"plot\": \"energy_total\"}]").find("actions[0].plot: must be one of: energy, "),
        std::string::npos);
    EXPECT_NE(actionsError("[{\"pause\": -1}]").find("actions[0].pause: must be in [0, 600]"),
              std::string::npos);
    EXPECT_NE(actionsError("[{\"lab\": {\"nd_coupling\": 1.5}}]").find("actions[0].lab.nd_coupling"),
              std::string::npos);
}

TEST(LessonFiles, NamesResolveToFolders) {
    const std::string root = lessonsRoot();
    const auto all = listLessons(root);
    ASSERT_GE(all.size(), 5u);
    EXPECT_EQ(fs::path(all[1]).filename(), "02-dominance");
    EXPECT_EQ(findLesson("02-dominance"), all[1]);
    EXPECT_EQ(findLesson("dominance"), all[1]);
    EXPECT_EQ(findLesson("2"), all[1]);
    EXPECT_EQ(findLesson(all[1]), all[1]);
    EXPECT_EQ(findLesson("nope"), "");
    EXPECT_EQ(findLesson(""), "");
}

// Every built-in lesson loads: its text parses, its actions pass the checks against their scenes, and
// both have the same number of steps, each with text for the student and something to look at.
TEST(LessonFiles, EveryLessonLoads) {
    ActionContext ctx;
    ctx.scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/default.json";
    for (const std::string& dir : listLessons(lessonsRoot())) {
        const Lesson L = loadLesson(dir, ctx);
        EXPECT_EQ(L.script.steps.size(), L.steps.size()) << dir;
        EXPECT_GE(L.steps.size(), 2u) << dir;
        size_t quotes = 0;
        for (const LessonStep& s : L.steps) {
            EXPECT_FALSE(s.look.empty()) << dir << ": " << s.title;
            quotes += quotedNumbers(s.text).size();
        }
        EXPECT_GE(quotes, L.steps.size()) << dir << ": fewer numbers to read than steps";
        EXPECT_EQ(L.script.actions.front().verb, Verb::Load) << dir << ": the first step loads its scene";
    }
}

// An empty lesson folder 01-x under a fresh temporary parent.
std::string freshLessonDir(const char* parent) {
    const std::string dir = (fs::temp_directory_path() / parent / "01-x").string();
    fs::remove_all(fs::path(dir).parent_path());
    fs::create_directories(dir);
    return dir;
}

// What loading the lesson in `dir` throws ("" if nothing).
std::string loadError(const std::string& dir) {
    ActionContext ctx;
    ctx.scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/default.json";
    try {
        loadLesson(dir, ctx);
    } catch (const vbd::InputError& e) {
        return e.what();
    }
    return "";
}

TEST(LessonFiles, StepKeysNameTheStep) {
    const std::string dir = freshLessonDir("vbd_lesson_core_test");
    std::ofstream(dir + "/lesson.md") << "# X\n## One\nText.\n## Two\nMore.\n";
    std::ofstream(dir + "/actions.json")
        << "{\"steps\": [{\"actions\": [{\"load\": \"assets/scenes/contrast_bar.json\"}]},"
           " {\"actions\": [{\"heat\": \"dominance\"}, {\"mark\": {\"vertex\": 3, \"region\": {}}}]}]}";
    const std::string err = loadError(dir);
    EXPECT_NE(err.find("actions.json: steps[1].actions[1].mark.region.min: required"), std::string::npos)
        << err;
    EXPECT_NE(err.find("(lesson 01-x, step 2 \"Two\")"), std::string::npos) << err;
    fs::remove_all(fs::path(dir).parent_path());
}

// A lesson's actions.json that is a FIFO hung the app in the open: refused by a stat (math/input_file.h).
TEST(LessonFiles, AnActionsFileThatIsAFifoIsNeverOpened) {
    const std::string dir = freshLessonDir("vbd_lesson_fifo_test");
    std::ofstream(dir + "/lesson.md") << "# X\n## One\nText.\n";
    ASSERT_EQ(::mkfifo((dir + "/actions.json").c_str(), 0600), 0);
    const std::string err = loadError(dir);
    EXPECT_NE(err.find("actions.json: not a regular file"), std::string::npos) << err;
    fs::remove_all(fs::path(dir).parent_path());
}

}  // namespace
}  // namespace vbdgui
