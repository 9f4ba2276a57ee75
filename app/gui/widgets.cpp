#include "gui/widgets.h"

namespace vbdgui {

void helpMarker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

CheckboxFlow::CheckboxFlow() : right_(ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x) {}

bool CheckboxFlow::operator()(const char* label, bool* v) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float need = ImGui::GetFrameHeight() + st.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
    if (!first_ && ImGui::GetItemRectMax().x + st.ItemSpacing.x + need <= right_) ImGui::SameLine();
    first_ = false;
    return ImGui::Checkbox(label, v);
}

SettingsTable::SettingsTable(const char* id, AppState& app) : app_(app) {
    const int columns = app.compare ? 3 : 2;
    open_ = ImGui::BeginTable(id, columns, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV);
    if (!open_) return;
    ImGui::TableSetupColumn("setting", ImGuiTableColumnFlags_WidthStretch, app.compare ? 0.9f : 1.0f);
    ImGui::TableSetupColumn("left", ImGuiTableColumnFlags_WidthStretch, 1.1f);
    if (app.compare) ImGui::TableSetupColumn("right", ImGuiTableColumnFlags_WidthStretch, 1.1f);
    if (app.compare) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(1);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kLabColor[0]), "left");
        ImGui::TableSetColumnIndex(2);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kLabColor[1]), "right");
    }
}

SettingsTable::~SettingsTable() {
    if (open_) ImGui::EndTable();
}

void SettingsTable::row(const char* label, const char* help, const std::function<void(Lab&)>& widget) {
    if (!open_) return;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label);
    if (help) helpMarker(help);
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        ImGui::TableSetColumnIndex(1 + l);
        ImGui::PushID(label);
        ImGui::PushID(l);
        ImGui::SetNextItemWidth(-FLT_MIN);
        widget(app_.labs[l]);
        ImGui::PopID();
        ImGui::PopID();
    }
}

void SettingsTable::heading(const char* text) {
    if (!open_) return;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("%s", text);
}

namespace {

// Records an edit; `done`: the widget was released (or changes at once, like a checkbox).
void noteEdit(Lab& lab, const std::string& key, const std::string& value, const std::string& before,
              bool done) {
    lab.scene.set(key, value, before);
    if (!needsRebuild(key))
        lab.solverDirty = true;
    else if (done)
        lab.rebuild = Lab::Rebuild::Carry;
}

bool released(bool changed) {
    return (changed && !ImGui::IsItemActive()) || ImGui::IsItemDeactivatedAfterEdit();
}

}  // namespace

bool editInt(Lab& lab, const std::string& key, int* v, int lo, int hi) {
    const int before = *v;
    const bool ch = ImGui::SliderInt("##v", v, lo, hi);
    if (ch || ImGui::IsItemDeactivatedAfterEdit())
        noteEdit(lab, key, settingValue(*v), settingValue(before), released(ch));
    return ch;
}

bool editDouble(Lab& lab, const std::string& key, double* v, double lo, double hi, const char* fmt,
                bool log) {
    const double before = *v;
    const bool ch = ImGui::SliderScalar("##v", ImGuiDataType_Double, v, &lo, &hi, fmt,
                                        log ? ImGuiSliderFlags_Logarithmic : 0);
    if (ch || ImGui::IsItemDeactivatedAfterEdit())
        noteEdit(lab, key, settingValue(*v), settingValue(before), released(ch));
    return ch;
}

bool editBool(Lab& lab, const std::string& key, bool* v) {
    const bool before = *v;
    const bool ch = ImGui::Checkbox("##v", v);
    if (ch) noteEdit(lab, key, settingValue(*v), settingValue(before), true);
    return ch;
}

bool editEnumIndex(Lab& lab, const std::string& key, int* v, const char* const* names, int count) {
    const int before = *v;
    const bool ch = ImGui::Combo("##v", v, names, count);
    if (ch) noteEdit(lab, key, settingValue(names[*v]), settingValue(names[before]), true);
    return ch;
}

}  // namespace vbdgui
