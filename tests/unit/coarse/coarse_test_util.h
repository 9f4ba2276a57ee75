#pragma once
// Helpers for the coarse-space tests: the experiment bar at a given layout/contrast and a small uniform box,
// a solver at the step's initial guess, double positions, the mass-weighted error and the energy round-off.
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "experiments/coarse_experiment.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

namespace coarsetest {

inline std::string barPath() { return std::string(VBD_SOURCE_DIR) + "/assets/scenes/coarse_bar.json"; }

inline vbd::SceneDesc barScene(const std::string& layout, double contrast) {
    return vbd::experiments::experimentScene(vbd::loadSceneFile(barPath()), layout, contrast);
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

// Round-off bound of a double sum of the tets' energies: a few ulp of the O(contrast) terms of psi that
// cancel at a stress-free state (V mu |F|^2 / 2, V lambda J^2 / 2), 16 eps sum_e V_e (3 mu_e + lambda_e).
inline double energyRoundOff(const vbd::SoftModel& m) {
    double scale = 0;
    for (size_t e = 0; e < m.tets.size(); ++e) scale += double(m.volume[e]) * (3.0 * m.mu[e] + m.lambda[e]);
    return 16 * 2.2e-16 * scale;
}

// A small clamped box (2x1x1 cells, 12 tets) of the experiment bar's material, uniform (contrast 1).
inline vbd::SceneDesc smallBox(vbd::DampingModel damping) {
    vbd::SceneDesc sd = barScene("half", 1);
    vbd::SoftBodyDesc& b = sd.softBodies[0];
    b.min = vbd::Vec3(-2, -0.5f, -0.5f);
    b.max = vbd::Vec3(0, 0.5f, 0.5f);
    b.cells = {2, 1, 1};
    b.regions.clear();
    sd.solver.damping = damping;
    return sd;
}

inline std::vector<vbd::Vec3d> toDouble(const std::vector<vbd::Vec3>& x) { return {x.begin(), x.end()}; }

inline Eigen::Vector3d toEigen(const vbd::Vec3d& v) { return {v.x, v.y, v.z}; }

// G of the solver's iterate before and after one correction by `hook`.
struct EnergyChange {
    double before = 0, after = 0;
};
inline EnergyChange correctAndMeasure(vbd::SoftSolver& s, vbd::SweepHook& hook, int iteration) {
    EnergyChange e;
    e.before = s.incrementalPotential();
    s.correct(hook, iteration);
    e.after = s.incrementalPotential();
    return e;
}

inline double massNorm(const vbd::SoftModel& m, const std::vector<vbd::Vec3>& a,
                       const std::vector<vbd::Vec3>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (!m.fixed[i]) s += double(m.mass[i]) * vbd::squaredNorm(vbd::Vec3d(a[i]) - vbd::Vec3d(b[i]));
    return std::sqrt(s);
}

}  // namespace coarsetest
