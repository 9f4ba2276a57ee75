// solver.precision = double: the same templated kernel iterating on a double shadow of the state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "backend/parallel.h"
#include "gpu/cuda_soft.h"
#include "math/error.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

#include "scene_util.h"

using namespace vbd;
using vbdtest::clampedBar;

namespace {

const Vec3 kGravity(0, -9.81f, 0);

// A 1 x 0.5 x 0.5 m box grid; `fixedEnd` clamps its x = 0 face.
SoftBodyDesc boxBody(std::array<int, 3> cells, bool fixedEnd) {
    SoftBodyDesc b;
    b.min = Vec3(0, 1, 0);
    b.max = Vec3(1, 1.5f, 0.5f);
    b.cells = cells;
    b.material.youngs = 1e5;
    b.material.damping = 0.01;
    if (fixedEnd) {
        FixedDesc f;
        f.box = {Vec3(-0.01f, 0.9f, -0.1f), Vec3(0.01f, 1.6f, 0.6f)};
        b.fixed.push_back(f);
    }
    return b;
}

SceneDesc dropScene(Precision p) {
    SceneDesc s;
    s.ground.height = 0.9;  // the box lands after ~0.14 s: contact, friction and its damping are exercised
    s.solver.precision = p;
    s.softBodies.push_back(boxBody({8, 4, 4}, false));
    return s;
}

double maxDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(norm(Vec3d(a[i]) - Vec3d(b[i]))));
    return d;
}

}  // namespace

TEST(SoftPrecision, DoubleTracksFloatOnADropButIsNotFloat) {
    SoftSolver f, d;
    f.build(dropScene(Precision::Float));
    d.build(dropScene(Precision::Double));
    ASSERT_FALSE(f.doublePrecision());
    ASSERT_TRUE(d.doublePrecision());
    double worst = 0;
    for (int k = 0; k < 30; ++k) {
        f.step(1.f / 60.f, kGravity);
        d.step(1.f / 60.f, kGravity);
        worst = std::max(worst, maxDistance(f.model().x, d.model().x));
    }
    const double fallen = 1.0 - f.model().x[0].y;
    std::printf("drop: max |x_float - x_double| = %.3e m over 30 steps, corner fell %.3f m\n", worst, fallen);
    EXPECT_GT(fallen, 0.09);  // it reached the ground (0.1 m below): contact was active in both runs
    // Same iteration in two roundings: each float update rounds to ulp(1 m) = 1.2e-7 m, and 30 steps x 10
    // sweeps with contact onsets carry and amplify it. Measured 5e-7 m; the bound 1e-5 m leaves 20x for
    // other compilers and is 1000x below the physics (the box squashes by ~1e-2 m on impact).
    EXPECT_LT(worst, 1e-5);
    // ...and it is not float in disguise: a float run of the double-mode solver would give exactly 0.
    EXPECT_GT(worst, 0.0);
    // The float view is the rounded shadow.
    const std::vector<Vec3d>& xd = d.doubleState().x;
    for (size_t i = 0; i < xd.size(); ++i) ASSERT_EQ(Vec3(xd[i]).y, d.model().x[i].y);
}

// A clamped 1 x 0.25 x 0.25 m bar whose far half is 10x stiffer, one step of 1500 sweeps. Measured
// (relative residual |grad G| / |grad G_0|): float stalls at 2.5e-3 from sweep ~100 on (the float-grid
// floor of docs/coarse-space.md "Float precision"); double passes 5e-6 at 300 sweeps and settles at
// 4e-12 (double round-off of the O(stiffness) force terms) by 1000. The bounds sit 2500x (float) and 250x
// (double) from the measurements.
// One step of a clamped two-material bar (E ratio 10) with 1500 sweeps in the given state.
SoftStepStats twoMaterialBarStep(Precision p, bool floatIncrement) {
    SceneDesc s;
    s.ground.enabled = false;
    s.solver.precision = p;
    s.solver.iterations = 1500;
    s.solver.diagnostics = false;
    SoftBodyDesc b = clampedBar(8, 2, 2);
    RegionDesc r;
    r.box = {Vec3(0.5f, 0.9f, -0.1f), Vec3(1.1f, 1.6f, 0.6f)};
    r.youngsScale = 10;
    b.regions.push_back(r);
    s.softBodies.push_back(b);
    SoftSolver solver;
    solver.build(s);
    SoftSolver::SweepOptions o = solver.sweepOptions();
    o.floatIncrement = floatIncrement;
    solver.setSweepOptions(o);
    return solver.step(1.f / 60.f, kGravity);
}

TEST(SoftPrecision, DoubleResidualPassesTheFloatFloorOnATwoMaterialBar) {
    const SoftStepStats f = twoMaterialBarStep(Precision::Float, false);
    const SoftStepStats d = twoMaterialBarStep(Precision::Double, false);
    const double rel[2] = {f.residualFinal / f.residualInitial, d.residualFinal / d.residualInitial};
    std::printf("two-material bar, 1500 sweeps: relative residual float (absolute) %.3e, double %.3e\n",
                rel[0], rel[1]);
    EXPECT_GT(rel[0], 1e-6);
    EXPECT_LT(rel[1], 1e-9);
}

// The float state in the increment form (soft/state_update.h) against absolute float positions on the same
// step: the residual the solver itself computes (float arithmetic) stalls lower, and so does its floor
// estimate.
// The floor estimates' ratio is max|x_i| / (longest rest edge) per vertex, >= 1.5 / 0.375 = 4 on this bar
// (|x| <= 1.5 m, cell diagonal 0.375 m); the achieved residual follows it (7.4x measured), 3 leaves room for
// the trajectory-dependent rounding.
constexpr double kIncrementGain = 3;

TEST(SoftPrecision, FloatIncrementsLowerTheFloatFloor) {
    const SoftStepStats a = twoMaterialBarStep(Precision::Float, false);
    const SoftStepStats i = twoMaterialBarStep(Precision::Float, true);
    const double relA = a.residualFinal / a.residualInitial, relI = i.residualFinal / i.residualInitial;
    std::printf(
        "two-material bar, 1500 sweeps, float: absolute %.3e (floor %.3e), increments %.3e (floor %.3e)\n",
        relA, a.residualFloor / a.residualInitial, relI, i.residualFloor / i.residualInitial);
    EXPECT_LT(relI, relA / kIncrementGain);
    EXPECT_LT(i.residualFloor, a.residualFloor / kIncrementGain);
}

// 12 steps of the 24 x 6 x 6 drop box on `threads` threads (Chebyshev rho as given), then read(solver).
template <typename F>
void boxOnThreads(Precision p, int threads, double chebyshevRho, F&& read) {
    ThreadLimit limit(threads);
    SceneDesc s = dropScene(p);
    s.solver.chebyshevRho = chebyshevRho;
    // ~1200 vertices: each color has a few hundred, more than one sweep task of 128.
    s.softBodies[0] = boxBody({24, 6, 6}, false);
    SoftSolver solver;
    solver.build(s);
    for (int i = 0; i < 12; ++i) solver.step(1.f / 60.f, kGravity);
    read(solver);
}

TEST(SoftPrecision, DoubleIsBitIdenticalForOneAndTwoThreads) {
    std::vector<Vec3d> result[2];
    for (int k = 0; k < 2; ++k)
        boxOnThreads(Precision::Double, k + 1, 0.0, [&](SoftSolver& s) { result[k] = s.doubleState().x; });
    ASSERT_EQ(result[0].size(), result[1].size());
    EXPECT_EQ(std::memcmp(result[0].data(), result[1].data(), result[0].size() * sizeof(Vec3d)), 0);
}

// The float state in the increment form, Chebyshev on (it extrapolates dx): bit-identical on 1 and 2 threads.
// (This once failed rarely: C_prev's per-tet loop was vectorized with alignment peeling, so ~13 tets per
// allocation got FMA-contracted differently; energy/damping.h tetCprev is now out of line.)
TEST(SoftPrecision, FloatIncrementsAreBitIdenticalForOneAndTwoThreads) {
    std::vector<Vec3> x[2], dx[2];
    for (int k = 0; k < 2; ++k)
        boxOnThreads(Precision::Float, k + 1, 0.9, [&](SoftSolver& s) {
            ASSERT_TRUE(s.floatState().increments);
            x[k] = s.floatState().x;
            dx[k] = s.floatState().dx;
        });
    ASSERT_EQ(x[0].size(), x[1].size());
    EXPECT_EQ(std::memcmp(x[0].data(), x[1].data(), x[0].size() * sizeof(Vec3)), 0);
    EXPECT_EQ(std::memcmp(dx[0].data(), dx[1].data(), dx[0].size() * sizeof(Vec3)), 0);
}

TEST(SoftPrecision, EditsOfTheFloatStateBetweenStepsReseedTheShadow) {
    SoftSolver solver;
    solver.build(dropScene(Precision::Double));
    for (int k = 0; k < 3; ++k) solver.step(1.f / 60.f, kGravity);
    // A reset-like edit: move the body 2 m along x and stop it.
    SoftModel& m = solver.model();
    for (size_t i = 0; i < m.x.size(); ++i) {
        m.x[i].x += 2.f;
        m.v[i] = Vec3(0.f);
    }
    const std::vector<Vec3> edited = m.x;
    solver.step(1.f / 60.f, kGravity);
    // predict() sets x_prev = x of the (reseeded) shadow: exactly the edited float positions.
    for (size_t i = 0; i < edited.size(); ++i) {
        ASSERT_EQ(solver.doubleState().xPrev[i].x, double(edited[i].x));
        ASSERT_EQ(solver.doubleState().xPrev[i].y, double(edited[i].y));
    }
    // From rest, one step moves a vertex by about g h^2 = 2.7 mm: nothing jumped back to x ~ 0.
    EXPECT_LT(maxDistance(m.x, edited), 0.01);
    // A velocity-only edit (an upward kick of 5 m/s) is seen too: the mean v_y ends near 5 - g h = 4.84.
    for (Vec3& v : m.v) v = Vec3(0, 5, 0);
    solver.step(1.f / 60.f, kGravity);
    double vy = 0;
    for (const Vec3& v : m.v) vy += v.y;
    vy /= double(m.v.size());
    EXPECT_NEAR(vy, 5.0 - 9.81 / 60.0, 0.05);  // elastic oscillation after the stop is a few cm/s
}

namespace {
// Shifts every free vertex of the double iterate by 0.25 m along z after the last sweep: the step must keep
// the hook's displacement, unrounded.
struct ShiftHook : SweepHook {
    int last = 0;
    std::vector<Vec3d> after;
    void afterSweep(const HookView& v, int it, HookUpdate& u) override {
        if (it != last) return;
        after = v.x;
        for (size_t i = 0; i < v.x.size(); ++i) {
            if (v.model.fixed[i]) continue;
            u.vertices.push_back(int(i));
            u.dx[i] = Vec3d(0, 0, 0.25);
            after[i].z += 0.25;
        }
    }
};
}  // namespace

TEST(SoftPrecision, SweepHookEditsTheDoubleIterate) {
    SoftSolver solver;
    SceneDesc s = dropScene(Precision::Double);
    solver.build(s);
    ShiftHook hook;
    hook.last = s.solver.iterations;
    solver.setSweepHook(&hook);
    solver.step(1.f / 60.f, kGravity);
    const std::vector<Vec3d>& x = solver.doubleState().x;
    ASSERT_EQ(hook.after.size(), x.size());
    for (size_t i = 0; i < hook.after.size(); ++i) {
        ASSERT_EQ(x[i].z, hook.after[i].z);
        ASSERT_EQ(solver.model().x[i].z, float(hook.after[i].z));
    }
}

TEST(SoftPrecision, BadPrecisionIsRefusedNamingTheKeyAndClothRunsInDouble) {
    auto expectKey = [](const std::string& json) {
        try {
            SceneDesc s = parseScene(json, "bad.json");
            ADD_FAILURE() << "accepted: " << json;
        } catch (const InputError& e) {
            EXPECT_EQ(e.key(), "solver.precision") << e.what();
        }
    };
    expectKey(R"({"solver": {"precision": "half"}})");
    expectKey(R"({"solver": {"precision": 64}})");
    // Double is the default and runs every body type, cloth included: a sheet falls g t^2 / 2 in double as
    // in float (10 steps of free fall: the implicit-Euler drop h^2 g n(n+1)/2 = 0.1499 m, to 1e-4 m).
    SceneDesc s = parseScene(
        R"({"ground": {"enabled": false}, "cloths": [{"type": "grid", "cells": [4, 4]}]})", "cloth.json");
    EXPECT_EQ(s.solver.precision, Precision::Double);
    SoftSolver solver;
    solver.build(s);
    solver.setParams(s.solver);
    const float y0 = solver.model().x[0].y;
    for (int k = 0; k < 10; ++k) solver.step(1.f / 60.f, kGravity);
    EXPECT_NEAR(double(y0 - solver.model().x[0].y), 9.81 / 3600.0 * 55.0, 1e-4);
    // The CUDA sweeper refuses a double solver whether or not CUDA is compiled in.
    SoftSolver d;
    d.build(dropScene(Precision::Double));
    d.setParams(dropScene(Precision::Double).solver);
    CudaSoftSweeper cuda;
    try {
        cuda.upload(d);
        ADD_FAILURE() << "CUDA sweeper accepted a double-precision solver";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), "solver.precision");
    }
}
