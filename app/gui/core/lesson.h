#pragma once
// Guided lessons (`vbdlab --lesson NAME [--autoplay]`): a folder assets/lessons/NN-name/ holding
//   lesson.md     "# Title", then one "## Step title" section per step: two or three sentences for a
//                 student. A line starting with "> " is the one thing to look at (shown highlighted).
//                 A number the student reads off the screen is written in bold (**87 sweeps**): the
//                 lesson tests recompute every bold number from the same scene and settings.
//   actions.json  {"steps": [{"title": ..., "actions": [...]}, ...]}: the actions of `--actions`
//                 (gui/core/actions.h), one group per step, as many groups as lesson.md has steps.
// Everything here is window-free: the app shows and steps what loadLesson returns.
#include <string>
#include <vector>

#include "gui/core/actions.h"

namespace vbdgui {

struct LessonStep {
    std::string title;
    std::string text;  // the section's markdown, bold markers kept (plainText strips them)
    std::string look;  // the "> " line(s): what to look at
};

struct Lesson {
    std::string name;  // folder name, "02-dominance"
    std::string dir;   // the folder
    std::string title;
    std::vector<LessonStep> steps;
    ActionScript script;  // script.steps[i] holds the actions of steps[i]
};

// Folders under `root` whose name starts with two digits and a dash and that hold a lesson.md, sorted.
std::vector<std::string> listLessons(const std::string& root);
// The built-in lessons' folder (assets/lessons in the working folder, else in the source tree).
std::string lessonsRoot();
// A lesson folder from a name: a path to a folder, "02-dominance", "dominance" or "2"; "" if none.
std::string findLesson(const std::string& name);

// Parses lesson.md. Throws vbd::InputError(file, "line N" or "step K", what).
void parseLessonText(const std::string& text, const std::string& file, Lesson& out);
// Loads and checks a lesson: its text, its actions (against the scenes they apply to) and that both
// have the same steps. A bad action is an InputError naming the actions file, the step and the key,
// with the lesson named in the message: "…/02-dominance/actions.json: steps[1].actions[2].set.x: unknown
// key (lesson 02-dominance, step 2 "The inspector")".
Lesson loadLesson(const std::string& nameOrDir, const ActionContext& ctx);

// The text without bold markers, for display.
std::string plainText(const std::string& markdown);
// The bold spans of a text that contain a number ("**87 sweeps**" -> "87 sweeps"), in order.
std::vector<std::string> quotedNumbers(const std::string& markdown);
// The file an autoplay run writes for step `step` (0-based): "02-dominance-step1.png".
std::string stepScreenshotName(const Lesson& lesson, int step);
// The first number in s ("0.852", "1e-6", "-3"); false if there is none.
bool firstNumber(const std::string& s, double& value);

}  // namespace vbdgui
