#include "gui/fit_text.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
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

std::string wrapWords(const std::string& text, float width) {
    std::string out;
    std::istringstream in(text);
    bool firstLine = true;
    for (std::string para; std::getline(in, para);) {
        if (!firstLine) out += '\n';
        firstLine = false;
        std::string line;
        bool started = false;  // a word was placed (leading spaces are words "" and kept)
        for (size_t at = 0; at <= para.size();) {
            const size_t sp = std::min(para.find(' ', at), para.size());
            std::string word = para.substr(at, sp - at);
            // A word wider than the room (a path) is broken where the room ends, between UTF-8 characters.
            while (widthOf(word) > width && word.size() > 1) {
                if (started && !line.empty()) out += line + '\n';
                size_t n = word.size() - 1;
                while (n > 1 && (widthOf(word.substr(0, n)) > width ||
                                 (static_cast<unsigned char>(word[n]) & 0xC0) == 0x80))
                    --n;
                out += word.substr(0, n) + '\n';
                word = word.substr(n);
                line.clear();
                started = false;
            }
            if (started && !line.empty() && widthOf(line + " " + word) > width) {
                out += line + '\n';
                line = word;
            } else {
                line += (started ? " " : "") + word;
            }
            started = true;
            at = sp + 1;
        }
        out += line;
    }
    return out;
}

void textWords(const char* fmt, ...) {
    va_list args, again;
    va_start(args, fmt);
    va_copy(again, args);
    std::string buf(size_t(std::max(std::vsnprintf(nullptr, 0, fmt, args), 0)) + 1, '\0');
    va_end(args);
    std::vsnprintf(buf.data(), buf.size(), fmt, again);
    va_end(again);
    buf.pop_back();
    ImGui::TextUnformatted(wrapWords(buf, ImGui::GetContentRegionAvail().x).c_str());
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
