#include "experiments/coarse_experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include <time.h>

#include "backend/parallel.h"
#include "coarse/coarse_correction.h"
#include "experiments/png_plot.h"
#include "math/error.h"
#include "scene/scene.h"
#include "scene/scene_limits.h"
#include "soft/soft_solver.h"

namespace vbd::experiments {

using coarse::CoarseCorrection;

namespace {

// Timings: with one solver thread (the default) the CPU time of this thread, which the other processes
// on a shared machine do not inflate; with more threads the wall clock.
bool g_cpuClock = true;
struct Clock {
    using time_point = double;
    static double now() {
        if (g_cpuClock) {
            timespec ts;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
};
double cpuMsSince(double t0) { return Clock::now() - t0; }

struct Config {
    std::string basis, filter;
    int modes = 0;
    bool coarse = false, chebyshev = false;
    CoarseDesc desc;
};

Config coarseConfig(const std::string& name, CoarseBasis b, CoarseFilter f, const std::string& filter,
                    int modes, CoarseMatrix mat = CoarseMatrix::Hessian) {
    Config c;
    c.basis = name;
    c.filter = filter;
    c.modes = modes;
    c.coarse = true;
    c.desc.enabled = true;
    c.desc.basis = b;
    c.desc.filter = f;
    c.desc.modesPerElement = b == CoarseBasis::StiffRigid ? 1 : modes;
    c.desc.contrastThreshold = 10;
    c.desc.patchSize = 2;
    c.desc.matrix = mat;
    return c;
}

std::vector<Config> configs(bool quick) {
    Config plain;
    plain.basis = "none";
    plain.filter = "none";
    Config cheb = plain;
    cheb.basis = "chebyshev";
    cheb.chebyshev = true;
    std::vector<Config> c{plain, cheb};
    c.push_back(coarseConfig("stiff_rigid", CoarseBasis::StiffRigid, CoarseFilter::None, "none", 6));
    c.push_back(coarseConfig("element", CoarseBasis::Element, CoarseFilter::Contrast, "contrast", 1));
    if (quick) return c;
    c.push_back(coarseConfig("stiff_rigid_rest", CoarseBasis::StiffRigid, CoarseFilter::None, "none", 6,
                             CoarseMatrix::Rest));
    c.push_back(coarseConfig("element", CoarseBasis::Element, CoarseFilter::Contrast, "contrast", 3));
    c.push_back(coarseConfig("element", CoarseBasis::Element, CoarseFilter::None, "none", 1));
    c.push_back(coarseConfig("element", CoarseBasis::Element, CoarseFilter::CrossColor, "cross_color", 1));
    c.push_back(coarseConfig("element", CoarseBasis::Element, CoarseFilter::Patch, "patch", 6));
    c.push_back(coarseConfig("patch_soft", CoarseBasis::PatchSoft, CoarseFilter::Patch, "patch", 6));
    return c;
}

std::string configLabel(const Config& c) {
    if (!c.coarse) return c.basis;
    std::string s = c.basis == "element" ? "elem" : c.basis;
    if (c.filter != "none") s += "+" + (c.filter == "cross_color" ? std::string("xcolor") : c.filter);
    if (c.basis != "stiff_rigid" && c.basis != "stiff_rigid_rest") s += " k=" + std::to_string(c.modes);
    return s;
}

// The solver's iterate in double (exact in either precision).
std::vector<Vec3d> positions(SoftSolver& s) {
    std::vector<Vec3d> x;
    s.positions(x);
    return x;
}

double massNorm(const SoftModel& m, const std::vector<Vec3d>& a, const std::vector<Vec3d>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (!m.fixed[i]) s += double(m.mass[i]) * squaredNorm(a[i] - b[i]);
    return std::sqrt(s);
}

// How a run is measured (coarse_experiment.h).
struct Measure {
    bool residual = true;
    double tol = 1e-5;
    Precision precision = Precision::Double;
};

struct Reference {
    std::vector<Vec3d> xstar;
    double e0 = 1, r0 = 1, floor = 0;
    int newtonIterations = 0;
};

SolverDesc runParams(const SceneDesc& sd, int iterations, double rho, int threads, Precision precision) {
    SolverDesc p = sd.solver;
    p.precision = precision;
    p.iterations = iterations;
    p.diagnostics = false;
    p.chebyshevRho = rho;
    p.coarse.enabled = false;
    p.threads = threads;
    return p;
}

// x* of the step: projected Newton (P = I, Hessian refactored every iteration, backtracking on G) from the
// step's initial guess until the step is at round-off size (or 30 iterations).
Reference reference(const SceneDesc& sd, int threads, const Measure& ms) {
    SoftSolver s;
    s.build(sd);
    s.setParams(runParams(sd, 0, 0, threads, ms.precision));
    s.step(float(sd.dt / sd.substeps), sd.gravity);
    const std::vector<Vec3d> x0 = positions(s);
    Reference r;
    r.r0 = s.residualNorm();
    CoarseCorrection newton;
    CoarseDesc d;
    d.matrix = CoarseMatrix::Hessian;
    newton.configure(d);
    newton.useIdentityBasis(true);
    newton.setRefactorEverySweep(true);
    // Round-off size of a Newton step relative to the first: about one ulp per coordinate on this bar
    // (3e-5 in float, 1e-12 in double).
    const double roundOff = ms.precision == Precision::Double ? 1e-12 : 3e-5;
    double first = 0;
    for (int k = 1; k <= 30; ++k) {
        const std::vector<Vec3d> before = positions(s);
        s.correct(newton, k);
        r.newtonIterations = k;
        const double step = newton.lastDirection().norm();
        if (k == 1) first = step;
        const std::vector<Vec3d> after = positions(s);
        const bool same = std::memcmp(before.data(), after.data(), before.size() * sizeof(Vec3d)) == 0;
        if (newton.stats().lastAlpha == 0 || step < roundOff * first || same) break;
    }
    r.xstar = positions(s);
    r.e0 = massNorm(s.model(), x0, r.xstar);
    r.floor = s.residualNorm() / r.r0;
    return r;
}

// The convergence measure of the current iterate (residual or error, relative).
double measureOf(SoftSolver& s, const Reference& ref, const Measure& ms) {
    if (ms.residual) return s.residualNorm() / ref.r0;
    return massNorm(s.model(), positions(s), ref.xstar) / ref.e0;
}

struct RunResult {
    ExperimentRow row;
    std::vector<double> err;  // the measure, per sweep
};

// One run: the step's prediction, then up to `cap` iterations of the solver's own loop (sweep, Chebyshev,
// coarse correction), measuring after each.
RunResult runOne(const SceneDesc& sd, const Config& c, const Reference& ref, int cap, const Measure& msr,
                 double rho, int threads) {
    RunResult rr;
    ExperimentRow& row = rr.row;
    row.basis = c.basis;
    row.filter = c.filter;
    row.modes = c.modes;
    SoftSolver s;
    s.build(sd);
    s.setParams(runParams(sd, cap, c.chebyshev ? rho : 0, threads, msr.precision));
    std::unique_ptr<CoarseCorrection> hook;
    if (c.coarse) {
        hook = std::make_unique<CoarseCorrection>();
        hook->configure(c.desc);
        s.setSweepHook(hook.get());
    }
    s.beginStep(float(sd.dt / sd.substeps), sd.gravity);
    if (hook) {
        hook->prepare(s.model());  // basis construction: once per model, not part of the per-step cost
        row.columns = hook->numColumns();
        row.columnsOver3n = double(row.columns) / double(std::max(1, hook->numDofs()));
    }
    double ms = 0;
    for (int it = 1; it <= cap; ++it) {
        const auto t0 = Clock::now();
        s.iterate(it);
        ms += cpuMsSince(t0);
        const double e = measureOf(s, ref, msr);
        rr.err.push_back(e);
        if (it == 10) row.residualAfter10 = s.residualNorm() / ref.r0;
        if (row.sweepsToTol < 0 && e <= msr.tol) {
            row.sweepsToTol = it;
            row.msToTol = ms;
        }
        if (!(e < 1e6)) break;                                        // diverged (or NaN)
        if (row.sweepsToTol >= 0 && it >= 10 && !c.chebyshev) break;  // done (Chebyshev: the full history)
    }
    s.endStep();
    row.msPerSweep = ms / double(std::max<size_t>(1, rr.err.size()));
    return rr;
}

double tailRate(const std::vector<double>& err) {
    const size_t n = err.size();
    if (n < 6) return 0.5;
    const size_t a = n - std::max<size_t>(3, n / 3);
    const double r = std::pow(err[n - 1] / err[a], 1.0 / double(n - 1 - a));
    return std::isfinite(r) ? std::min(std::max(r, 0.0), 0.999999) : 0.5;
}

std::string fmt(double v) {
    char b[64];
    std::snprintf(b, sizeof(b), "%.6g", v);
    return b;
}

}  // namespace

const char* resultsHeader() {
    return "layout,contrast,basis,filter,modes,columns,columns_over_3n,sweeps_to_tol,ms_per_sweep,ms_to_tol,"
           "residual_after_10";
}

SceneDesc experimentScene(const SceneDesc& base, const std::string& layout, double contrast) {
    SceneDesc sd = base;
    if (sd.softBodies.empty())
        throw InputError(base.file, "soft_bodies", "the experiment needs one soft body");
    SoftBodyDesc& b = sd.softBodies[0];
    if (b.type != "box_grid")
        throw InputError(base.file, b.key + ".type", "the experiment needs a box_grid bar");
    b.regions.clear();
    const Vec3 lo = b.min, hi = b.max;
    const Vec3 cell((hi.x - lo.x) / float(b.cells[0]), (hi.y - lo.y) / float(b.cells[1]),
                    (hi.z - lo.z) / float(b.cells[2]));
    auto cellBox = [&](int i, int j, int k) {
        RegionDesc r;
        r.box.min = Vec3(lo.x + cell.x * float(i), lo.y + cell.y * float(j), lo.z + cell.z * float(k));
        r.box.max = r.box.min + cell;
        r.youngsScale = contrast;
        return r;
    };
    if (layout == "half") {
        RegionDesc r;
        r.box.min = Vec3(0.5f * (lo.x + hi.x), lo.y, lo.z);
        r.box.max = hi;
        r.youngsScale = contrast;
        b.regions.push_back(r);
    } else if (layout == "layers") {
        for (int i = 1; i < b.cells[0]; i += 2) {
            RegionDesc r = cellBox(i, 0, 0);
            r.box.max = Vec3(r.box.max.x, hi.y, hi.z);
            b.regions.push_back(r);
        }
    } else if (layout == "random") {
        std::mt19937 gen(7);  // the raw mt19937 sequence is fixed by the standard: same cells everywhere
        for (int i = 0; i < b.cells[0]; ++i)
            for (int j = 0; j < b.cells[1]; ++j)
                for (int k = 0; k < b.cells[2]; ++k)
                    if (double(gen()) / 4294967296.0 < 0.2) b.regions.push_back(cellBox(i, j, k));
    } else {
        throw InputError("", "layout", "unknown layout '" + layout + "' (half | layers | random)");
    }
    return sd;
}

namespace {

// The grid of one run of the experiment: measure, layouts, contrasts, methods, sweep cap.
struct Grid {
    Measure measure;
    std::vector<std::string> layouts;
    std::vector<double> contrasts;
    std::vector<Config> configs;
    int cap = 0;
};

Measure measureOf(const ExperimentOptions& opt) {
    Measure msr;
    if (opt.measure != "residual" && opt.measure != "error")
        throw InputError("", "--measure", "must be residual or error, not '" + opt.measure + "'");
    if (opt.precision != "double" && opt.precision != "float")
        throw InputError("", "--precision", "must be double or float, not '" + opt.precision + "'");
    msr.residual = opt.measure == "residual";
    msr.precision = opt.precision == "double" ? Precision::Double : Precision::Float;
    msr.tol = opt.tol != 0 ? opt.tol : (msr.residual ? 1e-5 : 1e-4);
    if (!(msr.tol > 0 && msr.tol < 1)) throw InputError("", "--tol", "must be in (0, 1)");
    return msr;
}

// Validates every option before anything is created (bad options exit 2 and write nothing).
Grid gridOf(const ExperimentOptions& opt) {
    if (opt.out.empty()) throw InputError("", "--out", "an output directory is required");
    Grid g;
    g.measure = measureOf(opt);
    if (opt.cap < 0) throw InputError("", "--cap", "must be >= 0");
    g.layouts =
        opt.quick ? std::vector<std::string>{"layers"} : std::vector<std::string>{"half", "layers", "random"};
    g.contrasts = opt.quick ? std::vector<double>{1, 1e4} : std::vector<double>{1, 1e2, 1e4, 1e6};
    if (!opt.layouts.empty()) g.layouts = opt.layouts;
    if (!opt.contrasts.empty()) g.contrasts = opt.contrasts;
    for (const std::string& l : g.layouts)
        if (l != "half" && l != "layers" && l != "random")
            throw InputError("", "--layouts", "unknown layout '" + l + "' (half | layers | random)");
    // Above 1e12 the stiff part's E overflows the material limits of any bar worth running (and 1e309 read
    // as inf wrote inf and NaN rows).
    for (double c : g.contrasts)
        if (!(c >= 1 && c <= 1e12)) throw InputError("", "--contrasts", "contrasts must be in [1, 1e12]");
    for (const Config& c : configs(opt.quick))
        if (opt.bases.empty() || std::find(opt.bases.begin(), opt.bases.end(), c.basis) != opt.bases.end())
            g.configs.push_back(c);
    if (g.configs.empty())
        throw InputError(
            "", "--bases",
            "no method matches (none | chebyshev | stiff_rigid | stiff_rigid_rest | element | patch_soft)");
    g.cap = opt.cap > 0 ? opt.cap : (opt.quick ? 200 : 1500);
    return g;
}

const std::vector<double> kChebRhos = {0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999};

// Every (layout, contrast, method) cell; reference.csv per (layout, contrast); the histories of layers 1e4.
std::vector<ExperimentRow> runGrid(const Grid& g, const SceneDesc& base, const ExperimentOptions& opt,
                                   const std::function<void()>& tick,
                                   std::vector<std::vector<double>>& history) {
    namespace fs = std::filesystem;
    std::vector<ExperimentRow> rows;
    std::ofstream refCsv(fs::path(opt.out) / "reference.csv");
    refCsv << "layout,contrast,newton_iterations,e0_mass_norm,residual_floor_at_xstar,plain_tail_rate,"
              "chebyshev_rho,plain_sweeps,plain_final\n";
    for (const std::string& layout : g.layouts) {
        for (double contrast : g.contrasts) {
            const SceneDesc sd = experimentScene(base, layout, contrast);
            const Reference ref = reference(sd, opt.threads, g.measure);
            tick();
            double rho = 0, plainFinal = -1;
            size_t plainSweeps = 0;
            for (const Config& c : g.configs) {
                RunResult rr = runOne(sd, c, ref, g.cap, g.measure, rho, opt.threads);
                if (!c.coarse && !c.chebyshev) {
                    rho = tailRate(rr.err);
                    plainSweeps = rr.err.size();
                    plainFinal = rr.err.empty() ? -1 : rr.err.back();
                }
                rr.row.layout = layout;
                rr.row.contrast = contrast;
                rows.push_back(rr.row);
                if (layout == "layers" && contrast == 1e4) history.push_back(rr.err);
                tick();
            }
            refCsv << layout << ',' << fmt(contrast) << ',' << ref.newtonIterations << ',' << fmt(ref.e0)
                   << ',' << fmt(ref.floor) << ',' << fmt(rho) << ',' << fmt(rho) << ',' << plainSweeps << ','
                   << fmt(plainFinal) << '\n';
        }
    }
    return rows;
}

void writeResults(const std::vector<ExperimentRow>& rows, const ExperimentOptions& opt) {
    std::ofstream csv(std::filesystem::path(opt.out) / "results.csv");
    csv << resultsHeader() << '\n';
    for (const ExperimentRow& r : rows)
        csv << r.layout << ',' << fmt(r.contrast) << ',' << r.basis << ',' << r.filter << ',' << r.modes
            << ',' << r.columns << ',' << fmt(r.columnsOver3n) << ',' << r.sweepsToTol << ','
            << fmt(r.msPerSweep) << ',' << fmt(r.msToTol) << ',' << fmt(r.residualAfter10) << '\n';
    if (!csv) throw InputError("", "--out", "cannot write results.csv in '" + opt.out + "'");
}

// Chebyshev: where a fixed rho accelerates and where it diverges (contrast 1 and 1e2, half layout).
void chebyshevScan(const Grid& g, const SceneDesc& base, const ExperimentOptions& opt,
                   const std::function<void()>& tick) {
    std::ofstream cheb(std::filesystem::path(opt.out) / "chebyshev.csv");
    cheb << "layout,contrast,rho,sweeps_to_tol," << (g.measure.residual ? "residual" : "error")
         << "_after_cap,diverged\n";
    if (opt.quick) return;
    for (double contrast : {1.0, 1e2}) {
        const SceneDesc sd = experimentScene(base, "half", contrast);
        const Reference ref = reference(sd, opt.threads, g.measure);
        Config c;
        c.basis = "chebyshev";
        c.chebyshev = true;
        for (double rho : kChebRhos) {
            const RunResult rr = runOne(sd, c, ref, std::min(g.cap, 600), g.measure, rho, opt.threads);
            const double last = rr.err.empty() ? 0 : rr.err.back();
            const bool div = !(last < 1.0) || !std::isfinite(last);
            cheb << "half," << fmt(contrast) << ',' << fmt(rho) << ',' << rr.row.sweepsToTol << ','
                 << fmt(last) << ',' << (div ? 1 : 0) << '\n';
            tick();
        }
    }
}

// One series per method over the rows of `layout`: sweeps (kind 0) or CPU ms (kind 1) to tolerance.
std::vector<PlotSeries> seriesOf(const Grid& g, const std::vector<ExperimentRow>& rows,
                                 const std::string& layout, int kind, double& ymax) {
    std::vector<PlotSeries> series;
    for (size_t ci = 0; ci < g.configs.size(); ++ci) {
        const Config& c = g.configs[ci];
        PlotSeries s;
        s.name = configLabel(c);
        s.color = paletteColor(int(ci));
        s.dashed = !c.coarse;
        for (const ExperimentRow& r : rows) {
            if (r.layout != layout || r.basis != c.basis || r.filter != c.filter || r.modes != c.modes)
                continue;
            const bool cens = r.sweepsToTol < 0;
            const double v =
                kind == 0 ? (cens ? g.cap : r.sweepsToTol) : (cens ? r.msPerSweep * g.cap : r.msToTol);
            s.x.push_back(std::max(r.contrast, 1.0));
            s.y.push_back(std::max(v, 1e-3));
            s.censored.push_back(cens);
            ymax = std::max(ymax, v);
        }
        series.push_back(s);
    }
    return series;
}

// Plots: sweeps and time to tolerance against contrast, one line per method.
void writeContrastPlots(const Grid& g, const std::vector<ExperimentRow>& rows, const ExperimentOptions& opt) {
    for (const std::string& layout : g.layouts)
        for (int kind = 0; kind < 2; ++kind) {
            double ymax = 1;
            const std::vector<PlotSeries> series = seriesOf(g, rows, layout, kind, ymax);
            PlotSpec sp;
            sp.title =
                (kind == 0 ? "sweeps to tol, " : "CPU ms to tol, ") + layout + " (ring: not reached, at cap)";
            sp.xlabel = "stiffness contrast";
            sp.ylabel = kind == 0 ? "sweeps" : "ms";
            sp.xmin = 1;
            sp.xmax = 1e6;
            sp.ymin = kind == 0 ? 1 : 1e-1;
            sp.ymax = std::pow(10.0, std::ceil(std::log10(ymax * 1.5)));
            if (g.contrasts.size() < 3) sp.xmax = g.contrasts.back() > 1 ? g.contrasts.back() : 10;
            const std::string name = (kind == 0 ? "sweeps_" : "time_") + layout + ".png";
            writeLinePlot((std::filesystem::path(opt.out) / name).string(), sp, series);
        }
}

// The convergence history of every method on the layered bar at contrast 1e4.
void writeHistoryPlot(const Grid& g, const std::vector<std::vector<double>>& history,
                      const ExperimentOptions& opt) {
    if (history.empty()) return;
    std::vector<PlotSeries> series;
    size_t longest = 1;
    for (size_t ci = 0; ci < history.size(); ++ci) {
        PlotSeries s;
        s.name = configLabel(g.configs[ci]);
        s.color = paletteColor(int(ci));
        s.dashed = !g.configs[ci].coarse;
        const auto& e = history[ci];
        for (size_t k = 0; k < e.size(); k += std::max<size_t>(1, e.size() / 300)) {
            if (!(e[k] < 1e6)) break;  // diverged (Chebyshev): the line ends there
            s.x.push_back(double(k + 1));
            s.y.push_back(std::max(e[k], 1e-12));
        }
        longest = std::max(longest, e.size());
        series.push_back(s);
    }
    const bool residual = g.measure.residual;
    PlotSpec sp;
    sp.title = residual ? "relative residual |grad G| / |grad G0|, layers, contrast 1e4"
                        : "error |x - x*|_M / |x0 - x*|_M, layers, contrast 1e4";
    sp.xlabel = "sweep";
    sp.ylabel = residual ? "residual" : "error";
    sp.logX = true;
    sp.xmin = 1;
    sp.xmax = std::pow(10.0, std::ceil(std::log10(double(longest))));
    sp.ymin = residual ? 1e-8 : 1e-7;
    sp.ymax = 10;
    writeLinePlot((std::filesystem::path(opt.out) / "history_layers_1e4.png").string(), sp, series);
}

}  // namespace

std::vector<ExperimentRow> runCoarseExperiment(const ExperimentOptions& opt,
                                               const std::function<void(int, int)>& progress) {
    const Grid g = gridOf(opt);
    const SceneDesc base = loadSceneFile(opt.scenePath);
    // Every scene of the grid is checked before anything is written: a scene refused half way (not a bar,
    // a contrast past its material limits) had already truncated the folder's reference.csv.
    for (const std::string& layout : g.layouts)
        for (double contrast : g.contrasts) checkSceneLimits(experimentScene(base, layout, contrast));
    std::error_code ec;
    std::filesystem::create_directories(opt.out, ec);
    if (ec) throw InputError("", "--out", "cannot create '" + opt.out + "': " + ec.message());
    ThreadLimit limit(opt.threads);
    g_cpuClock = opt.threads == 1;
    const int scanRuns = opt.quick ? 0 : 2 * int(kChebRhos.size());
    const int total = int(g.layouts.size() * g.contrasts.size() * (g.configs.size() + 1)) + scanRuns;
    int done = 0;
    const std::function<void()> tick = [&] {
        ++done;
        if (progress) progress(done, total);
    };
    std::vector<std::vector<double>> history;
    std::vector<ExperimentRow> rows = runGrid(g, base, opt, tick, history);  // not const: returned by move
    writeResults(rows, opt);
    chebyshevScan(g, base, opt, tick);
    writeContrastPlots(g, rows, opt);
    writeHistoryPlot(g, history, opt);
    return rows;
}

}  // namespace vbd::experiments
