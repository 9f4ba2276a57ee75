// Time step, solver, coarse space, AVBD and material settings. Each row names a setting once and holds one
// editor per side; every edit is recorded under its scene key (solver.iterations, ...), so that a caption
// can say what differs and a scripted `set` of another key keeps it.
#include <string>

#include "gui/fit_text.h"
#include "gui/panels.h"
#include "gui/widgets.h"

namespace vbdgui {

void timeStepSection(AppState& app) {
    SettingsTable t("time", app);
    t.row("dt (s)",
          "Frame time step h; the inertial term M/h^2 grows as h shrinks, which makes every block more "
          "diagonally dominant (rebuilds the World from the current state).",
          [](Lab& l) { editDouble(l, "dt", &l.desc.dt, 1e-4, 0.05, "%.5f", true); });
    t.row("substeps", "Implicit steps of h/substeps per frame (rebuilds the World from the current state).",
          [](Lab& l) { editInt(l, "substeps", &l.desc.substeps, 1, 20); });
}

namespace {

void coarseRows(SettingsTable& t) {
    t.row("coarse space",
          "Adds a Galerkin coarse correction after each sweep, removing the smooth error that block "
          "Gauss-Seidel reduces slowly.",
          [](Lab& l) { editBool(l, "solver.coarse.enabled", &l.desc.solver.coarse.enabled); });
    t.row("basis",
          "element: lowest eigenmodes of each element; stiff_rigid: rigid modes of each stiff region; "
          "patch_soft: soft modes of cell patches; aggregate: the stiff regions plus the rigid motions of "
          "blocks of cells (the near-kernel of elasticity), for uniform bodies too.",
          [](Lab& l) { editEnum(l, "solver.coarse.basis", &l.desc.solver.coarse.basis); });
    t.row("aggregate size", "Cells per block edge of the aggregate basis (3 rigid moves + 3 rotations each).",
          [](Lab& l) {
              editInt(l, "solver.coarse.aggregate_size", &l.desc.solver.coarse.aggregateSize, 1, 8);
          });
    t.row("modes/element", "How many of each element's lowest-energy eigenmodes enter the coarse basis.",
          [](Lab& l) {
              editInt(l, "solver.coarse.modes_per_element", &l.desc.solver.coarse.modesPerElement, 1, 12);
          });
    t.row("filter",
          "Which modes to keep: all, only across a stiffness contrast, only those coupling different "
          "colours, or one set per patch.",
          [](Lab& l) { editEnum(l, "solver.coarse.filter", &l.desc.solver.coarse.filter); });
    t.row("contrast threshold",
          "Stiffness ratio between neighbouring elements above which the contrast filter keeps a mode.",
          [](Lab& l) {
              editDouble(l, "solver.coarse.contrast_threshold", &l.desc.solver.coarse.contrastThreshold, 1.0,
                         1e6, "%.3g", true);
          });
    t.row("patch size", "Cells per patch edge for the patch basis and filter.",
          [](Lab& l) { editInt(l, "solver.coarse.patch_size", &l.desc.solver.coarse.patchSize, 1, 8); });
    t.row("matrix",
          "hessian: the current PSD-projected Hessian of G, refactored when the shape moves; rest: the rest "
          "stiffness plus M/h^2, factored once (docs/coarse-space.md).",
          [](Lab& l) { editEnum(l, "solver.coarse.matrix", &l.desc.solver.coarse.matrix); });
}

// The coarse correction removes smooth error far below float's residual floor: stored as absolute float
// positions, stiffness x float spacing can exceed the initial residual (104 N at contrast 1e4 on a
// 12x4x4 bar), so a corrected residual in float can read higher while the motion is more accurate.
void floatCoarseWarning(const AppState& app) {
    for (int l = 0; l < (app.compare ? 2 : 1); ++l) {
        const vbd::SolverDesc& s = app.labs[l].desc.solver;
        if (s.precision != vbd::Precision::Float || !s.coarse.enabled) continue;
        ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 180, 60, 255));
        textWords(
            "%s float state: the residual cannot fall below its floor (stiffness x float "
            "spacing of x), which the coarse correction reaches at once; the residual plot "
            "then hides the gain. Use precision double.",
            app.compare ? (l == 0 ? "left:" : "right:") : "");
        ImGui::PopStyleColor();
    }
}

void avbdRows(SettingsTable& t) {
    t.row("beta", "Penalty ramp: each iteration a constraint's stiffness grows by beta |C|.",
          [](Lab& l) { editDouble(l, "solver.beta", &l.desc.solver.beta, 1.0, 1e8, "%.3g", true); });
    t.row("gamma", "Warm-start decay of penalties and multipliers from the previous step (k = gamma k).",
          [](Lab& l) { editDouble(l, "solver.gamma", &l.desc.solver.gamma, 0.0, 1.0, "%.3f", false); });
    t.row("alpha",
          "Stabilisation: the fraction of the previous step's constraint error kept instead of corrected at "
          "once (1 = no position correction).",
          [](Lab& l) { editDouble(l, "solver.alpha", &l.desc.solver.alpha, 0.0, 1.0, "%.3f", false); });
    t.row("k_max",
          "Upper bound of the penalty stiffness, which caps the conditioning of the 6x6 body blocks.",
          [](Lab& l) { editDouble(l, "solver.k_max", &l.desc.solver.kMax, 1e3, 1e12, "%.3g", true); });
}

}  // namespace

void solverSection(AppState& app) {
    {
        SettingsTable t("solver", app);
        t.row("iterations",
              "Block Gauss-Seidel sweeps over all vertex colours per step; each sweep solves every vertex's "
              "3x3 Newton block once.",
              [](Lab& l) { editInt(l, "solver.iterations", &l.desc.solver.iterations, 1, 200); });
        t.row(
            "damping",
            "none: undamped; naive: Rayleigh damping on the total Hessian (also damps rigid motion and "
            "fights free fall); internal: damps the rate of C = F^T F only, so rigid motion stays undamped.",
            [](Lab& l) { editEnum(l, "solver.damping", &l.desc.solver.damping); });
        t.row("Chebyshev rho",
              "Spectral-radius estimate for Chebyshev over-relaxation of the sweeps (0 = off); too large a "
              "value makes the iteration diverge.",
              [](Lab& l) {
                  editDouble(l, "solver.chebyshev_rho", &l.desc.solver.chebyshevRho, 0.0, 0.99, "%.3f",
                             false);
              });
        t.row("precision",
              "double (default): the solver iterates on double positions for every body. With float "
              "positions the residual |grad G| stalls at its floor, about stiffness x float spacing of x "
              "(plotted as 'floor'); in double it keeps falling.",
              [](Lab& l) { editEnum(l, "solver.precision", &l.desc.solver.precision); });
        t.row("tolerance",
              "Stop a step's sweeps once |grad G| / |grad G_0| falls below this (0 = off: always the full "
              "iteration count, so recordings are reproducible); iterations is then the cap.",
              [](Lab& l) {
                  editDouble(l, "solver.tolerance", &l.desc.solver.tolerance, 0.0, 1e-2, "%.1e", true);
              });
        t.row(
            "backend",
            "Where the soft-body step runs: cpu; cuda (the step on the GPU, with collision detection, the "
            "coarse correction and coupled rigid bodies on the CPU between its sweeps; refused, with the "
            "reason, where there is no device); auto: cuda where it can run, else cpu. The status line says "
            "which and why.",
            [](Lab& l) { editEnum(l, "solver.backend", &l.desc.solver.backend); });
    }
    if (ImGui::TreeNode("Coarse space")) {
        floatCoarseWarning(app);
        SettingsTable t("coarse", app);
        coarseRows(t);
        ImGui::TreePop();
    }
    if (ImGui::TreeNode("AVBD (rigid bodies)")) {
        SettingsTable t("avbd", app);
        avbdRows(t);
        ImGui::TreePop();
    }
}

// Material edits rebuild the World (rest data and colouring depend on them) and carry its state, so the
// new material acts from the current frame.
void materialSection(AppState& app) {
    const vbd::SceneDesc& d = app.labs[0].desc;
    if (d.softBodies.empty() && d.cloths.empty()) {
        ImGui::TextDisabled("no deformable bodies");
        return;
    }
    SettingsTable t("material", app);
    for (size_t i = 0; i < d.softBodies.size(); ++i) {
        const std::string k = "soft_bodies." + std::to_string(i);
        t.heading(("soft body " + std::to_string(i) + " (" + d.softBodies[i].type + ")").c_str());
        auto body = [i](Lab& l) -> vbd::SoftBodyDesc& { return l.desc.softBodies[i]; };
        t.row("Young's E (Pa)", "Young's modulus: the body's stiffness against stretching.", [&](Lab& l) {
            editDouble(l, k + ".material.youngs", &body(l).material.youngs, 1e2, 1e10, "%.3g", true);
        });
        t.row(
            "Poisson nu",
            "Poisson ratio: near 0.5 the material is nearly incompressible and the per-vertex blocks become "
            "ill-conditioned.",
            [&](Lab& l) {
                editDouble(l, k + ".material.poisson", &body(l).material.poisson, 0.0, 0.49, "%.3f", false);
            });
        t.row("density", "Mass per volume (kg/m^3); it sets the inertial term M/h^2 of each block.",
              [&](Lab& l) {
                  editDouble(l, k + ".material.density", &body(l).material.density, 1.0, 1e5, "%.3g", true);
              });
        t.row("damping k_d (s)", "Stiffness-proportional damping coefficient of the body.", [&](Lab& l) {
            editDouble(l, k + ".material.damping", &body(l).material.damping, 0.0, 1.0, "%.3g", false);
        });
        for (size_t r = 0; r < d.softBodies[i].regions.size(); ++r) {
            const std::string label = "region " + std::to_string(r) + ": E x";
            const std::string key = k + ".regions." + std::to_string(r) + ".youngs_scale";
            t.row(label.c_str(),
                  "Multiplies Young's modulus inside this region: the stiffness contrast that breaks block "
                  "diagonal dominance.",
                  [&](Lab& l) {
                      editDouble(l, key, &body(l).regions[r].youngsScale, 1e-3, 1e8, "%.3g", true);
                  });
        }
    }
    for (size_t i = 0; i < d.cloths.size(); ++i) {
        const std::string k = "cloths." + std::to_string(i) + ".material";
        t.heading(("cloth " + std::to_string(i)).c_str());
        t.row("Young's E (Pa)", "In-plane stiffness of the membrane (times the thickness).", [&](Lab& l) {
            editDouble(l, k + ".youngs", &l.desc.cloths[i].material.youngs, 1e1, 1e9, "%.3g", true);
        });
        t.row("bending", "Dihedral bending stiffness; small values let the cloth fold.", [&](Lab& l) {
            editDouble(l, k + ".bending", &l.desc.cloths[i].material.bending, 1e-8, 1e-1, "%.2e", true);
        });
    }
}

}  // namespace vbdgui
