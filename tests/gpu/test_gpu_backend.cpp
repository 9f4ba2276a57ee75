// solver.backend on a machine of any kind: the choice's every branch (pure: gpu/backend_choice.h), the
// device step's plan (gpu/step_plan.h), the World's backend line, and the CLI's refusal of --backend cuda
// where no device can run it (exit 2, the reason, nothing written).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "gpu/backend_choice.h"
#include "gpu/step_plan.h"
#include "math/error.h"
#include "scene/enum_names.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"
#include "world/world.h"

using namespace vbd;
namespace fs = std::filesystem;

namespace {

CudaProbe h200() {
    CudaProbe p;
    p.compiled = true;
    p.devices = 1;
    p.name = "NVIDIA H200";
    p.memoryBytes = size_t(141) << 30;
    p.major = 9;
    return p;
}

SceneDesc cubeScene() {
    SceneDesc s;
    SoftBodyDesc b;
    b.min = Vec3(0, 1, 0);
    b.max = Vec3(1, 2, 1);
    b.cells = {3, 3, 3};
    s.softBodies.push_back(b);
    return s;
}

}  // namespace

TEST(GpuBackendChoice, CpuIsWhatWasAsked) {
    const BackendChoice c = chooseBackend(Backend::Cpu, h200(), "", 0, false);
    EXPECT_EQ(c.backend, Backend::Cpu);
    EXPECT_FALSE(c.refused);
    EXPECT_TRUE(c.reason.empty());
    EXPECT_EQ(c.line, "CPU backend (solver.backend = cpu)");
}

TEST(GpuBackendChoice, DeviceRunsWhenItCan) {
    for (Backend b : {Backend::Cuda, Backend::Auto}) {
        const BackendChoice c = chooseBackend(b, h200(), "", size_t(1) << 30, true);
        EXPECT_EQ(c.backend, Backend::Cuda);
        EXPECT_FALSE(c.refused);
        EXPECT_EQ(
            c.line,
            "CUDA backend on NVIDIA H200 (sm_90): soft-body step on the device; rigid bodies on the device "
            "(broad and narrow phase on the CPU)");
    }
    EXPECT_EQ(chooseBackend(Backend::Auto, h200(), "", 0, false).line,
              "CUDA backend on NVIDIA H200 (sm_90): soft-body step on the device");
    // Cloth self-collision or soft-soft contact: detected on the CPU (gpu/pipeline.h).
    EXPECT_EQ(chooseBackend(Backend::Auto, h200(), "", 0, false, true, {}, SoftOnHost{true, false}).line,
              "CUDA backend on NVIDIA H200 (sm_90): soft-body step on the device (collision detection on the "
              "CPU)");
    // The coarse correction: on the CPU between the device's sweeps (gpu/pipeline.h).
    EXPECT_EQ(chooseBackend(Backend::Auto, h200(), "", 0, false, true, {}, SoftOnHost{false, true}).line,
              "CUDA backend on NVIDIA H200 (sm_90): soft-body step on the device (the coarse correction on "
              "the CPU)");
    EXPECT_EQ(
        chooseBackend(Backend::Auto, h200(), "", 0, true, true, {}, SoftOnHost{true, true}).line,
        "CUDA backend on NVIDIA H200 (sm_90): soft-body step on the device (collision detection and the "
        "coarse correction on the CPU); rigid bodies on the device (broad and narrow phase on the CPU)");
    // A rigid-only scene: its solve on the device, its collision detection on the CPU.
    EXPECT_EQ(chooseBackend(Backend::Cuda, h200(), "", 0, true, false).line,
              "CUDA backend on NVIDIA H200 (sm_90): rigid bodies on the device (broad and narrow phase on "
              "the CPU)");
    // The device detection's switches (RigidStepper::setDeviceContacts, setDeviceBroadPhase) in the line.
    EXPECT_EQ(
        chooseBackend(Backend::Cuda, h200(), "", 0, true, false, RigidDetection{true, false}).line,
        "CUDA backend on NVIDIA H200 (sm_90): rigid bodies on the device (broad phase on the CPU, narrow "
        "phase and contact matching on the device)");
    EXPECT_EQ(chooseBackend(Backend::Cuda, h200(), "", 0, true, false, RigidDetection{true, true}).line,
              "CUDA backend on NVIDIA H200 (sm_90): rigid bodies on the device (collision detection on the "
              "device, its candidate filter and coloring on the CPU)");
}

// The switches come from the environment; the broad phase only with the contacts.
TEST(GpuBackendChoice, RigidDetectionFromTheEnvironment) {
    auto with = [](const char* contacts, const char* broad) {
        ::setenv("VBD_CUDA_DEVICE_CONTACTS", contacts, 1);
        ::setenv("VBD_CUDA_DEVICE_BROAD", broad, 1);
        const RigidDetection d = rigidDetectionFromEnv();
        ::unsetenv("VBD_CUDA_DEVICE_CONTACTS");
        ::unsetenv("VBD_CUDA_DEVICE_BROAD");
        return std::pair{d.contacts, d.broad};
    };
    EXPECT_EQ(with("0", "1"), std::pair(false, false));
    EXPECT_EQ(with("1", "0"), std::pair(true, false));
    EXPECT_EQ(with("1", "1"), std::pair(true, true));
    EXPECT_EQ(rigidDetectionFromEnv().contacts, false);  // unset
}

TEST(GpuBackendChoice, EachReasonFallsBackOrRefuses) {
    CudaProbe none;  // not compiled
    CudaProbe noDevice = h200();
    noDevice.devices = 0;
    noDevice.error = "cudaErrorNoDevice: no CUDA-capable device is detected";
    struct Case {
        CudaProbe probe;
        std::string unsupported;
        size_t bytes;
        std::string reason;
    };
    const Case cases[] = {
        {none, "", 0, "built without CUDA (nvcc was not found at configure time)"},
        {noDevice, "", 0, "no CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)"},
        {h200(), "collision detection (cloth self-collision, soft-soft contact) runs on the CPU backend only",
         0, "collision detection (cloth self-collision, soft-soft contact) runs on the CPU backend only"},
        // 141 GiB = 151.4 GB; 140 GB is above 90% of it.
        {h200(), "", size_t(140e9),
         "the device step needs 140.00 GB, more than 90% of the device's 151.40 GB"},
    };
    for (const Case& k : cases) {
        const BackendChoice a = chooseBackend(Backend::Auto, k.probe, k.unsupported, k.bytes, false);
        EXPECT_EQ(a.backend, Backend::Cpu);
        EXPECT_FALSE(a.refused);
        EXPECT_EQ(a.reason, k.reason);
        EXPECT_EQ(a.line, k.reason + ": CPU backend");
        const BackendChoice c = chooseBackend(Backend::Cuda, k.probe, k.unsupported, k.bytes, false);
        EXPECT_TRUE(c.refused);
        EXPECT_EQ(c.reason, k.reason);
    }
}

TEST(GpuBackendChoice, SceneKeyParses) {
    EXPECT_EQ(SolverDesc{}.backend, Backend::Cpu);  // the default keeps CPU results reproducible
    const fs::path f =
        fs::temp_directory_path() / ("vbd_gpu_backend_" + std::to_string(::getpid()) + ".json");
    std::ofstream(f) << R"({"name": "t", "solver": {"backend": "auto"}})";
    EXPECT_EQ(loadSceneFile(f.string(), {}).solver.backend, Backend::Auto);
    EXPECT_EQ(loadSceneFile(f.string(), {"solver.backend=cuda"}).solver.backend, Backend::Cuda);
    try {
        loadSceneFile(f.string(), {"solver.backend=opencl"});
        ADD_FAILURE() << "solver.backend=opencl accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("solver.backend"), std::string::npos) << e.what();
    }
    fs::remove(f);
    EXPECT_STREQ(enumName(Backend::Auto), "auto");
}

TEST(GpuStepPlan, Unsupported) {
    SceneDesc s = cubeScene();
    SoftSolver solver;
    solver.build(s);
    EXPECT_EQ(deviceStepUnsupported(solver.model(), s.solver), "");
    // The coarse correction runs on the host between the device's sweeps (gpu/pipeline.h).
    s.solver.coarse.enabled = true;
    EXPECT_EQ(deviceStepUnsupported(solver.model(), s.solver), "");
    // Collision runs on the device step (detected on the host): every built-in cloth scene is supported.
    const SceneDesc cloth =
        loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/cloth_drape.json", {});
    SoftSolver sheet;
    sheet.build(cloth);
    ASSERT_TRUE(sheet.model().collision.enabled);
    EXPECT_EQ(deviceStepUnsupported(sheet.model(), cloth.solver), "");
    SoftSolver empty;
    empty.build(SceneDesc{});
    EXPECT_NE(deviceStepUnsupported(empty.model(), SolverDesc{}).find("no soft bodies"), std::string::npos);
}

TEST(GpuStepPlan, ColorsChebyshevAndSizes) {
    SceneDesc s = cubeScene();
    s.solver.iterations = 6;
    s.solver.chebyshevRho = 0.9;
    SoftSolver solver;
    solver.build(s);
    const SoftModel& m = solver.model();
    const StepPlan p = makeStepPlan(m, s.solver);
    ASSERT_EQ(p.numColors(), int(m.colorGroups.size()));
    // Every free vertex once, in its group's order; no fixed vertex (cubeScene has none: all 64).
    size_t total = 0;
    for (int c = 0; c < p.numColors(); ++c) {
        ASSERT_EQ(p.colorSize(c), int(m.colorGroups[size_t(c)].size()));
        for (int k = 0; k < p.colorSize(c); ++k)
            EXPECT_EQ(p.colorVerts[size_t(p.colorOffsets[size_t(c)] + k)],
                      m.colorGroups[size_t(c)][size_t(k)]);
        total += size_t(p.colorSize(c));
    }
    EXPECT_EQ(total, size_t(m.numVertices()));
    // Chebyshev: w1 = 1, w2 = 2/(2 - rho^2), w3 = 4/(4 - rho^2 w2) (SoftSolver::accelerate).
    const double r2 = 0.81, w2 = 2 / (2 - r2), w3 = 4 / (4 - r2 * w2);
    EXPECT_EQ(p.chebyshevWeights[1], 1.0);
    EXPECT_DOUBLE_EQ(p.chebyshevWeights[2], w2);
    EXPECT_DOUBLE_EQ(p.chebyshevWeights[3], w3);
    EXPECT_TRUE(p.residualEachIteration && p.energyEachIteration && !p.tolerance);
    EXPECT_EQ(p.resultDoubles(), size_t(7 * 3));
    // Device memory: at least x, v, x_prev, y, v_last, two Chebyshev arrays in double and the tets' C_prev.
    const size_t floor = size_t(m.numVertices()) * 7 * 24 + m.tets.size() * (72 + 9 * 4);
    EXPECT_GE(p.deviceBytes(m), floor);
    EXPECT_LT(p.deviceBytes(m), 4 * floor + 4096);
}

TEST(GpuStepPlan, LaunchSizesAreChecked) {
    EXPECT_EQ(blocksFor(0), 0);
    EXPECT_EQ(blocksFor(1), 1);
    EXPECT_EQ(blocksFor(kBlockSize), 1);
    EXPECT_EQ(blocksFor(kBlockSize + 1), 2);
    EXPECT_EQ(blocksFor(2147483647LL), (2147483647LL + kBlockSize - 1) / kBlockSize);
    EXPECT_THROW(blocksFor(-1), std::runtime_error);
    EXPECT_THROW(blocksFor(1LL << 50), std::runtime_error);
}

// On this machine (no device, or no CUDA in the build): auto runs the CPU and says why, cuda is refused as
// bad input naming solver.backend. On a machine with a device both run it (the device check).
TEST(GpuWorldBackend, LineAndRefusal) {
    const CudaProbe& probe = probeCuda();
    SceneDesc s = cubeScene();
    s.solver.backend = Backend::Auto;
    auto w = World::create(s);
    if (probe.devices > 0) {
        EXPECT_EQ(w->backendLine().rfind("CUDA backend on ", 0), 0u) << w->backendLine();
        return;
    }
    const std::string expect = probe.compiled ? "no CUDA device" : "built without CUDA";
    EXPECT_EQ(w->backendLine().rfind(expect, 0), 0u) << w->backendLine();
    EXPECT_NE(w->backendLine().find(": CPU backend"), std::string::npos);
    s.solver.backend = Backend::Cuda;
    try {
        World::create(s);
        ADD_FAILURE() << "solver.backend = cuda accepted without a device";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("solver.backend: cuda: " + expect), std::string::npos)
            << e.what();
    }
    // A running World refuses the switch and keeps its backend (setSolver: nothing changes).
    EXPECT_THROW(w->setSolver(s.solver), InputError);
    EXPECT_EQ(w->desc().solver.backend, Backend::Auto);
    w->step();
    EXPECT_EQ(w->frame(), 1);
}

// A rigid-only scene asks for the device by its rigid bodies: without one, auto says why the CPU runs (not
// "no soft bodies"); with one, the line names the rigid step on the device and the World steps there, within
// test_gpu_cuda_rigid's tolerance of the CPU over a few frames.
TEST(GpuWorldBackend, RigidOnlySceneGoesToTheDevice) {
    const CudaProbe& probe = probeCuda();
    SceneDesc s = loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/rigid_stack.json", {});
    s.solver.backend = Backend::Auto;
    auto w = World::create(s);
    if (probe.devices <= 0) {
        const std::string expect = probe.compiled ? "no CUDA device" : "built without CUDA";
        EXPECT_EQ(w->backendLine().rfind(expect, 0), 0u) << w->backendLine();
        w->step();
        EXPECT_EQ(w->frame(), 1);
        return;
    }
    EXPECT_NE(w->backendLine().find("rigid bodies on the device (broad and narrow phase on the CPU)"),
              std::string::npos)
        << w->backendLine();
    s.solver.backend = Backend::Cpu;
    auto c = World::create(s);
    for (int f = 0; f < 10; ++f) {
        w->step();
        c->step();
    }
    const auto a = w->bodies(), b = c->bodies();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_LT(norm(a[i].position - b[i].position), 1e-6) << "body " << i;
}

TEST(GpuWorldBackend, CliRefusesCudaWithoutDevice) {
    if (probeCuda().devices > 0) GTEST_SKIP() << "a CUDA device is present: the refusal is not reachable";
    const fs::path dir = fs::temp_directory_path() / ("vbd_gpu_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const std::string err = (dir.string() + "_err.txt");
    const std::string cmd = std::string(VBD_BINARY_DIR) + "/bin/vbdlab sim " + VBD_SOURCE_DIR +
                            "/assets/scenes/cube_drop.json --frames 1 --backend cuda --out " + dir.string() +
                            " 2> " + err;
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    std::stringstream ss;
    ss << std::ifstream(err).rdbuf();
    // The scene file and the key, as every bad input names them.
    EXPECT_NE(ss.str().find("cube_drop.json: solver.backend: cuda: "), std::string::npos) << ss.str();
    EXPECT_FALSE(fs::exists(dir));  // nothing created
    fs::remove(err);
    // auto runs on the CPU and says why, once, on stderr.
    const std::string cmd2 = std::string(VBD_BINARY_DIR) + "/bin/vbdlab sim " + VBD_SOURCE_DIR +
                             "/assets/scenes/cube_drop.json --frames 1 --backend auto --out " + dir.string() +
                             " 2> " + err;
    EXPECT_EQ(std::system(cmd2.c_str()), 0);
    std::stringstream s2;
    s2 << std::ifstream(err).rdbuf();
    EXPECT_NE(s2.str().find(": CPU backend\n"), std::string::npos) << s2.str();
    fs::remove_all(dir);
    fs::remove(err);
}
