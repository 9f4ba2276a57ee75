#include "gui/plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "render/geometry.h"

namespace vbdgui {

namespace {

// Nice tick step for a linear axis: 1, 2 or 5 times a power of ten, about `target` ticks over span.
float niceStep(float span, int target) {
    float raw = span / float(std::max(target, 1));
    float p = std::pow(10.0f, std::floor(std::log10(std::max(raw, 1e-30f))));
    for (float m : {1.0f, 2.0f, 5.0f, 10.0f})
        if (m * p >= raw) return m * p;
    return 10 * p;
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
    const float w = std::max(ImGui::GetContentRegionAvail().x, 50.0f), h = opt.height;
    ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("plot", ImVec2(w, h));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float left = 46, bottom = 18, top = 6, right = 8;
    ImVec2 a(p0.x + left, p0.y + top), b(p0.x + w - right, p0.y + h - bottom);
    dl->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + h), IM_COL32(25, 27, 32, 255), 3);
    dl->AddRectFilled(a, b, IM_COL32(15, 16, 20, 255));

    // Data range (stacked: the top of the stack).
    float xmin = std::numeric_limits<float>::max(), xmax = -xmin, ymin = xmin, ymax = -xmin;
    std::vector<float> stackTop;
    for (const auto& s : series) {
        if (opt.stacked) stackTop.resize(std::max(stackTop.size(), s.y.size()), 0.0f);
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            float y = s.y[i];
            if (opt.stacked) y = (stackTop[i] += y);
            if (!std::isfinite(y) || (opt.logY && y <= 0)) continue;
            float v = opt.logY ? std::log10(y) : y;
            xmin = std::min(xmin, s.x[i]), xmax = std::max(xmax, s.x[i]);
            ymin = std::min(ymin, v), ymax = std::max(ymax, v);
        }
    }
    if (xmin > xmax) {
        dl->AddText(ImVec2(a.x + 8, a.y + 8), IM_COL32(150, 150, 150, 255), "no data yet");
        ImGui::PopID();
        return;
    }
    if (opt.stacked || (!opt.logY && ymin > 0 && ymin < 0.3f * ymax)) ymin = std::min(ymin, 0.0f);
    if (opt.logY) ymin = std::floor(ymin), ymax = std::ceil(ymax);
    if (ymax - ymin < 1e-12f)
        ymax = ymin + (opt.logY ? 1.0f : std::max(1e-6f, std::fabs(ymin) * 0.1f + 1e-6f));
    if (xmax - xmin < 1e-12f) xmax = xmin + 1;
    auto X = [&](float x) { return a.x + (x - xmin) / (xmax - xmin) * (b.x - a.x); };
    auto Y = [&](float v) { return b.y - (v - ymin) / (ymax - ymin) * (b.y - a.y); };

    // Grid and tick labels: decades on a log axis, nice steps on a linear one.
    char buf[32];
    const ImU32 gridCol = IM_COL32(60, 62, 70, 255), textCol = IM_COL32(170, 170, 175, 255);
    if (opt.logY) {
        int step = std::max(1, int(std::ceil((ymax - ymin) / 5)));
        for (int e = int(ymin); e <= int(ymax); e += step) {
            dl->AddLine(ImVec2(a.x, Y(float(e))), ImVec2(b.x, Y(float(e))), gridCol);
            std::snprintf(buf, sizeof buf, "1e%d", e);
            dl->AddText(ImVec2(p0.x + 4, Y(float(e)) - 7), textCol, buf);
        }
    } else {
        float st = niceStep(ymax - ymin, 4);
        for (float v = std::ceil(ymin / st) * st; v <= ymax + 1e-6f * st; v += st) {
            dl->AddLine(ImVec2(a.x, Y(v)), ImVec2(b.x, Y(v)), gridCol);
            std::snprintf(buf, sizeof buf, "%.3g", double(v));
            dl->AddText(ImVec2(p0.x + 4, Y(v) - 7), textCol, buf);
        }
    }
    float xs = niceStep(xmax - xmin, 5);
    for (float x = std::ceil(xmin / xs) * xs; x <= xmax + 1e-6f * xs; x += xs) {
        dl->AddLine(ImVec2(X(x), a.y), ImVec2(X(x), b.y), gridCol);
        std::snprintf(buf, sizeof buf, "%g", double(x));
        dl->AddText(ImVec2(X(x) - 6, b.y + 2), textCol, buf);
    }
    if (*opt.xLabel) {
        ImVec2 ts = ImGui::CalcTextSize(opt.xLabel);
        dl->AddText(ImVec2(b.x - ts.x, b.y + 2), textCol, opt.xLabel);
    }

    dl->PushClipRect(a, b, true);
    std::vector<ImVec2> pts;
    std::vector<float> base;
    for (const auto& s : series) {
        pts.clear();
        if (opt.stacked) base.resize(std::max(base.size(), s.y.size()), 0.0f);
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            float y = s.y[i];
            if (opt.stacked) {
                float y0 = base[i];
                y = (base[i] += y);
                if (i > 0) {
                    float yp = base[i - 1], y0p = base[i - 1] - s.y[i - 1];
                    ImVec2 quad[4] = {ImVec2(X(s.x[i - 1]), Y(y0p)), ImVec2(X(s.x[i - 1]), Y(yp)),
                                      ImVec2(X(s.x[i]), Y(y)), ImVec2(X(s.x[i]), Y(y0))};
                    dl->AddConvexPolyFilled(quad, 4, (s.color & 0x00FFFFFF) | 0xA0000000);
                }
            }
            if (!std::isfinite(y) || (opt.logY && y <= 0)) continue;
            pts.push_back(ImVec2(X(s.x[i]), Y(opt.logY ? std::log10(y) : y)));
        }
        if (pts.size() >= 2)
            dl->AddPolyline(pts.data(), int(pts.size()), s.color, 0, s.thickness);
        else if (pts.size() == 1)
            dl->AddCircleFilled(pts[0], 2.5f, s.color);
    }
    dl->PopClipRect();

    // Legend, top right, newest-first order as given.
    float ly = a.y + 4;
    for (const auto& s : series) {
        if (s.name.empty()) continue;
        ImVec2 ts = ImGui::CalcTextSize(s.name.c_str());
        dl->AddRectFilled(ImVec2(b.x - ts.x - 22, ly + 4), ImVec2(b.x - ts.x - 10, ly + 10), s.color);
        dl->AddText(ImVec2(b.x - ts.x - 6, ly), IM_COL32(220, 220, 220, 255), s.name.c_str());
        ly += ts.y + 1;
    }
    if (*opt.yLabel) dl->AddText(ImVec2(a.x + 4, a.y + 2), textCol, opt.yLabel);
    if (hovered) {
        float mx = ImGui::GetIO().MousePos.x;
        float x = xmin + (mx - a.x) / (b.x - a.x) * (xmax - xmin);
        dl->AddLine(ImVec2(mx, a.y), ImVec2(mx, b.y), IM_COL32(200, 200, 200, 90));
        if (!series.empty() && !series.back().x.empty()) {
            const auto& s = series.back();
            size_t best = 0;
            for (size_t i = 0; i < s.x.size(); ++i)
                if (std::fabs(s.x[i] - x) < std::fabs(s.x[best] - x)) best = i;
            if (best < s.y.size())
                ImGui::SetTooltip("%s x = %g, y = %.4g", s.name.c_str(), double(s.x[best]),
                                  double(s.y[best]));
        }
    }
    ImGui::PopID();
}

void heatLegend(ImDrawList* dl, ImVec2 pos, const FieldRange& range, const char* title, bool logScale,
                bool categorical) {
    const float w = 220, h = 14;
    dl->AddRectFilled(ImVec2(pos.x - 8, pos.y - 22), ImVec2(pos.x + w + 8, pos.y + h + 22),
                      IM_COL32(20, 20, 24, 200), 4);
    dl->AddText(ImVec2(pos.x, pos.y - 19), IM_COL32(230, 230, 230, 255), title);
    if (categorical) {
        int n = std::max(1, int(range.hi) + 1);
        static const float pal[8][3] = {{0.90f, 0.30f, 0.25f}, {0.25f, 0.55f, 0.90f}, {0.30f, 0.75f, 0.35f},
                                        {0.95f, 0.70f, 0.20f}, {0.60f, 0.35f, 0.80f}, {0.20f, 0.75f, 0.75f},
                                        {0.90f, 0.45f, 0.70f}, {0.55f, 0.55f, 0.55f}};
        for (int i = 0; i < n; ++i) {
            const float* c = pal[i % 8];
            auto g = [](float v) { return std::pow(v, 1.0f / 2.2f); };
            ImU32 col = ImGui::ColorConvertFloat4ToU32(ImVec4(g(c[0]), g(c[1]), g(c[2]), 1));
            float x0 = pos.x + w * float(i) / float(n), x1 = pos.x + w * float(i + 1) / float(n);
            dl->AddRectFilled(ImVec2(x0, pos.y), ImVec2(x1 - 1, pos.y + h), col);
        }
        char buf[48];
        std::snprintf(buf, sizeof buf, "%d colour groups", n);
        dl->AddText(ImVec2(pos.x, pos.y + h + 3), IM_COL32(220, 220, 220, 255), buf);
        return;
    }
    const int steps = 32;
    for (int i = 0; i < steps; ++i) {
        float t0 = float(i) / steps, t1 = float(i + 1) / steps;
        ImU32 c0 = heatColorU32(t0), c1 = heatColorU32(t1);
        dl->AddRectFilledMultiColor(ImVec2(pos.x + w * t0, pos.y), ImVec2(pos.x + w * t1, pos.y + h), c0, c1,
                                    c1, c0);
    }
    char lo[32], hi[32];
    if (logScale) {
        std::snprintf(lo, sizeof lo, "%.2e", std::pow(10.0, double(range.lo)));
        std::snprintf(hi, sizeof hi, "%.2e", std::pow(10.0, double(range.hi)));
    } else {
        std::snprintf(lo, sizeof lo, "%.4g", double(range.lo));
        std::snprintf(hi, sizeof hi, "%.4g", double(range.hi));
    }
    dl->AddText(ImVec2(pos.x, pos.y + h + 3), IM_COL32(220, 220, 220, 255), lo);
    ImVec2 ts = ImGui::CalcTextSize(hi);
    dl->AddText(ImVec2(pos.x + w - ts.x, pos.y + h + 3), IM_COL32(220, 220, 220, 255), hi);
}

}  // namespace vbdgui
