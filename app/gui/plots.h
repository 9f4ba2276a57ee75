#pragma once
// Live plots drawn with Dear ImGui draw lists (ImPlot is not packaged): line plots with linear or log10 y
// axes, stacked-area timing breakdowns, and the heat-map legend. Labels never overlap: the titles and the
// legend sit in a header row above the data, tick labels that would touch a neighbour are skipped, and
// the left margin is as wide as the widest y label.
#include <string>
#include <vector>

#include <imgui.h>

#include "render/renderer.h"

namespace vbdgui {

struct PlotSeries {
    std::string name;  // "" = not in the legend
    std::vector<float> x, y;
    ImU32 color = IM_COL32(255, 255, 255, 255);
    float thickness = 1.5f;
    bool dashed = false;  // a reference line (the residual's rounding floor), not data
};

struct PlotOptions {
    bool logY = false;
    float height = 150;
    const char* xLabel = "";
    const char* yLabel = "";
    bool stacked = false;          // stacked areas (series share x; y added bottom to top)
    bool integerX = true;          // x counts frames, iterations or sweeps: ticks at whole numbers
    std::vector<float> markers;    // x of vertical dashed lines (substep boundaries)
    const char* markerLabel = "";  // their legend entry
};

// Draws the plot as one item of the current window, full available width.
void plot(const char* id, const std::vector<PlotSeries>& series, const PlotOptions& opt);

ImU32 heatColorU32(float t, float alpha = 1);

}  // namespace vbdgui
