// The CUDA rigid step against the host executor running the same pipeline (gpu/rigid_pipeline.h) on every
// rigid-only built-in scene. Skips with the reason where there is no CUDA device or no CUDA build.
//
// Tolerance: the per-body code is the same source (rigid/body_block.h), but nvcc contracts a * b + c into
// FMAs where the host compiler does not (and the reductions add in another order, which only moves the
// residual and G). A contraction changes one rounding, ~1e-16 relative, of a term of a body's block; the
// 6x6 solve carries it into the pose at the block's condition number, up to ~1e7 for a 50,000:1 mass ratio
// at k ~ 1e10 (constraints.h): ~1e-9 m on ~1 m coordinates after a step. So each step is compared from the
// same state (a copy of the host solver): 1e-8 m and 1e-6 m/s (the velocity is the position change / h).
// Over a free run the differences also pass through the branches of the contact model (stick or slip,
// contact made or not), which can turn a rounding into a small jump: the 30-step run is printed and bounded
// only by 1e-4 m, far below anything the scenes show but far above a rounding. Not measured on a device yet
// (docs/gpu.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backend/parallel.h"
#include "gpu/backend_choice.h"
#include "gpu/rigid_stepper.h"
#include "rigid/rigid_scenes.h"
#include "scene/scene.h"

#include "gpu_scenes.h"

using namespace vbd;

namespace {

// Largest position and velocity difference of two solvers' bodies.
void differences(const RigidSolver& a, const RigidSolver& b, double& dx, double& dv) {
    dx = dv = 0;
    for (int i = 0; i < a.numBodies(); ++i) {
        const RigidBodyState &p = a.states()[size_t(i)], &q = b.states()[size_t(i)];
        dx = std::max(dx, double(norm(p.position - q.position)));
        dv = std::max(dv, double(norm(p.velocity - q.velocity)));
    }
}

}  // namespace

TEST(GpuCudaRigid, ParityOnEveryRigidOnlyBuiltInScene) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    ThreadLimit oneThread(1);
    const std::vector<std::string> scenes = vbdtest::rigidOnlyScenes();
    for (const std::string& f : scenes) {
        const std::string name = std::filesystem::path(f).filename().string();
        const SceneDesc d = loadSceneFile(f, {});
        RigidSolver a(d), run(d);
        auto host = makeHostRigidStepper();
        auto dev = makeCudaRigidStepper();
        const float h = float(d.dt / d.substeps);
        double stepDx = 0, stepDv = 0;
        for (int s = 0; s < 30; ++s) {
            RigidSolver b(a);  // the same state
            host->step(a, h);
            dev->step(b, h);
            double dx, dv;
            differences(a, b, dx, dv);
            stepDx = std::max(stepDx, dx);
            stepDv = std::max(stepDv, dv);
            dev->step(run, h);
        }
        double runDx, runDv;
        differences(a, run, runDx, runDv);
        std::printf("  parity %s one step: |dx| %.3e m, |dv| %.3e m/s; 30 steps: |dx| %.3e m\n", name.c_str(),
                    stepDx, stepDv, runDx);
        EXPECT_LT(stepDx, 1e-8) << name;
        EXPECT_LT(stepDv, 1e-6) << name;
        EXPECT_LT(runDx, 1e-4) << name;
    }
    EXPECT_GE(scenes.size(), 8u);
}

namespace {

// `steps` steps of d, each on the host executor and on the device from the same state; the largest position
// and velocity differences of one step. Returns the host solver (its state after the steps).
std::unique_ptr<RigidSolver> stepFromTheSameState(const SceneDesc& d, int steps, int lanesPerBody,
                                                  double& worstDx, double& worstDv) {
    auto a = std::make_unique<RigidSolver>(d);
    auto host = makeHostRigidStepper();
    auto dev = makeCudaRigidStepper();
    dev->setLanesPerBody(lanesPerBody);
    const float h = float(d.dt / d.substeps);
    worstDx = worstDv = 0;
    for (int s = 0; s < steps; ++s) {
        RigidSolver b(*a);
        host->step(*a, h);
        dev->step(b, h);
        double dx, dv;
        differences(*a, b, dx, dv);
        worstDx = std::max(worstDx, dx);
        worstDv = std::max(worstDv, dv);
    }
    return a;
}

}  // namespace

// A pile of 3,000 boxes while it lands: colors of about a thousand bodies, contact lists that grow (the
// buffers reallocate), the fused dual update (diagnostics off). One step from the same state, as above.
TEST(GpuCudaRigid, PileFromTheSameState) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    SceneDesc d = rigidPileScene(3000);
    d.solver.diagnostics = false;
    double worstDx, worstDv;
    const auto a = stepFromTheSameState(d, 40, 1, worstDx, worstDv);
    std::printf("  parity pile_3000 one step: |dx| %.3e m, |dv| %.3e m/s; %zu contacts at the end\n", worstDx,
                worstDv, a->contacts().size());
    EXPECT_LT(worstDx, 1e-8);
    EXPECT_LT(worstDv, 1e-6);
    EXPECT_GT(a->contacts().size(), 1000u);
}

// The tile sweep (gpu/rigid_stages.h RigidSweepTileStage: lanes split a body's contacts, a shuffle sums their
// blocks): the same rows added in another order, so each step from the same state is bounded as above, on
// the pile (bodies with ~11 contacts: every lane has some) and the pyramid.
TEST(GpuCudaRigid, TileSweepFromTheSameState) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    SceneDesc pile = rigidPileScene(3000);
    pile.solver.diagnostics = false;
    const SceneDesc pyramid =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    for (const SceneDesc* d : {static_cast<const SceneDesc*>(&pile), &pyramid}) {
        for (int lanes : {4, 8, 16, 32}) {
            double worstDx, worstDv;
            const auto a = stepFromTheSameState(*d, 30, lanes, worstDx, worstDv);
            std::printf("  parity tiles %d lanes, %d bodies, one step: |dx| %.3e m, |dv| %.3e m/s\n", lanes,
                        a->numBodies(), worstDx, worstDv);
            EXPECT_LT(worstDx, 1e-8) << lanes << " lanes";
            EXPECT_LT(worstDv, 1e-6) << lanes << " lanes";
        }
    }
}
