#include "gui/fit_text.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <sstream>

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

namespace {

float widthOf(const std::string& s) { return ImGui::CalcTextSize(s.c_str(), s.c_str() + s.size()).x; }

// `s` cut to `width` with "..." where it was cut: its end kept (`keepEnd`: a setting's key, whose last
// parts name the setting) or its start (at least one character, so that something shows in the narrowest
// room).
std::string cut(const std::string& s, float width, bool keepEnd) {
    if (widthOf(s) <= width) return s;
    // Cut between UTF-8 characters only (a scene's name may hold any): k bytes kept from the start end before
    // a lead byte, k bytes from the end start at one.
    auto boundary = [&](size_t k) {
        const size_t at = keepEnd ? s.size() - k : k;
        return at >= s.size() || (static_cast<unsigned char>(s[at]) & 0xC0) != 0x80;
    };
    auto shown = [&](size_t k) { return keepEnd ? "..." + s.substr(s.size() - k) : s.substr(0, k) + "..."; };
    size_t n = s.size();
    while (n > 1 && (!boundary(n) || widthOf(shown(n)) > width)) --n;
    return shown(n);
}

}  // namespace

std::string cutLine(const std::string& line, float width) { return cut(line, width, false); }

std::string packParts(const std::vector<LinePart>& parts, const std::string& sep, float width) {
    std::string out, line, widest;  // the line so far, and the same parts at their widest
    auto flush = [&] {
        if (!line.empty()) out += (out.empty() ? "" : "\n") + cut(line, width, false);
        line.clear();
        widest.clear();
    };
    for (const LinePart& p : parts) {
        // The joined text is measured (the font's widths of parts do not add up to the whole's to the pixel).
        if (!line.empty() && widthOf(widest + sep + p.widest) > width) flush();
        line += (line.empty() ? "" : sep) + p.text;
        widest += (widest.empty() ? "" : sep) + p.widest;
    }
    flush();
    return out;
}

std::string fitLines(const std::string& text, float width) {
    std::istringstream in(text);
    std::string line, out;
    bool first = true;
    auto emit = [&](const std::string& l, bool keepEnd) {
        out += (first ? "" : "\n") + cut(l, width, keepEnd);
        first = false;
    };
    while (std::getline(in, line)) {
        const size_t eq = line.find(" = ");
        if (widthOf(line) <= width || eq == std::string::npos) {
            emit(line, false);
            continue;
        }
        emit(line.substr(0, eq + 2), true);
        emit("  " + line.substr(eq + 3), false);
    }
    return out;
}

}  // namespace vbdgui
