// The World's lazy publish (World::setLazyPublish: the device step's state stays on the device and each frame
// brings only its measures, gpu/frame_sums.h) against the CPU World, on the host executor standing in for a
// device: the particles must be the CPU's bit for bit whenever they are read (reading them must not change
// the run), and the frame's metrics equal the CPU World's up to the order of their sums. On CUDA the same
// within the parity bounds of test_gpu_cuda.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "backend/parallel.h"
#include "gpu/host_exec.h"
#include "gpu/soft_stepper.h"
#include "gpu_scenes.h"
#include "scene/scene.h"
#include "soft/soft_fields.h"
#include "soft/soft_solver.h"
#include "world/finite_guard.h"
#include "world/world.h"
#include "world/world_state.h"

using namespace vbd;

namespace {

SceneDesc scene(const std::string& name, const std::vector<std::string>& sets = {}) {
    SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + name + ".json", sets);
    d.solver.threads = 1;
    return d;
}

std::unique_ptr<World> cpuWorld(const SceneDesc& d) {
    WorldOptions o;
    o.scalarSweep = true;  // the host executor's order of the sweep's terms: the same bits
    return World::create(d, o);
}

std::unique_ptr<World> deviceWorld(SceneDesc d, bool lazy) {
    d.solver.backend = Backend::Cuda;
    WorldOptions o;
    o.hostExecutor = true;
    o.scalarSweep = true;
    auto w = World::create(d, o);
    w->setLazyPublish(lazy);
    return w;
}

double maxDifference(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
    if (a.size() != b.size()) return INFINITY;
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(norm(a[i] - b[i])));
    return d;
}

// Largest |a_i - b_i| / |b_i| (infinite when the sizes differ).
double maxRelative(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i)
        d = std::max(d, std::fabs(double(a[i]) - b[i]) / std::fabs(double(b[i])));
    return d;
}

// The frame's metrics of a lazy World against the CPU World's. Both read the same state (the states agree
// bit for bit); what differs is where and in which order they are summed:
//   - max_speed: a max of the same float speeds, order-free: equal.
//   - com, kinetic_energy: double sums of the same float products, ~n ulps apart: 1e-12 relative.
//   - min_volume_ratio: det F in float from the same floats, in another translation unit whose contractions
//     may differ (a few float ulps of J ~ 1): 1e-5.
//   - total_energy: double sums of double terms (the CPU's elastic term in SIMD lanes, the device's per tet),
//     relative to the size of its largest parts, the kinetic and gravitational energies (m |v|^2, m |g| |x|):
//     1e-9.
void expectSameMetrics(const FrameMetrics& cpu, const FrameMetrics& dev, double scale, int frame) {
    SCOPED_TRACE("frame " + std::to_string(frame));
    EXPECT_EQ(cpu.maxSpeed, dev.maxSpeed);
    EXPECT_LE(norm(cpu.com - dev.com), 1e-12 * (1 + norm(cpu.com)));
    EXPECT_LE(std::fabs(cpu.kineticEnergy - dev.kineticEnergy), 1e-12 * (1e-30 + cpu.kineticEnergy));
    EXPECT_LE(std::fabs(cpu.minVolumeRatio - dev.minVolumeRatio), 1e-5);
    EXPECT_LE(std::fabs(cpu.totalEnergy - dev.totalEnergy), 1e-9 * scale) << cpu.totalEnergy;
    EXPECT_EQ(cpu.iterations, dev.iterations);
    EXPECT_LE(std::fabs(cpu.residualFinal - dev.residualFinal), 1e-9 * cpu.residualFinal);
}

// Up to `frames` steps: "FRAME: message" of the NonFiniteError that stops the run, or "(no divergence)".
std::string stepUntilStopped(World& w, int frames) {
    for (int f = 0; f < frames; ++f) {
        try {
            w.step();
        } catch (const NonFiniteError& e) {
            return std::to_string(w.frame()) + ": " + e.what();
        }
    }
    return "(no divergence)";
}

// The scene's particle masses, as its SoftModel has them.
std::vector<float> particleMasses(const SceneDesc& d) {
    SoftSolver s;
    s.build(d);
    return s.model().mass;
}

// Sum over the particles of m (|v|^2 + |g| |x|) + 1: the size of the energy's largest parts
// (expectSameMetrics).
double energyScale(const World& w, const std::vector<float>& mass, const Vec3& gravity) {
    double e = 1;
    for (size_t i = 0; i < w.positions().size(); ++i)
        e += double(mass[i]) * (squaredNorm(Vec3d(w.velocities()[i])) +
                                norm(Vec3d(gravity)) * (1 + norm(Vec3d(w.positions()[i]))));
    return e;
}

}  // namespace

// Scenes of every element the measures reduce: tets on the ground collider (cube_drop), a fixed cantilever
// (beam_sag), a sheet with membranes and hinges (cloth_hanging, float: the device's cloth precision), a
// TetGen mesh (mesh_drop), soft-soft contacts (soft_pile), cloth self-contact (cloth_fold), and a soft body
// under moving boxes (soft_vs_rigid: the coupled step, whose rows against the bodies are gone when the World
// measures, on both paths), each in the precisions the device runs it in. The lazy World is read every third
// frame: its positions and velocities are then the CPU World's bit for bit, and the frames after a read go
// on as those without one (it reads the state, never reseeds it).
TEST(GpuLazyPublish, LazyWorldIsTheCpuWorldWheneverRead) {
    ThreadLimit oneThread(1);
    struct Case {
        const char* name;
        Precision prec;
    };
    for (const Case c : {Case{"cube_drop", Precision::Double}, Case{"cube_drop", Precision::Float},
                         Case{"beam_sag", Precision::Double}, Case{"beam_sag", Precision::Float},
                         Case{"cloth_hanging", Precision::Float}, Case{"mesh_drop", Precision::Float},
                         Case{"soft_pile", Precision::Float}, Case{"cloth_fold", Precision::Float},
                         Case{"soft_vs_rigid", Precision::Double}, Case{"soft_vs_rigid", Precision::Float}}) {
        SCOPED_TRACE(std::string(c.name) + (c.prec == Precision::Double ? " double" : " float"));
        SceneDesc d = scene(c.name);
        d.solver.precision = c.prec;
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        const std::vector<float> mass = particleMasses(d);
        ASSERT_EQ(dev->backendLine().rfind("CUDA backend on host executor", 0), 0u) << dev->backendLine();
        for (int f = 1; f <= 12; ++f) {
            cpu->step();
            dev->step();
            expectSameMetrics(cpu->history().back(), dev->history().back(),
                              energyScale(*cpu, mass, d.gravity), f);
            if (f % 3 != 0) continue;
            EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0) << "frame " << f;
            EXPECT_EQ(maxDifference(cpu->velocities(), dev->velocities()), 0.0) << "frame " << f;
        }
    }
}

// Lazy steps leave the model as it was until a reader asks: the stepper's step(publish = false) writes
// nothing to the model, publishPending brings exactly what a publishing step would have written (the
// state, the residual field) once, and the measures are read only while wanted. Fails when the World's
// readers forget to fetch (the test above), or when the lazy step publishes after all (here).
TEST(GpuLazyPublish, UnpublishedStepsReachTheModelOnlyThroughPublishPending) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("cube_drop");
    SoftSolver eager, lazy;
    eager.build(d);
    lazy.build(d);
    auto a = makeHostPipelineStepper(d.solver.precision);
    auto b = makeHostPipelineStepper(d.solver.precision);
    a->setResidualField(true);
    b->setResidualField(true);
    a->configure(eager);
    b->configure(lazy);
    const float h = float(d.dt);
    FrameSums sums;
    a->step(eager, h, d.gravity, true);
    b->step(lazy, h, d.gravity, true);
    EXPECT_FALSE(b->frameMeasures(sums));  // a step without them wanted
    b->setFrameMeasures(true);
    const std::vector<Vec3> start = lazy.model().x;
    const std::vector<float> startField = lazy.vertexResidual();
    for (int k = 0; k < 3; ++k) {
        a->step(eager, h, d.gravity, true);
        b->step(lazy, h, d.gravity, false);
    }
    EXPECT_EQ(maxDifference(lazy.model().x, start), 0.0);
    EXPECT_EQ(lazy.vertexResidual(), startField);
    ASSERT_TRUE(b->frameMeasures(sums));
    EXPECT_NE(maxDifference(eager.model().x, start), 0.0);  // the cube fell
    std::vector<float> pendingField;  // the heat map's field alone, the state left pending
    ASSERT_TRUE(b->pendingResidualField(pendingField));
    EXPECT_EQ(pendingField, eager.vertexResidual());
    EXPECT_FALSE(a->pendingResidualField(pendingField));  // nothing pending
    // The other heat maps, computed on the device from the pending state: the host's fields of the eager
    // solver's published state (maxRelative: the same arithmetic in another translation unit).
    std::vector<float> ratio, maxRatio, sumRatio, ref, refMax, refSum;
    ASSERT_TRUE(b->pendingVolumeRatio(ratio));
    volumeRatioField(eager.model(), ref);
    EXPECT_LE(maxRelative(ratio, ref), 1e-6);
    ASSERT_TRUE(b->pendingDominance(h, false, maxRatio));
    ASSERT_TRUE(b->pendingDominance(h, true, sumRatio));
    diagonalDominanceField(eager.model(), h, refMax, &refSum);
    EXPECT_LE(maxRelative(maxRatio, refMax), 1e-6);
    EXPECT_LE(maxRelative(sumRatio, refSum), 1e-6);
    EXPECT_FALSE(a->pendingVolumeRatio(ratio));
    EXPECT_FALSE(a->pendingDominance(h, false, maxRatio));
    EXPECT_EQ(maxDifference(lazy.model().x, start), 0.0);
    EXPECT_TRUE(b->publishPending(lazy));
    EXPECT_FALSE(b->publishPending(lazy));  // once
    EXPECT_FALSE(b->pendingResidualField(pendingField));
    EXPECT_FALSE(a->publishPending(eager));  // nothing pending after a publishing step
    EXPECT_EQ(maxDifference(lazy.model().x, eager.model().x), 0.0);
    EXPECT_EQ(maxDifference(lazy.model().v, eager.model().v), 0.0);
    EXPECT_EQ(lazy.vertexResidual(), eager.vertexResidual());
    // The measures are of the last step's state: the center of mass of the published positions.
    double mass = 0;
    Vec3d mx(0, 0, 0);
    for (size_t i = 0; i < eager.model().x.size(); ++i) {
        mass += double(eager.model().mass[i]);
        mx += Vec3d(eager.model().x[i]) * double(eager.model().mass[i]);
    }
    EXPECT_LE(std::fabs(sums.mass - mass), 1e-12 * mass);
    EXPECT_LE(norm(Vec3d(sums.mx, sums.my, sums.mz) - mx), 1e-12 * norm(mx));
    EXPECT_EQ(sums.firstBad, FrameSums::kNone);
    b->setFrameMeasures(false);
    b->step(lazy, h, d.gravity, true);
    EXPECT_FALSE(b->frameMeasures(sums));
}

// What the app and the CLI do between lazy frames, on both Worlds alike: the picking spring, an edit of the
// settings (the stepper is remade from the device's state, which must be fetched first), the timeline's save
// and restore (the saved frame must be the device's, not the model's older one; saved right after the edit,
// before the remade stepper has stepped, it is the state the edit handed the solver: in double the rerun
// needs its digits below float), a heat-map field asked for mid-run. The lazy World is read only on frames
// that no event follows (a read fetches the state, which would hide a missing fetch in the event), and stays
// the CPU World bit for bit through all of it. Fails without the fetch in setSolver or in saveState, or
// without saveState's fallback to the solver's state.
TEST(GpuLazyPublish, EditsSavesAndRestoresBetweenLazyFrames) {
    ThreadLimit oneThread(1);
    for (Precision prec : {Precision::Double, Precision::Float}) {
        SCOPED_TRACE(prec == Precision::Double ? "double" : "float");
        SceneDesc d = scene("cube_drop");
        d.solver.precision = prec;
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        // A: saved right after the settings edit (after 5 frames); B: after 8 lazy frames.
        std::shared_ptr<const WorldState> cpuA, devA, cpuB, devB;
        std::vector<Vec3> after8, after11;
        const std::vector<int> events = {4, 6, 9, 11, 13, 17};
        for (int f = 1; f <= 20; ++f) {
            if (f == 4) {
                cpu->setDrag(5, Vec3(0.5f, 1.5f, 0.5f), 1e4f);
                dev->setDrag(5, Vec3(0.5f, 1.5f, 0.5f), 1e4f);
            }
            if (f == 6) {
                SolverDesc s = cpu->desc().solver;
                s.iterations += 3;
                cpu->setSolver(s);
                s.backend = Backend::Cuda;
                dev->setSolver(s);
                cpuA = cpu->saveState();
                devA = dev->saveState();
            }
            if (f == 9) {
                cpuB = cpu->saveState();
                devB = dev->saveState();
            }
            if (f == 11) dev->setWantedField(ScalarField::Residual);
            if (f == 13) {  // back to B: frames 13..15 rerun 9..11
                ASSERT_TRUE(cpu->restoreState(*cpuB));
                ASSERT_TRUE(dev->restoreState(*devB));
            }
            if (f == 17) {  // back to A: frames 17..19 rerun 6..8
                ASSERT_TRUE(cpu->restoreState(*cpuA));
                ASSERT_TRUE(dev->restoreState(*devA));
            }
            cpu->step();
            dev->step();
            if (f == 8) after8 = cpu->positions();
            if (f == 11) after11 = cpu->positions();
            if (f == 15) {
                EXPECT_EQ(maxDifference(cpu->positions(), after11), 0.0);
            }
            if (f == 19) {
                EXPECT_EQ(maxDifference(cpu->positions(), after8), 0.0);
            }
            if (std::find(events.begin(), events.end(), f + 1) != events.end()) continue;
            EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0) << "frame " << f;
            EXPECT_EQ(maxDifference(cpu->velocities(), dev->velocities()), 0.0) << "frame " << f;
            if (f >= 11) {
                std::vector<float> a, b;
                cpu->scalarField(ScalarField::Residual, a);
                dev->scalarField(ScalarField::Residual, b);
                ASSERT_EQ(a.size(), b.size()) << "frame " << f;
                for (size_t i = 0; i < a.size(); ++i)
                    EXPECT_LE(std::fabs(a[i] - b[i]), 1e-5f * (1 + a[i])) << "frame " << f << " vertex " << i;
            }
        }
    }
}

// The lazy World's timeline saves stay on the device (WorldStateData::device: no host arrays), and come back
// wherever they are restored: on the device path (tested above), after a switch to the CPU backend (their
// host form), and in another World of the scene, lazy on the device or on the CPU backend (what the app does
// when an edit rebuilds the World: SimRunner::install carries the state over). Each run goes on as the CPU
// World restored from its own save, bit for bit, with the coarse correction too (whose basis is evaluated at
// the model's positions in the first step: the restore brings them up to date).
TEST(GpuLazyPublish, DeviceSavesRestoreOnEveryPath) {
    ThreadLimit oneThread(1);
    for (const char* name : {"cube_drop", "coarse_bar"})
        for (Precision prec : {Precision::Double, Precision::Float}) {
            SCOPED_TRACE(std::string(name) + (prec == Precision::Double ? " double" : " float"));
            SceneDesc d = scene(name);
            d.solver.precision = prec;
            auto cpu = cpuWorld(d);
            auto dev = deviceWorld(d, true);
            for (int f = 0; f < 5; ++f) {
                cpu->step();
                dev->step();
            }
            const auto cpuSaved = cpu->saveState();
            const auto devSaved = dev->saveState();
            const auto* data = dynamic_cast<const WorldStateData*>(devSaved.get());
            ASSERT_NE(data, nullptr);
            EXPECT_NE(data->device, nullptr);
            EXPECT_TRUE(data->soft.x.empty());
            EXPECT_TRUE(data->carried.f.x.empty() && data->carried.d.x.empty());
            EXPECT_GE(data->bytes(),
                      size_t(5) * dev->positions().size() * 3 * (prec == Precision::Double ? 8 : 4));
            for (int f = 0; f < 3; ++f) {  // then on, so that a restore has something to undo
                cpu->step();
                dev->step();
            }
            // Where the save goes: the same World switched to the CPU backend, a fresh lazy device World, a
            // fresh CPU World.
            SolverDesc onCpu = d.solver;
            onCpu.backend = Backend::Cpu;
            dev->setSolver(onCpu);
            std::vector<std::unique_ptr<World>> targets;
            targets.push_back(std::move(dev));
            targets.push_back(deviceWorld(d, true));
            targets.push_back(cpuWorld(d));
            ASSERT_TRUE(cpu->restoreState(*cpuSaved));
            for (auto& t : targets) ASSERT_TRUE(t->restoreState(*devSaved));
            // Restored on the device, the restored frame is the device's current state (the window's interop
            // draws it before any step); on the CPU backend there is none.
            EXPECT_TRUE(targets[1]->deviceParticles().current);
            EXPECT_EQ(targets[0]->deviceParticles().x, nullptr);
            // Read at once (cube_drop; coarse_bar steps first, so that no read hides a model left behind):
            // the restored frame, and a heat map asked for before any step (a restored stepper has no step's
            // scalars to compute one from: an empty map, never NaN).
            for (size_t k = 0; k < targets.size() && std::string(name) == "cube_drop"; ++k) {
                EXPECT_EQ(maxDifference(cpu->positions(), targets[k]->positions()), 0.0) << "target " << k;
                targets[k]->setWantedField(ScalarField::Residual);
                std::vector<float> field;
                targets[k]->scalarField(ScalarField::Residual, field);
                for (float r : field) ASSERT_TRUE(std::isfinite(r)) << "target " << k;
            }
            for (int f = 0; f < 4; ++f) {
                cpu->step();
                for (size_t k = 0; k < targets.size(); ++k) {
                    targets[k]->step();
                    EXPECT_EQ(maxDifference(cpu->positions(), targets[k]->positions()), 0.0)
                        << "target " << k << ", frame " << f;
                    EXPECT_EQ(maxDifference(cpu->velocities(), targets[k]->velocities()), 0.0)
                        << "target " << k << ", frame " << f;
                }
            }
        }
}

// The device's finite check (FrameSums::firstBad) is guardFrame's: the lowest particle whose published
// position or velocity is not finite. A NaN written into the model's positions (the stepper reseeds from an
// edit) spreads through the step; the measures name the first bad particle the host finds in the published
// state, and a clean step names none.
TEST(GpuLazyPublish, TheDevicesFiniteCheckIsTheHosts) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("cube_drop");
    SoftSolver solver;
    solver.build(d);
    auto st = makeHostPipelineStepper(d.solver.precision);
    st->setFrameMeasures(true);
    st->configure(solver);
    FrameSums sums;
    st->step(solver, float(d.dt), d.gravity, false);
    ASSERT_TRUE(st->frameMeasures(sums));
    EXPECT_EQ(sums.firstBad, FrameSums::kNone);
    st->publishPending(solver);
    const int bad = 40;
    solver.model().x[size_t(bad)].y = NAN;
    st->step(solver, float(d.dt), d.gravity, false);
    ASSERT_TRUE(st->frameMeasures(sums));
    st->publishPending(solver);
    const SoftModel& m = solver.model();
    int first = -1;
    for (int i = 0; i < m.numVertices() && first < 0; ++i)
        if (!isFinite(m.x[size_t(i)]) || !isFinite(m.v[size_t(i)])) first = i;
    ASSERT_GE(first, 0) << "the NaN did not survive the step (pick another way to make one)";
    EXPECT_LE(first, bad);
    EXPECT_EQ(sums.firstBad, double(first));
}

// The World's side of the finite check: a NaN put into the particles (through a saved state, the one way in
// from outside) stops the lazy World at the frame and with the message of the eager one. The device's
// measures flag the bad particle, the World brings the step's state to the host and guardFrame names the
// first bad particle of that state; without the fetch it would read the restored arrays, where the NaN has
// not spread yet.
TEST(GpuLazyPublish, ANonFiniteParticleStopsTheLazyWorldAsTheEagerOne) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("cube_drop");
    auto run = [&](bool lazy) {
        auto w = deviceWorld(d, lazy);
        w->step();
        w->step();
        const auto saved = std::dynamic_pointer_cast<const WorldStateData>(w->saveState());
        auto bad = std::make_shared<WorldStateData>(*saved);
        if (bad->device) {  // the lazy World saved on the device: its host form
            hostForm(*saved, *bad);
            bad->device.reset();
        }
        bad->soft.x[400].y = NAN;
        bad->carried.f = {}, bad->carried.d = {};  // the device then seeds from the arrays
        EXPECT_TRUE(w->restoreState(*bad));
        return stepUntilStopped(*w, 4);
    };
    const std::string eager = run(false), lazy = run(true);
    EXPECT_NE(eager.find("particle"), std::string::npos) << eager;
    EXPECT_EQ(lazy, eager);
    std::printf("  %s\n", eager.substr(0, 160).c_str());
}

// Runs that diverge stop at the same frame with the same message lazily as eagerly (the solver keeps the
// particles finite here; the metric is named).
TEST(GpuLazyPublish, ADivergingLazyRunStopsAsTheEagerRun) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("beam_sag", {"soft_bodies.0.material.youngs=1e25", "solver.precision=float"});
    auto run = [&](bool lazy) { return stepUntilStopped(*deviceWorld(d, lazy), 8); };
    const std::string eager = run(false), lazy = run(true);
    EXPECT_NE(eager.find("not finite"), std::string::npos) << eager;
    EXPECT_EQ(lazy, eager);
}

// The boxes of the bodies' particles (World::surfaceBounds, which the window's shadows and marker sizes read
// instead of the positions): from the lazy World's device measures, before anything fetches its state, they
// must be the CPU World's loop over its positions bit for bit (min and max of the same floats), and that loop
// the test's own over each body's particles, and reading them brings nothing to the host (stateFetches).
// Soft bodies, cloth with a cube, two cubes in double, and the pile stacked three times (81 bodies: the World
// boxed at most 64 on the device until the box tree, gpu/bounds_plan.h, and fetched the state beyond).
TEST(GpuLazyPublish, BodyBoxesFromTheDeviceAreTheHosts) {
    ThreadLimit oneThread(1);
    struct Case {
        const char* name;
        Precision prec;
        int layers;
    };
    for (const Case c :
         {Case{"soft_pile", Precision::Float, 1}, Case{"cloth_cube", Precision::Float, 1},
          Case{"damping_comparison", Precision::Double, 1}, Case{"soft_pile", Precision::Float, 3}}) {
        SCOPED_TRACE(std::string(c.name) + " x" + std::to_string(c.layers));
        SceneDesc d = scene(c.name);
        d.solver.precision = c.prec;
        const size_t one = d.softBodies.size();
        for (int layer = 1; layer < c.layers; ++layer)
            for (size_t k = 0; k < one; ++k) {
                SoftBodyDesc b = d.softBodies[k];
                b.min.y += 0.3f * float(layer);
                b.max.y += 0.3f * float(layer);
                b.key = "soft_bodies[" + std::to_string(d.softBodies.size()) + "]";
                d.softBodies.push_back(b);
            }
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        SoftSolver built;
        built.build(d);
        const std::vector<int>& body = built.model().bodyOfVertex;
        ASSERT_GE(cpu->surfaces().size(), 2u);
        for (int f = 1; f <= 8; ++f) {
            cpu->step();
            dev->step();
            const size_t fetches = dev->stateFetches();
            const std::vector<Box3> fromDevice = dev->surfaceBounds(), fromHost = cpu->surfaceBounds();
            EXPECT_EQ(dev->stateFetches(), fetches) << "frame " << f << ": the boxes fetched the state";
            // A reader of the positions brings the pending state once (and counts it); the next reads find
            // it there.
            (void)dev->positions();
            EXPECT_EQ(dev->stateFetches(), fetches + 1) << "frame " << f;
            (void)dev->positions();
            EXPECT_EQ(dev->stateFetches(), fetches + 1) << "frame " << f;
            std::vector<Box3> own(cpu->surfaces().size(), Box3{Vec3(3.4e38f), Vec3(-3.4e38f)});
            const auto& x = cpu->positions();
            for (size_t i = 0; i < x.size(); ++i) {
                Box3& b = own[size_t(body[i])];
                b.min = {std::min(b.min.x, x[i].x), std::min(b.min.y, x[i].y), std::min(b.min.z, x[i].z)};
                b.max = {std::max(b.max.x, x[i].x), std::max(b.max.y, x[i].y), std::max(b.max.z, x[i].z)};
            }
            ASSERT_EQ(fromDevice.size(), own.size());
            ASSERT_EQ(fromHost.size(), own.size());
            for (size_t k = 0; k < own.size(); ++k) {
                SCOPED_TRACE("frame " + std::to_string(f) + ", body " + std::to_string(k));
                EXPECT_EQ(maxDifference({fromDevice[k].min, fromDevice[k].max}, {own[k].min, own[k].max}),
                          0.0);
                EXPECT_EQ(maxDifference({fromHost[k].min, fromHost[k].max}, {own[k].min, own[k].max}), 0.0);
            }
        }
    }
}

// The residual heat map of a lazy World (World::scalarField reads the pending field alone) is the CPU World's
// field bit for bit on every frame, read before anything else, and the run stays the CPU's.
TEST(GpuLazyPublish, TheResidualHeatMapOfALazyWorldIsTheCpuWorlds) {
    ThreadLimit oneThread(1);
    for (Precision prec : {Precision::Double, Precision::Float}) {
        SCOPED_TRACE(prec == Precision::Double ? "double" : "float");
        SceneDesc d = scene("cube_drop");
        d.solver.precision = prec;
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        cpu->setWantedField(ScalarField::Residual);
        dev->setWantedField(ScalarField::Residual);
        std::vector<float> a, b;
        for (int f = 1; f <= 6; ++f) {
            cpu->step();
            dev->step();
            dev->scalarField(ScalarField::Residual, b);
            cpu->scalarField(ScalarField::Residual, a);
            ASSERT_EQ(a.size(), cpu->positions().size());
            EXPECT_EQ(a, b) << "frame " << f;
        }
        EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0);
    }
}

// The watched particles' positions (World::setWatchedParticles: the app's picked vertex, a dragged particle)
// of a lazy World, gathered on the device after the pins, are the CPU World's bit for bit every frame, read
// before anything fetches, through a change of the list mid-run (from the next step) and a settings edit
// (which remakes the stepper with the list). A bar hanging from pins, so that both parts are gathered.
TEST(GpuLazyPublish, WatchedParticlesFromTheDeviceAreTheHosts) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("hanging_bar");
    auto cpu = cpuWorld(d);
    auto dev = deviceWorld(d, true);
    const int n = int(cpu->numParticles());
    std::vector<int> list = {n - 1, 7, n - 1, n};
    for (int f = 1; f <= 9; ++f) {
        if (f == 4) list = {1, n / 2};
        if (f == 7) {
            SolverDesc s = d.solver;
            s.iterations += 1;
            cpu->setSolver(s);
            dev->setSolver(s);
        }
        cpu->setWatchedParticles(list);
        dev->setWatchedParticles(list);
        cpu->step();
        dev->step();
        const std::vector<WatchedParticle> a = dev->watchedPositions();
        const std::vector<Vec3> pins = dev->pinPositions();
        ASSERT_EQ(a.size(), 2u) << f;
        for (const WatchedParticle& p : a) {
            const Vec3& q = cpu->positions()[size_t(p.particle)];
            EXPECT_EQ(maxDifference({p.x}, {q}), 0.0) << "frame " << f << ", particle " << p.particle;
        }
        EXPECT_EQ(a[0].particle, list[0]);
        EXPECT_EQ(maxDifference(pins, cpu->pinPositions()), 0.0) << f;
    }
    EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0);
}

// The volume-ratio and dominance heat maps of a lazy World (World::scalarField computes them on the device
// from the pending state) are the CPU World's on every frame, read before anything else, on a bar of two
// materials sagging (contrast_bar: the dominance dips at the interface) in both precisions. The same float
// arithmetic in another translation unit (its contractions may differ): 1e-6 relative, a few ulps of the
// norms.
TEST(GpuLazyPublish, TheOtherHeatMapsOfALazyWorldAreTheCpuWorlds) {
    ThreadLimit oneThread(1);
    for (Precision prec : {Precision::Double, Precision::Float}) {
        SCOPED_TRACE(prec == Precision::Double ? "double" : "float");
        SceneDesc d = scene("contrast_bar");
        d.solver.precision = prec;
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        const ScalarField fields[3] = {ScalarField::VolumeRatio, ScalarField::DiagonalDominance,
                                       ScalarField::DominanceSum};
        std::vector<float> a, b;
        const std::vector<float> ones(cpu->positions().size(), 1.f);
        double squeezed = 0;
        for (int f = 1; f <= 6; ++f) {
            cpu->step();
            dev->step();
            const ScalarField field = fields[f % 3];
            cpu->setWantedField(field);
            dev->setWantedField(field);
            dev->scalarField(field, b);
            cpu->scalarField(field, a);
            ASSERT_EQ(a.size(), cpu->positions().size());
            EXPECT_LE(maxRelative(b, a), 1e-6) << "frame " << f << ", field " << int(field);
            if (field == ScalarField::VolumeRatio) squeezed = std::max(squeezed, maxRelative(a, ones));
        }
        std::printf("largest |J - 1| of the volume-ratio frames: %.2e\n", squeezed);
        EXPECT_GT(squeezed, 1e-4);  // not a field of ones: the bar sags
        EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0);
    }
}

// The pin markers' positions (World::pinPositions) of a lazy World, gathered on the device, are the CPU
// World's bit for bit every frame, read before anything fetches: a beam twisted by a rotating fixed box
// (kinematic pins) and a bar hanging from static ones.
TEST(GpuLazyPublish, PinPositionsFromTheDeviceAreTheHosts) {
    ThreadLimit oneThread(1);
    for (const char* name : {"beam_twist", "hanging_bar"}) {
        SCOPED_TRACE(name);
        SceneDesc d = scene(name);
        d.solver.precision = Precision::Float;
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        for (int f = 1; f <= 6; ++f) {
            cpu->step();
            dev->step();
            const std::vector<Vec3> a = dev->pinPositions(), b = cpu->pinPositions();
            ASSERT_GT(b.size(), 0u);
            EXPECT_EQ(maxDifference(a, b), 0.0) << "frame " << f;
        }
        EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0);
    }
}

// The stepper's boxes themselves (the World above would also pass if it never used them): each range's box
// of the last step's published positions, an empty range empty, none before the measures are wanted, and a
// range that ends before it begins refused.
TEST(GpuLazyPublish, TheStepperBoxesEachRangeOfTheLastStep) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("soft_pile");
    SoftSolver solver;
    solver.build(d);
    const int n = solver.model().numVertices();
    auto st = makeHostPipelineStepper(Precision::Float);
    const std::vector<std::array<int, 2>> ranges = {{0, n / 3}, {n / 3, n / 3}, {n / 4, n}, {n - 1, n}};
    st->setFrameBounds(ranges);
    st->configure(solver);
    std::vector<FrameBounds> boxes;
    st->step(solver, float(d.dt), d.gravity, false);
    EXPECT_FALSE(st->frameBounds(boxes));  // measures not wanted
    st->setFrameMeasures(true);
    for (int k = 0; k < 3; ++k) st->step(solver, float(d.dt), d.gravity, false);
    ASSERT_TRUE(st->frameBounds(boxes));
    ASSERT_EQ(boxes.size(), ranges.size());
    ASSERT_TRUE(st->publishPending(solver));
    const auto& x = solver.model().x;
    for (size_t k = 0; k < ranges.size(); ++k) {
        SCOPED_TRACE("range " + std::to_string(k));
        FrameBounds own;
        for (int i = ranges[k][0]; i < ranges[k][1]; ++i) own = own + FrameBounds::of(x[size_t(i)]);
        EXPECT_EQ(boxes[k].empty(), ranges[k][0] == ranges[k][1]);
        for (int a = 0; a < 3; ++a) {
            EXPECT_EQ(boxes[k].lo[a], own.lo[a]);
            EXPECT_EQ(boxes[k].hi[a], own.hi[a]);
        }
    }
    EXPECT_FALSE(boxes[0].empty());
    EXPECT_GT(boxes[2].hi[1] - boxes[2].lo[1], 0.1f);  // the pile's bodies span heights
    EXPECT_THROW(st->setFrameBounds({{5, 4}}), std::invalid_argument);
}

// Many ranges (the box tree's launches, gpu/bounds_plan.h: a level's items in any order, as a GPU runs them):
// 150 ranges of all lengths, each box the loop's over the published positions, in every launch order.
TEST(GpuLazyPublish, TheStepperBoxesManyRangesInAnyLaunchOrder) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("soft_pile");
    for (const LaunchOrder order : {LaunchOrder::Forward, LaunchOrder::Reversed, LaunchOrder::Shuffled}) {
        ScopedLaunchOrder launches(order);
        SoftSolver solver;
        solver.build(d);
        const int n = solver.model().numVertices();
        std::vector<std::array<int, 2>> ranges = {{0, n}, {7, 7}};
        for (int k = 0; k < 148; ++k)
            ranges.push_back({(k * 37) % n, std::min(n, (k * 37) % n + k * k % 1500)});
        auto st = makeHostPipelineStepper(Precision::Float);
        st->setFrameBounds(ranges);
        st->setFrameMeasures(true);
        st->configure(solver);
        for (int k = 0; k < 3; ++k) st->step(solver, float(d.dt), d.gravity, false);
        std::vector<FrameBounds> boxes;
        ASSERT_TRUE(st->frameBounds(boxes));
        ASSERT_EQ(boxes.size(), ranges.size());
        ASSERT_TRUE(st->publishPending(solver));
        const auto& x = solver.model().x;
        for (size_t k = 0; k < ranges.size(); ++k) {
            FrameBounds own;
            for (int i = ranges[k][0]; i < ranges[k][1]; ++i) own = own + FrameBounds::of(x[size_t(i)]);
            EXPECT_EQ(boxes[k].empty(), ranges[k][0] == ranges[k][1]) << "range " << k;
            for (int a = 0; a < 3; ++a) {
                EXPECT_EQ(boxes[k].lo[a], own.lo[a]) << "range " << k;
                EXPECT_EQ(boxes[k].hi[a], own.hi[a]) << "range " << k;
            }
        }
    }
}

// The stepper's gather (World::pinPositions' source): the listed particles' published positions of the last
// measured step, in the order given; an index outside the model refused.
TEST(GpuLazyPublish, TheStepperGathersTheListedParticles) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("soft_pile");
    SoftSolver solver;
    solver.build(d);
    const int n = solver.model().numVertices();
    auto st = makeHostPipelineStepper(Precision::Double);
    const std::vector<int> list = {n - 1, 0, n / 2, 0};
    st->setGathered(list);
    st->setFrameMeasures(true);
    st->configure(solver);
    for (int k = 0; k < 3; ++k) st->step(solver, float(d.dt), d.gravity, false);
    std::vector<Vec3> got;
    ASSERT_TRUE(st->gathered(got));
    ASSERT_TRUE(st->publishPending(solver));
    std::vector<Vec3> want;
    for (int i : list) want.push_back(solver.model().x[size_t(i)]);
    EXPECT_EQ(maxDifference(got, want), 0.0);
    EXPECT_THROW(st->setGathered({-1}), std::invalid_argument);
    st->setGathered({n});
    EXPECT_THROW(st->step(solver, float(d.dt), d.gravity, false), std::invalid_argument);
}

namespace {

// A ray through the centroid of surface triangle `tri` of x, from 2 m away along a fixed slant (it may hit
// a nearer triangle first: any hit is fine, the two Worlds must name the same one).
SurfaceRay rayThrough(const World& w, const std::vector<Vec3>& x, int tri) {
    std::vector<std::array<int, 3>> all;
    for (const SurfaceView& s : w.surfaces()) all.insert(all.end(), s.tris.begin(), s.tris.end());
    const auto& t = all[size_t(tri) % all.size()];
    const Vec3 c = (x[size_t(t[0])] + x[size_t(t[1])] + x[size_t(t[2])]) * (1.f / 3.f);
    const Vec3 origin = c + 2.f * normalized(Vec3(0.3f, 1.f, 0.4f));
    return {origin, normalized(c - origin)};
}

void expectSameHit(const SurfaceHit& a, const SurfaceHit& b, int frame) {
    EXPECT_EQ(a.t, b.t) << "frame " << frame;
    EXPECT_EQ(a.triangle, b.triangle) << "frame " << frame;
    EXPECT_EQ(a.particle, b.particle) << "frame " << frame;
}

}  // namespace

// The hover's ray (World::setSurfaceRay) cast by a lazy World's device step with its measures: the hit it
// answers for that ray is the CPU World's host cast of the same frame bit for bit (the same float positions,
// the same function, an order-free nearest), in every launch order, and reading it fetches no state; another
// ray is cast over the fetched positions; a ray set to none is no longer cast. soft_pile: several bodies, so
// the rays cross more than one surface.
TEST(GpuLazyPublish, TheHoverRayIsCastWhereTheStateIs) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("soft_pile");
    for (LaunchOrder order : {LaunchOrder::Forward, LaunchOrder::Reversed, LaunchOrder::Shuffled}) {
        ScopedLaunchOrder scoped(order);
        SCOPED_TRACE("launch order " + std::to_string(int(order)));
        auto cpu = cpuWorld(d);
        auto dev = deviceWorld(d, true);
        int hits = 0;
        for (int f = 1; f <= 8; ++f) {
            const SurfaceRay ray = rayThrough(*cpu, cpu->positions(), 97 * f);
            cpu->setSurfaceRay(ray);
            dev->setSurfaceRay(ray);
            cpu->step();
            dev->step();
            const size_t fetches = dev->stateFetches();
            const auto cast = dev->castSurfaceHit();
            ASSERT_TRUE(cast.has_value()) << f;
            EXPECT_TRUE(cast->ray == ray);
            const SurfaceHit got = dev->surfaceHit(ray);
            EXPECT_EQ(dev->stateFetches(), fetches) << "frame " << f;
            EXPECT_FALSE(cpu->castSurfaceHit().has_value());  // the CPU World casts when asked
            expectSameHit(got, cpu->surfaceHit(ray), f);
            hits += got.hit() ? 1 : 0;
            if (f == 5) {  // another ray (one that misses: straight up from above everything) reads the state
                const SurfaceRay up{Vec3(0, 100, 0), Vec3(0, 1, 0)};
                EXPECT_FALSE(dev->surfaceHit(up).hit());
                EXPECT_EQ(dev->stateFetches(), fetches + 1);
                const SurfaceRay other = rayThrough(*cpu, cpu->positions(), 5);
                expectSameHit(dev->surfaceHit(other), cpu->surfaceHit(other), f);
            }
        }
        EXPECT_EQ(hits, 8);
        dev->setSurfaceRay(std::nullopt);
        dev->step();
        EXPECT_FALSE(dev->castSurfaceHit().has_value());
        cpu->step();
        EXPECT_EQ(maxDifference(cpu->positions(), dev->positions()), 0.0);
    }
    // An eager World publishes every step: nothing is cast on the device, the host casts over the published
    // positions.
    auto eager = deviceWorld(d, false);
    const SurfaceRay ray = rayThrough(*eager, eager->positions(), 3);
    eager->setSurfaceRay(ray);
    eager->step();
    EXPECT_FALSE(eager->castSurfaceHit().has_value());
    EXPECT_TRUE(eager->surfaceHit(ray).hit());
}

// The stepper's cast: the hit of the pending state, the ray it was cast along, nothing before a ray is set
// or after it is taken away; bad triangles are refused.
TEST(GpuLazyPublish, TheStepperCastsTheRayItIsGiven) {
    ThreadLimit oneThread(1);
    const SceneDesc d = scene("hanging_bar");
    SoftSolver solver;
    solver.build(d);
    const int n = solver.model().numVertices();
    std::vector<std::array<int, 3>> tris;
    const auto world = cpuWorld(d);
    for (const SurfaceView& v : world->surfaces()) tris.insert(tris.end(), v.tris.begin(), v.tris.end());
    auto st = makeHostPipelineStepper(Precision::Float);
    st->setFrameMeasures(true);
    st->setRayTriangles(tris);
    st->configure(solver);
    st->step(solver, float(d.dt), d.gravity, false);
    SurfaceRay cast;
    SurfaceHit hit;
    EXPECT_FALSE(st->surfaceHit(cast, hit));  // no ray yet
    ASSERT_TRUE(st->publishPending(solver));
    for (int k = 0; k < 3; ++k) {
        const std::vector<Vec3>& x = solver.model().x;
        const auto& t = tris[size_t(31 * k) % tris.size()];
        const Vec3 c = (x[size_t(t[0])] + x[size_t(t[1])] + x[size_t(t[2])]) * (1.f / 3.f);
        const SurfaceRay ray{c + Vec3(0, 0, 3), Vec3(0, 0, -1)};
        st->setSurfaceRay(&ray);
        st->step(solver, float(d.dt), d.gravity, false);
        ASSERT_TRUE(st->surfaceHit(cast, hit));
        EXPECT_TRUE(cast == ray);
        ASSERT_TRUE(st->publishPending(solver));
        const SurfaceHit want = castSurfaces(world->surfaces(), x, ray);  // the triangles given, in order
        ASSERT_TRUE(want.hit());
        expectSameHit(hit, want, k);
    }
    st->setSurfaceRay(nullptr);
    st->step(solver, float(d.dt), d.gravity, false);
    EXPECT_FALSE(st->surfaceHit(cast, hit));
    EXPECT_THROW(st->setRayTriangles({{0, -1, 2}}), std::invalid_argument);
    st->setRayTriangles({{0, 1, n}});
    const SurfaceRay ray{Vec3(0, 0, 3), Vec3(0, 0, -1)};
    st->setSurfaceRay(&ray);
    EXPECT_THROW(st->step(solver, float(d.dt), d.gravity, false), std::invalid_argument);
}

// A saved frame gives its particles (WorldState::particles, which the app's snapshots read their positions
// from only when something draws them): a lazy World's save kept on the device, an eager World's on the host,
// both the CPU World's positions and velocities of that frame bit for bit, read after the Worlds went on.
TEST(GpuLazyPublish, ASaveGivesItsFramesParticlesLater) {
    ThreadLimit oneThread(1);
    for (Precision prec : {Precision::Double, Precision::Float}) {
        SCOPED_TRACE(prec == Precision::Double ? "double" : "float");
        SceneDesc d = scene("cube_drop");
        d.solver.precision = prec;
        auto cpu = cpuWorld(d);
        auto lazy = deviceWorld(d, true);
        auto eager = deviceWorld(d, false);
        for (int f = 0; f < 4; ++f) cpu->step(), lazy->step(), eager->step();
        const auto fromLazy = lazy->saveState(), fromEager = eager->saveState(), fromCpu = cpu->saveState();
        const std::vector<Vec3> x = cpu->positions(), v = cpu->velocities();
        for (int f = 0; f < 3; ++f) cpu->step(), lazy->step(), eager->step();
        ASSERT_GT(maxDifference(cpu->positions(), x), 0.0);  // the cube went on falling
        for (const auto* s : {fromLazy.get(), fromEager.get(), fromCpu.get()}) {
            ASSERT_TRUE(s->carriesParticles());
            std::vector<Vec3> sx, sv;
            s->particles(&sx, &sv);
            EXPECT_EQ(maxDifference(sx, x), 0.0);
            EXPECT_EQ(maxDifference(sv, v), 0.0);
            s->particles(&sx, nullptr);
            EXPECT_EQ(maxDifference(sx, x), 0.0);
        }
        EXPECT_NE(dynamic_cast<const WorldStateData&>(*fromLazy).device, nullptr);  // kept on the device
        EXPECT_EQ(dynamic_cast<const WorldStateData&>(*fromEager).device, nullptr);
    }
}

// On CUDA: the lazy World against the CPU World (the host executor's bits), cube_drop in double and float
// for 30 frames: positions within the parity bounds of test_gpu_cuda.cpp (tol = 1e-9 m, 5e-5 m on ~1 m
// coordinates, so velocities within tol / h), and the device-reduced metrics to those bounds' effect on them:
// the center of mass within tol, the max speed within tol / h, the kinetic energy within
// M (v_max + dv / 2) dv with dv = tol / h (sum of m |v . dv| + m |dv|^2 / 2).
TEST(GpuLazyPublish, LazyPublishOnCuda) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    ThreadLimit oneThread(1);
    for (Precision prec : {Precision::Double, Precision::Float}) {
        SceneDesc d = scene("cube_drop");
        d.solver.precision = prec;
        auto ref = cpuWorld(d);
        d.solver.backend = Backend::Cuda;
        auto dev = World::create(d);
        dev->setLazyPublish(true);
        double mass = 0;
        for (float m : particleMasses(d)) mass += double(m);
        const double tol = prec == Precision::Double ? 1e-9 : 5e-5;
        for (int f = 0; f < 30; ++f) {
            ref->step();
            dev->step();
            const FrameMetrics &a = ref->history().back(), &b = dev->history().back();
            EXPECT_LE(norm(a.com - b.com), tol) << "frame " << f;
            const double dv = tol / d.dt;
            EXPECT_LE(std::fabs(a.maxSpeed - b.maxSpeed), dv) << "frame " << f;
            EXPECT_LE(std::fabs(a.kineticEnergy - b.kineticEnergy), mass * (a.maxSpeed + dv / 2) * dv)
                << "frame " << f;
        }
        const double diff = maxDifference(ref->positions(), dev->positions());
        EXPECT_LT(diff, tol);
        std::printf("  lazy cube_drop %-6s 30 frames: particles %.3e m\n",
                    prec == Precision::Double ? "double" : "float", diff);
        // The window's readers: the body's box from the device is the box of the positions it fetches;
        // saves (from reused blocks after the first few) read on another thread while the World steps on,
        // each giving its own frame's positions.
        for (int k = 0; k < 6; ++k) {
            dev->step();
            const std::vector<Box3> box = dev->surfaceBounds();
            auto saved = dev->saveState();
            std::vector<Vec3> fromSave;
            std::thread reader([&] { saved->particles(&fromSave, nullptr); });
            dev->step();  // on the step's stream while the reader copies
            reader.join();
            std::vector<Vec3> x;
            saved->particles(&x, nullptr);
            EXPECT_EQ(maxDifference(fromSave, x), 0.0) << k;
            ASSERT_EQ(box.size(), 1u);
            Vec3 lo(3.4e38f), hi(-3.4e38f);
            for (const Vec3& p : x) {
                lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
                hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
            }
            EXPECT_EQ(maxDifference({box[0].min, box[0].max}, {lo, hi}), 0.0) << k;
            EXPECT_GT(maxDifference(x, dev->positions()), 0.0) << k;  // the World went on
        }
        // The hover's ray cast on the device against the host's cast over the same state once fetched: rays
        // through triangle centroids, far from any edge, name the same triangle and particle; t differs by
        // nvcc's contractions of the same float arithmetic (a few ulps).
        for (int k = 0; k < 4; ++k) {
            const SurfaceRay ray = rayThrough(*dev, dev->positions(), 41 * k + 1);
            dev->setSurfaceRay(ray);
            dev->step();
            const auto cast = dev->castSurfaceHit();
            ASSERT_TRUE(cast.has_value());
            ASSERT_TRUE(cast->hit.hit());
            dev->setSurfaceRay(std::nullopt);  // the host's cast below, over the fetched positions
            const SurfaceHit host = castSurfaces(dev->surfaces(), dev->positions(), ray);
            EXPECT_EQ(cast->hit.triangle, host.triangle) << k;
            EXPECT_EQ(cast->hit.particle, host.particle) << k;
            EXPECT_LE(std::fabs(cast->hit.t - host.t), 1e-5 * host.t) << k;
        }
        // The heat maps computed on the device from the pending state, against the host's of the same state
        // once fetched: the same float arithmetic, compiled by nvcc (its contractions): 1e-5 relative.
        for (ScalarField field :
             {ScalarField::VolumeRatio, ScalarField::DiagonalDominance, ScalarField::DominanceSum}) {
            dev->setWantedField(field);
            dev->step();
            std::vector<float> onDevice, onHost;
            dev->scalarField(field, onDevice);
            ASSERT_EQ(dev->positions().size(), onDevice.size());  // fetches: the next one is the host's
            dev->scalarField(field, onHost);
            EXPECT_LE(maxRelative(onDevice, onHost), 1e-5) << int(field);
        }
    }
}
