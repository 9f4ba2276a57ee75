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
#include <utility>
#include <vector>

#include "backend/parallel.h"
#include "gpu/backend_choice.h"
#include "gpu/broad_phase_runner.h"
#include "gpu/narrow_phase_runner.h"
#include "gpu/rigid_stepper.h"
#include "rigid/rigid_scenes.h"
#include "scene/scene.h"

#include "broad_inputs.h"
#include "gpu_scenes.h"
#include "narrow_inputs.h"

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
                                                  double& worstDx, double& worstDv,
                                                  bool deviceContacts = false, bool deviceBroad = false,
                                                  int sweepBlock = 256) {
    auto a = std::make_unique<RigidSolver>(d);
    auto host = makeHostRigidStepper();
    auto dev = makeCudaRigidStepper();
    dev->setLanesPerBody(lanesPerBody);
    dev->setSweepBlock(sweepBlock);
    host->setDeviceContacts(deviceContacts);
    dev->setDeviceContacts(deviceContacts);
    dev->setDeviceBroadPhase(deviceBroad);
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
        // Smaller blocks of the sweep launches (RigidStepper::setSweepBlock): the same per-body code.
        for (const auto& [lanes, block] : {std::pair{1, 32}, std::pair{1, 64}, std::pair{8, 64}}) {
            double worstDx, worstDv;
            const auto a = stepFromTheSameState(*d, 30, lanes, worstDx, worstDv, false, false, block);
            std::printf(
                "  parity %d lanes in blocks of %d, %d bodies, one step: |dx| %.3e m, |dv| %.3e m/s\n", lanes,
                block, a->numBodies(), worstDx, worstDv);
            EXPECT_LT(worstDx, 1e-8) << block << " threads";
            EXPECT_LT(worstDv, 1e-6) << block << " threads";
        }
    }
}

// The narrow phase on the device (gpu/narrow_pipeline.h: collidePair per candidate pair, the CPU's code)
// against the CPU's manifolds from the same inputs (tests/gpu/narrow_inputs.h: every rigid-only built-in
// scene, a landing pile, a cluster of every pair of shape types). nvcc contracts a * b + c into FMAs where
// the host compiler does not: a point differs by a few roundings of its coordinates (float: ~6e-8 relative
// each), so points and normals are bounded by 1e-5 (1 + |p|), some 80 roundings. A rounding can also flip a
// decision that sits on a tie (an axis chosen, a point kept at the margin, a clip point against a vertex):
// such pairs get another count or other feature keys, and are counted rather than compared; at most 0.5% of
// the touching pairs may differ so (ties are made rare on purpose: face axes are preferred by a tolerance,
// and the clip planes have a slack).
TEST(GpuCudaRigid, NarrowPhaseOnTheDevice) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    const std::unique_ptr<NarrowPhaseRunner> runner = makeCudaNarrowPhase();
    std::vector<Manifold> mans;
    std::vector<int> count;
    for (const vbdtest::NarrowInput& in : vbdtest::narrowInputs()) {
        SCOPED_TRACE(in.name);
        vbdtest::runNarrowPhase(*runner, in, mans, count);
        ASSERT_EQ(mans.size(), in.pairs.size());
        size_t touching = 0, decided = 0;
        double worst = 0;  // largest point or normal difference over (1 + |p|)
        for (size_t k = 0; k < in.pairs.size(); ++k) {
            const Manifold &m = mans[k], &r = in.reference[k];
            ASSERT_EQ(count[k], m.count) << "pair " << k;
            if (r.count == 0 && m.count == 0) continue;
            ++touching;
            bool same = m.count == r.count;
            for (int p = 0; same && p < r.count; ++p) same = m.pts[p].key == r.pts[p].key;
            if (!same) {
                ++decided;
                continue;
            }
            worst = std::max(worst, double(norm(m.normal - r.normal)));
            for (int p = 0; p < r.count; ++p)
                for (const auto& [x, y] :
                     {std::pair{m.pts[p].pA, r.pts[p].pA}, std::pair{m.pts[p].pB, r.pts[p].pB}})
                    worst = std::max(worst, double(norm(x - y)) / (1.0 + double(norm(y))));
        }
        std::printf("  narrow phase %s: %zu pairs, %zu touching, %zu decided otherwise; worst %.2e\n",
                    in.name.c_str(), in.pairs.size(), touching, decided, worst);
        EXPECT_LT(worst, 1e-5);
        EXPECT_LE(double(decided), 0.005 * double(touching));
    }
}

// The contact matching on the device (RigidMatchStage: matchManifold, the CPU's code) from the CPU's own
// manifolds and last step's contacts, against the solver's records. Pairs, bodies and keys come from the
// manifolds and must be equal; every other field goes through float or double arithmetic that nvcc may
// contract into FMAs (anchors rotated into the body frames, the tangent basis, the warm-started multipliers
// re-expressed in it): a few roundings, bounded by 1e-5 (1 + |value|) as the narrow phase's points. A
// sticking contact whose anchors drifted by about the 1 cm threshold may be decided otherwise: at most 0.1%
// of the contacts may differ in `stick` (and are then not compared further).
TEST(GpuCudaRigid, ContactMatchingOnTheDevice) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    const std::unique_ptr<NarrowPhaseRunner> runner = makeCudaNarrowPhase();
    std::vector<Contact> out;
    for (const vbdtest::NarrowInput& in : vbdtest::narrowInputs()) {
        if (!in.hasMatch) continue;
        SCOPED_TRACE(in.name);
        vbdtest::runMatching(*runner, in, out);
        ASSERT_EQ(out.size(), in.contacts.size());
        double worst = 0;
        size_t stickOther = 0;
        auto near = [&worst](double x, double y) {
            worst = std::max(worst, std::fabs(x - y) / (1 + std::fabs(y)));
        };
        auto nearV = [&near](const auto& x, const auto& y) {
            near(double(x.x), double(y.x));
            near(double(x.y), double(y.y));
            near(double(x.z), double(y.z));
        };
        for (size_t i = 0; i < out.size(); ++i) {
            const Contact &p = out[i], &q = in.contacts[i];
            ASSERT_TRUE(p.a == q.a && p.b == q.b && p.key == q.key) << "contact " << i;
            if (p.stick != q.stick) {
                ++stickOther;
                continue;
            }
            for (const auto& [x, y] : {std::pair{p.n, q.n}, std::pair{p.t1, q.t1}, std::pair{p.t2, q.t2}})
                nearV(x, y);
            for (const auto& [x, y] : {std::pair{p.rA, q.rA}, std::pair{p.rB, q.rB}, std::pair{p.cA, q.cA},
                                       std::pair{p.cB, q.cB}, std::pair{p.d0, q.d0}})
                nearV(x, y);
            near(p.radA, q.radA);
            near(p.radB, q.radB);
            near(p.c0n, q.c0n);
            near(p.mu, q.mu);
            near(p.kMin, q.kMin);
            for (int r = 0; r < 3; ++r) {
                near(p.k[r], q.k[r]);
                near(p.lambda[r], q.lambda[r]);
            }
        }
        std::printf("  contact matching %s: %zu contacts, %zu stick decided otherwise; worst %.2e\n",
                    in.name.c_str(), out.size(), stickOther, worst);
        EXPECT_LT(worst, 1e-5);
        EXPECT_LE(double(stickOther), 0.001 * double(out.size()));
    }
}

// The narrow phase and the contact matching on the device (RigidStepper::setDeviceContacts): one step from
// the same state, as above, on the pile and the pyramid (each step a fresh copy: its contacts are uploaded as
// the warm start), and a free run of the pyramid on each side (the device keeps its contacts between steps),
// bounded as ParityOnEveryRigidOnlyBuiltInScene's runs. The narrow phase's and the matching's own differences
// are bounded by NarrowPhaseOnTheDevice and ContactMatchingOnTheDevice; a tie decided otherwise there changes
// a contact's count or anchor and, through the 6x6 solves, the poses by far less than these bounds allow.
TEST(GpuCudaRigid, DeviceContactsStep) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    SceneDesc pile = rigidPileScene(3000);
    pile.solver.diagnostics = false;
    const SceneDesc pyramid =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    for (const SceneDesc* d : {static_cast<const SceneDesc*>(&pile), &pyramid}) {
        double worstDx, worstDv;
        const auto a = stepFromTheSameState(*d, 30, 1, worstDx, worstDv, true);
        std::printf("  device contacts, %d bodies, one step: |dx| %.3e m, |dv| %.3e m/s\n", a->numBodies(),
                    worstDx, worstDv);
        EXPECT_LT(worstDx, 1e-8);
        EXPECT_LT(worstDv, 1e-6);
    }
    RigidSolver a(pyramid), b(pyramid);
    auto host = makeHostRigidStepper();
    auto dev = makeCudaRigidStepper();
    host->setDeviceContacts(true);
    dev->setDeviceContacts(true);
    const float h = float(pyramid.dt / pyramid.substeps);
    for (int s = 0; s < 30; ++s) {
        host->step(a, h);
        dev->step(b, h);
    }
    double dx, dv;
    differences(a, b, dx, dv);
    std::printf("  device contacts, pyramid 30 steps: |dx| %.3e m\n", dx);
    EXPECT_LT(dx, 1e-4);
    EXPECT_EQ(a.contacts().size(), b.contacts().size());
}

// A restored timeline frame steps from the records its save kept on the device, copied there by a stepper
// made after the one that kept them is gone (the World's order; test_gpu_rigid_host
// ARestoredFrameStepsFromTheRecordsKeptOnTheDevice on the host executor): one restore on the device, and the
// step is the CPU's from the same frame and records (fetched for it) within DeviceContactsStep's one-step
// bounds.
TEST(GpuCudaRigid, ARestoredFrameStepsFromTheRecordsKeptOnTheDevice) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    const SceneDesc pyramid =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    const float h = float(pyramid.dt / pyramid.substeps);
    RigidSolver dev(pyramid);
    auto stepper = makeCudaRigidStepper();
    stepper->setDeviceContacts(true);
    for (int s = 0; s < 20; ++s) stepper->step(dev, h);
    const RigidSolver saved(dev);
    ASSERT_TRUE(saved.contactsPending());
    for (int s = 0; s < 5; ++s) stepper->step(dev, h);
    stepper.reset();
    auto fresh = makeCudaRigidStepper();
    fresh->setDeviceContacts(true);
    RigidSolver restored(saved), reference(saved);
    ASSERT_FALSE(reference.contacts().empty());  // fetched from the kept block: the CPU's warm start
    reference.step(h);
    fresh->step(restored, h);
    EXPECT_EQ(fresh->contactsRestoredOnDevice(), 1u);
    double dx, dv;
    differences(reference, restored, dx, dv);
    std::printf("  restored frame, device contacts kept on the device: |dx| %.3e m, |dv| %.3e m/s\n", dx, dv);
    EXPECT_LT(dx, 1e-8);
    EXPECT_LT(dv, 1e-6);
    EXPECT_EQ(reference.contacts().size(), restored.contacts().size());
}

// The grid broad phase on the device (gpu/broad_pipeline.h, CUB's radix sorts and scans): the CPU's list,
// pair for pair, on every set of tests/gpu/broad_inputs.h. Exact: boxes, cells and keys are the same floats
// and integers on both sides (a cell is floor(v * inv), one rounding, nothing to contract), and the list is a
// set, sorted. Then one step from the same state with it (and the device contacts), bounded as
// DeviceContactsStep's: the pairs are the same, so the step differs only as that one does.
TEST(GpuCudaRigid, BroadPhaseOnTheDevice) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    const std::unique_ptr<BroadPhaseRunner> runner = makeCudaBroadPhase();
    std::vector<std::pair<int, int>> got, want;
    for (const vbdtest::BroadInput& in : vbdtest::broadInputs()) {
        SCOPED_TRACE(in.name);
        broadPhase(in.boxes, want);
        runner->find(in.boxes, got);
        std::printf("  broad phase %s: %zu boxes, %zu pairs, %s\n", in.name.c_str(), in.boxes.size(),
                    want.size(), got == want ? "equal" : "DIFFERENT");
        EXPECT_EQ(got, want);
    }
    SceneDesc pile = rigidPileScene(3000);
    pile.solver.diagnostics = false;
    double worstDx, worstDv;
    const auto a = stepFromTheSameState(pile, 30, 1, worstDx, worstDv, true, true);
    std::printf("  device broad phase and contacts, %d bodies, one step: |dx| %.3e m, |dv| %.3e m/s\n",
                a->numBodies(), worstDx, worstDv);
    EXPECT_LT(worstDx, 1e-8);
    EXPECT_LT(worstDv, 1e-6);
}
