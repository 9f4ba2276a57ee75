#pragma once
// Minimal line plots written as PNG (stb_image_write), text from stb_easy_font: no Python in the product.
#include <array>
#include <string>
#include <vector>

namespace vbd::experiments {

struct PlotSeries {
    std::string name;
    std::array<unsigned char, 3> color{0, 0, 0};
    std::vector<double> x, y;
    std::vector<char> censored;  // point did not reach the target: drawn hollow at its (capped) value
    bool dashed = false;
};

struct PlotSpec {
    std::string title, xlabel, ylabel;
    bool logX = true, logY = true;
    double xmin = 1, xmax = 10, ymin = 1, ymax = 10;
    int width = 1000, height = 540;
};

// Returns false when the file could not be written.
bool writeLinePlot(const std::string& path, const PlotSpec& spec, const std::vector<PlotSeries>& series);

// A fixed palette of distinguishable colors.
std::array<unsigned char, 3> paletteColor(int i);

}  // namespace vbd::experiments
