#pragma once
// `vbdlab experiment coarse`: the grid that answers the seed's open question ("which filter is sharpest,
// how few modes survive before the gain disappears") on the real nonlinear solver. One implicit step of
// the stiffness-contrast bar (assets/scenes/coarse_bar.json) per run, iterating sweeps until the error
// reaches tol or the cap.
//
// Convergence measure (--measure). `residual` (the default, the criterion): the relative residual
// |grad G| / |grad G_0| of the solver's own forces, to tol 1e-5. It needs the double-precision state
// (--precision double, the default): with float positions the residual has a floor of (element stiffness) x
// ulp(x), 0.15 relative at contrast 1e4 (docs/coarse-space.md). `error`: the mass-weighted position error
// against the step's Newton solution x* (projected Newton, P = I),
//   err_k = |x_k - x*|_M / |x_0 - x*|_M,   tol 1e-4,
// whose float floor (~5e-5) does not grow with contrast; the float runs of the previous study used it.
// residual_after_10 is |grad G| / |grad G_0| after 10 sweeps in every case.
#include <functional>
#include <string>
#include <vector>

#include "scene/scene_desc.h"

namespace vbd::experiments {

struct ExperimentOptions {
    std::string out;                   // directory (created)
    std::string scenePath;             // the bar scene (coarse_bar.json)
    bool quick = false;                // tiny grid (tests)
    int cap = 0;                       // sweep cap per run; 0 = 1500 (quick: 200)
    std::string precision = "double";  // solver state: double | float
    std::string measure = "residual";  // residual | error
    double tol = 0;                    // 0: 1e-5 (residual) or 1e-4 (error)
    // Subsets of the grid (empty: all): layouts, contrasts, and methods by basis name (none, chebyshev,
    // stiff_rigid, stiff_rigid_rest, element, patch_soft).
    std::vector<std::string> layouts, bases;
    std::vector<double> contrasts;
    int threads = 1;  // worker threads for the solver (timings are per-thread honest at 1)
};

struct ExperimentRow {
    std::string layout;
    double contrast = 1;
    std::string basis, filter;
    int modes = 0;
    int columns = 0;
    double columnsOver3n = 0;
    int sweepsToTol = -1;  // -1: not reached within the cap
    double msPerSweep = 0;
    double msToTol = -1;
    double residualAfter10 = 0;
};

// The header line of results.csv.
const char* resultsHeader();

// Scene of one grid cell: the bar with its stiff region(s) scaled by `contrast`.
//   half: x > 0 (the free half); layers: every other cell layer along x; random: 20% of the cells
//   (fixed seed).
SceneDesc experimentScene(const SceneDesc& base, const std::string& layout, double contrast);

// Runs the grid, writes DIR/results.csv, DIR/chebyshev.csv, DIR/reference.csv (per cell: the reference
// solution, plain VBD's tail rate, sweep count and final measure) and DIR/sweeps_<layout>.png.
// progress(done, total) is called after each run. Throws InputError for a bad scene or output dir.
std::vector<ExperimentRow> runCoarseExperiment(const ExperimentOptions& opt,
                                               const std::function<void(int, int)>& progress = {});

}  // namespace vbd::experiments
