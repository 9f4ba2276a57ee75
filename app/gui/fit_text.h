#pragma once
// Text fitted to the room it is drawn in.
#include <string>
#include <vector>

#include <imgui.h>

namespace vbdgui {

// A tooltip whose text changes while it is shown (the hover readout, the plots' cursor values). Dear ImGui
// sizes an auto-resizing window from the content it measured in the previous frame, so a tooltip whose text
// grows is drawn one frame at the old width and its new text is cut (seen on screenshots taken right after a
// step changed the hovered value). Declaring the content size before the tooltip begins makes this frame's
// size fit this frame's text.
void fittedTooltip(const std::string& text);

// The lines of `text` made at most `width` pixels wide in the current font: a line too wide breaks after its
// first " = " (a setting's key, then its value indented), and a part still too wide is cut with "..." (a key
// keeps its end, which names the setting; other lines their start). For the side captions of a narrow
// side-by-side view; the settings table holds the whole text.
std::string fitLines(const std::string& text, float width);

// One line cut to `width` pixels with "..." at its end where it does not fit (the status bar's lines).
std::string cutLine(const std::string& line, float width);

// A part of a line that `packParts` places: its text, and the widest text it takes while the line is shown
// (its numbers at their most digits), which decides where lines break.
struct LinePart {
    std::string text, widest;
};

// `parts` in order, joined by `sep`, in as few lines of at most `width` pixels as their widest forms allow,
// each line cut to `width` (a part wider than the room has a line of its own). The breaks are chosen from the
// widest forms, so that a line whose numbers grow by a digit does not move a part to the next line and the
// lines below it down (the status bar's numbers change every frame).
std::string packParts(const std::vector<LinePart>& parts, const std::string& sep, float width);

// `text` broken into lines of at most `width` pixels at its spaces only (its own line breaks kept; a word
// wider than the room keeps a line of its own). Dear ImGui's wrapping also breaks after '.' and ',', which
// split numbers in the lessons' text ("rho(BCD) = 0." / "3834").
std::string wrapWords(const std::string& text, float width);

// printf-formatted text wrapped at its spaces to the window's content width (in place of ImGui::TextWrapped).
void textWords(const char* fmt, ...) IM_FMTARGS(1);

}  // namespace vbdgui
