#pragma once
// Helpers for the coarse-space tests: the experiment bar at a given layout/contrast, a solver at the
// step's initial guess, and the mass-weighted error.
#include <cmath>
#include <string>
#include <vector>

#include "coarse/coarse_experiment.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

namespace coarsetest {

inline std::string barPath() { return std::string(VBD_SOURCE_DIR) + "/assets/scenes/coarse_bar.json"; }

inline vbd::SceneDesc barScene(const std::string& layout, double contrast) {
    return vbd::coarse::experimentScene(vbd::loadSceneFile(barPath()), layout, contrast);
}

// Builds the solver and runs the step's prediction (0 sweeps), leaving x at the initial guess.
inline void startStep(vbd::SoftSolver& s, const vbd::SceneDesc& sd, vbd::SweepHook* hook = nullptr) {
    s.build(sd);
    vbd::SolverDesc p = sd.solver;
    p.iterations = 0;
    p.diagnostics = false;
    p.coarse.enabled = false;
    s.setParams(p);
    s.setSweepHook(hook);
    s.step(float(sd.dt / sd.substeps), sd.gravity);
}

inline double massNorm(const vbd::SoftModel& m, const std::vector<vbd::Vec3>& a,
                       const std::vector<vbd::Vec3>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (!m.fixed[i]) s += double(m.mass[i]) * vbd::squaredNorm(vbd::Vec3d(a[i]) - vbd::Vec3d(b[i]));
    return std::sqrt(s);
}

}  // namespace coarsetest
