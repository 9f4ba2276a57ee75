#include "gui/plots.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gui/core/axis.h"
#include "gui/fit_text.h"
#include "render/geometry.h"

namespace vbdgui {

namespace {

const ImU32 kGridCol = IM_COL32(55, 58, 66, 255), kTextCol = IM_COL32(175, 175, 182, 255),
            kMarkerCol = IM_COL32(150, 150, 160, 140);

struct Range {
    float xmin = std::numeric_limits<float>::max(), xmax = -std::numeric_limits<float>::max();
    float ymin = std::numeric_limits<float>::max(), ymax = -std::numeric_limits<float>::max();
    bool empty() const { return xmin > xmax; }
};

// y of point i of series s as plotted (stacked: on top of the series before it; log: log10).
Range dataRange(const std::vector<PlotSeries>& series, const PlotOptions& opt) {
    Range r;
    std::vector<float> top;
    for (const auto& s : series) {
        if (opt.stacked) top.resize(std::max(top.size(), s.y.size()), 0.0f);
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            float y = s.y[i];
            if (opt.stacked) y = (top[i] += y);
            if (!std::isfinite(y) || (opt.logY && y <= 0)) continue;
            const float v = opt.logY ? std::log10(y) : y;
            r.xmin = std::min(r.xmin, s.x[i]), r.xmax = std::max(r.xmax, s.x[i]);
            r.ymin = std::min(r.ymin, v), r.ymax = std::max(r.ymax, v);
        }
    }
    if (r.empty()) return r;
    if (opt.stacked || (!opt.logY && r.ymin > 0 && r.ymin < 0.3f * r.ymax)) r.ymin = std::min(r.ymin, 0.0f);
    if (opt.logY) r.ymin = std::floor(r.ymin), r.ymax = std::ceil(r.ymax);
    if (r.ymax - r.ymin < 1e-12f) {
        const float pad = opt.logY ? 0.5f : std::max(1e-6f, std::fabs(r.ymin) * 0.05f);
        r.ymin -= pad, r.ymax += pad;
    }
    // A little room above and below a linear range, so that a flat curve at its minimum or maximum is not
    // hidden under the frame: a range from 0 too (a kinetic energy of 0 until the first impact lay on the
    // frame's bottom edge and looked missing); its 0 keeps a tick.
    if (!opt.logY && !opt.stacked) {
        const float room = 0.04f * (r.ymax - r.ymin);
        r.ymin -= room;
        r.ymax += room;
    }
    if (r.xmax - r.xmin < 1e-12f) r.xmin -= 1, r.xmax += 1;  // one point: centred
    return r;
}

struct Frame {
    ImVec2 a, b;  // plot area corners (top-left, bottom-right)
    Range r;
    float X(float x) const { return a.x + (x - r.xmin) / (r.xmax - r.xmin) * (b.x - a.x); }
    float Y(float v) const { return b.y - (v - r.ymin) / (r.ymax - r.ymin) * (b.y - a.y); }
};

// A polyline drawn in dashes of 5 pixels with gaps of 4, the pattern running on across its vertices.
void dashedPolyline(ImDrawList* dl, const std::vector<ImVec2>& pts, ImU32 col, float thickness) {
    constexpr float kOn = 5, kPeriod = 9;
    float phase = 0;  // arc length into the current period
    for (size_t i = 1; i < pts.size(); ++i) {
        const ImVec2 a = pts[i - 1], b = pts[i];
        const float len = std::hypot(b.x - a.x, b.y - a.y);
        float t = 0;
        while (t < len) {
            const float step = std::min(len - t, phase < kOn ? kOn - phase : kPeriod - phase);
            if (phase < kOn) {
                const float u0 = t / len, u1 = (t + step) / len;
                dl->AddLine(ImVec2(a.x + (b.x - a.x) * u0, a.y + (b.y - a.y) * u0),
                            ImVec2(a.x + (b.x - a.x) * u1, a.y + (b.y - a.y) * u1), col, thickness);
            }
            t += step;
            phase = std::fmod(phase + step, kPeriod);
        }
    }
}

// Header: "<y title> vs <x title>" on the left, the legend on the right (wrapping to a second row when the
// two would touch). Returns its height.
float drawHeader(ImDrawList* dl, ImVec2 p0, float w, const std::vector<PlotSeries>& series,
                 const PlotOptions& opt, const std::string& offset) {
    std::string title = opt.yLabel;
    if (*opt.xLabel) title += std::string(" vs ") + opt.xLabel;
    if (!offset.empty()) title += "  (" + offset + ")";
    const float th = ImGui::GetTextLineHeight();
    dl->AddText(p0, kTextCol, title.c_str());
    struct Item {
        std::string name;
        ImU32 col;
        bool dashed;
    };
    std::vector<Item> items;
    for (const auto& s : series)
        if (!s.name.empty()) items.push_back({s.name, s.color, s.dashed});
    if (*opt.markerLabel && !opt.markers.empty()) items.push_back({opt.markerLabel, kMarkerCol, false});
    float legendW = 0;
    for (const auto& it : items) legendW += ImGui::CalcTextSize(it.name.c_str()).x + 20;
    const float titleW = ImGui::CalcTextSize(title.c_str()).x;
    float y = p0.y, x = p0.x + w - legendW;
    if (x < p0.x + titleW + 12) y += th + 1, x = std::max(p0.x, p0.x + w - legendW);
    for (const auto& [name, col, dashed] : items) {
        if (x + ImGui::CalcTextSize(name.c_str()).x + 16 > p0.x + w + 1) y += th + 1, x = p0.x;
        if (dashed) {  // the swatch dashed as the line is
            dl->AddRectFilled(ImVec2(x, y + th * 0.35f + 2), ImVec2(x + 4, y + th * 0.35f + 4), col);
            dl->AddRectFilled(ImVec2(x + 6, y + th * 0.35f + 2), ImVec2(x + 10, y + th * 0.35f + 4), col);
        } else {
            dl->AddRectFilled(ImVec2(x, y + th * 0.35f), ImVec2(x + 10, y + th * 0.35f + 6), col);
        }
        dl->AddText(ImVec2(x + 14, y), IM_COL32(215, 215, 220, 255), name.c_str());
        x += ImGui::CalcTextSize(name.c_str()).x + 20;
    }
    return y - p0.y + th + 3;
}

// Y ticks: labels right-aligned against the plot area; one that would touch the one above is skipped.
void drawYTicks(ImDrawList* dl, const Frame& f, const AxisTicks& t, float labelRight) {
    const float th = ImGui::GetTextLineHeight();
    float lastY = std::numeric_limits<float>::max();
    for (const Tick& k : t.ticks) {
        const float y = f.Y(float(k.value));
        dl->AddLine(ImVec2(f.a.x, y), ImVec2(f.b.x, y), kGridCol);
        if (lastY - y < th) continue;
        const ImVec2 ts = ImGui::CalcTextSize(k.label.c_str());
        dl->AddText(
            ImVec2(labelRight - ts.x, std::clamp(y - th * 0.5f, f.a.y - th * 0.5f, f.b.y - th * 0.5f)),
            kTextCol, k.label.c_str());
        lastY = y;
    }
}

// X ticks: labels centred under their tick, kept inside the plot's width, skipped when they would touch.
void drawXTicks(ImDrawList* dl, const Frame& f, const AxisTicks& t, float right) {
    float lastRight = -std::numeric_limits<float>::max();
    for (const Tick& k : t.ticks) {
        const float x = f.X(float(k.value));
        dl->AddLine(ImVec2(x, f.a.y), ImVec2(x, f.b.y), kGridCol);
        const ImVec2 ts = ImGui::CalcTextSize(k.label.c_str());
        const float x0 = std::clamp(x - ts.x * 0.5f, f.a.x - 4, right - ts.x);
        if (x0 < lastRight + 6) continue;
        dl->AddText(ImVec2(x0, f.b.y + 2), kTextCol, k.label.c_str());
        lastRight = x0 + ts.x;
    }
}

void drawSeries(ImDrawList* dl, const Frame& f, const std::vector<PlotSeries>& series,
                const PlotOptions& opt) {
    std::vector<ImVec2> pts;
    std::vector<float> base;
    for (const auto& s : series) {
        pts.clear();
        if (opt.stacked) base.resize(std::max(base.size(), s.y.size()), 0.0f);
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            float y = s.y[i];
            if (opt.stacked) {
                const float y0 = base[i];
                y = (base[i] += y);
                if (i > 0) {
                    const float yp = base[i - 1], y0p = base[i - 1] - s.y[i - 1];
                    ImVec2 quad[4] = {ImVec2(f.X(s.x[i - 1]), f.Y(y0p)), ImVec2(f.X(s.x[i - 1]), f.Y(yp)),
                                      ImVec2(f.X(s.x[i]), f.Y(y)), ImVec2(f.X(s.x[i]), f.Y(y0))};
                    dl->AddConvexPolyFilled(quad, 4, (s.color & 0x00FFFFFF) | 0xA0000000);
                }
            }
            if (!std::isfinite(y) || (opt.logY && y <= 0)) continue;
            pts.push_back(ImVec2(f.X(s.x[i]), f.Y(opt.logY ? std::log10(y) : y)));
        }
        if (pts.size() >= 2 && s.dashed)
            dashedPolyline(dl, pts, s.color, s.thickness);
        else if (pts.size() >= 2)
            dl->AddPolyline(pts.data(), int(pts.size()), s.color, 0, s.thickness);
        else if (pts.size() == 1)
            dl->AddCircleFilled(pts[0], 2.5f, s.color);
    }
}

void drawMarkers(ImDrawList* dl, const Frame& f, const std::vector<float>& markers) {
    for (float m : markers) {
        if (m <= f.r.xmin || m >= f.r.xmax) continue;
        const float x = f.X(m);
        for (float y = f.a.y; y < f.b.y; y += 6)
            dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 3, f.b.y)), kMarkerCol, 1.5f);
    }
}

void hoverTooltip(const Frame& f, const std::vector<PlotSeries>& series) {
    const float mx = ImGui::GetIO().MousePos.x;
    const float x = f.r.xmin + (mx - f.a.x) / (f.b.x - f.a.x) * (f.r.xmax - f.r.xmin);
    ImGui::GetWindowDrawList()->AddLine(ImVec2(mx, f.a.y), ImVec2(mx, f.b.y), IM_COL32(200, 200, 200, 90));
    std::string text;
    for (const auto& s : series) {
        if (s.name.empty() || s.x.empty()) continue;
        size_t best = 0;
        for (size_t i = 0; i < s.x.size(); ++i)
            if (std::fabs(s.x[i] - x) < std::fabs(s.x[best] - x)) best = i;
        if (best >= s.y.size()) continue;
        text += s.name + ": x = " + formatNumber(s.x[best], 4) + ", y = " + formatNumber(s.y[best], 4) + "\n";
    }
    fittedTooltip(text);
}

}  // namespace

ImU32 heatColorU32(float t, float alpha) {
    auto c = heatMapColor(t);
    // The legend is drawn by ImGui (no gamma step), the mesh shader encodes gamma 1/2.2: match it.
    auto g = [](float v) { return std::pow(std::max(v, 0.0f), 1.0f / 2.2f); };
    return ImGui::ColorConvertFloat4ToU32(ImVec4(g(c[0]), g(c[1]), g(c[2]), alpha));
}

void plot(const char* id, const std::vector<PlotSeries>& series, const PlotOptions& opt) {
    ImGui::PushID(id);
    const float w = std::max(ImGui::GetContentRegionAvail().x, 80.0f), h = opt.height;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("plot", ImVec2(w, h));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + h), IM_COL32(25, 27, 32, 255), 3);
    Frame f;
    f.r = dataRange(series, opt);
    const AxisTicks yt =
        f.r.empty() ? AxisTicks{}
                    : (opt.logY ? logTicks(f.r.ymin, f.r.ymax, 4) : linearTicks(f.r.ymin, f.r.ymax, 4));
    const float header = drawHeader(dl, ImVec2(p0.x + 4, p0.y + 2), w - 8, series, opt, yt.offset);
    if (f.r.empty()) {
        dl->AddText(ImVec2(p0.x + 8, p0.y + header + 8), IM_COL32(150, 150, 150, 255), "no data yet");
        ImGui::PopID();
        return;
    }
    float labelW = 0;
    for (const Tick& k : yt.ticks) labelW = std::max(labelW, ImGui::CalcTextSize(k.label.c_str()).x);
    const float th = ImGui::GetTextLineHeight();
    f.a = ImVec2(p0.x + labelW + 10, p0.y + header + th * 0.5f);
    f.b = ImVec2(p0.x + w - 8, p0.y + h - th - 4);
    if (f.b.y - f.a.y < 10 || f.b.x - f.a.x < 20) {
        ImGui::PopID();
        return;
    }
    dl->AddRectFilled(f.a, f.b, IM_COL32(15, 16, 20, 255));
    drawYTicks(dl, f, yt, f.a.x - 5);
    drawXTicks(dl, f,
               linearTicks(f.r.xmin, f.r.xmax, std::max(2, int((f.b.x - f.a.x) / 60)), opt.integerX ? 1 : 0),
               p0.x + w - 2);
    dl->PushClipRect(f.a, f.b, true);
    drawMarkers(dl, f, opt.markers);
    drawSeries(dl, f, series, opt);
    dl->PopClipRect();
    if (hovered) hoverTooltip(f, series);
    ImGui::PopID();
}

}  // namespace vbdgui
