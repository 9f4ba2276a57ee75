#include "experiments/float_floor.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "coarse/coarse_correction.h"
#include "coarse/energy_cache.h"
#include "math/error.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

namespace vbd::experiments {

namespace {

double residualAt(const SoftModel& m, coarse::TetEnergyCache& cache, const std::vector<Vec3d>& x, double h,
                  DampingModel damping) {
    std::vector<Vec3d> g;
    cache.eval(m, x, h, damping, &g);
    double r = 0;
    for (size_t i = 0; i < g.size(); ++i)
        if (!m.fixed[i]) r += squaredNorm(g[i]);
    return std::sqrt(r);
}

// Steps s on from `frame` to `target`; returns the last step's statistics.
SoftStepStats stepTo(SoftSolver& s, const SceneDesc& sd, int& frame, int target) {
    SoftStepStats st;
    while (frame < target) {
        st = s.step(float(sd.dt), sd.gravity);
        ++frame;
    }
    return st;
}

// The finished step's x, x_prev and y in double, as the state holds them (x_prev + dx, x_prev + dy exactly in
// the float increment form).
void stateInDouble(SoftSolver& s, std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev, std::vector<Vec3d>& y) {
    s.stepPositions(x, xPrev);  // x_prev + dx exactly in the increment form
    auto fillY = [&](const auto& st) {
        y.resize(st.y.size());
        for (size_t i = 0; i < y.size(); ++i)
            y[i] = st.increments ? xPrev[i] + Vec3d(st.dy[i]) : Vec3d(st.y[i]);
    };
    if (s.doublePrecision())
        fillY(s.doubleState());
    else
        fillY(s.floatState());
}

struct Case {
    std::string name, scene;
    std::vector<std::string> sets;
    std::vector<int> frames;
};

}  // namespace

void runFloatSolverStudy(const std::string& outDir, const std::string& assetsDir);

void runFloatFloorStudy(const std::string& outDir, const std::string& assetsDir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (ec) throw InputError("", "--out", "cannot create '" + outDir + "': " + ec.message());
    std::ofstream csv(fs::path(outDir) / "float_floor.csv");
    csv << "case,frame,residual_initial,max_abs_x,max_abs_dx,double,float_abs,float_inc\n";
    const std::vector<Case> cases = {
        {"hanging_bar_moving", "hanging_bar_40.json", {"solver.coarse.basis=aggregate"}, {1, 3}},
        {"hanging_bar_at_rest", "hanging_bar_40.json", {"solver.coarse.basis=aggregate"}, {60}},
        {"coarse_bar_1e4", "coarse_bar.json", {}, {1, 3}},
    };
    for (const Case& c : cases) {
        std::vector<std::string> sets = c.sets;
        sets.push_back("solver.coarse.enabled=true");
        sets.push_back("solver.iterations=2000");
        sets.push_back("solver.tolerance=1e-13");
        const SceneDesc sd = loadSceneFile(assetsDir + "/scenes/" + c.scene, sets);
        SoftSolver s;
        s.build(sd);
        s.setParams(sd.solver);
        coarse::CoarseCorrection hook;
        hook.configure(sd.solver.coarse);
        s.setSweepHook(&hook);
        int frame = 0;
        for (int target : c.frames) {
            const SoftStepStats st = stepTo(s, sd, frame, target);
            const SoftState<double>& d = s.doubleState();
            coarse::TetEnergyCache cache;
            cache.build(s.model());
            cache.beginStep(s.model(), d.xPrev, d.y);
            std::vector<Vec3d> xa(d.x.size()), xi(d.x.size());
            double maxX = 0, maxDx = 0;
            for (size_t i = 0; i < d.x.size(); ++i) {
                xa[i] = Vec3d(Vec3(d.x[i]));
                xi[i] = d.xPrev[i] + Vec3d(Vec3(d.x[i] - d.xPrev[i]));
                for (int k = 0; k < 3; ++k) {
                    maxX = std::max(maxX, std::fabs(d.x[i][k]));
                    maxDx = std::max(maxDx, std::fabs(d.x[i][k] - d.xPrev[i][k]));
                }
            }
            const double h = s.currentH();
            const DampingModel damp = sd.solver.damping;
            csv << c.name << ',' << frame << ',' << st.residualInitial << ',' << maxX << ',' << maxDx << ','
                << residualAt(s.model(), cache, d.x, h, damp) << ','
                << residualAt(s.model(), cache, xa, h, damp) << ','
                << residualAt(s.model(), cache, xi, h, damp) << '\n';
        }
    }
    if (!csv) throw InputError("", "--out", "cannot write float_floor.csv in '" + outDir + "'");
    runFloatSolverStudy(outDir, assetsDir);
}

// The solver itself in the three states: how far the residual of each step's G (evaluated in double at the
// state the solver holds) falls when the solver runs to round-off. Each state follows its own trajectory;
// the floor is a property of the state at the sampled frame.
void runFloatSolverStudy(const std::string& outDir, const std::string& assetsDir) {
    namespace fs = std::filesystem;
    std::ofstream csv(fs::path(outDir) / "float_solver.csv");
    csv << "case,frame,state,sweeps,residual_initial,residual_final,residual_floor_estimate\n";
    const std::vector<Case> cases = {
        {"hanging_bar", "hanging_bar_40.json", {}, {1, 3, 60}},
        {"coarse_bar_1e4", "coarse_bar.json", {}, {1, 3}},
        {"beam_sag", "beam_sag.json", {}, {1, 10}},
    };
    struct Variant {
        const char* name;
        Precision precision;
        bool increments;
    };
    const Variant variants[] = {{"double", Precision::Double, false},
                                {"float_abs", Precision::Float, false},
                                {"float_inc", Precision::Float, true}};
    for (const Case& c : cases) {
        for (const Variant& var : variants) {
            std::vector<std::string> sets = c.sets;
            // No tolerance: the solver's own stop at twice its floor estimate would decide where it ends.
            sets.push_back("solver.iterations=3000");
            sets.push_back("solver.tolerance=0");
            sets.push_back("solver.chebyshev_rho=0");
            const SceneDesc sd = loadSceneFile(assetsDir + "/scenes/" + c.scene, sets);
            SoftSolver s;
            s.build(sd);
            SolverDesc p = sd.solver;
            p.precision = var.precision;
            s.setParams(p);
            SoftSolver::SweepOptions o = s.sweepOptions();
            o.floatIncrement = var.increments;
            s.setSweepOptions(o);
            int frame = 0;
            for (int target : c.frames) {
                const SoftStepStats st = stepTo(s, sd, frame, target);
                std::vector<Vec3d> x, xPrev, y;
                stateInDouble(s, x, xPrev, y);
                coarse::TetEnergyCache cache;
                cache.build(s.model());
                cache.beginStep(s.model(), xPrev, y);
                csv << c.name << ',' << frame << ',' << var.name << ',' << st.iterations << ','
                    << st.residualInitial << ',' << residualAt(s.model(), cache, x, s.currentH(), p.damping)
                    << ',' << st.residualFloor << '\n';
            }
        }
    }
    if (!csv) throw InputError("", "--out", "cannot write float_solver.csv in '" + outDir + "'");
}

}  // namespace vbd::experiments
