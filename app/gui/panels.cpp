#include "gui/panels.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <imgui.h>

#include "gui/plots.h"
#include "scene/enum_names.h"
#ifdef VBD_HAVE_LAB
#include "lab/ellipse_lab.h"
#include "lab/spectral.h"
#endif

namespace vbdgui {

void helpMarker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

bool ffmpegAvailable() { return std::system("command -v ffmpeg > /dev/null 2>&1") == 0; }

namespace {

bool sliderDoubleLog(const char* label, double* v, double lo, double hi, const char* fmt = "%.3g") {
    return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt, ImGuiSliderFlags_Logarithmic);
}
bool sliderDouble(const char* label, double* v, double lo, double hi, const char* fmt = "%.3f") {
    return ImGui::SliderScalar(label, ImGuiDataType_Double, v, &lo, &hi, fmt);
}

template <typename E>
bool comboEnum(const char* label, E* value) {
    // Names and order from the engine's one table (scene/enum_names.h).
    int i = vbd::enumIndex(*value);
    const bool changed = ImGui::Combo(
        label, &i,
        [](void*, int k, const char** out) {
            *out = vbd::EnumNames<E>::entries[k].name;
            return true;
        },
        nullptr, int(vbd::enumCount<E>()));
    if (changed) *value = vbd::EnumNames<E>::entries[i].value;
    return changed;
}

// Step, substeps: the World reads them at creation, so they restart the scene.
void timeWidgets(Lab& lab) {
    if (sliderDoubleLog("dt (s)", &lab.desc.dt, 1e-4, 0.05, "%.5f")) lab.rebuild = true;
    helpMarker(
        "Frame time step h; the inertial term M/h^2 grows as h shrinks, which makes every block "
        "more diagonally dominant (restarts the scene).");
    if (ImGui::SliderInt("substeps", &lab.desc.substeps, 1, 20)) lab.rebuild = true;
    helpMarker("Number of implicit steps of h/substeps per frame (restarts the scene).");
}

bool solverWidgets(Lab& lab) {
    vbd::SolverDesc& s = lab.desc.solver;
    bool ch = false;
    ch |= ImGui::SliderInt("iterations", &s.iterations, 1, 200);
    helpMarker(
        "Block Gauss-Seidel sweeps over all vertex colours per step; each sweep solves every vertex's "
        "3x3 Newton block once.");
    ch |= comboEnum("damping", &s.damping);
    helpMarker(
        "none: undamped; naive: Rayleigh damping on the total Hessian (also damps rigid motion); "
        "internal: damps the rate of the internal variable C = F^T F only, so rotations stay undamped.");
    ch |= sliderDouble("Chebyshev rho", &s.chebyshevRho, 0.0, 0.99, "%.3f");
    helpMarker(
        "Spectral-radius estimate for Chebyshev over-relaxation of the sweeps (0 = off); too large a "
        "value makes the iteration diverge.");
    bool dbl = s.precision == vbd::Precision::Double;
    if (ImGui::Checkbox("double-precision state", &dbl)) {
        s.precision = dbl ? vbd::Precision::Double : vbd::Precision::Float;
        ch = true;
    }
    helpMarker(
        "Iterate on a double copy of the positions (tet soft bodies only). With float positions the "
        "residual |grad G| stalls at about (stiffness x ulp of x): 0.15 of its start at stiffness "
        "contrast 1e4. In double it keeps falling, which the convergence plot shows.");
    if (ImGui::TreeNode("Coarse space")) {
        vbd::CoarseDesc& c = s.coarse;
        ch |= ImGui::Checkbox("enabled", &c.enabled);
        helpMarker(
            "Adds a Galerkin coarse correction over element eigenmodes after each sweep, removing the "
            "smooth error that block Gauss-Seidel reduces slowly.");
        ch |= comboEnum("basis", &c.basis);
        helpMarker(
            "element: lowest eigenmodes of each element; stiff_rigid: rigid modes of each stiff region "
            "(deflation); patch_soft: soft modes of cell patches.");
        ch |= ImGui::SliderInt("modes/element", &c.modesPerElement, 1, 12);
        helpMarker("How many of each element's lowest-energy eigenmodes enter the coarse basis.");
        ch |= comboEnum("filter", &c.filter);
        helpMarker(
            "Which modes to keep: all, only across a stiffness contrast, only those coupling different "
            "colours, or one set per patch.");
        ch |= sliderDoubleLog("contrast threshold", &c.contrastThreshold, 1.0, 1e6);
        helpMarker(
            "Stiffness ratio between neighbouring elements above which the contrast filter keeps a mode.");
        ch |= ImGui::SliderInt("patch size", &c.patchSize, 1, 8);
        helpMarker("Cells per patch edge for the patch basis and filter.");
        ch |= comboEnum("matrix", &c.matrix);
        helpMarker(
            "hessian: the current PSD-projected Hessian of G, refactored when the shape moves; rest: the "
            "rest "
            "stiffness plus M/h^2, factored once. With stiff_rigid both take the same sweeps on the coarse "
            "bar and rest is cheaper (docs/coarse-space.md).");
        ImGui::TreePop();
    }
    if (ImGui::TreeNode("AVBD (rigid bodies)")) {
        ch |= sliderDoubleLog("beta", &s.beta, 1.0, 1e8);
        helpMarker(
            "Penalty ramp: each iteration a constraint's stiffness grows by beta |C|, so hard contacts "
            "and joints converge to their Lagrange multiplier.");
        ch |= sliderDouble("gamma", &s.gamma, 0.0, 1.0);
        helpMarker("Warm-start decay of penalties and multipliers from the previous step (k = gamma k).");
        ch |= sliderDouble("alpha", &s.alpha, 0.0, 1.0);
        helpMarker(
            "Stabilisation: the fraction of the previous step's constraint error that is kept instead "
            "of corrected at once (1 = no position correction).");
        ch |= sliderDoubleLog("k_max", &s.kMax, 1e3, 1e12);
        helpMarker(
            "Upper bound of the penalty stiffness, which caps the conditioning of the 6x6 body blocks.");
        ImGui::TreePop();
    }
    return ch;
}

// Material edits change the SceneDesc and rebuild the World (rest data and colouring depend on it).
bool materialWidgets(Lab& lab) {
    bool ch = false;
    for (size_t i = 0; i < lab.desc.softBodies.size(); ++i) {
        auto& sb = lab.desc.softBodies[i];
        ImGui::PushID(int(i));
        ImGui::Text("soft body %zu (%s)", i, sb.type.c_str());
        ch |= sliderDoubleLog("Young's E (Pa)", &sb.material.youngs, 1e2, 1e10);
        helpMarker("Young's modulus: the body's stiffness against stretching.");
        ch |= sliderDouble("Poisson nu", &sb.material.poisson, 0.0, 0.49);
        helpMarker(
            "Poisson ratio: near 0.5 the material is nearly incompressible and the per-vertex blocks "
            "become ill-conditioned.");
        ch |= sliderDoubleLog("density", &sb.material.density, 1.0, 1e5);
        helpMarker("Mass per volume (kg/m^3); it sets the inertial term M/h^2 of each block.");
        for (size_t r = 0; r < sb.regions.size(); ++r) {
            ImGui::PushID(int(r));
            ch |= sliderDoubleLog("youngs_scale", &sb.regions[r].youngsScale, 1e-3, 1e8, "%.3g");
            helpMarker(
                "Multiplies Young's modulus inside this region: the stiffness contrast that breaks "
                "block diagonal dominance.");
            ImGui::PopID();
        }
        ImGui::PopID();
    }
    for (size_t i = 0; i < lab.desc.cloths.size(); ++i) {
        auto& c = lab.desc.cloths[i];
        ImGui::PushID(int(1000 + i));
        ImGui::Text("cloth %zu", i);
        ch |= sliderDoubleLog("Young's E (Pa)", &c.material.youngs, 1e1, 1e9);
        helpMarker("In-plane stiffness of the membrane (times the thickness).");
        ch |= sliderDoubleLog("bending", &c.material.bending, 1e-8, 1e-1, "%.2e");
        helpMarker("Dihedral bending stiffness; small values let the cloth fold.");
        ImGui::PopID();
    }
    if (lab.desc.softBodies.empty() && lab.desc.cloths.empty()) ImGui::TextDisabled("no deformable bodies");
    return ch;
}

void drawWidgets(Lab& lab) {
    DrawOptions& d = lab.draw;
    ImGui::Checkbox("surfaces", &d.surfaces);
    ImGui::SameLine();
    ImGui::Checkbox("bodies", &d.bodies);
    ImGui::SameLine();
    ImGui::Checkbox("grid", &d.grid);
    ImGui::Checkbox("wireframe", &d.wireframe);
    ImGui::SameLine();
    ImGui::Checkbox("contacts", &d.contacts);
    ImGui::SameLine();
    ImGui::Checkbox("fixed", &d.fixedVertices);
    ImGui::SameLine();
    ImGui::Checkbox("joints", &d.joints);
    static const char* const kFields[] = {"none", "colour group", "residual |grad G|", "det F",
                                          "diagonal dominance"};
    int f = int(d.field);
    if (ImGui::Combo("heat map", &f, kFields, 5)) {
        d.field = vbd::ScalarField(f);
        d.logScale = d.field == vbd::ScalarField::Residual;
    }
    helpMarker(
        "Per-vertex field drawn as colours: the vertex colour group, the last iteration's residual "
        "|grad_i G|, the mean det F of incident tets, or ||D_i|| / sum_j ||H_ij|| (below 1 the "
        "block is not diagonally dominant).");
    if (d.field != vbd::ScalarField::None && d.field != vbd::ScalarField::Color) {
        ImGui::Checkbox("log10", &d.logScale);
        ImGui::SameLine();
        ImGui::Checkbox("auto range", &d.autoRange);
        if (!d.autoRange) ImGui::DragFloatRange2("range", &d.rangeMin, &d.rangeMax, 0.01f);
    }
}

void perLab(AppState& app, const char* id, void (*fn)(AppState&, Lab&)) {
    if (!app.compare) {
        fn(app, app.labs[0]);
        return;
    }
    if (ImGui::BeginTable(id, 2, ImGuiTableFlags_BordersInnerV)) {
        for (int i = 0; i < 2; ++i) {
            ImGui::TableNextColumn();
            ImGui::PushID(i);
            ImGui::TextColored(i == 0 ? ImVec4(1, 0.7f, 0.4f, 1) : ImVec4(0.5f, 0.8f, 1, 1), "%s",
                               i == 0 ? "left" : "right");
            ImGui::PushItemWidth(-90);
            fn(app, app.labs[i]);
            ImGui::PopItemWidth();
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
}

void statusLine(AppState& app) {
    const Lab& lab = app.labs[0];
    if (!lab.world) return;
    const auto& h = lab.world->history();
    double solve = h.empty() ? 0 : h.back().solveMs;
    size_t n = lab.world->positions().size();
    // Sweep throughput: vertex block solves per second = vertices x iterations x substeps / solve time.
    double rate = solve > 0 ? double(n) * lab.desc.solver.iterations * lab.desc.substeps / (solve * 1e-3) : 0;
    ImGui::Text("step %.1f ms, %.2f M vertex solves/s", lab.stepMs, rate * 1e-6);
    ImGui::Text("backend CPU, %d solver threads, %zu vertices", lab.world->desc().solver.threads, n);
    ImGui::Text("frame %.1f ms (%.0f FPS)", app.timing.frameMs, app.timing.fps);
    ImGui::Text("sim %.1f ms, upload %.2f ms, render %.1f ms", app.timing.simMs, app.timing.uploadMs,
                app.timing.renderMs);
}

void inspectorPanel(AppState& app);  // below, with the other plot panels
}  // namespace

void controlPanel(AppState& app, float height) {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(leftPanelWidth(app), height));
    ImGui::Begin("VBD Lab", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    ImGui::PushItemWidth(-150);
    Lab& lab = app.labs[0];
    ImGui::TextWrapped("%s", lab.desc.name.c_str());
    if (!lab.note.empty()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", lab.note.c_str());
    if (!app.sceneError.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.35f, 0.3f, 1));
        ImGui::TextWrapped("scene error: %s", app.sceneError.c_str());
        ImGui::PopStyleColor();
    }
    if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) {
        std::string current =
            app.sceneIndex >= 0
                ? std::filesystem::path(app.sceneFiles[size_t(app.sceneIndex)]).filename().string()
                : (app.scenePath.empty() ? "built-in demo" : app.scenePath);
        if (ImGui::BeginCombo("scene", current.c_str())) {
            if (ImGui::Selectable("built-in demo", app.scenePath.empty()))
                app.loadRequest = true, app.loadPath.clear();
            for (size_t i = 0; i < app.sceneFiles.size(); ++i) {
                std::string name = std::filesystem::path(app.sceneFiles[i]).filename().string();
                if (ImGui::Selectable(name.c_str(), int(i) == app.sceneIndex))
                    app.loadRequest = true, app.loadPath = app.sceneFiles[i];
            }
            ImGui::EndCombo();
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("reload")) app.loadRequest = true, app.loadPath = app.scenePath;
        if (ImGui::Button(app.playing ? "Pause (space)" : "Play (space)")) app.playing = !app.playing;
        ImGui::SameLine();
        if (ImGui::Button("Step (N)")) app.stepRequests++, app.playing = false;
        ImGui::SameLine();
        if (ImGui::Button("Reset (R)")) app.resetRequest = true;
        if (lab.world) ImGui::Text("frame %d, t = %.3f s", lab.world->frame(), lab.world->time());
        if (ImGui::Checkbox("side-by-side", &app.compare) && app.compare) {
            app.frameRequest = true;
            app.labs[1].desc = app.labs[0].desc;
            app.labs[1].draw = app.labs[0].draw;
            app.labs[1].rebuild = true;
            app.labs[0].rebuild = true;  // restart both so that they step in lockstep from frame 0
        }
        helpMarker(
            "Runs a second World of the same scene next to the first, each with its own settings "
            "column; both step in lockstep and their convergence curves are overlaid.");
    }
    if (ImGui::CollapsingHeader("Time step")) perLab(app, "time", [](AppState&, Lab& l) { timeWidgets(l); });
    if (ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen))
        perLab(app, "solver", [](AppState&, Lab& l) { l.solverDirty |= solverWidgets(l); });
    if (ImGui::CollapsingHeader("Material"))
        perLab(app, "material", [](AppState&, Lab& l) { l.rebuild |= materialWidgets(l); });
    if (ImGui::CollapsingHeader("Drawing", ImGuiTreeNodeFlags_DefaultOpen))
        perLab(app, "drawing", [](AppState&, Lab& l) { drawWidgets(l); });
    if (ImGui::CollapsingHeader("Interaction")) {
        ImGui::SliderFloat("drag k (N/m)", &app.pick.stiffness, 10, 1e6, "%.3g",
                           ImGuiSliderFlags_Logarithmic);
        helpMarker("Stiffness of the spring that pulls the picked vertex or body towards the cursor.");
        if (ImGui::Button("Throw a box (B)")) app.throwRequests++;
        ImGui::SameLine();
        if (ImGui::Button("Frame scene (F)")) app.frameRequest = true;
        ImGui::TextDisabled(
            "left drag: orbit, right/middle drag: pan, wheel: zoom,\nshift + left drag: pull a "
            "vertex or body");
    }
    if (app.inspectParticle >= 0) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    if (ImGui::CollapsingHeader("Inspector")) inspectorPanel(app);
    if (ImGui::CollapsingHeader("Recording")) {
        if (app.rec.ffmpeg < 0) app.rec.ffmpeg = ffmpegAvailable() ? 1 : 0;
        const bool haveFfmpeg = app.rec.ffmpeg == 1;
        if (!haveFfmpeg) app.rec.mp4 = false;
        ImGui::BeginDisabled(!haveFfmpeg || app.rec.on);
        ImGui::Checkbox("MP4 via ffmpeg", &app.rec.mp4);
        ImGui::EndDisabled();
        if (!haveFfmpeg) helpMarker("ffmpeg is not on PATH: recording writes a PNG sequence.");
        if (ImGui::Button(app.rec.on ? "Stop recording (V)" : "Record (V)")) app.rec.on = !app.rec.on;
        if (!app.rec.status.empty()) ImGui::TextWrapped("%s", app.rec.status.c_str());
    }
    ImGui::Checkbox("plots", &app.showPlots);
    ImGui::SameLine();
    ImGui::Checkbox("energy ellipse", &app.showEllipse);
    ImGui::Separator();
    statusLine(app);
    ImGui::PopItemWidth();
    ImGui::End();
}

namespace {

const ImU32 kLabColor[2] = {IM_COL32(255, 170, 90, 255), IM_COL32(110, 190, 255, 255)};

ImU32 fade(ImU32 c, float alpha) { return (c & 0x00FFFFFF) | (ImU32(alpha * 255) << 24); }

void convergencePlot(AppState& app) {
    std::vector<PlotSeries> series;
    const int labs = app.compare ? 2 : 1;
    for (int l = 0; l < labs; ++l) {
        const auto& recent = app.labs[l].recent;
        for (size_t k = 0; k < recent.size(); ++k) {
            const bool newest = k + 1 == recent.size();
            PlotSeries s;
            if (newest) s.name = app.compare ? (l == 0 ? "left" : "right") : "this frame";
            float age = float(recent.size() - 1 - k);
            s.color = fade(kLabColor[l], newest ? 1.0f : 0.55f / (1.0f + age));
            s.thickness = newest ? 2.0f : 1.0f;
            for (const auto& r : recent[k]) {
                s.x.push_back(float(r.iteration));
                s.y.push_back(float(r.residual));
            }
            series.push_back(std::move(s));
        }
    }
    PlotOptions o;
    o.height = 130;
    o.logY = true;
    o.xLabel = "iteration";
    o.yLabel = "|grad G|";
    plot("conv", series, o);
}

void historyPlots(AppState& app) {
    const int labs = app.compare ? 2 : 1;
    std::vector<PlotSeries> res, en;
    for (int l = 0; l < labs; ++l) {
        if (!app.labs[l].world) continue;
        const auto& h = app.labs[l].world->history();
        size_t start = h.size() > size_t(app.historyWindow) ? h.size() - size_t(app.historyWindow) : 0;
        PlotSeries r, e;
        r.name = e.name = app.compare ? (l == 0 ? "left" : "right") : "";
        r.color = e.color = kLabColor[l];
        for (size_t i = start; i < h.size(); ++i) {
            r.x.push_back(float(h[i].frame));
            r.y.push_back(float(h[i].residualFinal));
            e.x.push_back(float(h[i].frame));
            e.y.push_back(float(h[i].energy));
        }
        res.push_back(std::move(r));
        en.push_back(std::move(e));
    }
    PlotOptions o;
    o.height = 85;
    o.logY = true;
    o.xLabel = "frame";
    o.yLabel = "final residual";
    plot("res", res, o);
    o.logY = false;
    o.yLabel = "energy G";
    plot("energy", en, o);
}

void timingPlot(AppState& app) {
    if (!app.labs[0].world) return;
    const auto& h = app.labs[0].world->history();
    size_t start = h.size() > size_t(app.historyWindow) ? h.size() - size_t(app.historyWindow) : 0;
    const char* names[4] = {"solve", "collision", "coarse", "diagnostics"};
    const ImU32 cols[4] = {IM_COL32(90, 170, 255, 255), IM_COL32(255, 200, 80, 255),
                           IM_COL32(140, 230, 120, 255), IM_COL32(230, 110, 200, 255)};
    std::vector<PlotSeries> s(4);
    for (int k = 0; k < 4; ++k) s[size_t(k)].name = names[k], s[size_t(k)].color = cols[k];
    for (size_t i = start; i < h.size(); ++i) {
        const double v[4] = {h[i].solveMs, h[i].collisionMs, h[i].coarseMs, h[i].diagnosticsMs};
        for (int k = 0; k < 4; ++k) {
            s[size_t(k)].x.push_back(float(h[i].frame));
            s[size_t(k)].y.push_back(float(v[k]));
        }
    }
    PlotOptions o;
    o.height = 85;
    o.stacked = true;
    o.xLabel = "frame";
    o.yLabel = "ms per stage";
    plot("timing", s, o);
}

// The picked vertex's local system: the 3x3 block D_i its Gauss-Seidel update inverts, as the eigen-ellipse
// x^T D_i x = 1 (semi-axes 1/sqrt(lambda)) in the plane of its two softest directions, and its block diagonal
// dominance (the heat map's quantity) -- low at a stiff/soft interface, where VBD stalls.
void inspectorPanel(AppState& app) {
    Lab& lab = app.labs[0];
    if (app.inspectParticle < 0 || !lab.world) {
        ImGui::TextDisabled("shift + click a vertex to inspect its local system");
        return;
    }
    const vbd::VertexInspect v = lab.world->inspectVertex(app.inspectParticle);
    if (!v.valid) {
        ImGui::TextDisabled("vertex %d: shown after the next step", app.inspectParticle);
        return;
    }
#ifdef VBD_HAVE_LAB
    Eigen::Matrix3d D;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) D(r, c) = 0.5 * (double(v.block(r, c)) + double(v.block(c, r)));
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(D);
    const Eigen::Vector3d l = es.eigenvalues().cwiseMax(1e-30);  // ascending
    ImGui::Text("vertex %d", v.particle);
    ImGui::Text("block eigenvalues %.3g  %.3g  %.3g N/m", l(0), l(1), l(2));
    helpMarker(
        "Eigenvalues of D_i = m/h^2 I + sum of the elastic diagonal blocks: the stiffness the vertex's "
        "own 3x3 solve sees along each principal direction.");
    ImGui::Text("block condition %.3g", l(2) / l(0));
    ImGui::Text("||D||/max||H_ij|| %.3f (heat map)", v.dominance);
    ImGui::Text("||D||/sum||H_ij|| %.3f", v.dominanceSum);
    helpMarker(
        "How much the vertex's own block outweighs its strongest (and all) couplings to neighbours. "
        "Block Gauss-Seidel converges fast where this is large and stalls where it is low.");
    const float size = std::min(ImGui::GetContentRegionAvail().x, 180.0f);
    ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("block ellipse", ImVec2(size, size));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size, p0.y + size), IM_COL32(30, 32, 40, 255), 3);
    const double a = 1 / std::sqrt(l(0)), b = 1 / std::sqrt(l(1)), c = 1 / std::sqrt(l(2));
    const ImVec2 ctr(p0.x + size / 2, p0.y + size / 2);
    const float scale = 0.45f * size / float(a);
    std::vector<ImVec2> pts;
    for (int k = 0; k < 96; ++k) {
        const double t = 2 * M_PI * k / 96;
        pts.push_back(ImVec2(ctr.x + scale * float(a * std::cos(t)), ctr.y - scale * float(b * std::sin(t))));
    }
    dl->AddPolyline(pts.data(), int(pts.size()), IM_COL32(240, 200, 80, 255), ImDrawFlags_Closed, 2);
    dl->AddCircle(ctr, scale * float(c), IM_COL32(110, 170, 255, 255), 48, 1.5f);
    dl->AddText(ImVec2(p0.x + 4, p0.y + 2), IM_COL32(180, 180, 190, 255),
                "x^T D x = 1: soft plane, stiff axis (blue)");
#endif
}

#ifdef VBD_HAVE_LAB
const char* const kMethodNames[4] = {"BCD", "CG", "eigen", "local"};
const ImU32 kMethodCols[4] = {IM_COL32(255, 120, 80, 255), IM_COL32(120, 220, 120, 255),
                              IM_COL32(110, 170, 255, 255), IM_COL32(240, 200, 80, 255)};

// Contours of the 2-D quadratic and the iterate paths of the shown methods, in a size x size square.
void drawEllipse(const vbd::lab::EllipseLab& lab, const bool show[4], float size) {
    const vbd::lab::DescentPath* paths[4] = {&lab.bcd, &lab.cg, &lab.eigen, &lab.local};
    ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("ellipse", ImVec2(size, size));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size, p0.y + size), IM_COL32(30, 32, 40, 255), 3);
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
    for (size_t li = 0; li < levels.size(); ++li) {
        auto c = vbd::lab::ellipseContour(lab.q, levels[li], 96);
        std::vector<ImVec2> pts;
        for (const auto& p : c) pts.push_back(toScreen(p.x(), p.y()));
        if (pts.size() > 2)
            dl->AddPolyline(pts.data(), int(pts.size()), IM_COL32(90, 95, 110, 255), ImDrawFlags_Closed, 1);
    }
    for (int k = 0; k < 4; ++k) {
        if (!show[k]) continue;
        std::vector<ImVec2> pts;
        for (const auto& x : paths[k]->x) pts.push_back(toScreen(x(0), x(1)));
        if (pts.size() > 1) dl->AddPolyline(pts.data(), int(pts.size()), kMethodCols[k], 0, 2);
        for (const auto& p : pts) dl->AddCircleFilled(p, 2.5f, kMethodCols[k]);
    }
    dl->AddCircleFilled(toScreen(lab.q.xStar(0), lab.q.xStar(1)), 3.5f, IM_COL32(255, 255, 255, 255));
    dl->PopClipRect();
}

// Random n-D block system: relative energy error (E - E*)/(E0 - E*) per sweep of each method on a log
// scale (a CG "sweep" is one CG iteration). Recomputed only when a parameter changes.
void ndPanel(EllipseState& e) {
    ImGui::PushItemWidth(-120);
    ImGui::SliderInt("blocks", &e.ndBlocks, 2, 16);
    helpMarker("Number of 3x3 blocks (vertices) of the random SPD system.");
    ImGui::SliderFloat("coupling t", &e.ndCoupling, 0, 0.95f, "%.2f");
    helpMarker(
        "Block-Jacobi spectral radius of the system: 0 is block diagonal, near 1 the diagonal blocks "
        "barely dominate their couplings and block descent slows.");
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
            const vbd::lab::Method ms[4] = {vbd::lab::Method::Bcd, vbd::lab::Method::Cg,
                                            vbd::lab::Method::Eigen, vbd::lab::Method::Local};
            for (int k = 0; k < 4; ++k) {
                const int n = e.sweeps;  // CG: one iteration (one matvec) against one sweep
                const vbd::lab::DescentPath path = vbd::lab::runMethod(q, ms[k], n);
                const int per = ms[k] == vbd::lab::Method::Cg ? 1 : path.stepsPerSweep;
                for (int st = 0; st * per < int(path.energy.size()); ++st)
                    e.ndCurves[k].push_back(
                        float(std::max(1e-16, (path.energy[size_t(st * per)] - q.minEnergy()) / e0)));
            }
            e.ndRho = vbd::lab::spectralRadius(vbd::lab::gaussSeidelMatrix(q.A, 3));
            e.ndKappaActual = vbd::lab::conditionNumber(q.A);
        } catch (const std::exception& ex) {
            e.ndError = ex.what();
        }
    }
    if (!e.ndError.empty()) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", e.ndError.c_str());
        return;
    }
    const float w = ImGui::GetContentRegionAvail().x, hgt = 150;
    ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("ndplot", ImVec2(w, hgt));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + hgt), IM_COL32(30, 32, 40, 255), 3);
    int maxLen = 2;
    for (const auto& c : e.ndCurves) maxLen = std::max(maxLen, int(c.size()));
    auto toScreen = [&](int i, float v) {
        const float t = std::log10(std::max(v, 1e-16f));  // 1 .. 1e-16
        return ImVec2(p0.x + w * float(i) / float(maxLen - 1), p0.y + hgt * (-t / 16.0f));
    };
    for (int k = 0; k < 4; ++k) {
        if (!e.show[k] || e.ndCurves[k].size() < 2) continue;
        std::vector<ImVec2> pts;
        for (size_t i = 0; i < e.ndCurves[k].size(); ++i) pts.push_back(toScreen(int(i), e.ndCurves[k][i]));
        dl->AddPolyline(pts.data(), int(pts.size()), kMethodCols[k], 0, 2);
    }
    dl->AddText(ImVec2(p0.x + 4, p0.y + 2), IM_COL32(180, 180, 190, 255), "(E - E*)/(E0 - E*), 1 .. 1e-16");
    ImGui::Text("n = %d, kappa %.3g, rho(BCD) %.4f, CG factor %.4f", 3 * e.ndBlocks, e.ndKappaActual, e.ndRho,
                vbd::lab::cgFactor(e.ndKappaActual));
}
#endif

void ellipsePanel(AppState& app) {
    EllipseState& e = app.ellipse;
    ImGui::Checkbox("kappa = 25 pair", &e.pair);
    helpMarker(
        "The seed's picture: the same kappa = 25, axis-aligned (BCD exact in one sweep) and tilted by "
        "45 degrees (BCD zig-zags at rate ((kappa-1)/(kappa+1))^2 per sweep).");
    ImGui::SameLine();
    ImGui::Checkbox("random n-D", &e.nd);
    helpMarker(
        "A random n-D block system with chosen condition number and block coupling: convergence "
        "curves instead of paths.");
    ImGui::PushItemWidth(-120);
    if (!e.pair && !e.nd) {
        ImGui::SliderFloat("kappa", &e.kappa, 1, 1e4, "%.3g", ImGuiSliderFlags_Logarithmic);
        helpMarker("Condition number of the 2-D quadratic: ratio of its stiff to its soft eigenvalue.");
        ImGui::SliderFloat("angle (deg)", &e.angleDeg, 0, 90, "%.1f");
        helpMarker(
            "Tilt of the ellipse against the coordinate axes: at 0 the blocks decouple and block descent "
            "is exact in one sweep whatever kappa is; tilted, the coupling (loss of diagonal dominance) "
            "slows it.");
    }
    ImGui::SliderInt("sweeps", &e.sweeps, 1, 50);
    helpMarker("Sweeps of each method drawn on the ellipse.");
    ImGui::PopItemWidth();
#ifdef VBD_HAVE_LAB
    for (int k = 0; k < 4; ++k) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(kMethodCols[k]));
        ImGui::Checkbox(kMethodNames[k], &e.show[k]);
        ImGui::PopStyleColor();
        if (k < 3) ImGui::SameLine();
    }
    if (e.nd) {
        ndPanel(e);
        return;
    }
    if (e.pair) {
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
        ImGui::Text("aligned: rho %.3f, %d sweep | 45 deg: rho %.3f, %d", a.rhoGs, a.predictedBcdSweeps,
                    b.rhoGs, b.predictedBcdSweeps);
        ImGui::Text("kappa = 25 and CG factor %.3f in both", a.cgFactor);
        return;
    }
    const vbd::lab::EllipseLab lab = vbd::lab::computeEllipseLab(e.kappa, e.angleDeg, e.sweeps);
    drawEllipse(lab, e.show, std::min(ImGui::GetContentRegionAvail().x, 260.0f));
    ImGui::Text("rho(BCD) = %.4f per sweep, CG factor %.4f", lab.rhoGs, lab.cgFactor);
    ImGui::Text("coupling |b|/sqrt(ac) = %.4f, BCD sweeps to 1e-6: %d", lab.dominance,
                lab.predictedBcdSweeps);
#else
    ImGui::TextDisabled("the conditioning lab (engine/lab) is not built");
#endif
}

}  // namespace

void plotsPanel(AppState& app, float x, float height) {
    ImGui::SetNextWindowPos(ImVec2(x, 0));
    ImGui::SetNextWindowSize(ImVec2(kRightPanelWidth, height));
    ImGui::Begin("Plots", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    if (ImGui::CollapsingHeader("Convergence (this frame)", ImGuiTreeNodeFlags_DefaultOpen))
        convergencePlot(app);
    if (ImGui::CollapsingHeader("Per frame", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::SliderInt("frames shown", &app.historyWindow, 20, 2000);
        historyPlots(app);
    }
    if (ImGui::CollapsingHeader("Timing breakdown", ImGuiTreeNodeFlags_DefaultOpen)) timingPlot(app);
    if (app.showEllipse &&
        ImGui::CollapsingHeader("Energy ellipse (conditioning lab)", ImGuiTreeNodeFlags_DefaultOpen))
        ellipsePanel(app);
    ImGui::End();
}

void viewportOverlay(AppState& app) {
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const int labs = app.compare ? 2 : 1;
    const float w = app.viewW / float(labs);
    for (int l = 0; l < labs; ++l) {
        const Lab& lab = app.labs[l];
        const float x0 = app.viewX + w * float(l);
        if (app.compare) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%s: %d iterations, %s", l == 0 ? "left" : "right",
                          lab.desc.solver.iterations,
                          lab.desc.solver.coarse.enabled ? "coarse on" : "coarse off");
            dl->AddText(ImVec2(x0 + 10, app.viewY + 8), kLabColor[l], buf);
            if (l == 1)
                dl->AddLine(ImVec2(x0, app.viewY), ImVec2(x0, app.viewY + app.viewH), IM_COL32(0, 0, 0, 255),
                            2);
        }
        if (lab.gpu && lab.draw.field != vbd::ScalarField::None && lab.gpu->range.valid) {
            static const char* const kTitles[] = {"", "colour group", "residual |grad_i G|", "det F",
                                                  "diagonal dominance"};
            heatLegend(dl, ImVec2(x0 + 18, app.viewY + app.viewH - 44), lab.gpu->range,
                       kTitles[int(lab.draw.field)], lab.draw.logScale,
                       lab.draw.field == vbd::ScalarField::Color);
        }
    }
    if (app.rec.on)
        dl->AddText(ImVec2(app.viewX + app.viewW - 60, app.viewY + 8), IM_COL32(255, 60, 60, 255), "REC");
}

}  // namespace vbdgui
