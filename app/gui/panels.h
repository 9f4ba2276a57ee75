#pragma once
// The ImGui windows of the app, in the Dear ImGui demo's style: the control panel (left), the plots
// panel (right) and the overlay on the scene viewport (heat-map legend, status, hints).
#include "gui/app_state.h"

namespace vbdgui {

void controlPanel(AppState& app, float height);
void plotsPanel(AppState& app, float x, float height);
void viewportOverlay(AppState& app);
// "(?)" marker with a one-sentence explanation in its tooltip (imgui_demo.cpp's HelpMarker).
void helpMarker(const char* text);

bool ffmpegAvailable();

}  // namespace vbdgui
