#pragma once
// A tooltip whose text changes while it is shown (the hover readout, the plots' cursor values).
//
// Dear ImGui sizes an auto-resizing window from the content it measured in the previous frame, so a tooltip
// whose text grows is drawn one frame at the old width and its new text is cut (seen on screenshots taken
// right after a step changed the hovered value). Declaring the content size before the tooltip begins makes
// this frame's size fit this frame's text.
#include <string>

namespace vbdgui {

void fittedTooltip(const std::string& text);

}  // namespace vbdgui
