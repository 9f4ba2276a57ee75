#include "gui/tooltip.h"

#include <imgui.h>
#include <imgui_internal.h>

namespace vbdgui {

void fittedTooltip(const std::string& text) {
    if (text.empty()) return;
    const char* begin = text.c_str();
    const char* end = begin + text.size();
    ImGui::SetNextWindowContentSize(ImGui::CalcTextSize(begin, end));
    // As ImGui::SetTooltip does: a tooltip begun earlier in this frame is replaced, not appended to.
    ImGui::BeginTooltipEx(0, ImGuiTooltipFlags_OverridePreviousTooltip);
    ImGui::TextUnformatted(begin, end);
    ImGui::EndTooltip();
}

}  // namespace vbdgui
