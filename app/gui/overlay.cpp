// Drawn over the 3D view(s): side captions naming the settings that differ, heat-map legends that say what
// low and high mean (and mark the threshold 1 where there is one), the material-region legend and labels,
// the picked vertex, the value under the mouse, the recording indicator and the status line.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "gui/core/axis.h"
#include "gui/fit_text.h"
#include "gui/panels.h"
#include "gui/plots.h"
#include "gui/widgets.h"
#include "render/geometry.h"
#include "scene/enum_names.h"

namespace vbdgui {

namespace {

const ImU32 kText = IM_COL32(230, 230, 235, 255), kDim = IM_COL32(185, 185, 195, 255),
            kBox = IM_COL32(20, 20, 24, 205);

struct FieldInfo {
    const char* title;
    const char* low;   // what a low value means
    const char* high;  // what a high value means
    float threshold;   // marked on the bar (in field units); NaN: none
    const char* thresholdText;
};

FieldInfo fieldInfo(vbd::ScalarField f) {
    const float none = std::nanf("");
    switch (f) {
        case vbd::ScalarField::Residual:
            return {"residual |grad_i G| of the last iteration", "low: converged", "high: far from balance",
                    none, ""};
        case vbd::ScalarField::VolumeRatio:
            return {"det F (volume ratio)", "below 1: compressed", "above 1: stretched", 1.0f, "1: rest"};
        case vbd::ScalarField::DiagonalDominance:
            return {"||D_i|| / max_j ||H_ij||", "low: a neighbour rivals the block (slow descent)",
                    "high: the block dominates (fast descent)", 1.0f, "1"};
        case vbd::ScalarField::DominanceSum:
            return {"||D_i|| / sum_j ||H_ij|| (diagonal dominance)", "below 1: not diagonally dominant",
                    "above 1: diagonally dominant", 1.0f, "1"};
        default:
            return {"colour group", "", "", none, ""};
    }
}

// Title; the colour bar over [range.lo, range.hi] (log10 units when logScale) with its end values and the
// threshold marked; what the low and the high end mean, each next to its colour.
// At most maxW wide: a narrow view (one side of a side-by-side run) clips the longer texts.
void heatLegend(ImDrawList* dl, ImVec2 pos, float maxW, const FieldRange& range, vbd::ScalarField field,
                bool logScale, bool shared) {
    const FieldInfo info = fieldInfo(field);
    const std::string title = std::string(info.title) + (shared ? " (both sides)" : "");
    const float th = ImGui::GetTextLineHeight(), h = 14;
    const float w = std::min(
        maxW, std::max({240.0f, ImGui::CalcTextSize(title.c_str()).x, ImGui::CalcTextSize(info.low).x + 18,
                        ImGui::CalcTextSize(info.high).x + 18}));
    const ImVec2 boxLo(pos.x - 8, pos.y - th - 6), boxHi(pos.x + w + 8, pos.y + h + 3 * th + 12);
    dl->AddRectFilled(boxLo, boxHi, kBox, 4);
    dl->PushClipRect(boxLo, boxHi, true);
    dl->AddText(ImVec2(pos.x, pos.y - th - 3), kText, title.c_str());
    for (int i = 0; i < 32; ++i) {
        const float t0 = float(i) / 32, t1 = float(i + 1) / 32;
        const ImU32 c0 = heatColorU32(t0), c1 = heatColorU32(t1);
        dl->AddRectFilledMultiColor(ImVec2(pos.x + w * t0, pos.y), ImVec2(pos.x + w * t1, pos.y + h), c0, c1,
                                    c1, c0);
    }
    auto value = [&](float v) { return logScale ? std::pow(10.0, double(v)) : double(v); };
    const std::string lo = formatNumber(value(range.lo)), hi = formatNumber(value(range.hi));
    const float loRight = pos.x + ImGui::CalcTextSize(lo.c_str()).x,
                hiLeft = pos.x + w - ImGui::CalcTextSize(hi.c_str()).x;
    dl->AddText(ImVec2(pos.x, pos.y + h + 2), kText, lo.c_str());
    dl->AddText(ImVec2(hiLeft, pos.y + h + 2), kText, hi.c_str());
    if (!std::isnan(info.threshold)) {
        const float tv = logScale ? std::log10(info.threshold) : info.threshold;
        const float t = (tv - range.lo) / std::max(range.hi - range.lo, 1e-12f);
        std::string mark = info.thresholdText;
        float x = pos.x + w * std::clamp(t, 0.0f, 1.0f);
        if (t >= 0 && t <= 1)
            dl->AddLine(ImVec2(x, pos.y - 3), ImVec2(x, pos.y + h + 3), IM_COL32(255, 255, 255, 255), 2);
        else
            mark = t > 1 ? "all below 1" : "all above 1", x = pos.x + w / 2;
        const float mw = ImGui::CalcTextSize(mark.c_str()).x, mx = x - mw / 2;
        if (mx > loRight + 6 && mx + mw < hiLeft - 6)
            dl->AddText(ImVec2(mx, pos.y + h + 2), kText, mark.c_str());
    }
    const float y1 = pos.y + h + th + 5, y2 = y1 + th + 2;
    dl->AddRectFilled(ImVec2(pos.x, y1 + 3), ImVec2(pos.x + 12, y1 + th - 3), heatColorU32(0));
    dl->AddText(ImVec2(pos.x + 18, y1), kDim, info.low);
    dl->AddRectFilled(ImVec2(pos.x, y2 + 3), ImVec2(pos.x + 12, y2 + th - 3), heatColorU32(1));
    dl->AddText(ImVec2(pos.x + 18, y2), kDim, info.high);
    dl->PopClipRect();
}

void emptyLegend(ImDrawList* dl, ImVec2 pos, float maxW, vbd::ScalarField field, const std::string& reason) {
    const char* title = fieldInfo(field).title;
    const float th = ImGui::GetTextLineHeight();
    const float w =
        std::min(maxW, std::max(ImGui::CalcTextSize(title).x, ImGui::CalcTextSize(reason.c_str()).x));
    const ImVec2 boxLo(pos.x - 8, pos.y - th - 6), boxHi(pos.x + w + 8, pos.y + th + 6);
    dl->AddRectFilled(boxLo, boxHi, kBox, 4);
    dl->PushClipRect(boxLo, boxHi, true);
    dl->AddText(ImVec2(pos.x, pos.y - th - 3), kText, title);
    dl->AddText(ImVec2(pos.x, pos.y + 2), kDim, reason.c_str());
    dl->PopClipRect();
}

void groupsLegend(ImDrawList* dl, ImVec2 pos, int groups) {
    const float w = 240, h = 14, th = ImGui::GetTextLineHeight();
    dl->AddRectFilled(ImVec2(pos.x - 8, pos.y - th - 6), ImVec2(pos.x + w + 8, pos.y + h + th + 6), kBox, 4);
    dl->AddText(ImVec2(pos.x, pos.y - th - 3), kText, "colour groups (solved in parallel)");
    static const float pal[8][3] = {{0.90f, 0.30f, 0.25f}, {0.25f, 0.55f, 0.90f}, {0.30f, 0.75f, 0.35f},
                                    {0.95f, 0.70f, 0.20f}, {0.60f, 0.35f, 0.80f}, {0.20f, 0.75f, 0.75f},
                                    {0.90f, 0.45f, 0.70f}, {0.55f, 0.55f, 0.55f}};
    const int n = std::max(1, groups);
    for (int i = 0; i < n; ++i) {
        const float* c = pal[i % 8];
        auto g = [](float v) { return std::pow(v, 1.0f / 2.2f); };
        const ImU32 col = ImGui::ColorConvertFloat4ToU32(ImVec4(g(c[0]), g(c[1]), g(c[2]), 1));
        dl->AddRectFilled(ImVec2(pos.x + w * float(i) / float(n), pos.y),
                          ImVec2(pos.x + w * float(i + 1) / float(n) - 1, pos.y + h), col);
    }
    const std::string s = std::to_string(n) + " groups";
    dl->AddText(ImVec2(pos.x, pos.y + h + 2), kText, s.c_str());
}

ImU32 tintColor(const float c[3]) {
    auto g = [](float v) { return std::pow(v, 1.0f / 2.2f); };
    return ImGui::ColorConvertFloat4ToU32(ImVec4(g(c[0]), g(c[1]), g(c[2]), 1));
}

// Window pixel of world point p in lab l's view (z > 1: behind the camera).
ImVec2 toScreen(const AppState& app, int l, const glm::vec3& p, bool* visible) {
    const Layout& lay = app.layout;
    const int labs = app.compare ? 2 : 1;
    const float w = lay.viewW / float(labs);
    const glm::vec3 s = projectToPixel(app.camera.viewProj(w / std::max(lay.viewH, 1.0f)), p, w, lay.viewH);
    *visible = s.z > 0 && s.z < 1 && s.x >= 0 && s.x <= w && s.y >= 0 && s.y <= lay.viewH;
    return ImVec2(lay.viewX + w * float(l) + s.x, lay.viewY + s.y);
}

void label(ImDrawList* dl, ImVec2 at, const std::string& text, ImU32 col) {
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    const ImVec2 p(at.x - ts.x / 2, at.y - ts.y / 2);
    dl->AddRectFilled(ImVec2(p.x - 4, p.y - 2), ImVec2(p.x + ts.x + 4, p.y + ts.y + 2), kBox, 3);
    dl->AddText(p, col, text.c_str());
}

// Each stiffer / softer region labelled at its anchor, the tagged vertex nearest the region's centroid at
// rest (so it moves with the body), while no heat map hides the tint.
void regionLabels(ImDrawList* dl, const AppState& app, int l) {
    const Lab& lab = app.labs[l];
    if (!lab.draw.regions || lab.draw.field != vbd::ScalarField::None) return;
    const WorldSnapshot& w = *lab.world;
    for (unsigned char tag : {kStifferRegion, kSofterRegion}) {
        // At the region's anchor vertex (regionAnchors), watched: no other position is read.
        const int anchor = w.fixedData().regionAnchors[tag];
        if (anchor < 0 || size_t(anchor) >= w.numParticles()) continue;
        const vbd::Vec3 p = w.particlePosition(anchor);
        double scale = 1;
        for (const auto& b : w.desc().softBodies)
            for (const auto& r : b.regions)
                if ((tag == kStifferRegion) == (r.youngsScale > 1)) scale = r.youngsScale;
        bool vis = false;
        const ImVec2 s = toScreen(app, l, {p.x, p.y, p.z}, &vis);
        if (vis)
            label(dl, s,
                  std::string(tag == kStifferRegion ? "stiffer: E x " : "softer: E x ") + formatNumber(scale),
                  tintColor(tag == kStifferRegion ? kStifferTint : kSofterTint));
    }
}

// Above each soft body, its damping, when the bodies of the scene differ in it (which cube is damped).
void dampingLabels(ImDrawList* dl, const AppState& app, int l) {
    const WorldSnapshot& w = *app.labs[l].world;
    const auto& bodies = w.desc().softBodies;
    bool mixed = false;
    for (const auto& b : bodies) mixed |= b.material.damping != bodies[0].material.damping;
    if (!mixed) return;
    // Over the middle of the body's box (World::surfaceBounds: no positions read).
    const std::vector<vbd::Box3> boxes = w.surfaceBounds();
    for (size_t k = 0; k < w.surfaces().size() && k < boxes.size(); ++k) {
        const auto& s = w.surfaces()[k];
        if (s.doubleSided || size_t(s.body) >= bodies.size() || s.tris.empty()) continue;
        const vbd::Box3& b = boxes[k];
        glm::vec3 c(0.5f * (b.min.x + b.max.x), b.max.y + 0.15f, 0.5f * (b.min.z + b.max.z));
        const double kd = bodies[size_t(s.body)].material.damping;
        bool vis = false;
        const ImVec2 at = toScreen(app, l, c, &vis);
        if (vis) label(dl, at, kd > 0 ? "damped: k_d = " + formatNumber(kd) + " s" : "undamped", kText);
    }
}

// Returns the top of its box (+inf when there is nothing to say).
float regionLegend(ImDrawList* dl, ImVec2 pos, const Lab& lab) {
    bool stiff = false, soft = false;
    for (unsigned char t : lab.world->materialTags())
        stiff |= t == kStifferRegion, soft |= t == kSofterRegion;
    if (!stiff && !soft) return std::numeric_limits<float>::infinity();
    const float th = ImGui::GetTextLineHeight();
    const int rows = int(stiff) + int(soft);
    dl->AddRectFilled(ImVec2(pos.x - 8, pos.y - 4), ImVec2(pos.x + 230, pos.y + rows * (th + 4) + 4), kBox,
                      4);
    float y = pos.y;
    auto row = [&](const float c[3], const char* text) {
        dl->AddRectFilled(ImVec2(pos.x, y + 2), ImVec2(pos.x + 14, y + th - 2), tintColor(c));
        dl->AddText(ImVec2(pos.x + 20, y), kText, text);
        y += th + 4;
    };
    if (stiff) row(kStifferTint, "stiffer material region");
    if (soft) row(kSofterTint, "softer material region");
    return pos.y - 4;
}

// The settings that differ, fitted to the side's half of the view (`w` wide): in a narrow window a long key
// and its value take two lines rather than running under the other side. Returns the caption box's bottom
// edge.
float sideCaption(ImDrawList* dl, const AppState& app, int l, float x0, float w, float& right) {
    const auto diffs =
        differences(app.labs[0].scene, app.labs[1].scene, &app.labs[0].desc.solver, &app.labs[1].desc.solver);
    std::string text = l == 0 ? "left" : "right";
    if (diffs.empty()) text += ": same settings";
    // A side without the coarse correction does not list the coarse settings it does not use (lesson 3's
    // plain side read `solver.coarse.basis = "stiff_rigid"` against the right's element basis).
    const bool coarseOff = !app.labs[l].desc.solver.coarse.enabled;
    int shown = 0;
    for (const auto& d : diffs) {
        if (coarseOff && d.key.rfind("solver.coarse.", 0) == 0 && d.key != "solver.coarse.enabled") continue;
        text += "\n" + d.key + " = " + (l == 0 ? d.left : d.right);
        ++shown;
    }
    if (!diffs.empty() && shown == 0) text += ": no setting in use differs";
    text = fitLines(text, w - 20);
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    dl->AddRectFilled(ImVec2(x0 + 6, app.layout.viewY + 6),
                      ImVec2(x0 + 14 + ts.x, app.layout.viewY + 10 + ts.y), kBox, 3);
    dl->AddText(ImVec2(x0 + 10, app.layout.viewY + 8), kLabColor[l], text.c_str());
    right = std::max(right, x0 + 14 + ts.x);
    return app.layout.viewY + 10 + ts.y;
}

// Single view: what accelerates the soft solve when anything does (the coarse space, Chebyshev, a tolerance
// stop), in the corner where the side captions go side by side. Plain VBD says nothing. Without it a user
// could not tell a coarse run from a plain one but by the Solver section (the audit's "no coarse-state
// indicator in single view").
std::string solverCaptionText(const AppState& app) {
    const Lab& lab = app.labs[0];
    if (!lab.world || lab.world->numParticles() == 0) return "";
    const vbd::SolverDesc& s = lab.desc.solver;
    std::vector<std::string> on;
    if (s.coarse.enabled) {
        std::string c = std::string("coarse space: ") + vbd::enumName(s.coarse.basis) + " basis";
        if (s.coarse.filter != vbd::CoarseFilter::None)
            c += ", " + std::string(vbd::enumName(s.coarse.filter)) + " filter";
        on.push_back(c);
    }
    if (s.chebyshevRho > 0) on.push_back("Chebyshev rho " + formatNumber(s.chebyshevRho));
    if (s.tolerance > 0) on.push_back("stops at residual " + formatNumber(s.tolerance) + " of the first");
    std::string text;
    for (const std::string& t : on) text += (text.empty() ? "" : "\n") + t;
    return text;
}

float solverCaption(ImDrawList* dl, const AppState& app, float x0, float w, float& right) {
    std::string text = solverCaptionText(app);
    if (text.empty()) return app.layout.viewY;
    text = fitLines(text, w - 20);
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    dl->AddRectFilled(ImVec2(x0 + 6, app.layout.viewY + 6),
                      ImVec2(x0 + 14 + ts.x, app.layout.viewY + 10 + ts.y), kBox, 3);
    dl->AddText(ImVec2(x0 + 10, app.layout.viewY + 8), kText, text.c_str());
    right = std::max(right, x0 + 14 + ts.x);
    return app.layout.viewY + 10 + ts.y;
}

void pickedVertex(ImDrawList* dl, const AppState& app, int l) {
    const WorldSnapshot& w = *app.labs[l].world;
    if (app.inspectParticle < 0 || size_t(app.inspectParticle) >= w.numParticles()) return;
    const vbd::Vec3 p = w.particlePosition(app.inspectParticle);
    bool vis = false;
    const ImVec2 s = toScreen(app, l, {p.x, p.y, p.z}, &vis);
    if (!vis) return;
    dl->AddCircle(s, 9, IM_COL32(0, 0, 0, 255), 24, 4);
    dl->AddCircle(s, 9, IM_COL32(60, 255, 110, 255), 24, 2);
    // On a dark box (green text alone was hard to read over a heat map), with the Inspector's numbers.
    std::string t = "vertex " + std::to_string(app.inspectParticle);
    const std::string numbers = inspectSummary(w, app.inspectParticle);
    if (!numbers.empty()) t += "\n" + numbers;
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    const ImVec2 p0(s.x + 14, s.y - 12 - ts.y);
    dl->AddRectFilled(ImVec2(p0.x - 4, p0.y - 2), ImVec2(p0.x + ts.x + 4, p0.y + ts.y + 2), kBox, 3);
    dl->AddText(p0, IM_COL32(60, 255, 110, 255), t.c_str());
}

// A lesson's marks (the `mark` action): a ringed vertex, a box outline or an arrow, each labelled, in
// orange so they do not read as the picked vertex (green) or a heat-map colour.
const ImU32 kMarkCol = IM_COL32(255, 150, 40, 255), kMarkShadow = IM_COL32(0, 0, 0, 200);

void markLine(ImDrawList* dl, ImVec2 a, ImVec2 b, float width) {
    dl->AddLine(a, b, kMarkShadow, width + 2);
    dl->AddLine(a, b, kMarkCol, width);
}

void drawMark(ImDrawList* dl, const AppState& app, int l, const Mark& m) {
    if (m.lab >= 0 && m.lab != l) return;
    bool vis = false;
    if (m.kind == Mark::Kind::Vertex) {
        const WorldSnapshot& w = *app.labs[l].world;
        if (m.vertex < 0 || size_t(m.vertex) >= w.numParticles()) return;
        const vbd::Vec3 p = w.particlePosition(m.vertex);
        const ImVec2 s = toScreen(app, l, {p.x, p.y, p.z}, &vis);
        if (!vis) return;
        dl->AddCircle(s, 13, kMarkShadow, 24, 5);
        dl->AddCircle(s, 13, kMarkCol, 24, 3);
        if (!m.text.empty()) label(dl, ImVec2(s.x, s.y + 30), m.text, kMarkCol);
        return;
    }
    if (m.kind == Mark::Kind::Region) {
        ImVec2 c[8];
        bool any = false;
        for (int k = 0; k < 8; ++k) {
            const glm::vec3 p((k & 1) ? m.b.x : m.a.x, (k & 2) ? m.b.y : m.a.y, (k & 4) ? m.b.z : m.a.z);
            c[k] = toScreen(app, l, p, &vis);
            any |= vis;
        }
        if (!any) return;
        for (int k = 0; k < 8; ++k)
            for (int bit : {1, 2, 4})
                if (!(k & bit)) markLine(dl, c[k], c[k | bit], 2.5f);
        if (!m.text.empty()) {
            const ImVec2 top = toScreen(app, l, {(m.a.x + m.b.x) / 2, m.b.y, (m.a.z + m.b.z) / 2}, &vis);
            label(dl, ImVec2(top.x, top.y - 22), m.text, kMarkCol);
        }
        return;
    }
    bool visB = false;
    const ImVec2 a = toScreen(app, l, m.a, &vis), b = toScreen(app, l, m.b, &visB);
    if (!vis && !visB) return;
    markLine(dl, a, b, 3);
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::max(std::sqrt(dx * dx + dy * dy), 1.0f);
    const ImVec2 u(dx / len, dy / len), n(-u.y, u.x);
    const ImVec2 h1(b.x - 14 * u.x + 7 * n.x, b.y - 14 * u.y + 7 * n.y),
        h2(b.x - 14 * u.x - 7 * n.x, b.y - 14 * u.y - 7 * n.y);
    dl->AddTriangleFilled(b, h1, h2, kMarkCol);
    if (!m.text.empty()) label(dl, ImVec2(a.x, a.y - 16), m.text, kMarkCol);
}

// The lesson's caption, centred at the top of the view(s), below the side captions (`below`: their lowest
// edge; the view's top without them).
// Returns the bottom of its box (`below` when there is no caption).
float captionText(ImDrawList* dl, const AppState& app, float below, float& right) {
    if (app.caption.empty()) return below;
    const Layout& lay = app.layout;
    const float y = std::max(lay.viewY + 14, below + 10);
    // Wrapped at words to the view's width (a lesson's sentence is wider than a narrow view), centred.
    const float wrap = std::max(lay.viewW - 40, 60.0f);
    const std::string text = wrapWords(app.caption, wrap);
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    const ImVec2 p(lay.viewX + lay.viewW / 2 - ts.x / 2, y);
    dl->AddRectFilled(ImVec2(p.x - 4, p.y - 2), ImVec2(p.x + ts.x + 4, p.y + ts.y + 2), kBox, 3);
    dl->AddText(p, IM_COL32(255, 255, 255, 255), text.c_str());
    right = std::max(right, p.x + ts.x + 4);
    return p.y + ts.y + 2;
}

void hoverValue(const AppState& app) {
    const HoverState& h = app.hover;
    if (h.particle < 0 || !h.hasValue) return;
    const FieldInfo info = fieldInfo(app.labs[h.lab].draw.field);
    fittedTooltip("vertex " + std::to_string(h.particle) + "\n" + info.title + " = " +
                  formatNumber(h.value, 4));
}

// The status bar's parts: the clock (frame, time, pace), the counts, the speed (solves/s, step time, FPS),
// and the paths (which backend steps the scene and why, which path fills the vertex buffer and why); each
// number part with its widest form (see `packParts`).
struct StatusText {
    LinePart clock, counts, speed;
    std::string paths;
};

// take: for a take's overlay, without the window's pace and frame rate (a recording holds the simulation
// back: "x0.08 real time" and the window's FPS were baked into every image).
StatusText statusText(const AppState& app, bool take) {
    const Lab& lab = app.labs[0];
    const WorldSnapshot& w = *lab.world;
    char buf[256];
    std::snprintf(buf, sizeof buf, "frame %d  t = %.3f s", w.frame(), w.time());
    std::string s = buf;
    const TimelineState& t = app.timeline;
    if (!take && !t.playing) {
        s += "  paused";
    } else if (!take && t.realTime > 0) {
        // Below the pace asked for (or unpaced): the fraction of real time reached.
        if (t.speed <= 0 || t.realTime < 0.95 * t.speed) {
            std::snprintf(buf, sizeof buf, "  x%.2f real time", t.realTime);
            s += buf;
        } else {
            s += t.speed == 1 ? "  real time" : "  x" + formatNumber(t.speed) + " real time";
        }
    }
    StatusText out;
    // Widest forms: six-digit frames and counts (the paper's mesh has 230k vertices), a time below 10^4 s.
    out.clock = {s, "frame 000000  t = 0000.000 s  x0.00 real time"};
    const size_t n = w.numParticles(), bodies = w.numBodies(), contacts = w.contactCount();
    const char* sep = "  |  ";
    auto count = [](size_t k, const char* one, const char* many) {
        return std::to_string(k) + " " + (k == 1 ? one : many);
    };
    if (n > 0) out.counts = {count(n, "vertex", "vertices"), "000000 vertices"};
    if (bodies > 0) {
        // The rigid solver's contacts (between bodies, with the ground): soft-body and cloth contacts are not
        // counted, and "0 contacts" under a torus resting on a box read as none at all.
        const std::string b =
            count(bodies, "body", "bodies") + ", " + count(contacts, "rigid contact", "rigid contacts");
        const std::string bw = "000000 bodies, 000000 rigid contacts";
        out.counts = {out.counts.text.empty() ? b : out.counts.text + sep + b,
                      out.counts.widest.empty() ? bw : out.counts.widest + sep + bw};
    }
    const auto& h = w.history();
    const double solve = h.empty() ? 0 : h.back().solveMs;
    const double solves = double(n > 0 ? n : bodies) * lab.desc.solver.iterations * lab.desc.substeps;
    s.clear();
    if (solve > 0)
        s = formatNumber(solves / (solve * 1e-3)) + (n > 0 ? " vertex" : " body") + " solves/s" + sep;
    // Side by side, each side's step time (lesson 5 compares 40 sweeps with 300 by it).
    if (app.compare && app.labs[1].world)
        std::snprintf(buf, sizeof buf, "step %.1f | %.1f ms (left | right)", lab.stepMs, app.labs[1].stepMs);
    else
        std::snprintf(buf, sizeof buf, "step %.1f ms", lab.stepMs);
    if (!take)
        std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), "  |  %.0f FPS", app.timing.fps);
    out.speed = {s + buf, app.compare
                              ? "0.00e+00 vertex solves/s  |  step 0000.0 | 0000.0 ms (left | right)  |  "
                                "000 FPS"
                              : "0.00e+00 vertex solves/s  |  step 0000.0 ms  |  000 FPS"};
    out.paths = w.backendLine();  // which backend steps the soft bodies, and why (solver.backend)
    // Which path fills the particle vertex buffer and why (docs/gpu.md "Interop"); with the interop, a frame
    // not drawn from a slot (a CPU step, an edit, a capture, a slot rewritten since) is uploaded from the
    // snapshot.
    if (lab.gpu) {
        out.paths += "  |  " + lab.gpu->vertexLine();
        if (lab.link && lab.world && !lab.drewFromSlot) out.paths += " [this frame: CPU upload]";
    }
    return out;
}

// The paths above the numbers (after them on one line, the numbers were cut off below ~3800 pixels of view),
// each line cut to the view; the numbers packed into as few lines as the view's width allows for this
// scene's parts at their widest, so that the bar and the legends above it keep their place while the numbers
// change (a 1280-pixel window's 480-pixel view: clock and counts, then speed; a mixed scene's counts alone
// need ~340 pixels).
std::string statusLines(const AppState& app, bool take) {
    if (!app.labs[0].world) return "";
    const StatusText st = statusText(app, take);
    const float room = app.layout.viewW - 16;
    std::vector<LinePart> parts{st.clock};
    if (!st.counts.text.empty()) parts.push_back(st.counts);
    parts.push_back(st.speed);
    return cutLine(st.paths, room) + "\n" + packParts(parts, "  |  ", room);
}

// The top edge of the status bar showing `s` (the legends sit above it).
float statusTop(const AppState& app, const std::string& s) {
    const Layout& l = app.layout;
    const float h = s.empty() ? 0 : ImGui::CalcTextSize(s.c_str()).y;
    return l.viewY + l.viewH - h - 9;
}

void statusLine(ImDrawList* dl, const AppState& app, const std::string& s) {
    if (s.empty()) return;
    const Layout& l = app.layout;
    const float y = statusTop(app, s) + 3;
    dl->AddRectFilled(ImVec2(l.viewX, y - 3), ImVec2(l.viewX + l.viewW, l.viewY + l.viewH), kBox);
    dl->PushClipRect(ImVec2(l.viewX, y - 3), ImVec2(l.viewX + l.viewW, l.viewY + l.viewH), true);
    dl->AddText(ImVec2(l.viewX + 8, y), kText, s.c_str());
    dl->PopClipRect();
}

// Over the view while a take captures the view offscreen (at a size of its own); a take cut from the window
// (all of it, or its view at the view's size) would capture the badge itself (every frame of it said
// "REC n"), so it is said in the window's title instead (GuiApp::iterate).
void recordingIndicator(ImDrawList* dl, const AppState& app) {
    const RecordSettings& rs = app.rec.settings;
    const bool offscreen =
        rs.capture == Capture::View && rs.width > 0 && rs.height > 0;  // recordCaptureRequest
    if (!app.rec.on || !offscreen) return;
    const Layout& l = app.layout;
    const std::string s = "REC " + std::to_string(app.rec.written);
    const float x = l.viewX + l.viewW - ImGui::CalcTextSize(s.c_str()).x - 14;
    dl->AddCircleFilled(ImVec2(x - 8, l.viewY + 15), 5, IM_COL32(255, 60, 60, 255));
    dl->AddText(ImVec2(x, l.viewY + 8), IM_COL32(255, 90, 90, 255), s.c_str());
}

}  // namespace

// Why a heat map has no range to show (every value 0 on a log scale, or none finite): the residual is
// measured by the iterations of a step, so a scene that has not stepped has none, and its map is drawn all
// at the low end. Said where the legend goes, with the field's title, instead of leaving the map unexplained.
std::string emptyFieldReason(vbd::ScalarField field, bool logScale, int frame, size_t particles) {
    if (particles == 0) return "colours soft bodies and cloths: this scene has none";
    if (field == vbd::ScalarField::Residual && frame == 0)
        return "none yet: it is measured while a step iterates (N: one step)";
    return logScale ? "every value is 0: nothing to place on a log10 scale" : "no finite value to scale";
}

namespace {

// Everything drawn over the view(s) into dl at app.layout's view; capture: for an offscreen take (no REC
// badge, and the insets framing reads stay those of the window).
void drawViewOverlay(AppState& app, ImDrawList* dl, bool capture) {
    const Layout& lay = app.layout;
    const int labs = app.compare ? 2 : 1;
    const float w = lay.viewW / float(labs), th = ImGui::GetTextLineHeight();
    dl->PushClipRect(ImVec2(lay.viewX, lay.viewY), ImVec2(lay.viewX + lay.viewW, lay.viewY + lay.viewH),
                     true);
    float captionsEnd = lay.viewY, captionsRight = lay.viewX;
    const std::string status = statusLines(app, capture);
    const float barTop = statusTop(app, status);  // the legends sit above the status bar, however many lines
    float overlayTop = barTop;
    for (int l = 0; l < labs; ++l) {
        const Lab& lab = app.labs[l];
        const float x0 = lay.viewX + w * float(l);
        if (!lab.world) continue;
        regionLabels(dl, app, l);
        dampingLabels(dl, app, l);
        pickedVertex(dl, app, l);
        for (const Mark& m : app.marks) drawMark(dl, app, l, m);
        if (!app.compare) captionsEnd = std::max(captionsEnd, solverCaption(dl, app, x0, w, captionsRight));
        if (app.compare) {
            captionsEnd = std::max(captionsEnd, sideCaption(dl, app, l, x0, w, captionsRight));
            if (l == 1)
                dl->AddLine(ImVec2(x0, lay.viewY), ImVec2(x0, lay.viewY + lay.viewH), IM_COL32(0, 0, 0, 255),
                            2);
        }
        const ImVec2 legendAt(x0 + 18, barTop - 3 * th - 31);
        // Every heat legend's box reaches th + 6 above legendAt; the regions' legend says where it drew.
        if (lab.draw.field != vbd::ScalarField::None) overlayTop = std::min(overlayTop, legendAt.y - th - 6);
        if (lab.draw.field == vbd::ScalarField::Color && lab.legend.valid)
            groupsLegend(dl, legendAt, int(lab.legend.hi) + 1);
        else if (lab.draw.field != vbd::ScalarField::None && lab.legend.valid) {
            // One scale for both sides: one legend, as wide as the whole view allows.
            if (!app.sharedScaleOn || l == 0)
                heatLegend(dl, legendAt, (app.sharedScaleOn ? lay.viewW : w) - 36, lab.legend, lab.draw.field,
                           lab.draw.logScale, app.sharedScaleOn);
        } else if (lab.draw.field != vbd::ScalarField::None && lab.draw.field != vbd::ScalarField::Color)
            emptyLegend(dl, legendAt, w - 36, lab.draw.field,
                        emptyFieldReason(lab.draw.field, lab.draw.logScale, lab.world->frame(),
                                         lab.world->numParticles()));
        else if (lab.draw.regions)
            overlayTop = std::min(overlayTop, regionLegend(dl, ImVec2(x0 + 18, barTop - th - 31), lab));
    }
    const float captionEnd = captionText(dl, app, captionsEnd, captionsRight);
    if (!capture) {
        app.overlayBottom = lay.viewY + lay.viewH - overlayTop;
        app.overlayTop = captionEnd - lay.viewY;
        app.overlayTopRight = captionsRight;
        // A framing's insets confirmed end its refits: a legend or caption that comes later (a heat map
        // chosen, a setting's caption) leaves the camera where it is.
        AppState::Framing& f = app.framing;
        if (f.framesLeft > 0) {
            f.confirmed =
                std::fabs(app.overlayBottom - f.bottom) <= 0.5f && std::fabs(app.overlayTop - f.top) <= 0.5f;
            if (f.confirmed) f.framesLeft = 0;
        }
        recordingIndicator(dl, app);
    }
    statusLine(dl, app, status);
    dl->PopClipRect();
}

}  // namespace

void viewportOverlay(AppState& app) {
    drawViewOverlay(app, ImGui::GetBackgroundDrawList(), false);  // under the panels, over the 3D view
    hoverValue(app);
}

// The overlay for an offscreen take of w x h: laid out for a view of that size at the origin, its labels
// projected with the capture's camera, drawn into a list of its own (the window's frame has been rendered
// by then; the font and the shared draw data are still those of that frame). A take taller than the
// window's view is laid out at the view's height and magnified (s = take height / view height): the overlay
// keeps its share of the picture, as the framing assumed, and a 4K take's 13-pixel captions (0.6 % of its
// height) stay readable.
void captureOverlay(AppState& app, const OrbitCamera& cam, float w, float h, ImDrawList& dl) {
    const float s = takeOverlayScale(h);
    struct Restore {
        AppState& app;
        Layout layout;
        OrbitCamera camera;
        ~Restore() { app.layout = layout, app.camera = camera; }
    } restore{app, app.layout, app.camera};
    app.layout.viewX = 0, app.layout.viewY = 0, app.layout.viewW = w / s, app.layout.viewH = h / s;
    app.camera = cam;
    dl._ResetForNewFrame();
    dl.PushTextureID(ImGui::GetIO().Fonts->TexID);
    dl.PushClipRect(ImVec2(0, 0), ImVec2(w / s, h / s));
    drawViewOverlay(app, &dl, true);
    if (s == 1.0f) return;
    for (ImDrawVert& v : dl.VtxBuffer) v.pos = ImVec2(v.pos.x * s, v.pos.y * s);
    for (ImDrawCmd& c : dl.CmdBuffer)
        c.ClipRect = ImVec4(c.ClipRect.x * s, c.ClipRect.y * s, c.ClipRect.z * s, c.ClipRect.w * s);
}

}  // namespace vbdgui
