// The device rigid step's orchestration (gpu/rigid_pipeline.h: upload, forward step, one launch per color,
// fused and separate dual updates, diagnostics slots, velocities, write-back) run by the host executor
// against RigidSolver::step. Both call the same out-of-line functions of rigid/body_block.h per body, contact
// and joint in the same order, so states, working poses and the contacts' multipliers and penalties must
// agree bit for bit. The residual's sum over bodies is added in index order on both sides (RigidSolver's
// reduceSum sums blocks of 1,024 bodies: the same order up to that count): exact. Only G is summed in
// another order (all rows of a kind, then added to the total, instead of one row at a time): a few
// roundings (1.1e-16 each) of partial sums that cancel to G. Measured: at most 2.5e-14 of |G| (the
// pyramid's 1,600 contacts); the bound is 1e-12 of |G|, plus 1e-12 J for a G near zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "backend/parallel.h"
#include "gpu/broad_phase_runner.h"
#include "gpu/host_exec.h"
#include "gpu/narrow_phase_runner.h"
#include "gpu/rigid_pipeline.h"
#include "gpu/rigid_stepper.h"
#include "rigid/rigid_scenes.h"
#include "scene/scene.h"

#include "broad_inputs.h"
#include "gpu_scenes.h"
#include "narrow_inputs.h"

using namespace vbd;

namespace {

template <typename T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Contacts field by field: a Contact has padding (after `key` and at its end), which memcmp would read.
bool sameContacts(const std::vector<Contact>& a, const std::vector<Contact>& b) {
    auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof(x)) == 0; };
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const Contact &p = a[i], &q = b[i];
        const bool ok = p.a == q.a && p.b == q.b && p.key == q.key && same(p.n, q.n) && same(p.t1, q.t1) &&
                        same(p.t2, q.t2) && same(p.rA, q.rA) && same(p.rB, q.rB) && same(p.cA, q.cA) &&
                        same(p.cB, q.cB) && same(p.radA, q.radA) && same(p.radB, q.radB) &&
                        same(p.d0, q.d0) && same(p.c0n, q.c0n) && same(p.mu, q.mu) && same(p.k, q.k) &&
                        same(p.lambda, q.lambda) && same(p.kMin, q.kMin) && p.stick == q.stick;
        if (!ok) return false;
    }
    return true;
}

struct Pair {
    ThreadLimit oneThread{1};  // as test_gpu_host_pipeline: the comparison is of the orchestration
    RigidSolver cpu, dev;
    std::unique_ptr<RigidStepper> stepper = makeHostRigidStepper();
    float h;
    double worstG = 0;  // largest |G_cpu - G_dev| / |G_cpu| seen
    explicit Pair(const SceneDesc& d) : cpu(d), dev(d), h(float(d.dt / d.substeps)) {}

    // One substep of each, then every difference reported.
    void step(const std::string& what) {
        cpu.step(h);
        stepper->step(dev, h);
        SCOPED_TRACE(what);
        ASSERT_EQ(cpu.numBodies(), dev.numBodies());
        for (int i = 0; i < cpu.numBodies(); ++i) {
            const RigidBodyState &a = cpu.states()[size_t(i)], &b = dev.states()[size_t(i)];
            ASSERT_EQ(std::memcmp(&a, &b, sizeof(a)), 0) << "body " << i << " state";
        }
        EXPECT_TRUE(sameBits(cpu.poses(), dev.poses())) << "working poses";
        ASSERT_EQ(cpu.contacts().size(), dev.contacts().size());
        EXPECT_TRUE(sameContacts(cpu.contacts(), dev.contacts()))
            << "contacts (multipliers, penalties, anchors)";
        EXPECT_TRUE(sameBits(cpu.joints(), dev.joints())) << "joints";
        const auto &ia = cpu.lastIterations(), &ib = dev.lastIterations();
        ASSERT_EQ(ia.size(), ib.size());
        for (size_t k = 0; k < ia.size(); ++k) {
            EXPECT_EQ(ia[k].frame, ib[k].frame);
            EXPECT_EQ(ia[k].iteration, ib[k].iteration);
            EXPECT_EQ(ia[k].residual, ib[k].residual) << "record " << k;
            EXPECT_NEAR(ia[k].energy, ib[k].energy, 1e-12 * std::fabs(ia[k].energy) + 1e-12)
                << "record " << k;
            if (ia[k].energy != 0)
                worstG = std::max(worstG, std::fabs(ia[k].energy - ib[k].energy) / std::fabs(ia[k].energy));
        }
    }
};

}  // namespace

TEST(GpuRigidHost, EveryRigidOnlyBuiltInSceneBitForBit) {
    const std::vector<std::string> scenes = vbdtest::rigidOnlyScenes();
    for (const std::string& f : scenes) {
        const SceneDesc d = loadSceneFile(f, {});
        Pair p(d);
        const int steps = 60 * d.substeps;  // one second: contacts made, matched and warm-started
        for (int s = 0; s < steps && !testing::Test::HasFatalFailure(); ++s)
            p.step(std::filesystem::path(f).filename().string() + " step " + std::to_string(s));
        std::printf(
            "  %s: %d steps, %d bodies, %zu contacts, %d colors at the end; max relative G difference %.1e\n",
            std::filesystem::path(f).filename().string().c_str(), steps, p.cpu.numBodies(),
            p.cpu.contacts().size(), p.cpu.numColors(), p.worstG);
    }
    // stack, pyramid, card house, heavy chain, dominoes, spin, ramps, pendulum.
    EXPECT_GE(scenes.size(), 8u);
}

// Without diagnostics the contacts' dual update is fused into the next sweep (RigidSolver::iterate); with
// the seed's inertial initial guess the forward step takes its other branch.
TEST(GpuRigidHost, FusedDualUpdateAndInertialGuess) {
    for (const char* set : {"solver.diagnostics=false", "solver.initial_guess=inertial"}) {
        for (const char* scene : {"rigid_pyramid.json", "rigid_heavy_chain.json", "rigid_ramps.json"}) {
            const SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {set});
            Pair p(d);
            for (int s = 0; s < 30 && !testing::Test::HasFatalFailure(); ++s)
                p.step(std::string(scene) + " " + set + " step " + std::to_string(s));
        }
    }
}

// Profiled (the executor synchronized between the phases, each timed), the step is the same bit for bit; the
// phases are reported while profiled and zero otherwise.
TEST(GpuRigidHost, ProfiledPhasesChangeNothing) {
    const SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    Pair p(d);
    for (int s = 0; s < 20 && !testing::Test::HasFatalFailure(); ++s) {
        p.stepper->setProfiled(s % 2 == 1);
        p.step("pyramid step " + std::to_string(s));
        const RigidStepper::PhaseMs t = p.stepper->phaseMs();
        if (s % 2 == 1) {
            EXPECT_GT(t.upload, 0.0);
            EXPECT_GT(t.kernels, 0.0);
            EXPECT_GT(t.download, 0.0);
            // The phases lie inside the device part the solver reports (stageMs().solve starts before the
            // upload and ends after the download).
            EXPECT_LE(t.upload + t.kernels + t.download, p.dev.stageMs().solve + 1e-9);
        } else {
            EXPECT_EQ(t.upload + t.kernels + t.download, 0.0);
        }
    }
}

// The tile sweep on the host: a tile's first lane adds each lane's share of the body's contacts (every
// kLanes-th from the lane's own), sums the shares in the shuffle's order and assembles from the pieces of
// assembleRigidBody, as the device does; the other lanes and the tiles past a color's count return. One step
// at every width from the CPU's state, with and without the fused dual update, against the CPU's step (whose
// SIMD assembly adds the contacts in another order), over 20 steps of the resting pyramid: the working poses
// within 1e-9 m and 1e-9 in the quaternion, the contacts' float multipliers within 1e-4 relative (measured:
// 1.6e-11 m, 1.9e-11, 5.8e-6: the rows summed in another order move a stiffly loaded body's solve by
// rounding, and a multiplier is k C + lambda with k up to 1e9 N/m). With one lane's share dropped a body
// moves 0.7-2 mm and a multiplier by 140-220 N.
TEST(GpuRigidHost, TileLayoutFromTheSameState) {
    ThreadLimit oneThread(1);
    for (const char* set : {"solver.diagnostics=true", "solver.diagnostics=false"}) {
        const SceneDesc d =
            loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {set});
        const float h = float(d.dt / d.substeps);
        RigidSolver cpu(d);
        double worst[3] = {0, 0, 0};
        for (int s = 0; s < 30; ++s) {
            const RigidSolver start = cpu;
            cpu.step(h);
            if (s < 10) continue;  // from the tenth step on the pyramid rests on its contacts
            ASSERT_GT(cpu.contacts().size(), size_t(100));
            for (int lanes : {4, 8, 16, 32}) {
                SCOPED_TRACE(std::string(set) + ", " + std::to_string(lanes) + " lanes, step " +
                             std::to_string(s));
                RigidSolver dev = start;
                auto stepper = makeHostRigidStepper();
                stepper->setLanesPerBody(lanes);
                EXPECT_EQ(stepper->lanesPerBody(), lanes);
                stepper->step(dev, h);
                double dx = 0, dq = 0, dl = 0;
                for (size_t i = 0; i < cpu.poses().size(); ++i) {
                    const BodyPose &a = cpu.poses()[i], &b = dev.poses()[i];
                    dx = std::max(dx, norm(a.x - b.x));
                    dq = std::max({dq, std::fabs(a.q.w - b.q.w), std::fabs(a.q.x - b.q.x),
                                   std::fabs(a.q.y - b.q.y), std::fabs(a.q.z - b.q.z)});
                }
                ASSERT_EQ(cpu.contacts().size(), dev.contacts().size());
                for (size_t c = 0; c < cpu.contacts().size(); ++c)
                    for (int r = 0; r < 3; ++r) {
                        const double la = cpu.contacts()[c].lambda[r], lb = dev.contacts()[c].lambda[r];
                        dl = std::max(dl, std::fabs(la - lb) / std::max(1.0, std::fabs(la)));
                    }
                EXPECT_LT(dx, 1e-9);
                EXPECT_LT(dq, 1e-9);
                EXPECT_LT(dl, 1e-4);
                worst[0] = std::max(worst[0], dx);
                worst[1] = std::max(worst[1], dq);
                worst[2] = std::max(worst[2], dl);
            }
        }
        std::printf("  %s: at most %.1e m, %.1e (quaternion), %.1e (multipliers, relative)\n", set, worst[0],
                    worst[1], worst[2]);
    }
    auto stepper = makeHostRigidStepper();
    EXPECT_EQ(stepper->lanesPerBody(), 1);
    EXPECT_THROW(stepper->setLanesPerBody(2), std::invalid_argument);
    EXPECT_THROW(stepper->setLanesPerBody(64), std::invalid_argument);
}

// The picking spring, a body placed by hand between steps (setState: the next upload carries it), and a
// pile of 1,500 boxes: colors of hundreds of bodies, contact lists that grow between steps (the buffers
// reallocate), and a residual summed over more than one 1,024-body block of reduceSum.
TEST(GpuRigidHost, DragEditsAndAPile) {
    {
        const SceneDesc d = rigidStackScene(6);
        Pair p(d);
        for (RigidSolver* s : {&p.cpu, &p.dev}) s->setDrag(5, Vec3(0.2f, 0.2f, 0), Vec3(1, 4, 0), 500.f);
        for (int s = 0; s < 20; ++s) p.step("drag step " + std::to_string(s));
        for (RigidSolver* s : {&p.cpu, &p.dev}) {
            RigidBodyState st = s->states()[2];
            st.velocity = Vec3(1, 0, 0);
            s->setState(2, st);
            s->setDrag(-1, Vec3(0.0f), Vec3(0.0f), 0.f);
        }
        for (int s = 0; s < 20; ++s) p.step("edit step " + std::to_string(s));
    }
    SceneDesc d = rigidPileScene(1500);
    d.solver.diagnostics = false;
    Pair p(d);
    for (int s = 0; s < 40; ++s) {
        p.cpu.step(p.h);
        p.stepper->step(p.dev, p.h);
    }
    for (int i = 0; i < p.cpu.numBodies(); ++i)
        ASSERT_EQ(std::memcmp(&p.cpu.states()[size_t(i)], &p.dev.states()[size_t(i)], sizeof(RigidBodyState)),
                  0)
            << "pile body " << i;
    EXPECT_TRUE(sameContacts(p.cpu.contacts(), p.dev.contacts()));
    EXPECT_GT(p.cpu.contacts().size(), 1000u);  // the pile has landed
    // The residual's sum differs in order past 1,024 bodies: two partial sums instead of one running sum.
    const auto &ia = p.cpu.lastIterations(), &ib = p.dev.lastIterations();
    ASSERT_EQ(ia.size(), ib.size());
    for (size_t k = 0; k < ia.size(); ++k)
        EXPECT_NEAR(ia[k].residual, ib[k].residual, 1e-12 * ia[k].residual);
}

TEST(GpuRigidHost, RefusesRowsCoupledToParticles) {
    RigidSolver s(rigidStackScene(2));
    EXPECT_EQ(rigidDeviceStepUnsupported(s), "");
    std::vector<Block66d> blocks(2);
    s.setExternalBlocks(&blocks);
    EXPECT_NE(rigidDeviceStepUnsupported(s).find("CPU"), std::string::npos);
}

// test_gpu_cuda_rigid compares the device with the host one step at a time from a copy of the host's solver:
// a copy (contacts, warm start, joints, the last velocities of the adaptive guess) steps as the original.
TEST(GpuRigidHost, ACopyStepsAsTheOriginal) {
    const SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    RigidSolver a(d);
    auto stepper = makeHostRigidStepper();
    const float h = float(d.dt / d.substeps);
    for (int s = 0; s < 20; ++s) {
        RigidSolver b(a);
        stepper->step(a, h);
        stepper->step(b, h);
        ASSERT_TRUE(sameBits(a.states(), b.states())) << "step " << s;
        ASSERT_TRUE(sameContacts(a.contacts(), b.contacts())) << "step " << s;
    }
}

// The device step writes its results (states, working poses, x-, R-, v-) into storage of the solver's own
// where the timeline's copy shares the arrays (RigidSolver::resultsView): no copy of them, with or without
// device contacts; the saved copies keep their states byte for byte, and once the ring is full the storage is
// the dropped frames'. The steps still equal the CPU's bit for bit (Pair).
TEST(GpuRigidHost, ADeviceStepAfterASaveCopiesNoBodyArrays) {
    for (const bool deviceContacts : {false, true}) {
        SCOPED_TRACE(deviceContacts ? "device contacts" : "host contacts");
        Pair p(rigidPileScene(400, 0.5f));
        p.stepper->setDeviceContacts(deviceContacts);
        std::deque<std::pair<std::shared_ptr<const RigidSolver>, std::vector<RigidBodyState>>> ring;
        RecordStats filled;
        for (int s = 0; s < 12; ++s) {
            p.step("step " + std::to_string(s));
            auto copy = std::make_shared<const RigidSolver>(p.dev);
            ASSERT_EQ(copy->states().data(), p.dev.states().data());
            ring.emplace_back(copy, p.dev.states());
            if (ring.size() > 3) ring.pop_front();
            if (s == 4) filled = p.dev.bodyStorage();
        }
        EXPECT_EQ(p.dev.bodyStorage().copies, 0u);
        EXPECT_EQ(p.dev.bodyStorage().allocations, filled.allocations);
        for (const auto& [copy, states] : ring) EXPECT_TRUE(sameBits(copy->states(), states));
    }
}

// An executor whose downloads fail once armed: a device lost in the middle of a step.
struct FailingExec : HostExec {
    bool armed = false;
    template <typename U>
    void download(U* dst, const U* src, size_t n) {
        if (armed) throw std::runtime_error("device lost (test)");
        HostExec::download(dst, src, n);
    }
};

// A device step that fails while its results come down leaves the bodies where the step began (the World
// lives on after a failed step, and its CPU backend would go on from them), whether a saved copy shares the
// arrays (the results then go to storage of the solver's own: a dropped frame's records or fresh zeros) or
// not; and the solver then steps on as the CPU step from there, bit for bit.
TEST(GpuRigidHost, AFailedDeviceStepLeavesTheBodiesAtItsStart) {
    ThreadLimit oneThread(1);
    for (const bool saved : {false, true}) {
        SCOPED_TRACE(saved ? "a saved copy shares the arrays" : "no copy");
        const SceneDesc d = rigidPileScene(300, 0.5f);
        const float h = float(d.dt / d.substeps);
        RigidSolver solver(d);
        RigidPipeline<FailingExec> stepper;
        std::deque<std::shared_ptr<const RigidSolver>> ring;
        for (int s = 0; s < 8; ++s) {
            stepper.step(solver, h);
            if (!saved) continue;
            ring.push_back(std::make_shared<const RigidSolver>(solver));
            if (ring.size() > 2) ring.pop_front();
        }
        const std::vector<RigidBodyState> states = solver.states();
        stepper.exec().armed = true;
        EXPECT_THROW(stepper.step(solver, h), std::runtime_error);
        EXPECT_TRUE(sameBits(solver.states(), states)) << "the bodies moved or were overwritten";
        stepper.exec().armed = false;
        RigidSolver cpu(solver);
        cpu.step(h);
        stepper.step(solver, h);
        EXPECT_TRUE(sameBits(solver.states(), cpu.states()));
    }
}

// The device narrow phase (gpu/narrow_pipeline.h: the rotation stage, then collidePair per candidate pair)
// run by the host executor, from the inputs RigidSolver's own detection used: every manifold equals the
// solver's bit for bit (count, normal, points and keys), on every rigid-only built-in scene, a landing pile,
// and a cluster of boxes, spheres and capsules whose reference is the generic collide / collidePlane (so the
// pair dispatch, the summed margins, the ground pairs and the swapped shape orders are checked too).
TEST(GpuRigidHost, NarrowPhaseIsTheSolversBitForBit) {
    const std::unique_ptr<NarrowPhaseRunner> runner = makeHostNarrowPhase();
    std::vector<Manifold> mans;
    std::vector<int> count;
    int shapesSeen[3][3] = {};
    size_t total = 0;  // touching pairs over all inputs
    for (const vbdtest::NarrowInput& in : vbdtest::narrowInputs()) {
        SCOPED_TRACE(in.name);
        vbdtest::runNarrowPhase(*runner, in, mans, count);
        ASSERT_EQ(mans.size(), in.pairs.size());
        size_t touching = 0;
        for (size_t k = 0; k < in.pairs.size(); ++k) {
            const Manifold &m = mans[k], &r = in.reference[k];
            ASSERT_EQ(count[k], r.count) << "pair " << k;
            ASSERT_EQ(m.count, r.count) << "pair " << k;
            if (r.count == 0) continue;
            ++touching;
            EXPECT_EQ(std::memcmp(&m.normal, &r.normal, sizeof(Vec3)), 0) << "pair " << k;
            const auto [a, b] = in.pairs[k];
            for (int p = 0; p < r.count; ++p) {
                EXPECT_EQ(m.pts[p].key, r.pts[p].key) << "pair " << k << " point " << p;
                EXPECT_EQ(std::memcmp(&m.pts[p].pA, &r.pts[p].pA, sizeof(Vec3)), 0) << "pair " << k;
                EXPECT_EQ(std::memcmp(&m.pts[p].pB, &r.pts[p].pB, sizeof(Vec3)), 0) << "pair " << k;
            }
            if (a >= 0) ++shapesSeen[int(in.shape[size_t(a)].type)][int(in.shape[size_t(b)].type)];
        }
        std::printf("  %s: %zu candidate pairs, %zu touching\n", in.name.c_str(), in.pairs.size(), touching);
        total += touching;
    }
    EXPECT_GT(total, 3000u);  // the pile's ~2,300 and the cluster's ~1,200, besides the scenes' ~480
    // Every ordered pair of shape types touched somewhere (the cluster), so every branch of collide ran.
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_GT(shapesSeen[i][j], 0) << "shapes " << i << ", " << j;
}

// The device contact matching (RigidMatchStage: matchManifold per touching pair) run by the host executor
// from the solver's own manifolds, last step's contacts and the start-of-step poses: every contact record
// equals the solver's field by field, on every rigid-only built-in scene and a landing pile. Most of them
// have a contact of the same pair and feature key last step, so the search of last step's ranges and keys and
// the warm start are exercised, not only the fresh records.
TEST(GpuRigidHost, ContactMatchingIsTheSolversBitForBit) {
    const std::unique_ptr<NarrowPhaseRunner> runner = makeHostNarrowPhase();
    std::vector<Contact> out;
    size_t contacts = 0, warm = 0;
    for (const vbdtest::NarrowInput& in : vbdtest::narrowInputs()) {
        if (!in.hasMatch) continue;
        SCOPED_TRACE(in.name);
        vbdtest::runMatching(*runner, in, out);
        EXPECT_TRUE(sameContacts(out, in.contacts));
        std::set<std::tuple<int, int, uint32_t>> old;
        for (const Contact& c : in.oldContacts) old.insert({c.a, c.b, c.key});
        for (const Contact& c : in.contacts) warm += old.count({c.a, c.b, c.key});
        contacts += in.contacts.size();
    }
    std::printf("  %zu contacts matched, %zu of them with last step's pair and key\n", contacts, warm);
    EXPECT_GT(contacts, 5000u);
    EXPECT_GT(warm, contacts / 2);
}

// The step with the narrow phase and the contact matching on the executor (setDeviceContacts): the CPU step
// bit for bit (states, working poses, every contact record, joints, iteration records) on every rigid-only
// built-in scene for a second, with and without diagnostics, and on a landing pile. The warm start reads the
// contacts the stepper kept while the solver's are the ones it wrote, and uploads the solver's otherwise:
// after CPU steps of the same solver between device steps, a body edited by hand, a copy of the solver
// stepped by the same stepper (the copy's contacts are the stepper's, then the original's are not), another
// scene's solver stepped by it, and a stepper switched from the CPU detection. The kept copy is what a fault
// would most likely break: dropping the version check (always keeping) makes the CPU-steps case fail.
TEST(GpuRigidHost, DeviceContactsAreTheCpuStep) {
    for (const bool broad : {false, true}) {  // the broad phase on the CPU, then on the executor
        SCOPED_TRACE(broad ? "device broad phase" : "CPU broad phase");
        for (const char* set : {"solver.diagnostics=true", "solver.diagnostics=false"}) {
            for (const std::string& f : vbdtest::rigidOnlyScenes()) {
                const SceneDesc d = loadSceneFile(f, {set});
                Pair p(d);
                p.stepper->setDeviceContacts(true);
                p.stepper->setDeviceBroadPhase(broad);
                EXPECT_TRUE(p.stepper->deviceContacts());
                const std::string name = std::filesystem::path(f).filename().string() + " " + set;
                for (int s = 0; s < 60 && !testing::Test::HasFatalFailure(); ++s)
                    p.step(name + " step " + std::to_string(s));
            }
        }
        const SceneDesc pyramid =
            loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
        {
            Pair p(pyramid);
            for (int s = 0; s < 10; ++s) p.step("CPU detection step " + std::to_string(s));
            p.stepper->setDeviceContacts(true);  // switched on: the solver's contacts are uploaded once
            p.stepper->setDeviceBroadPhase(broad);
            for (int s = 0; s < 40 && !testing::Test::HasFatalFailure(); ++s) {
                const std::string at = "mixed step " + std::to_string(s);
                if (s % 7 ==
                    3) {  // a CPU step of the device-stepped solver: its contacts are no longer the kept ones
                    p.cpu.step(p.h);
                    p.dev.step(p.h);
                    continue;
                }
                if (s == 20)
                    for (RigidSolver* r : {&p.cpu, &p.dev}) {
                        RigidBodyState st = r->states()[100];
                        st.position.x += 0.05f;
                        r->setState(100, st);
                    }
                p.step(at);
            }
            // A copy stepped by the same stepper, then the original again.
            RigidSolver copyCpu(p.cpu), copyDev(p.dev);
            for (int s = 0; s < 3; ++s) {
                copyCpu.step(p.h);
                p.stepper->step(copyDev, p.h);
            }
            EXPECT_TRUE(sameContacts(copyCpu.contacts(), copyDev.contacts()));
            for (int s = 0; s < 3; ++s) p.step("original after the copy, step " + std::to_string(s));
            // Another solver with another body count stepped by the same stepper (a rebuilt scene), then this
            // one.
            const SceneDesc stack = rigidStackScene(6);
            RigidSolver otherCpu(stack), otherDev(stack);
            for (int s = 0; s < 5; ++s) {
                otherCpu.step(p.h);
                p.stepper->step(otherDev, p.h);
            }
            EXPECT_TRUE(sameBits(otherCpu.states(), otherDev.states()));
            EXPECT_TRUE(sameContacts(otherCpu.contacts(), otherDev.contacts()));
            for (int s = 0; s < 3; ++s) p.step("original after another scene, step " + std::to_string(s));
        }
        SceneDesc pile = rigidPileScene(1500);
        pile.solver.diagnostics = false;
        Pair p(pile);
        p.stepper->setDeviceContacts(true);
        p.stepper->setDeviceBroadPhase(broad);
        for (int s = 0; s < 40; ++s) {  // as DragEditsAndAPile (its residual is summed in another order)
            p.cpu.step(p.h);
            p.stepper->step(p.dev, p.h);
            ASSERT_TRUE(sameBits(p.cpu.states(), p.dev.states())) << "pile step " << s;
            ASSERT_TRUE(sameContacts(p.cpu.contacts(), p.dev.contacts())) << "pile step " << s;
        }
        EXPECT_GT(p.cpu.contacts().size(), 1000u);
    }
}

// With device contacts the step's records stay on the executor (RigidSolver::deferContacts): nothing reads
// them between steps here, yet every later read must see the CPU's records. The stepper's memory is reused
// for another solver between steps, the stepper goes away, the solver is copied and stepped on the CPU while
// its records are pending: each must deliver them first. (Without PendingContacts::deliver in the stepper,
// the alternating solvers read each other's records: sizes and keys differ.)
TEST(GpuRigidHost, DeviceContactRecordsComeDownWhenRead) {
    ThreadLimit oneThread(1);
    const SceneDesc pyramid =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    const SceneDesc stack = rigidStackScene(6);
    const float h = float(pyramid.dt / pyramid.substeps);
    RigidSolver aCpu(pyramid), aDev(pyramid), bCpu(stack), bDev(stack);
    std::unique_ptr<RigidStepper> stepper = makeHostRigidStepper();
    stepper->setDeviceContacts(true);
    for (int s = 0; s < 30; ++s) {  // two solvers, one stepper, no read of the records in between
        aCpu.step(h);
        stepper->step(aDev, h);
        ASSERT_TRUE(aDev.contactsPending()) << "step " << s;
        ASSERT_EQ(aDev.contactCount(), aCpu.contactCount()) << "step " << s;  // known without the records
        bCpu.step(h);
        stepper->step(bDev, h);
        ASSERT_TRUE(sameBits(aCpu.states(), aDev.states())) << "step " << s;
        ASSERT_TRUE(sameBits(bCpu.states(), bDev.states())) << "step " << s;
    }
    EXPECT_FALSE(aDev.contactsPending());  // delivered when the stepper took b's records
    EXPECT_TRUE(bDev.contactsPending());
    EXPECT_GT(aCpu.contactCount(), 500u);
    EXPECT_TRUE(sameContacts(aCpu.contacts(), aDev.contacts()));
    EXPECT_TRUE(sameContacts(bCpu.contacts(), bDev.contacts()));
    EXPECT_FALSE(bDev.contactsPending());

    // A copy of a solver whose records are pending has them, kept on the device: neither the copy nor the
    // original fetched them; the steps after it (which reuse the stepper's memory) do not change them; a copy
    // of the copy shares the kept records.
    stepper->step(aDev, h);
    aCpu.step(h);
    ASSERT_TRUE(aDev.contactsPending());
    const std::vector<Contact> atCopy = aCpu.contacts();
    const RigidSolver copy(aDev);
    EXPECT_TRUE(aDev.contactsPending());
    EXPECT_TRUE(copy.contactsPending());
    EXPECT_EQ(copy.contactCount(), atCopy.size());
    const RigidSolver copyOfCopy(copy);
    EXPECT_TRUE(copy.contactsPending());
    for (int s = 0; s < 3; ++s) {
        stepper->step(aDev, h);
        aCpu.step(h);
    }
    EXPECT_TRUE(sameContacts(atCopy, copy.contacts()));
    EXPECT_TRUE(sameContacts(atCopy, copyOfCopy.contacts()));
    EXPECT_TRUE(sameContacts(aCpu.contacts(), aDev.contacts()));
    // A copy that is stepped goes on as the original would have from there.
    RigidSolver restored(copy);
    RigidSolver twin(copy);
    restored.step(h);
    stepper->step(twin, h);
    EXPECT_TRUE(sameBits(restored.states(), twin.states()));
    EXPECT_TRUE(sameContacts(restored.contacts(), twin.contacts()));

    // A CPU step of a solver whose records are pending matches against them.
    stepper->step(aDev, h);
    aCpu.step(h);
    ASSERT_TRUE(aDev.contactsPending());
    for (int s = 0; s < 3; ++s) {
        aCpu.step(h);
        aDev.step(h);
    }
    EXPECT_TRUE(sameBits(aCpu.states(), aDev.states()));
    EXPECT_TRUE(sameContacts(aCpu.contacts(), aDev.contacts()));

    // The stepper goes away while the records are pending: they are delivered first.
    stepper->step(aDev, h);
    aCpu.step(h);
    ASSERT_TRUE(aDev.contactsPending());
    stepper.reset();
    EXPECT_FALSE(aDev.contactsPending());
    EXPECT_TRUE(sameContacts(aCpu.contacts(), aDev.contacts()));
}

namespace {

// The pyramid stepped n substeps on the CPU and by a host-executor stepper with device contacts (whose
// records are then pending in the stepper's memory).
struct PyramidRun {
    SceneDesc pyramid = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    float h = float(pyramid.dt / pyramid.substeps);
    RigidSolver cpu{pyramid}, dev{pyramid};
    std::unique_ptr<RigidStepper> stepper = makeHostRigidStepper();
    explicit PyramidRun(int n) {
        stepper->setDeviceContacts(true);
        for (int s = 0; s < n; ++s) {
            cpu.step(h);
            stepper->step(dev, h);
        }
    }
};

}  // namespace

// A timeline frame restored (a copy of a saved copy, whose records were kept within the device when it was
// saved) steps from those records copied within the device, not through the host: by the stepper that kept
// them and by a new one made after it is gone (the World's order when it restores), bit for bit as the CPU
// steps from the same frame; the saved frame keeps its records. Records kept by another executor, or on the
// host, are uploaded as before; a step that fails after the copy leaves the saved records as they were.
TEST(GpuRigidHost, ARestoredFrameStepsFromTheRecordsKeptOnTheDevice) {
    ThreadLimit oneThread(1);
    PyramidRun pyr(20);
    const SceneDesc& pyramid = pyr.pyramid;
    const float h = pyr.h;
    RigidSolver &cpu = pyr.cpu, &dev = pyr.dev;
    std::unique_ptr<RigidStepper>& stepper = pyr.stepper;
    ASSERT_TRUE(dev.contactsPending());
    const RigidSolver saved(dev), cpuSaved(cpu);  // the timeline's save of this frame
    ASSERT_TRUE(saved.contactsPending());
    ASSERT_GT(saved.contactCount(), 500u);
    for (int s = 0; s < 5; ++s) {  // the run goes on
        cpu.step(h);
        stepper->step(dev, h);
    }
    const size_t before = stepper->contactsRestoredOnDevice();
    EXPECT_EQ(before, 0u);
    RigidSolver restored(saved), cpuRestored(cpuSaved);
    for (int s = 0; s < 3; ++s) {
        cpuRestored.step(h);
        stepper->step(restored, h);
        ASSERT_TRUE(sameBits(cpuRestored.states(), restored.states())) << "step " << s;
    }
    EXPECT_EQ(stepper->contactsRestoredOnDevice(), 1u);  // the first step; then its own records
    EXPECT_TRUE(sameContacts(cpuRestored.contacts(), restored.contacts()));
    // Another stepper of the same executor, made after the first is gone (the World's after a restore), reads
    // them there too: the kept block outlives the stepper that kept it.
    stepper.reset();
    std::unique_ptr<RigidStepper> fresh = makeHostRigidStepper();
    fresh->setDeviceContacts(true);
    RigidSolver again(saved), cpuAgain(cpuSaved);
    cpuAgain.step(h);
    fresh->step(again, h);
    EXPECT_EQ(fresh->contactsRestoredOnDevice(), 1u);
    EXPECT_TRUE(sameBits(cpuAgain.states(), again.states()));
    EXPECT_TRUE(sameContacts(cpuAgain.contacts(), again.contacts()));
    // Another executor's step (FailingExec, another memory) does not read them there: it fetches them, and
    // steps as the CPU; armed, it fails after the fetch.
    {
        RigidPipeline<FailingExec> other;
        other.setDeviceContacts(true);
        RigidSolver elsewhere(saved), cpuElsewhere(cpuSaved);
        cpuElsewhere.step(h);
        other.step(elsewhere, h);
        EXPECT_EQ(other.contactsRestoredOnDevice(), 0u);
        EXPECT_TRUE(sameBits(cpuElsewhere.states(), elsewhere.states()));
    }
    // A step that fails after the copy (its counts do not come down) leaves the saved frame's records: the
    // same frame kept by a FailingExec stepper, restored into another, armed.
    {
        RigidPipeline<FailingExec> keeper, failing;
        keeper.setDeviceContacts(true);
        failing.setDeviceContacts(true);
        RigidSolver run(pyramid);
        for (int s = 0; s < 20; ++s) keeper.step(run, h);
        const RigidSolver kept(run);
        ASSERT_TRUE(kept.contactsPending());
        RigidSolver doomed(kept);
        failing.exec().armed = true;
        EXPECT_THROW(failing.step(doomed, h), std::runtime_error);
        EXPECT_EQ(failing.contactsRestoredOnDevice(), 1u);
        EXPECT_TRUE(sameContacts(cpuSaved.contacts(), kept.contacts()));
    }
    // The saved frame's records are as they were saved.
    EXPECT_TRUE(saved.contactsPending());
    EXPECT_TRUE(sameContacts(cpuSaved.contacts(), saved.contacts()));
    // Records on the host (read above) go up as before.
    RigidSolver onHost(saved), cpuOnHost(cpuSaved);
    ASSERT_FALSE(onHost.contactsPending());
    cpuOnHost.step(h);
    fresh->step(onHost, h);
    EXPECT_EQ(fresh->contactsRestoredOnDevice(), 1u);
    EXPECT_TRUE(sameBits(cpuOnHost.states(), onHost.states()));
}

// Records a fetch could not bring (a broken device) are lost: the list is empty, and the next step matches
// without a warm start, as after dropContacts.
TEST(GpuRigidHost, LostDeviceRecordsMeanNoWarmStart) {
    const SceneDesc pyramid =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    const float h = float(pyramid.dt / pyramid.substeps);
    RigidSolver dropped(pyramid);
    for (int s = 0; s < 20; ++s) dropped.step(h);
    RigidSolver lost(dropped);
    ASSERT_GT(lost.contactCount(), 500u);
    lost.deferContacts([](Contact*, size_t) { throw std::runtime_error("device lost"); });
    EXPECT_EQ(lost.contactCount(), dropped.contactCount());
    EXPECT_TRUE(lost.contacts().empty());  // the read ran the fetch, which failed
    EXPECT_FALSE(lost.contactsPending());
    dropped.dropContacts();
    dropped.step(h);
    lost.step(h);
    EXPECT_TRUE(sameBits(dropped.states(), lost.states()));
    EXPECT_TRUE(sameContacts(dropped.contacts(), lost.contacts()));
    EXPECT_GT(lost.contactCount(), 500u);

    // A copy made while the failing fetch is pending (no device copy offered): the copy's read fails the
    // fetch, so the copy is lost too and steps as dropped does (it matched against ranges whose records were
    // not there when it took the original's flag from before the fetch).
    RigidSolver original(dropped), reference(dropped);
    original.step(h);  // records of its own, which the failed fetch's storage still holds past its size
    reference.step(h);
    original.deferContacts([](Contact*, size_t) { throw std::runtime_error("device lost"); });
    const RigidSolver copy(original);
    EXPECT_TRUE(copy.contacts().empty());
    RigidSolver stepped(copy);
    reference.dropContacts();
    reference.step(h);
    stepped.step(h);
    EXPECT_TRUE(sameBits(reference.states(), stepped.states()));
}

// A copy of a solver made while its records wait on the device has the same contacts version; the stepper
// stepping the copy finds its own records kept and reuses them for the copy's step, so the original's pending
// records must come down first: the original then reads its own records and steps as the CPU does, and a
// stepper that goes away afterwards leaves nothing pending (its fetch would read freed memory).
TEST(GpuRigidHost, SteppingACopyOfAPendingSolverKeepsTheOriginalsRecords) {
    ThreadLimit oneThread(1);
    PyramidRun pyr(30);
    const float h = pyr.h;
    RigidSolver &cpu = pyr.cpu, &dev = pyr.dev;
    std::unique_ptr<RigidStepper>& stepper = pyr.stepper;
    ASSERT_TRUE(dev.contactsPending());
    RigidSolver copy(dev);
    stepper->step(copy, h);
    EXPECT_FALSE(dev.contactsPending());  // delivered before the copy's step reused the memory
    EXPECT_TRUE(sameContacts(cpu.contacts(), dev.contacts()));
    cpu.step(h);
    stepper->step(dev, h);
    EXPECT_TRUE(sameBits(cpu.states(), dev.states()));
    EXPECT_TRUE(sameBits(cpu.states(), copy.states()));  // the copy stepped from the same frame
    RigidSolver copy2(dev);
    stepper->step(copy2, h);
    stepper.reset();
    EXPECT_FALSE(dev.contactsPending());
    EXPECT_TRUE(sameContacts(cpu.contacts(), dev.contacts()));
}

// The stepper keeps the bodies' constants (shapes, masses, inertia, fixed flags, frictions) on the executor
// between steps and uploads them when they differ (gpu/exec_buffer.h KeptBuffer). Two stacks with the same
// body count and other boxes, stepped in turn by one stepper, in both detection modes: each must stay the
// CPU's, bit for bit. (Keeping them by body count alone steps the second stack with the first's boxes.)
TEST(GpuRigidHost, BodyConstantsFollowTheSolver) {
    ThreadLimit oneThread(1);
    const SceneDesc small = rigidStackScene(6, 0.5f), large = rigidStackScene(6, 0.6f);
    SceneDesc heavy = small;
    for (RigidBodyDesc& b : heavy.rigidBodies) {
        b.density *= 3;
        b.friction = 0.8;
    }
    const float h = float(small.dt / small.substeps);
    for (const bool deviceContacts : {false, true}) {
        SCOPED_TRACE(deviceContacts ? "device contacts" : "CPU contacts");
        std::unique_ptr<RigidStepper> stepper = makeHostRigidStepper();
        stepper->setDeviceContacts(deviceContacts);
        std::vector<RigidSolver> cpu{RigidSolver(small), RigidSolver(large), RigidSolver(heavy)};
        std::vector<RigidSolver> dev = cpu;
        ASSERT_EQ(cpu[0].numBodies(), cpu[1].numBodies());
        for (int s = 0; s < 40; ++s)
            for (size_t k = 0; k < cpu.size(); ++k) {
                cpu[k].step(h);
                stepper->step(dev[k], h);
                ASSERT_TRUE(sameBits(cpu[k].states(), dev[k].states())) << "solver " << k << " step " << s;
            }
        for (size_t k = 0; k < cpu.size(); ++k)
            EXPECT_TRUE(sameContacts(cpu[k].contacts(), dev[k].contacts()));
    }
}

// The device broad phase (gpu/broad_pipeline.h) on the host executor: the CPU's list, pair for pair, on every
// set of tests/gpu/broad_inputs.h (big boxes, aliased keys, a landed pile, the ramps).
TEST(GpuRigidHost, BroadPhaseIsTheCpusList) {
    const std::unique_ptr<BroadPhaseRunner> runner = makeHostBroadPhase();
    std::vector<std::pair<int, int>> got, want;
    size_t most = 0;
    for (const vbdtest::BroadInput& in : vbdtest::broadInputs()) {
        SCOPED_TRACE(in.name);
        broadPhase(in.boxes, want);
        runner->find(in.boxes, got);
        EXPECT_EQ(got, want);
        most = std::max(most, want.size());
    }
    EXPECT_GT(most, 5000u);  // the sets exercise many pairs
}

// The sweep's block size is the device's launch shape: checked, and nothing to the results.
TEST(GpuRigidHost, SweepBlockChangesNothing) {
    const SceneDesc pyramid =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_pyramid.json", {});
    Pair p(pyramid);
    EXPECT_EQ(p.stepper->sweepBlock(), 256);
    EXPECT_THROW(p.stepper->setSweepBlock(100), std::invalid_argument);
    EXPECT_THROW(p.stepper->setSweepBlock(512), std::invalid_argument);
    p.stepper->setSweepBlock(64);
    EXPECT_EQ(p.stepper->sweepBlock(), 64);
    for (int s = 0; s < 10 && !testing::Test::HasFatalFailure(); ++s) p.step("step " + std::to_string(s));
}

// The rigid step's launches in every order (gpu/host_exec.h LaunchOrder; test_gpu_host_pipeline
// LaunchOrderChangesNothing says why): a body's sweep reads its neighbours' poses (of other colors) and the
// contacts it shares with them, the fused dual update writes a contact from its owner, the broad phase and
// the matching write to offsets from scans. The pyramid, the card house and a 400-box pile, 20 steps, with
// and without the fused dual update, a thread and a tile of 8 lanes per body, the host's contacts and the
// device's (with its broad phase): poses and the contacts' k and lambda equal Forward's bit for bit. Colored
// without its contacts (joints only) the pile differs at once.
TEST(GpuRigidHost, LaunchOrderChangesNothing) {
    ThreadLimit oneThread(1);
    const std::string dir = std::string(VBD_SOURCE_DIR) + "/assets/scenes/";
    for (const char* scene : {"rigid_pyramid", "rigid_card_house", "pile"})
        for (bool diagnostics : {false, true})
            for (int lanes : {1, 8})
                for (bool device : {false, true}) {
                    SCOPED_TRACE(std::string(scene) + (diagnostics ? ", diagnostics, " : ", fused dual, ") +
                                 std::to_string(lanes) + " lanes" + (device ? ", device contacts" : ""));
                    SceneDesc d = std::string(scene) == "pile" ? rigidPileScene(400)
                                                               : loadSceneFile(dir + scene + ".json", {});
                    d.solver.diagnostics = diagnostics;
                    const float h = float(d.dt / d.substeps);
                    struct Result {
                        std::vector<BodyPose> poses;
                        std::vector<float> rows;  // k and lambda of every contact
                    };
                    auto run = [&](LaunchOrder order) {
                        ScopedLaunchOrder scoped(order);
                        RigidSolver solver(d);
                        auto st = makeHostRigidStepper();
                        st->setLanesPerBody(lanes);
                        st->setDeviceContacts(device);
                        st->setDeviceBroadPhase(device);
                        for (int s = 0; s < 20; ++s) st->step(solver, h);
                        Result r;
                        r.poses = solver.poses();
                        for (const auto& c : solver.contacts())
                            for (int k = 0; k < 3; ++k) r.rows.insert(r.rows.end(), {c.k[k], c.lambda[k]});
                        return r;
                    };
                    const Result fwd = run(LaunchOrder::Forward);
                    EXPECT_FALSE(fwd.rows.empty());
                    for (LaunchOrder order : {LaunchOrder::Reversed, LaunchOrder::Shuffled}) {
                        const Result other = run(order);
                        const char* what = order == LaunchOrder::Reversed ? "reversed" : "shuffled";
                        EXPECT_TRUE(sameBits(fwd.poses, other.poses)) << what;
                        EXPECT_TRUE(fwd.rows == other.rows) << what;
                    }
                }
}
