#pragma once
// The ImGui windows of the app, in the Dear ImGui demo's style, one file per topic:
//   panel_controls.cpp  the left column: scene, timeline, recording, and the sections below
//   panel_settings.cpp  time step, solver, coarse space, AVBD, material (rows that line up side by side)
//   panel_view.cpp      drawing and the colour map
//   panel_plots.cpp     the right column: convergence, per-frame and timing plots
//   panel_lab.cpp       the conditioning lab (energy ellipse, random n-D) and the vertex inspector
//   overlay.cpp         over the 3D view: captions, legends, labels, hover value, status line, marks
//   lesson_panel.cpp    the lesson window over the 3D view and the lesson picker
#include "gui/app_state.h"

struct ImDrawList;

namespace vbdgui {

void controlPanel(AppState& app, float height);
void plotsPanel(AppState& app, float windowWidth, float height);
void viewportOverlay(AppState& app);
// The same overlay for an offscreen take of w x h seen through cam, into dl (gui/frame.cpp draws it into the
// take's render pass).
void captureOverlay(AppState& app, const OrbitCamera& cam, float w, float h, ImDrawList& dl);
// The take's overlay is laid out at its size divided by this and magnified by it: 1 up to 1080 rows, as a
// 1080p window shows it, then in proportion (a 3840 x 2160 take's captions at twice the window's text). A
// function of the take alone: scaled by the take's height over the window's view, a 1280 x 720 take's
// captions were 1.44 times larger recorded from an 800 x 500 window than from a 1280 x 720 one.
inline float takeOverlayScale(float takeHeight) { return takeHeight > 1080.0f ? takeHeight / 1080.0f : 1.0f; }
// Why a heat map of this field has no range (its legend says it, and the screenshot log line).
std::string emptyFieldReason(vbd::ScalarField field, bool logScale, int frame, size_t particles);

// Sections of the control panel.
void timeStepSection(AppState& app);
void solverSection(AppState& app);
void materialSection(AppState& app);
void drawingSection(AppState& app);
void inspectorSection(AppState& app);
// The inspected vertex's numbers in one line ("condition 1.36  max 2.44  sum 0.47"), drawn next to it in the
// view (a lesson's step that points at them may find the Inspector section scrolled out of the column);
// empty where there is nothing to show (no snapshot's answer yet, a cloth vertex).
std::string inspectSummary(const vbd::World& w, int particle);
void ellipseSection(AppState& app);
// The plots column when collapsed: a bar with the button that opens it.
void plotsColumnBar(AppState& app, float x, float height);
// Lessons: the picker (left column) and the window of the step being taught (over the 3D view).
void lessonsSection(AppState& app);
void lessonWindow(AppState& app);
void lessonStepSection(AppState& app);

}  // namespace vbdgui
