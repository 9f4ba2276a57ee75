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

struct Case {
    std::string name, scene;
    std::vector<std::string> sets;
    std::vector<int> frames;
};

}  // namespace

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
            SoftStepStats st;
            while (frame < target) {
                st = s.step(float(sd.dt), sd.gravity);
                ++frame;
            }
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
}

}  // namespace vbd::experiments
