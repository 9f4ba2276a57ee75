// The conditioning lab (the seed's 2-D energy ellipse with BCD, CG, eigenbasis and local-eigen paths, the
// kappa = 25 pair, a random n-D block system) and the inspector of a picked vertex's local system.
#include <algorithm>
#include <cmath>

#include "gui/core/axis.h"
#include "gui/fit_text.h"
#include "gui/panels.h"
#include "gui/plots.h"
#include "gui/widgets.h"
#include "lab/ellipse_lab.h"
#include "lab/spectral.h"

namespace vbdgui {

namespace {

const ImU32 kPanelBg = IM_COL32(30, 32, 40, 255);

// Eigenvalues of the picked vertex's block, ascending, and its semi-axes in the drawing.
struct BlockEllipse {
    double l[3] = {1, 1, 1};
    float axisSoft = 1, axisStiff = 1;  // drawn semi-axes, fraction of the half size
    bool squeezed = false;              // the ratio was too large to draw to scale
};

// x^T D x = 1 has semi-axes 1/sqrt(lambda). The drawing shows the softest and the stiffest direction; a
// ratio beyond 1:20 (a cloth vertex: almost no stiffness along its normal) is drawn at 1:20 and said so.
BlockEllipse blockEllipse(const double l[3]) {
    BlockEllipse e;
    std::copy(l, l + 3, e.l);
    const double ratio = std::sqrt(l[2] / l[0]);  // soft semi-axis over stiff semi-axis
    e.axisSoft = 0.9f;
    e.axisStiff = float(0.9 / std::min(ratio, 20.0));
    e.squeezed = ratio > 20.0;
    return e;
}

void drawBlockEllipse(const BlockEllipse& e) {
    ImGui::TextDisabled("x^T D x = 1: softest direction across,");
    ImGui::TextDisabled("stiffest up (blue)%s", e.squeezed ? ", not to scale" : "");
    const float size = std::min(ImGui::GetContentRegionAvail().x, 170.0f);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("block ellipse", ImVec2(size, size));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size, p0.y + size), kPanelBg, 3);
    const ImVec2 c(p0.x + size / 2, p0.y + size / 2);
    const float r = 0.5f * size - 8;
    std::vector<ImVec2> pts;
    for (int k = 0; k < 96; ++k) {
        const double t = 2 * M_PI * k / 96;
        pts.push_back(
            ImVec2(c.x + r * e.axisSoft * float(std::cos(t)), c.y - r * e.axisStiff * float(std::sin(t))));
    }
    dl->AddPolyline(pts.data(), int(pts.size()), IM_COL32(240, 200, 80, 255), ImDrawFlags_Closed, 2);
    dl->AddLine(ImVec2(c.x - r * e.axisSoft, c.y), ImVec2(c.x + r * e.axisSoft, c.y),
                IM_COL32(240, 200, 80, 120));
    dl->AddLine(ImVec2(c.x, c.y - r * e.axisStiff), ImVec2(c.x, c.y + r * e.axisStiff),
                IM_COL32(86, 180, 233, 255), 2);
}

bool onCloth(const vbd::World& w, int particle) {
    for (const auto& s : w.surfaces())
        if (s.doubleSided)
            for (const auto& t : s.tris)
                if (t[0] == particle || t[1] == particle || t[2] == particle) return true;
    return false;
}

// Eigenvalues of the symmetric part of the vertex's block D_i, ascending.
Eigen::Vector3d blockEigenvalues(const vbd::VertexInspect& v) {
    Eigen::Matrix3d D;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) D(r, c) = 0.5 * (double(v.block(r, c)) + double(v.block(c, r)));
    return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(D).eigenvalues();
}

}  // namespace

std::string inspectSummary(const vbd::World& w, int particle) {
    const vbd::VertexInspect v = w.inspectVertex(particle);
    if (!v.valid || onCloth(w, particle)) return "";
    const Eigen::Vector3d ev = blockEigenvalues(v);
    const double cond = ev(2) / std::max(ev(0), 1e-30);
    return "condition " + (cond > 1e8 ? std::string("> 1e8") : formatNumber(cond)) + "  max " +
           formatNumber(v.dominance) + "  sum " + formatNumber(v.dominanceSum);
}

// The picked vertex's local system: the 3x3 block D_i its Gauss-Seidel update inverts and its block
// diagonal dominance (the heat map's quantity) -- low at a stiff/soft interface, where VBD stalls.
void inspectorSection(AppState& app) {
    Lab& lab = app.labs[0];
    if (app.inspectParticle < 0 || !lab.world) {
        ImGui::TextDisabled("shift + click a vertex to inspect its local system");
        return;
    }
    const vbd::VertexInspect v = lab.world->inspectVertex(app.inspectParticle);
    if (!v.valid) {
        ImGui::TextDisabled("vertex %d: shown with the next snapshot", app.inspectParticle);
        return;
    }
    double l[3];
    const Eigen::Vector3d ev = blockEigenvalues(v);
    for (int k = 0; k < 3; ++k) l[k] = std::max(ev(k), 1e-30);
    ImGui::Text("vertex %d", v.particle);
    if (onCloth(*lab.world, v.particle)) {
        // The inspector's block is assembled from tet elements; a cloth vertex has only its inertia there.
        textWords(
            "cloth vertex: mass / h^2 = %s N/m in every direction. The block and dominance "
            "of membrane and bending elements are not inspected (tet elements only).",
            formatNumber(double(v.block(0, 0))).c_str());
        return;
    }
    ImGui::Text("block eigenvalues %s  %s  %s N/m", formatNumber(l[0]).c_str(), formatNumber(l[1]).c_str(),
                formatNumber(l[2]).c_str());
    helpMarker(
        "Eigenvalues of D_i = m/h^2 I + the elastic diagonal blocks: the stiffness the vertex's own 3x3 "
        "solve sees along each principal direction.");
    const double cond = l[2] / l[0];
    if (cond > 1e8)
        ImGui::Text("block condition > 1e8 (nearly singular: no stiffness along one direction)");
    else
        ImGui::Text("block condition %s", formatNumber(cond).c_str());
    // The help marker after the one-line ratio: after the wrapped one it sat inside its sentence.
    ImGui::Text("||D|| / max ||H_ij|| = %s", formatNumber(v.dominance).c_str());
    helpMarker(
        "How much the vertex's own block outweighs its strongest (and all) couplings to neighbours. Block "
        "Gauss-Seidel converges fast where this is large and stalls where it is low.");
    textWords("||D|| / sum ||H_ij|| = %s%s", formatNumber(v.dominanceSum).c_str(),
              v.dominanceSum < 1 ? "  (below 1: not diagonally dominant)" : "");
    drawBlockEllipse(blockEllipse(l));
}

namespace {

const char* const kMethodNames[4] = {"BCD", "CG", "eigen", "local"};
// Okabe-Ito vermillion, bluish green, sky blue, reddish purple.
const ImU32 kMethodCols[4] = {IM_COL32(213, 94, 0, 255), IM_COL32(0, 158, 115, 255),
                              IM_COL32(86, 180, 233, 255), IM_COL32(204, 121, 167, 255)};

// Contours of the 2-D quadratic and the iterate paths of the shown methods, in a size x size square.
void drawEllipse(const vbd::lab::EllipseLab& lab, const bool show[4], float size) {
    const vbd::lab::DescentPath* paths[4] = {&lab.bcd, &lab.cg, &lab.eigen, &lab.local};
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("ellipse", ImVec2(size, size));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size, p0.y + size), kPanelBg, 3);
    dl->AddRect(p0, ImVec2(p0.x + size, p0.y + size), IM_COL32(70, 74, 86, 255), 3);
    // World window: centred on x*, half-width = 1.15 x the outermost contour's extent (through x0).
    auto levels = vbd::lab::contourLevels(lab.q, 6);
    auto outer =
        levels.empty() ? std::vector<Eigen::Vector2d>{} : vbd::lab::ellipseContour(lab.q, levels[0], 96);
    double half = 1e-9;
    for (const auto& p : outer)
        half = std::max({half, std::fabs(p.x() - lab.q.xStar(0)), std::fabs(p.y() - lab.q.xStar(1))});
    half *= 1.15;
    auto toScreen = [&](double x, double y) {
        return ImVec2(p0.x + float((x - lab.q.xStar(0)) / half * 0.5 + 0.5) * size,
                      p0.y + float(0.5 - (y - lab.q.xStar(1)) / half * 0.5) * size);
    };
    dl->PushClipRect(p0, ImVec2(p0.x + size, p0.y + size), true);
    for (double level : levels) {
        std::vector<ImVec2> pts;
        for (const auto& p : vbd::lab::ellipseContour(lab.q, level, 96))
            pts.push_back(toScreen(p.x(), p.y()));
        if (pts.size() > 2)
            dl->AddPolyline(pts.data(), int(pts.size()), IM_COL32(90, 95, 110, 255), ImDrawFlags_Closed, 1);
    }
    // BCD last and thinnest, each earlier path wider: paths that coincide (BCD and the local eigenbasis on
    // an axis-aligned ellipse, whose blocks are already eigen-aligned) show as nested stripes instead of the
    // last drawn hiding the others (lesson 1's "two red-orange paths" showed one of them).
    for (int k = 3; k >= 0; --k) {
        if (!show[k]) continue;
        const float width = 2.0f + 1.5f * float(k);
        std::vector<ImVec2> pts;
        for (const auto& x : paths[k]->x) pts.push_back(toScreen(x(0), x(1)));
        if (pts.size() > 1) dl->AddPolyline(pts.data(), int(pts.size()), kMethodCols[k], 0, width);
        for (const auto& p : pts) dl->AddCircleFilled(p, 0.5f * width + 1.5f, kMethodCols[k]);
    }
    dl->AddCircleFilled(toScreen(lab.q.xStar(0), lab.q.xStar(1)), 3.5f, IM_COL32(255, 255, 255, 255));
    dl->PopClipRect();
}

void computeNd(EllipseState& e) {
    e.ndError.clear();
    for (auto& c : e.ndCurves) c.clear();
    try {
        vbd::lab::BlockSystemParams p;
        p.blocks = e.ndBlocks;
        p.blockSize = 3;
        p.kappa = e.ndKappa;
        p.coupling = e.ndCoupling;
        p.seed = std::uint64_t(e.ndSeed);
        const vbd::lab::BlockSystem sys = vbd::lab::makeBlockSystem(p);
        const vbd::lab::Quadratic& q = sys.q;
        const double e0 = q.energy(q.x0) - q.minEnergy();
        const vbd::lab::Method ms[4] = {vbd::lab::Method::Bcd, vbd::lab::Method::Cg, vbd::lab::Method::Eigen,
                                        vbd::lab::Method::Local};
        for (int k = 0; k < 4; ++k) {
            const vbd::lab::DescentPath path = vbd::lab::runMethod(q, ms[k], e.sweeps);
            const int per =
                ms[k] == vbd::lab::Method::Cg ? 1 : path.stepsPerSweep;  // CG: one matvec a "sweep"
            for (int st = 0; st * per < int(path.energy.size()); ++st)
                e.ndCurves[k].push_back(
                    float(std::max(1e-16, (path.energy[size_t(st) * size_t(per)] - q.minEnergy()) / e0)));
        }
        e.ndRho = vbd::lab::spectralRadius(vbd::lab::gaussSeidelMatrix(q.A, 3));
        e.ndKappaActual = vbd::lab::conditionNumber(q.A);
    } catch (const std::exception& ex) {
        e.ndError = ex.what();
    }
}

// Random n-D block system: relative energy error (E - E*)/(E0 - E*) per sweep of each method on a log
// scale (a CG "sweep" is one CG iteration). Recomputed only when a parameter changes.
void ndPanel(EllipseState& e) {
    ImGui::PushItemWidth(-120);
    ImGui::SliderInt("blocks", &e.ndBlocks, 2, 16);
    helpMarker("Number of 3x3 blocks (vertices) of the random SPD system.");
    ImGui::SliderFloat("coupling t", &e.ndCoupling, 0, 0.95f, "%.2f");
    helpMarker(
        "Block-Jacobi spectral radius of the system: 0 is block diagonal, near 1 the diagonal blocks barely "
        "dominate their couplings and block descent slows.");
    ImGui::SliderFloat("kappa (n-D)", &e.ndKappa, 1, 1e6, "%.3g", ImGuiSliderFlags_Logarithmic);
    helpMarker("Condition number of the n-D system; block rescaling sets it without changing BCD's rate.");
    ImGui::SliderInt("seed", &e.ndSeed, 1, 100);
    helpMarker("Seed of the random block graph and rotations.");
    ImGui::PopItemWidth();
    const std::string key = std::to_string(e.ndBlocks) + "/" + std::to_string(e.ndCoupling) + "/" +
                            std::to_string(e.ndKappa) + "/" + std::to_string(e.ndSeed) + "/" +
                            std::to_string(e.sweeps);
    if (key != e.ndKey) {
        e.ndKey = key;
        computeNd(e);
    }
    if (!e.ndError.empty()) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", e.ndError.c_str());
        return;
    }
    std::vector<PlotSeries> series;
    for (int k = 0; k < 4; ++k) {
        if (!e.show[k]) continue;
        PlotSeries s;
        s.name = kMethodNames[k];
        s.color = kMethodCols[k];
        s.thickness = 2;
        for (size_t i = 0; i < e.ndCurves[k].size(); ++i)
            s.x.push_back(float(i)), s.y.push_back(e.ndCurves[k][i]);
        series.push_back(std::move(s));
    }
    PlotOptions o;
    o.logY = true;
    o.height = 150;
    o.xLabel = "sweep";
    o.yLabel = "(E - E*)/(E0 - E*)";
    plot("nd", series, o);
    textWords("n = %d, kappa %s, rho(BCD) %.4f, CG factor %.4f", 3 * e.ndBlocks,
              formatNumber(e.ndKappaActual).c_str(), e.ndRho, vbd::lab::cgFactor(e.ndKappaActual));
}

void methodToggles(EllipseState& e) {
    for (int k = 0; k < 4; ++k) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(kMethodCols[k]));
        ImGui::Checkbox(kMethodNames[k], &e.show[k]);
        ImGui::PopStyleColor();
        if (k < 3) ImGui::SameLine();
    }
}

void pairPanel(const EllipseState& e) {
    const float size = std::min(ImGui::GetContentRegionAvail().x * 0.5f - 4, 200.0f);
    const vbd::lab::EllipseLab a = vbd::lab::computeEllipseLab(25, 0, e.sweeps);
    const vbd::lab::EllipseLab b = vbd::lab::computeEllipseLab(25, 45, e.sweeps);
    ImGui::PushID("aligned");
    drawEllipse(a, e.show, size);
    ImGui::PopID();
    ImGui::SameLine();
    ImGui::PushID("tilted");
    drawEllipse(b, e.show, size);
    ImGui::PopID();
    textWords("aligned: rho %.3f, predicted %d sweep(s) | 45 deg: rho %.3f, predicted %d sweeps", a.rhoGs,
              a.predictedBcdSweeps, b.rhoGs, b.predictedBcdSweeps);
    textWords("kappa = 25 and CG factor %.3f in both", a.cgFactor);
}

}  // namespace

void ellipseSection(AppState& app) {
    EllipseState& e = app.ellipse;
    ImGui::Checkbox("kappa = 25 pair", &e.pair);
    helpMarker(
        "The seed's picture: the same kappa = 25, axis-aligned (BCD exact in one sweep) and tilted by 45 "
        "degrees (BCD zig-zags at rate ((kappa-1)/(kappa+1))^2 per sweep).");
    ImGui::SameLine();
    ImGui::Checkbox("random n-D", &e.nd);
    helpMarker(
        "A random n-D block system with chosen condition number and block coupling: convergence curves "
        "instead of paths.");
    ImGui::PushItemWidth(-120);
    if (!e.pair && !e.nd) {
        ImGui::SliderFloat("kappa", &e.kappa, 1, 1e4, "%.3g", ImGuiSliderFlags_Logarithmic);
        helpMarker("Condition number of the 2-D quadratic: ratio of its stiff to its soft eigenvalue.");
        ImGui::SliderFloat("angle (deg)", &e.angleDeg, 0, 90, "%.1f");
        helpMarker(
            "Tilt of the ellipse against the coordinate axes: at 0 the blocks decouple and block descent is "
            "exact in one sweep whatever kappa is; tilted, the coupling (loss of diagonal dominance) slows "
            "it.");
    }
    ImGui::SliderInt("sweeps", &e.sweeps, 1, 50);
    helpMarker("Sweeps of each method drawn on the ellipse.");
    ImGui::PopItemWidth();
    methodToggles(e);
    if (e.nd) return ndPanel(e);
    if (e.pair) return pairPanel(e);
    const vbd::lab::EllipseLab lab = vbd::lab::computeEllipseLab(e.kappa, e.angleDeg, e.sweeps);
    drawEllipse(lab, e.show, std::min(ImGui::GetContentRegionAvail().x, 260.0f));
    textWords("rho(BCD) = %.4f per sweep, CG factor %.4f", lab.rhoGs, lab.cgFactor);
    textWords("coupling |b|/sqrt(ac) = %.4f, BCD sweeps to 1e-6 predicted from rho: %d", lab.dominance,
              lab.predictedBcdSweeps);
}

}  // namespace vbdgui
