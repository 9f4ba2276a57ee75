// `vbdlab experiment coarse --out DIR [--quick] [--cap N] [--tol T] [--measure residual|error]
// [--precision double|float] [--scene FILE] [--threads N]`: the
// coarse-space grid of docs/coarse-space.md. Parsing only; the logic is vbd::experiments::runCoarseExperiment
// (engine/coarse/coarse_experiment.h).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "experiments/coarse_experiment.h"
#include "experiments/float_floor.h"
#include "experiments/truncation.h"
#include "math/error.h"

namespace vbdcli {

static const char* kExperimentFooter = R"(Experiments:
  coarse  One implicit step of the stiffness-contrast bar (assets/scenes/coarse_bar.json), for every
          layout (half | layers | random) x contrast (1, 1e2, 1e4, 1e6) x coarse basis / filter / modes
          (plus plain VBD and Chebyshev), sweeps until the measure drops below --tol or --cap sweeps.
          --measure residual (default): |grad G| / |grad G_0|, tol 1e-5, on the double-precision state;
          --measure error: mass-weighted position error against the step's Newton solution, tol 1e-4.
          --precision float runs the float solver (its residual floors at high contrast).
Outputs:
  DIR/results.csv     layout,contrast,basis,filter,modes,columns,columns_over_3n,sweeps_to_tol,
                      ms_per_sweep,ms_to_tol,residual_after_10   (sweeps_to_tol = -1: not reached)
  DIR/reference.csv   Newton iterations, initial error, residual floor at x*, Chebyshev rho used,
                      plain VBD's sweeps and final measure
  DIR/chebyshev.csv   fixed-rho scan on the bar at contrast 1 and 1e2 (where it accelerates / diverges)
  DIR/sweeps_<layout>.png, DIR/time_<layout>.png, DIR/history_layers_1e4.png
--quick runs a tiny grid (layers layout, contrast 1 and 1e4, four methods, 200 sweeps).
  truncation   The hanging bar at 40 iterations (assets/scenes/hanging_bar_40.json, no material damping) for
               --frames frames with plain VBD, Chebyshev (rho 0.9, 0.95) and the aggregate coarse space,
               against a converged reference: a truncated solve raises the total energy, a converged
               implicit-Euler step never does. Takes --frames only. Writes DIR/truncation.csv (total and
               kinetic energy, lowest point, centre of mass per method and frame), DIR/truncation_energy.png.
  float-floor  The residual |grad G| of steps solved to round-off in double, evaluated at the solution stored
               in double, in float, and as a float increment from x_prev: how low each storage lets a solve
               go. Takes no option but --out. Writes DIR/float_floor.csv.
The options --quick to --threads are coarse's (another experiment refuses them).)";

static Command addExperimentCommand(CLI::App& root) {
    auto o = std::make_shared<vbd::experiments::ExperimentOptions>();
    auto name = std::make_shared<std::string>();
    auto scene = std::make_shared<std::string>();
    auto frames = std::make_shared<int>(600);
    CLI::App* sub = root.add_subcommand(
        "experiment", "Measurement studies: coarse (the coarse-space grid), truncation, float-floor");
    sub->add_option("name", *name, "Experiment to run: coarse | truncation | float-floor")->required();
    sub->add_option("--frames", *frames, "Frames (truncation)")->capture_default_str();
    sub->add_option("--out", o->out, "Output directory (created)")->required();
    sub->add_flag("--quick", o->quick, "Tiny grid (seconds)");
    sub->add_option("--cap", o->cap, "Sweep cap per run (0: 1500, quick 200)")->capture_default_str();
    sub->add_option("--tol", o->tol, "Target of the measure, in (0, 1) (0: 1e-5 residual, 1e-4 error)")
        ->capture_default_str();
    sub->add_option("--measure", o->measure, "residual | error")->capture_default_str();
    sub->add_option("--precision", o->precision, "Solver state: double | float")->capture_default_str();
    sub->add_option("--layouts", o->layouts, "Only these layouts (half layers random)")->delimiter(',');
    sub->add_option("--contrasts", o->contrasts, "Only these contrasts (e.g. 1e4)")->delimiter(',');
    sub->add_option("--bases", o->bases,
                    "Only these methods: none chebyshev stiff_rigid stiff_rigid_rest element patch_soft")
        ->delimiter(',');
    sub->add_option("--scene", *scene, "Bar scene (default assets/scenes/coarse_bar.json)");
    sub->add_option("--threads", o->threads, "Solver threads (default 1: comparable timings)")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
    sub->footer(kExperimentFooter);
    Command c;
    c.sub = sub;
    c.run = [o, name, scene, frames, sub]() {
        // An option the experiment does not read is refused, not ignored: `truncation --scene mine.json`
        // used to write the built-in bar's results as if they were the scene's.
        const std::vector<std::string> takes =
            *name == "truncation" ? std::vector<std::string>{"--frames"}
            : *name == "float-floor"
                ? std::vector<std::string>{}
                : std::vector<std::string>{"--quick",   "--cap",       "--tol",   "--measure", "--precision",
                                           "--layouts", "--contrasts", "--bases", "--scene",   "--threads"};
        for (const char* opt : {"--frames", "--quick", "--cap", "--tol", "--measure", "--precision",
                                "--layouts", "--contrasts", "--bases", "--scene", "--threads"}) {
            if (sub->count(opt) == 0 || std::find(takes.begin(), takes.end(), opt) != takes.end()) continue;
            std::string list = "--out";
            for (const auto& t : takes) list += ", " + t;
            throw vbd::InputError("", opt,
                                  "experiment " + *name + " does not take it (it takes " + list + ")");
        }
        checkOutputFolder(o->out);
        if (*name == "truncation") {
            vbd::experiments::runTruncationStudy(o->out, assetPath(""), *frames);
            std::printf("wrote %s/truncation.csv and truncation_energy.png\n", o->out.c_str());
            return 0;
        }
        if (*name == "float-floor") {
            vbd::experiments::runFloatFloorStudy(o->out, assetPath(""));
            std::printf("wrote %s/float_floor.csv\n", o->out.c_str());
            return 0;
        }
        if (*name != "coarse")
            throw vbd::InputError("", "experiment",
                                  "unknown experiment '" + *name + "' (coarse | truncation | float-floor)");
        o->scenePath = scene->empty() ? assetPath("scenes/coarse_bar.json") : *scene;
        Progress bar("experiment coarse", 1);
        bool started = false;
        const auto rows = vbd::experiments::runCoarseExperiment(*o, [&](int done, int total) {
            if (!started) {
                bar = Progress("experiment coarse", total);
                started = true;
            }
            bar.update(done);
        });
        bar.finish();
        std::printf("wrote %zu rows to %s/results.csv\n", rows.size(), o->out.c_str());
        return 0;
    };
    return c;
}

static Registrar reg(&addExperimentCommand);

}  // namespace vbdcli
