#pragma once
// `vbdlab experiment coarse`: the grid that answers the seed's open question ("which filter is sharpest,
// how few modes survive before the gain disappears") on the real nonlinear solver. One implicit step of
// the stiffness-contrast bar (assets/scenes/coarse_bar.json) per run, iterating sweeps until the error
// reaches tol or the cap.
//
// Convergence measure. The solver stores positions in float, which puts a floor under |grad G|: the
// iterate can only sit on a float grid, and the residual of a grid point next to x* is about
// (element stiffness) x ulp(x), which grows with contrast (docs/coarse-space.md measures it: ~6e-4
// relative at contrast 1, above 1 at contrast 1e4). A relative residual of 1e-5 is therefore not reachable
// by any method on this solver. The error measure used for sweeps_to_tol is the mass-weighted position
// error against the converged solution x* of the same step (projected Newton, P = I, to its float floor):
//   err_k = |x_k - x*|_M / |x_0 - x*|_M,
// whose floor is ulp(x)/|x_0 - x*| independent of contrast. residual_after_10 is |grad G| / |grad G_0|
// after 10 sweeps, as its name says.
#include <functional>
#include <string>
#include <vector>

#include "scene/scene_desc.h"

namespace vbd::coarse {

struct ExperimentOptions {
    std::string out;        // directory (created)
    std::string scenePath;  // the bar scene (coarse_bar.json)
    bool quick = false;     // tiny grid (tests)
    int cap = 0;            // sweep cap per run; 0 = 1500 (quick: 80)
    double tol = 1e-4;      // on err_k (its float floor is ~1e-5 at contrast 1, ~5e-5 at 1e4-1e6)
    int threads = 1;        // worker threads for the solver (timings are per-thread honest at 1)
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

// Runs the grid, writes DIR/results.csv, DIR/chebyshev.csv, DIR/reference.csv and DIR/sweeps_<layout>.png.
// progress(done, total) is called after each run. Throws InputError for a bad scene or output dir.
std::vector<ExperimentRow> runCoarseExperiment(const ExperimentOptions& opt,
                                               const std::function<void(int, int)>& progress = {});

}  // namespace vbd::coarse
