// The Lessons panel: at the top of the left column (over the 3D view when that column is collapsed), the
// step's title, its text for the student, the one thing to look at (highlighted), and Prev / Re-run /
// Next; further down the left column, the lesson picker. The lesson player
// (lesson_player.cpp) acts on the requests left in AppState::lesson.
#include <algorithm>
#include <filesystem>

#include "gui/fit_text.h"
#include "gui/panels.h"
#include "gui/widgets.h"

namespace vbdgui {

void lessonsSection(AppState& app) {
    LessonView& v = app.lesson;
    if (v.available.empty()) {
        ImGui::TextDisabled("no lessons found (assets/lessons/)");
        return;
    }
    v.pick = std::clamp(v.pick, 0, int(v.available.size()) - 1);
    const std::string current = std::filesystem::path(v.available[size_t(v.pick)]).filename().string();
    ImGui::SetNextItemWidth(-70);
    if (ImGui::BeginCombo("##lesson", current.c_str())) {
        for (size_t i = 0; i < v.available.size(); ++i) {
            const std::string n = std::filesystem::path(v.available[i]).filename().string();
            if (ImGui::Selectable(n.c_str(), int(i) == v.pick)) v.pick = int(i);
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button("Start")) v.openRequest = v.available[size_t(v.pick)];
    helpMarker(
        "A guided lesson: each step loads a scene, sets what to compare and what to show, and says in a "
        "few sentences what to look at. Next / Prev in the lesson window; each step can be re-run.");
    if (!v.error.empty()) ImGui::TextColored(ImVec4(1, 0.35f, 0.3f, 1), "%s", v.error.c_str());
}

namespace {

// The step being taught: title, text, what to look at, and the buttons.
void stepContents(LessonView& v) {
    const LessonView::Step& st = v.steps[size_t(v.current)];
    ImGui::TextDisabled("%s", v.title.c_str());
    textWords("Step %d of %zu: %s", v.current + 1, v.steps.size(), st.title.c_str());
    ImGui::Separator();
    textWords("%s", st.text.c_str());
    if (!st.look.empty()) {
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.35f, 1));
        textWords("Look: %s", st.look.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::BeginDisabled(v.current == 0);
    if (ImGui::Button("< Prev")) v.goTo = v.current - 1;
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Re-run")) v.goTo = v.current;
    ImGui::SameLine();
    ImGui::BeginDisabled(v.current + 1 >= int(v.steps.size()));
    if (ImGui::Button("Next >")) v.goTo = v.current + 1;
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (v.autoplay)
        ImGui::TextDisabled("autoplay");
    else if (v.running)
        ImGui::TextDisabled("running the step...");
    else if (ImGui::SmallButton("close"))
        v.close = true;
}

bool showing(const LessonView& v) { return v.active && v.current >= 0 && v.current < int(v.steps.size()); }

}  // namespace

// At the top of the left column, so that the text never covers the 3D view.
void lessonStepSection(AppState& app) {
    if (!showing(app.lesson)) return;
    if (ImGui::CollapsingHeader("Lesson", ImGuiTreeNodeFlags_DefaultOpen)) {
        stepContents(app.lesson);
        ImGui::Spacing();
    }
}

// With the left column collapsed, the step floats at the top right of the 3D view, below the captions where
// it would reach over them (in a 1000 px window it hid the right side's caption, which says what that side
// runs). The captions' extent is this frame's: the overlay is drawn first.
void lessonWindow(AppState& app) {
    if (!showing(app.lesson) || !app.layout.leftCollapsed) return;
    const Layout& lay = app.layout;
    const float w = std::min(440.0f, lay.viewW - 24), x = lay.viewX + lay.viewW - w - 12;
    const bool overCaptions = app.overlayTop > 0 && x < app.overlayTopRight + 6;
    ImGui::SetNextWindowPos(ImVec2(x, lay.viewY + (overCaptions ? app.overlayTop + 6 : 12)));
    ImGui::SetNextWindowSize(ImVec2(w, 0));
    ImGui::SetNextWindowBgAlpha(0.88f);
    ImGui::Begin("Lesson", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoFocusOnAppearing);
    stepContents(app.lesson);
    ImGui::End();
}

}  // namespace vbdgui
