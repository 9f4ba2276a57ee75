#pragma once
// Shared pieces of the panels: the (?) help marker, settings laid out as rows that line up in both columns
// of a side-by-side run, and editors that record every edit of a lab's description as a setting in the
// --set language (gui/core/scene_settings.h), so that captions can name it.
#include <functional>
#include <string>

#include <imgui.h>

#include "gui/app_state.h"
#include "scene/enum_names.h"

namespace vbdgui {

// "(?)" marker with a one-sentence explanation in its tooltip (imgui_demo.cpp's HelpMarker).
void helpMarker(const char* text);

// Rows of settings: two columns (name, widget) or, side by side, three (name, left, right), so that
// both sides line up and neither cuts its labels. Widgets fill their cell; their ImGui labels are hidden.
class SettingsTable {
  public:
    SettingsTable(const char* id, AppState& app);
    ~SettingsTable();
    void row(const char* label, const char* help, const std::function<void(Lab&)>& widget);
    // A row that spans the table (a sub-heading such as "soft body 0").
    void heading(const char* text);

  private:
    AppState& app_;
    bool open_ = false;
};

// Checkboxes that wrap to the next line when the cell or window is too narrow for the next one.
class CheckboxFlow {
  public:
    CheckboxFlow();
    bool operator()(const char* label, bool* v);

  private:
    float right_;
    bool first_ = true;
};

// Editors: each changes the field in lab.desc and records key = value; solver keys steer the running
// World at once, other keys rebuild it (carrying its state) when the widget is released.
bool editInt(Lab& lab, const std::string& key, int* v, int lo, int hi);
bool editDouble(Lab& lab, const std::string& key, double* v, double lo, double hi, const char* fmt, bool log);
bool editBool(Lab& lab, const std::string& key, bool* v);
// Names and order from the engine's one table (scene/enum_names.h).
bool editEnumIndex(Lab& lab, const std::string& key, int* index, const char* const* names, int count);
template <typename E>
bool editEnum(Lab& lab, const std::string& key, E* v) {
    constexpr int n = int(vbd::enumCount<E>());
    const char* names[n];
    for (int k = 0; k < n; ++k) names[k] = vbd::EnumNames<E>::entries[k].name;
    int i = vbd::enumIndex(*v);
    const bool ch = editEnumIndex(lab, key, &i, names, n);
    if (ch) *v = vbd::EnumNames<E>::entries[i].value;
    return ch;
}

// Colour of each side's label, curves and caption (Okabe-Ito orange and sky blue).
inline const ImU32 kLabColor[2] = {IM_COL32(230, 159, 0, 255), IM_COL32(86, 180, 233, 255)};

}  // namespace vbdgui
