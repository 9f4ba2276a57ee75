// SoftSolver::step runs all of a step's sweeps as one phase chain (backend/phases.h) when nothing happens
// between two sweeps (sweepsFuse: diagnostics and tolerance off, no Chebyshev, no hook, no cloth contacts).
// The fused chain must do exactly what one sweep per iteration does: the same colors in the same order, so
// the same bits, for any thread count. Turning the diagnostics on keeps the per-iteration path and changes
// no position (they only read), so the two runs are compared bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "backend/parallel.h"
#include "soft/soft_solver.h"

#include "scene_util.h"

using namespace vbd;

namespace {

std::vector<Vec3d> run(Precision p, bool diagnostics, int threads, bool& fused,
                       std::vector<Vec3d>* rest = nullptr) {
    ThreadLimit limit(threads);
    SceneDesc sc = vbdtest::pressedBeam(p, DampingModel::Internal);
    sc.solver.iterations = 12;
    sc.solver.diagnostics = diagnostics;
    SoftSolver solver;
    solver.build(sc);
    fused = solver.sweepsFuse();
    if (rest) solver.positions(*rest);
    for (int k = 0; k < 15; ++k) solver.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    std::vector<Vec3d> x;
    solver.positions(x);
    return x;
}

}  // namespace

TEST(FusedSweeps, SameBitsAsOneSweepPerIteration) {
    for (Precision p : {Precision::Double, Precision::Float}) {
        bool fusedRef = true;
        std::vector<Vec3d> rest;
        const std::vector<Vec3d> want = run(p, true, 1, fusedRef, &rest);
        ASSERT_FALSE(fusedRef) << "diagnostics on must keep one sweep per iteration";
        for (int threads : {1, 2, 3}) {
            bool fused = false;
            const std::vector<Vec3d> got = run(p, false, threads, fused);
            ASSERT_TRUE(fused) << "diagnostics off on a beam without cloth must fuse the sweeps";
            ASSERT_EQ(got.size(), want.size());
            // The beam has moved (15 steps under gravity, pressed by the ground): a comparison of rest states
            // would prove nothing.
            double moved = 0;
            for (size_t i = 0; i < got.size(); ++i) {
                ASSERT_EQ(got[i].x, want[i].x) << "vertex " << i << " threads " << threads;
                ASSERT_EQ(got[i].y, want[i].y) << "vertex " << i << " threads " << threads;
                ASSERT_EQ(got[i].z, want[i].z) << "vertex " << i << " threads " << threads;
                moved = std::max(moved, norm(got[i] - rest[i]));
            }
            EXPECT_GT(moved, 1e-3);
        }
    }
}
