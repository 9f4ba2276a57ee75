// The right column: this frame's convergence (with the last frames faded behind it and the substep
// boundaries marked), per-frame residual (with its floor), energy G and total energy, the time per stage (one
// plot per side), and the conditioning lab. It collapses to a bar.
#include <algorithm>

#include "gui/panels.h"
#include "gui/plots.h"
#include "gui/widgets.h"

namespace vbdgui {

namespace {

ImU32 fade(ImU32 c, float alpha) { return (c & 0x00FFFFFF) | (ImU32(alpha * 255) << 24); }

const char* sideName(const AppState& app, int l) { return app.compare ? (l == 0 ? "left" : "right") : ""; }

void convergencePlot(AppState& app) {
    std::vector<PlotSeries> series;
    const int labs = app.compare ? 2 : 1;
    PlotOptions o;
    for (int l = 0; l < labs; ++l) {
        const auto& recent = app.labs[l].recent;
        for (size_t k = 0; k < recent.size(); ++k) {
            const bool newest = k + 1 == recent.size();
            PlotSeries s;
            if (newest) s.name = app.compare ? sideName(app, l) : "this frame";
            const float age = float(recent.size() - 1 - k);
            s.color = fade(kLabColor[l], newest ? 1.0f : 0.55f / (1.0f + age));
            s.thickness = newest ? 2.0f : 1.0f;
            for (const auto& r : recent[k]) {
                s.x.push_back(float(r.iteration));
                s.y.push_back(float(r.residual));
            }
            series.push_back(std::move(s));
        }
    }
    // Substeps: World numbers the iterations of substep s from s (iterations + 1) (iteration 0 of each is
    // its initial guess), so a boundary sits half an iteration before that.
    const vbd::SceneDesc& d = app.labs[0].desc;
    for (int s = 1; s < d.substeps && d.substeps <= 50; ++s)
        o.markers.push_back(float(s * (d.solver.iterations + 1)) - 0.5f);
    o.markerLabel = "substep";
    o.height = 140;
    o.logY = true;
    o.xLabel = "iteration";
    o.yLabel = "|grad G|";
    plot("conv", series, o);
}

const char* const kPerFrameNames[] = {"energy G", "total energy", "centre of mass height", "kinetic energy"};
const char* const kPerFrameAxes[] = {"energy G", "total energy (J)", "centre of mass y (m)", "kinetic (J)"};

// The quantity of the middle per-frame plot (chosen above it, or by a lesson's `plot` action): the
// incremental potential G the solver minimises, the total energy, the height of the centre of mass (free
// fall, sag) or the kinetic energy.
double perFrameValue(const vbd::FrameMetrics& m, PerFramePlot p) {
    switch (p) {
        case PerFramePlot::TotalEnergy:
            return m.totalEnergy;
        case PerFramePlot::ComY:
            return m.com.y;
        case PerFramePlot::Kinetic:
            return m.kineticEnergy;
        default:
            return m.energy;
    }
}

// Per frame: the final residual (with the state's rounding floor, dashed, when it is visible: float), the
// chosen quantity (energy G the step minimised by default), and the total energy (kinetic + elastic +
// gravitational + contact): a truncated solve that injects energy shows it rising with no work done on
// the system.
void historyPlots(AppState& app) {
    const int labs = app.compare ? 2 : 1;
    int which = int(app.perFramePlot);
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::Combo("##perframe", &which, kPerFrameNames, 4)) app.perFramePlot = PerFramePlot(which);
    std::vector<PlotSeries> res, en, tot;
    for (int l = 0; l < labs; ++l) {
        if (!app.labs[l].world) continue;
        const auto& h = app.labs[l].world->history();
        const size_t start = h.size() > size_t(app.historyWindow) ? h.size() - size_t(app.historyWindow) : 0;
        PlotSeries r, e, t, f;
        r.name = e.name = t.name = sideName(app, l);
        r.color = e.color = t.color = kLabColor[l];
        f.name = app.compare ? std::string("floor ") + sideName(app, l) : "floor";
        f.color = fade(kLabColor[l], 0.5f);
        f.thickness = 1.0f;
        f.dashed = true;  // brown beside orange read as a second residual
        double floorMax = 0, resMin = 1e300;
        for (size_t i = start; i < h.size(); ++i) {
            const float x = float(h[i].frame);
            r.x.push_back(x), r.y.push_back(float(h[i].residualFinal));
            f.x.push_back(x), f.y.push_back(float(h[i].residualFloor));
            e.x.push_back(x), e.y.push_back(float(perFrameValue(h[i], app.perFramePlot)));
            t.x.push_back(x), t.y.push_back(float(h[i].totalEnergy));
            floorMax = std::max(floorMax, h[i].residualFloor);
            resMin = std::min(resMin, h[i].residualFinal);
        }
        res.push_back(std::move(r));
        // The floor is drawn when it is within three decades of the residual (float states).
        if (floorMax > 0 && floorMax > 1e-3 * resMin) res.push_back(std::move(f));
        en.push_back(std::move(e));
        tot.push_back(std::move(t));
    }
    PlotOptions o;
    o.height = 100;
    o.logY = true;
    o.xLabel = "frame";
    o.yLabel = "final |grad G|";
    plot("res", res, o);
    o.logY = false;
    o.yLabel = kPerFrameAxes[int(app.perFramePlot)];
    plot("energy", en, o);
    if (app.perFramePlot == PerFramePlot::TotalEnergy) return;  // already the middle plot
    o.yLabel = "total energy (J)";
    plot("total", tot, o);
}

// Okabe-Ito blue, yellow, bluish green, reddish purple: four stages that stay apart for colour-blind eyes.
const ImU32 kStageCols[4] = {IM_COL32(0, 114, 178, 255), IM_COL32(240, 228, 66, 255),
                             IM_COL32(0, 158, 115, 255), IM_COL32(204, 121, 167, 255)};
const char* const kStageNames[4] = {"solve", "collision", "coarse", "diagnostics"};

void timingPlot(AppState& app, int l) {
    if (!app.labs[l].world) return;
    const auto& h = app.labs[l].world->history();
    const size_t start = h.size() > size_t(app.historyWindow) ? h.size() - size_t(app.historyWindow) : 0;
    std::vector<PlotSeries> s(4);
    for (int k = 0; k < 4; ++k) s[size_t(k)].name = kStageNames[k], s[size_t(k)].color = kStageCols[k];
    for (size_t i = start; i < h.size(); ++i) {
        const double v[4] = {h[i].solveMs, h[i].collisionMs, h[i].coarseMs, h[i].diagnosticsMs};
        for (int k = 0; k < 4; ++k) {
            s[size_t(k)].x.push_back(float(h[i].frame));
            s[size_t(k)].y.push_back(float(v[k]));
        }
    }
    PlotOptions o;
    o.height = app.compare ? 95 : 110;
    o.stacked = true;
    o.xLabel = "frame";
    const std::string title = app.compare ? std::string("ms per stage, ") + sideName(app, l) : "ms per stage";
    o.yLabel = title.c_str();
    plot(l == 0 ? "timing0" : "timing1", s, o);
}

}  // namespace

void plotsPanel(AppState& app, float windowWidth, float height) {
    const Layout& l = app.layout;
    if (!app.showPlots) return;
    const float x = windowWidth - l.rightW;
    if (l.rightCollapsed) {
        plotsColumnBar(app, x, height);
        return;
    }
    ImGui::SetNextWindowPos(ImVec2(x, 0));
    ImGui::SetNextWindowSize(ImVec2(l.rightW, height));
    ImGui::Begin("Plots", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    if (ImGui::SmallButton(">")) app.panels.rightOpen = false;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("collapse this column");
    PlotSections& open = app.plotSections;
    auto header = [&](const char* title, bool want) {
        if (open.apply) ImGui::SetNextItemOpen(want, ImGuiCond_Always);
        return ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen);
    };
    if (header("Convergence (this frame)", open.convergence)) convergencePlot(app);
    if (header("Per frame", open.perFrame)) {
        ImGui::SetNextItemWidth(-FLT_MIN);
        ImGui::SliderInt("##window", &app.historyWindow, 20, 2000, "last %d frames");
        historyPlots(app);
    }
    if (header("Timing breakdown", open.timing))
        for (int s = 0; s < (app.compare ? 2 : 1); ++s) timingPlot(app, s);
    if (app.showEllipse && header("Energy ellipse (conditioning lab)", open.ellipse)) ellipseSection(app);
    open.apply = false;
    ImGui::End();
}

}  // namespace vbdgui
