#include "experiments/truncation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "experiments/png_plot.h"
#include "math/error.h"
#include "scene/scene.h"
#include "world/world.h"

namespace vbd::experiments {

namespace {

struct Method {
    std::string name;
    std::vector<std::string> sets;
    bool dashed = false;
};

}  // namespace

void runTruncationStudy(const std::string& outDir, const std::string& assetsDir, int frames) {
    namespace fs = std::filesystem;
    if (frames < 1) throw InputError("", "--frames", "must be >= 1");
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (ec) throw InputError("", "--out", "cannot create '" + outDir + "': " + ec.message());
    const std::vector<Method> methods = {
        {"plain VBD", {}},
        {"Chebyshev 0.9", {"solver.chebyshev_rho=0.9"}},
        {"Chebyshev 0.95", {"solver.chebyshev_rho=0.95"}},
        {"aggregate coarse", {"solver.coarse.enabled=true", "solver.coarse.basis=aggregate"}},
        {"converged 1e-9",
         {"solver.coarse.enabled=true", "solver.coarse.basis=aggregate", "solver.iterations=2000",
          "solver.tolerance=1e-9"},
         true},
    };
    std::ofstream csv(fs::path(outDir) / "truncation.csv");
    csv << "method,frame,total_energy,kinetic_energy,lowest_point,com_x,com_y,com_z,iterations\n";
    std::vector<PlotSeries> series;
    double ymin = 1e300, ymax = -1e300;
    for (size_t k = 0; k < methods.size(); ++k) {
        const Method& mth = methods[k];
        const SceneDesc sd = loadSceneFile(assetsDir + "/scenes/hanging_bar_40.json", mth.sets);
        auto world = World::create(sd);
        PlotSeries s;
        s.name = mth.name;
        s.color = paletteColor(int(k));
        s.dashed = mth.dashed;
        for (int f = 0; f < frames; ++f) {
            world->step();
            const FrameMetrics& m = world->history().back();
            double lowest = 1e300;
            for (const Vec3& p : world->positions()) lowest = std::min(lowest, double(p.y));
            csv << mth.name << ',' << m.frame << ',' << m.totalEnergy << ',' << m.kineticEnergy << ','
                << lowest << ',' << m.com.x << ',' << m.com.y << ',' << m.com.z << ',' << m.iterations
                << '\n';
            s.x.push_back(double(m.frame));
            s.y.push_back(m.totalEnergy);
            ymin = std::min(ymin, m.totalEnergy);
            ymax = std::max(ymax, m.totalEnergy);
        }
        series.push_back(std::move(s));
    }
    PlotSpec sp;
    sp.title = "hanging bar 3x30x3, 40 sweeps per step: total energy (J)";
    sp.xlabel = "frame (1/60 s)";
    sp.ylabel = "J";
    sp.logX = false;
    sp.logY = false;
    sp.xmin = 0;
    sp.xmax = frames;
    const double pad = 0.05 * std::max(1e-9, ymax - ymin);
    sp.ymin = ymin - pad;
    sp.ymax = ymax + pad;
    writeLinePlot((fs::path(outDir) / "truncation_energy.png").string(), sp, series);
    if (!csv) throw InputError("", "--out", "cannot write truncation.csv in '" + outDir + "'");
}

}  // namespace vbd::experiments
