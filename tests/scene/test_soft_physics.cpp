// Scene tests of the VBD soft-body solver against theory (issue: engine core).
#include <gtest/gtest.h>

#include <cmath>

#include "coloring/coloring.h"
#include "scene_util.h"

using namespace vbd;
using namespace vbdtest;

namespace {

SceneDesc freeFallCube(DampingModel d, double kd) {
    SceneDesc s;
    s.name = "free fall";
    s.dt = 1.0 / 60.0;
    s.ground.enabled = false;
    s.solver.iterations = 10;
    s.solver.damping = d;
    SoftBodyDesc b;
    b.min = Vec3(-0.5f, 10, -0.5f);
    b.max = Vec3(0.5f, 11, 0.5f);
    b.cells = {4, 4, 4};
    b.material.youngs = 1e5;
    b.material.damping = kd;
    s.softBodies.push_back(b);
    return s;
}

}  // namespace

// Implicit Euler free fall from rest: v_{n+1} = v_n + h g, x_{n+1} = x_n + h v_{n+1}, so after n steps
// the displacement is g h^2 n(n+1)/2 (not g t^2/2: the discretization's own ballistic path).
TEST(SoftFreeFall, FollowsDiscreteBallisticPathWithInternalDamping) {
    SoftSolver solver;
    solver.build(freeFallCube(DampingModel::Internal, 0.1));
    const Vec3d c0 = centerOfMass(solver.model());
    const double h = 1.0 / 60.0, g = 9.81;
    const int n = 60;
    for (int i = 0; i < n; ++i) solver.step(float(h), Vec3(0, -9.81f, 0));
    const Vec3d c = centerOfMass(solver.model());
    const double expected = g * h * h * n * (n + 1) / 2.0;  // 4.99 m
    // float state at |x| ~ 10 m: ulp 1e-6 m per step, 60 steps -> 1e-4 m; allow 1e-3 m (0.02 %).
    EXPECT_NEAR(c0.y - c.y, expected, 1e-3);
    EXPECT_NEAR(c.x - c0.x, 0.0, 1e-4);
    EXPECT_NEAR(c.z - c0.z, 0.0, 1e-4);
}

TEST(SoftFreeFall, NaiveRayleighDampingFightsGravity) {
    SoftSolver a, b;
    a.build(freeFallCube(DampingModel::Internal, 0.1));
    b.build(freeFallCube(DampingModel::Naive, 0.1));
    const double h = 1.0 / 60.0;
    const double y0 = centerOfMass(a.model()).y;
    for (int i = 0; i < 60; ++i) {
        a.step(float(h), Vec3(0, -9.81f, 0));
        b.step(float(h), Vec3(0, -9.81f, 0));
    }
    const double fallA = y0 - centerOfMass(a.model()).y, fallB = y0 - centerOfMass(b.model()).y;
    // k_d/h K_ii (x_prev - x) acts like a drag on the absolute velocity: the naive body must lag by
    // far more than the float noise of the ballistic one (1e-3 m); it lags by tens of centimetres.
    EXPECT_GT(fallA - fallB, 0.05) << "internal fall " << fallA << " m, naive fall " << fallB << " m";
}

TEST(SoftFreeFall, SpinningCubePreservesVolume) {
    SceneDesc s = freeFallCube(DampingModel::Internal, 0.01);
    s.softBodies[0].angularVelocity = Vec3(0, 3, 1);
    SoftSolver solver;
    solver.build(s);
    const double V0 = totalVolume(solver.model());
    double worst = 0;
    for (int i = 0; i < 60; ++i) {
        solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
        worst = std::max(worst, std::fabs(totalVolume(solver.model()) / V0 - 1.0));
    }
    // The bound: within a percent (nu = 0.3 body spinning at 3 rad/s: centrifugal strain ~1e-4).
    EXPECT_LT(worst, 0.01);
}

// A bar of length L hanging from its top face stretches by delta = rho g L^2 / (2 E) at its free end, and
// its center of mass drops by rho g L^2 / (3 E) (integrate the strain rho g (L - s) / E from the top).
// nu = 0 removes the lateral clamp of the fixed face. 300 sweeps a step (the scene's setting) converge the
// slow axial mode of the 20-layer bar; the mean over the last 30 frames removes what is left of it.
TEST(SoftStatics, HangingBarElongationMatchesTheory) {
    SceneDesc s = loadScene("hanging_bar.json");
    s.solver.diagnostics = false;
    SoftSolver solver;
    solver.build(s);
    const SoftModel& m0 = solver.model();
    int bottom = -1;
    for (int i = 0; i < m0.numVertices(); ++i)
        if (m0.x[size_t(i)].y < 1e-6f && std::fabs(m0.x[size_t(i)].x) < 1e-6f &&
            std::fabs(m0.x[size_t(i)].z) < 1e-6f)
            bottom = i;
    ASSERT_GE(bottom, 0);
    const double y0 = m0.x[size_t(bottom)].y, com0 = centerOfMass(m0).y;
    double tip = 0, com = 0;
    const int frames = 90, tail = 30;
    for (int i = 0; i < frames; ++i) {
        solver.step(float(s.dt), s.gravity);
        if (i >= frames - tail) {
            tip += (y0 - solver.model().x[size_t(bottom)].y) / tail;
            com += (com0 - centerOfMass(solver.model()).y) / tail;
        }
    }
    const auto& mat = s.softBodies[0].material;
    const double rgl2 = mat.density * 9.81 * 1.0 / mat.youngs;
    // 10 %: the bound (stable Neo-Hookean differs from linear by O(strain) = 0.5 % here).
    EXPECT_NEAR(tip, rgl2 / 2, 0.1 * rgl2 / 2) << "tip " << tip << " theory " << rgl2 / 2;
    EXPECT_NEAR(com, rgl2 / 3, 0.1 * rgl2 / 3) << "com " << com << " theory " << rgl2 / 3;
}

// A damped cantilever settles: its oscillation energy decays. VBD converges slowly on bending (the
// seed's inter-color communication bottleneck), which is why the scene uses 10 substeps.
TEST(SoftStatics, FixedBeamComesToRest) {
    SceneDesc s = loadScene("beam_sag.json");
    s.solver.diagnostics = false;
    s.softBodies[0].cells = {10, 2, 2};
    auto w = World::create(s);
    for (int i = 0; i < 240; ++i) w->step();  // 4 s
    auto meanKe = [&](int a, int b) {
        double k = 0;
        for (int i = a; i < b; ++i) k += w->history()[size_t(i)].kineticEnergy / (b - a);
        return k;
    };
    const double early = meanKe(0, 60), late = meanKe(180, 240);
    EXPECT_LT(late, 0.1 * early) << "early " << early << " late " << late;
    EXPECT_LT(w->history().back().com.y, 1.25 - 1e-3);  // it sags
    for (const Vec3& p : w->positions()) ASSERT_TRUE(isFinite(p));
}

TEST(SoftScenes, EveryBuiltInSceneRunsWithAValidColoring) {
    for (const char* name :
         {"default.json", "cube_drop.json", "beam_sag.json", "beam_twist.json", "contrast_bar.json",
          "damping_comparison.json", "hanging_bar.json", "mesh_drop.json"}) {
        SCOPED_TRACE(name);
        SceneDesc s = loadScene(name);
        SoftSolver solver;
        solver.build(s);
        const SoftModel& m = solver.model();
        Graph g = graphFromElements(m.numVertices(), m.tets);
        std::string why;
        EXPECT_TRUE(validateColoring(g, m.color, &why)) << why;
        // every free vertex is in exactly one color group
        std::vector<int> seen(size_t(m.numVertices()), 0);
        for (const auto& grp : m.colorGroups)
            for (int v : grp) seen[size_t(v)]++;
        for (int v = 0; v < m.numVertices(); ++v) EXPECT_EQ(seen[size_t(v)], m.fixed[size_t(v)] ? 0 : 1);
        auto w = World::create(s);
        for (int i = 0; i < 3; ++i) w->step();
        for (const Vec3& p : w->positions()) ASSERT_TRUE(isFinite(p));
    }
}

TEST(SoftDeterminism, BitIdenticalForOneAndTwoThreads) {
    std::vector<Vec3> result[2];
    for (int k = 0; k < 2; ++k) {
        SceneDesc s = loadScene("cube_drop.json");
        s.solver.threads = k + 1;
        auto w = World::create(s);
        for (int i = 0; i < 40; ++i) w->step();
        result[k] = w->positions();
    }
    expectBitIdentical(result[0], result[1]);
}

TEST(SoftDiagnostics, EnergyNeverRisesAndResidualDropsWithinAStep) {
    SceneDesc s = loadScene("beam_sag.json");
    s.solver.iterations = 30;
    SoftSolver solver;
    solver.build(s);
    solver.step(float(s.dt / s.substeps), s.gravity);
    const auto& its = solver.iterations();
    ASSERT_EQ(its.size(), 31u);
    // Block Gauss-Seidel on a convex problem: the energy G never increases across sweeps (each local
    // solve is an exact Newton step on a strictly convex block; float roundoff allowance 1e-6 relative).
    for (size_t k = 1; k < its.size(); ++k)
        EXPECT_LE(its[k].energy, its[k - 1].energy + 1e-6 * std::fabs(its[k - 1].energy));
    EXPECT_LT(its.back().residual, 0.1 * its.front().residual);
}
