// The World's device path (solver.backend cuda) run by the host executor (WorldOptions::hostExecutor)
// against the World on the CPU: the coupled step in parts (world/coupling.h with gpu/soft_stepper.h's
// beginStep / iterate / stepPositions / bodiesChanged / endStep: the bodies' colliders and rows go up after
// each change, the particles' positions come down once a sweep) and the coarse correction as the World
// installs it. The CPU World sweeps with the scalar kernel (WorldOptions::scalarSweep) and both run on one
// thread, so particles and bodies must agree bit for bit; only the diagnostics' sums are added in another
// order. On CUDA the same comparison within the parity bounds of test_gpu_cuda.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/parallel.h"
#include "gpu_scenes.h"
#include "world/world.h"

using namespace vbd;

namespace {

// Largest position (m) and velocity (m/s) differences of the particles and of the bodies.
struct Diff {
    double particles = 0, particleVelocities = 0, bodies = 0, bodyVelocities = 0;
};

Diff difference(const World& a, const World& b) {
    Diff d;
    for (size_t i = 0; i < a.positions().size(); ++i) {
        d.particles = std::max(d.particles, double(norm(a.positions()[i] - b.positions()[i])));
        d.particleVelocities =
            std::max(d.particleVelocities, double(norm(a.velocities()[i] - b.velocities()[i])));
    }
    const auto ba = a.bodies(), bb = b.bodies();
    for (size_t i = 0; i < ba.size(); ++i) {
        d.bodies = std::max(d.bodies, double(norm(ba[i].position - bb[i].position)));
        d.bodyVelocities = std::max(d.bodyVelocities, double(norm(ba[i].velocity - bb[i].velocity)));
    }
    return d;
}

SceneDesc scene(const std::string& name, Precision prec, const std::vector<std::string>& sets = {}) {
    SceneDesc d = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + name + ".json", sets);
    d.solver.precision = prec;
    d.solver.threads = 1;
    return d;
}

// The scene on the CPU World (scalar kernel) and on the device path with the host executor (`backend`).
struct Worlds {
    std::unique_ptr<World> cpu, dev;
    Worlds(SceneDesc d, Backend backend) {
        WorldOptions cpuOptions;
        cpuOptions.scalarSweep = true;
        cpu = World::create(d, cpuOptions);
        d.solver.backend = backend;
        WorldOptions devOptions;
        devOptions.hostExecutor = true;
        devOptions.scalarSweep = true;  // its CPU solver, after a switch of backend
        dev = World::create(d, devOptions);
    }
};

// body(cpu, dev) on the scene's two Worlds, in double and in float, on one thread.
template <typename F>
void inBothPrecisions(const char* name, Backend backend, F&& body) {
    ThreadLimit oneThread(1);
    for (Precision prec : {Precision::Double, Precision::Float}) {
        SCOPED_TRACE(prec == Precision::Double ? "double" : "float");
        Worlds w(scene(name, prec), backend);
        body(*w.cpu, *w.dev);
    }
}

double rel(double x, double y) { return std::fabs(x - y) / std::max(1e-300, std::fabs(x)); }

}  // namespace

// The coupled scenes (soft bodies and cloth under dynamic boxes) on the device path: every frame's particles
// and bodies equal the CPU World's, and so do the frame's residuals (relative 1e-9: sums in another order).
// The bodies press on the particles from the first frames (the rows' lambda > 0), so the rows' uploads, the
// positions' downloads and the body contact energy on the device all enter. Fails when bodiesChanged is not
// called after the dual update (the rows' k and lambda) or when stepPositions returns a stale iterate.
TEST(GpuWorldDevice, CoupledStepOnTheHostExecutorIsTheCpuStep) {
    ThreadLimit oneThread(1);
    for (const char* name : {"soft_vs_rigid", "rigid_on_cloth"}) {
        for (Precision prec : {Precision::Double, Precision::Float}) {
            for (const std::vector<std::string>& sets :
                 {std::vector<std::string>{}, std::vector<std::string>{"solver.diagnostics=true"},
                  std::vector<std::string>{"solver.tolerance=1e-3"}}) {
                std::string what = std::string(name) + (prec == Precision::Double ? " double" : " float");
                for (const auto& s : sets) what += " " + s;
                SCOPED_TRACE(what);
                Worlds w(scene(name, prec, sets), Backend::Cuda);
                World &cpu = *w.cpu, &dev = *w.dev;
                EXPECT_NE(dev.backendLine().find("rigid bodies on the CPU (coupled to the particles"),
                          std::string::npos)
                    << dev.backendLine();
                const int frames = 12;
                for (int f = 0; f < frames; ++f) {
                    cpu.step();
                    dev.step();
                    const Diff diff = difference(cpu, dev);
                    EXPECT_EQ(diff.particles, 0.0) << "frame " << f;
                    EXPECT_EQ(diff.particleVelocities, 0.0) << "frame " << f;
                    EXPECT_EQ(diff.bodies, 0.0) << "frame " << f;
                    EXPECT_EQ(diff.bodyVelocities, 0.0) << "frame " << f;
                    const FrameMetrics &a = cpu.history().back(), &b = dev.history().back();
                    EXPECT_EQ(a.iterations, b.iterations) << "frame " << f;
                    EXPECT_LT(rel(a.residualInitial, b.residualInitial), 1e-9) << "frame " << f;
                    EXPECT_LT(rel(a.residualFinal, b.residualFinal), 1e-9) << "frame " << f;
                    EXPECT_LT(rel(a.energy, b.energy), 1e-9) << "frame " << f;
                }
                // The device stepped these frames: its state is current (the interop draws from it).
                EXPECT_TRUE(dev.deviceParticles().current);
            }
        }
    }
}

// The residual heat map wished for after some coupled frames (the app's heat map turned on while the scene
// plays or is paused): the field of the last step, which the CPU World computes at every step, bit for bit.
// The device keeps a coupled step's field even unwished (its last evaluation read the rows against the
// rigid bodies as they were at the last sweep; the coupling updates and then clears them): evaluated anew
// after the step, without the rows it was off by up to 270 times under the box (soft_vs_rigid: 57.05 against
// 0.2128 at a vertex), and with the step's final rows still 2.6 times (0.048 against 0.018).
TEST(GpuWorldDevice, AResidualFieldWishedAfterCoupledStepsIsTheCpuField) {
    ThreadLimit oneThread(1);
    for (const char* name : {"soft_vs_rigid", "rigid_on_cloth"}) {
        SCOPED_TRACE(name);
        Worlds w(scene(name, Precision::Double), Backend::Cuda);
        for (int f = 0; f < 20; ++f) {
            w.cpu->step();
            w.dev->step();
        }
        std::vector<float> a, b;
        for (World* x : {w.cpu.get(), w.dev.get()}) x->setWantedField(ScalarField::Residual);
        w.cpu->scalarField(ScalarField::Residual, a);
        w.dev->scalarField(ScalarField::Residual, b);
        ASSERT_EQ(a.size(), b.size());
        ASSERT_FALSE(a.empty());
        double worst = 0, top = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            top = std::max(top, double(a[i]));
            worst =
                std::max(worst, std::fabs(double(a[i]) - double(b[i])) / (std::fabs(double(a[i])) + 1e-6));
        }
        EXPECT_GT(top, 0.0);
        EXPECT_EQ(worst, 0.0);
    }
}

// What the app does to a running coupled scene, on both Worlds alike: a particle dragged by the picking
// spring for some frames (the device reads the spring every step), then the timeline's restore of an earlier
// frame and a second run from it. Particles and bodies stay bit for bit, and the rerun repeats the first
// run's frames exactly. In double that needs the device's state saved with the frame
// (SoftStepper::saveCarried) and the remade stepper seeded from it: seeded from the published float state
// instead, the rerun was 1.2e-7 m off the CPU World's.
TEST(GpuWorldDevice, CoupledDragAndRestoreOnTheHostExecutor) {
    inBothPrecisions("soft_vs_rigid", Backend::Cuda, [](World& cpu, World& dev) {
        std::shared_ptr<const WorldState> savedCpu, savedDev;
        std::vector<Vec3> atEight;
        Vec3 target(0.f);
        for (int f = 0; f < 12; ++f) {
            if (f == 3) {
                target = cpu.positions()[0] + Vec3(0.f, 0.3f, 0.f);
                for (World* x : {&cpu, &dev}) x->setDrag(0, target, 500.f);
            }
            if (f == 7)
                for (World* x : {&cpu, &dev}) x->setDrag(-1, Vec3(0.f), 0.f);
            if (f == 5) {
                savedCpu = cpu.saveState();
                savedDev = dev.saveState();
            }
            cpu.step();
            dev.step();
            if (f == 8) atEight = dev.positions();
            const Diff diff = difference(cpu, dev);
            EXPECT_EQ(diff.particles, 0.0) << "frame " << f;
            EXPECT_EQ(diff.bodies, 0.0) << "frame " << f;
        }
        ASSERT_TRUE(cpu.restoreState(*savedCpu));
        ASSERT_TRUE(dev.restoreState(*savedDev));
        for (World* x : {&cpu, &dev}) x->setDrag(0, target, 500.f);  // the spring is input, not state
        for (int f = 5; f < 9; ++f) {
            if (f == 7)
                for (World* x : {&cpu, &dev}) x->setDrag(-1, Vec3(0.f), 0.f);
            cpu.step();
            dev.step();
            const Diff diff = difference(cpu, dev);
            EXPECT_EQ(diff.particles, 0.0) << "rerun frame " << f;
            EXPECT_EQ(diff.bodies, 0.0) << "rerun frame " << f;
        }
        double rerun = 0;
        for (size_t i = 0; i < atEight.size(); ++i)
            rerun = std::max(rerun, double(norm(dev.positions()[i] - atEight[i])));
        EXPECT_EQ(rerun, 0.0) << "the rerun from the restored frame differs from the first run";
    });
}

// Edits of the solver settings mid-run, as the app's panel makes them, on both Worlds alike: the diagnostics
// switched off (which changes no result), two more iterations, then the device World switched to the CPU
// backend. The device path goes on from its own state through the remade stepper, and the CPU solver from the
// device's after the switch (World::setSolver hands it to the solver first), so the Worlds stay bit for bit
// in double as in float. Reseeded from the published float state instead, the double run left the CPU
// World's at the first edit.
TEST(GpuWorldDevice, SettingsEditsKeepTheDeviceState) {
    inBothPrecisions("cube_drop", Backend::Cuda, [](World& cpu, World& dev) {
        for (int f = 0; f < 12; ++f) {
            if (f == 4 || f == 7 || f == 9) {
                SolverDesc s = cpu.desc().solver;
                if (f == 4) s.diagnostics = !s.diagnostics;
                if (f == 7) s.iterations += 2;
                cpu.setSolver(s);
                s.backend = f == 9 ? Backend::Cpu : Backend::Cuda;
                dev.setSolver(s);
                EXPECT_EQ(dev.backendLine().rfind("CUDA backend", 0) == 0, f < 9) << dev.backendLine();
            }
            cpu.step();
            dev.step();
            const Diff diff = difference(cpu, dev);
            EXPECT_EQ(diff.particles, 0.0) << "frame " << f;
            EXPECT_EQ(diff.particleVelocities, 0.0) << "frame " << f;
        }
    });
}

// World::statePositions (final_state.json's particles) on the device path: the device's state with its digits
// below float, as the CPU World's bit for bit (both step the same state); after an edit remakes the stepper
// and before it steps, from the state the solver was handed (the device has none yet); in float the published
// positions. Every call is checked to round to positions().
TEST(GpuWorldDevice, StatePositionsKeepTheDevicesDigits) {
    inBothPrecisions("cube_drop", Backend::Cuda, [](World& cpu, World& dev) {
        dev.setLazyPublish(true);
        const bool dbl = dev.desc().solver.precision == Precision::Double;
        auto check = [&](const char* when) {
            SCOPED_TRACE(when);
            const std::vector<Vec3d> a = cpu.statePositions(), b = dev.statePositions();
            ASSERT_EQ(a.size(), b.size());
            int belowFloat = 0;
            for (size_t i = 0; i < a.size(); ++i) {
                EXPECT_EQ(a[i].x, b[i].x);
                EXPECT_EQ(a[i].y, b[i].y);
                EXPECT_EQ(a[i].z, b[i].z);
                EXPECT_EQ(float(b[i].y), dev.positions()[i].y);
                belowFloat += double(float(b[i].y)) != b[i].y;
            }
            if (dbl) {
                EXPECT_GT(belowFloat, int(a.size()) / 2);  // a falling cube: nearly every height
            } else {
                EXPECT_EQ(belowFloat, 0);
            }
        };
        for (int f = 0; f < 5; ++f) cpu.step(), dev.step();
        check("after 5 steps");
        SolverDesc s = cpu.desc().solver;
        s.iterations += 2;
        cpu.setSolver(s);
        s.backend = Backend::Cuda;
        dev.setSolver(s);
        check("after an edit, before a step");
        cpu.step(), dev.step();
        check("after the next step");
    });
}

// Every built-in scene through the World on the device path (the host executor standing in for a device:
// soft, cloth, coarse, coupled, mixed and rigid-only scenes, in the precision each scene asks for) against
// the CPU World, 6 frames each: particles and bodies bit for bit every frame. The parts have their own tests;
// this one checks what the World adds around them (which stepper takes which scene, the order of the soft
// and rigid steps, the published state the next frame reads).
TEST(GpuWorldDevice, EveryBuiltInSceneThroughTheWorldIsTheCpuStep) {
    ThreadLimit oneThread(1);
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(VBD_SOURCE_DIR) + "/assets/scenes")) {
        if (entry.path().extension() != ".json") continue;
        const std::string name = entry.path().stem().string();
        SCOPED_TRACE(name);
        SceneDesc d = loadSceneFile(entry.path().string(), {});
        d.solver.threads = 1;
        Worlds w(d, Backend::Cuda);
        EXPECT_EQ(w.dev->backendLine().rfind("CUDA backend on host executor", 0), 0u) << w.dev->backendLine();
        for (int f = 0; f < 6; ++f) {
            w.cpu->step();
            w.dev->step();
            const Diff diff = difference(*w.cpu, *w.dev);
            EXPECT_EQ(diff.particles, 0.0) << "frame " << f;
            EXPECT_EQ(diff.particleVelocities, 0.0) << "frame " << f;
            EXPECT_EQ(diff.bodies, 0.0) << "frame " << f;
            EXPECT_EQ(diff.bodyVelocities, 0.0) << "frame " << f;
        }
    }
}

// The coarse correction as the World installs it (solver.coarse: its hook on the solver), on the device path.
TEST(GpuWorldDevice, CoarseBarOnTheHostExecutorIsTheCpuStep) {
    inBothPrecisions("coarse_bar", Backend::Auto, [](World& cpu, World& dev) {
        EXPECT_EQ(
            dev.backendLine(),
            "CUDA backend on host executor (sm_00): soft-body step on the device (the coarse correction on "
            "the CPU)");
        for (int f = 0; f < 6; ++f) {
            cpu.step();
            dev.step();
            const Diff diff = difference(cpu, dev);
            EXPECT_EQ(diff.particles, 0.0) << "frame " << f;
            EXPECT_EQ(diff.particleVelocities, 0.0) << "frame " << f;
            EXPECT_LT(rel(cpu.history().back().residualFinal, dev.history().back().residualFinal), 1e-9);
        }
    });
}

// On CUDA: the coupled scenes within the parity bounds of test_gpu_cuda.cpp on positions (1e-9 m in double,
// 5e-5 m in float, on ~1 m coordinates), and those over h on velocities (v = (x - x_prev) / h): a
// contraction moves a rounding, and the AVBD rows' decisions (lambda > 0) sit far from their thresholds while
// the bodies press.
TEST(GpuWorldDevice, CoupledStepOnCuda) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    ThreadLimit oneThread(1);
    for (const char* name : {"soft_vs_rigid", "rigid_on_cloth"}) {
        for (Precision prec : {Precision::Double, Precision::Float}) {
            SceneDesc d = scene(name, prec);
            WorldOptions host;
            host.hostExecutor = true;
            d.solver.backend = Backend::Cuda;
            auto ref = World::create(d, host);
            auto dev = World::create(d);
            for (int f = 0; f < 6; ++f) {
                ref->step();
                dev->step();
            }
            const Diff diff = difference(*ref, *dev);
            const double tol = prec == Precision::Double ? 1e-9 : 5e-5;
            const double h = d.dt / d.substeps;
            EXPECT_LT(diff.particles, tol) << name;
            EXPECT_LT(diff.bodies, tol) << name;
            EXPECT_LT(diff.particleVelocities, tol / h) << name;
            EXPECT_LT(diff.bodyVelocities, tol / h) << name;
            std::printf("  coupled %-14s %-6s 6 frames: particles %.3e m, bodies %.3e m\n", name,
                        prec == Precision::Double ? "double" : "float", diff.particles, diff.bodies);
        }
    }
}
