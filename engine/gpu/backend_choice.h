#pragma once
// solver.backend: which backend steps the soft bodies, and the one line that says which and why. Pure
// functions of what was asked, what the CUDA probe found and what the scene needs, so that every branch
// (including the ones that need a GPU to reach) is tested on the CPU.
#include <cstddef>
#include <string>

#include "scene/scene_desc.h"

namespace vbd {

// What the CUDA runtime reports (gpu/cuda_probe.cu; the CPU-only build's stub says it was not compiled in).
struct CudaProbe {
    bool compiled = false;  // the CUDA backend is in this build
    int devices = 0;
    std::string error;  // the runtime's message when it found none
    std::string name;   // device 0
    size_t memoryBytes = 0;
    int major = 0, minor = 0;  // compute capability
};

// Probes the CUDA runtime once per process (the result does not change while it runs).
const CudaProbe& probeCuda();

// Seconds of one device-to-device copy of `bytes` on device 0, timed with CUDA events (bench_gpu's ceiling
// for the achieved bandwidth). Throws std::runtime_error without a device.
double deviceCopySeconds(size_t bytes);

struct BackendChoice {
    Backend backend = Backend::Cpu;  // Cpu or Cuda: what runs
    bool refused = false;            // solver.backend = cuda and it cannot run: `reason` says why
    std::string reason;              // why the CPU runs instead (empty when what was asked runs)
    std::string line;                // the log / status line: backend, device, what stays on the CPU
};

// Where the device rigid step detects collisions (RigidStepper::setDeviceContacts, setDeviceBroadPhase): off
// by default until a device has measured them; VBD_CUDA_DEVICE_CONTACTS=1 and VBD_CUDA_DEVICE_BROAD=1 turn
// them on for the World (the broad phase only with the contacts).
struct RigidDetection {
    bool contacts = false;  // narrow phase and contact matching on the device
    bool broad = false;     // with them, the grid broad phase too
};
RigidDetection rigidDetectionFromEnv();
// What of it stays on the CPU, for the backend line: "broad and narrow phase on the CPU", ...
std::string rigidDetectionText(RigidDetection d);

// What of a device soft step runs on the host (gpu/pipeline.h), for the line: the particles' collision
// detection (cloth self-collision, soft-soft contact), the sweep hook (the coarse correction), and the rigid
// bodies coupled to the particles (world/coupling.h: solved on the CPU between the device's sweeps).
struct SoftOnHost {
    bool collision = false;
    bool coarse = false;
    bool coupledRigid = false;
};
// "" or " (collision detection and the coarse correction on the CPU)", ...
std::string softOnHostText(SoftOnHost s);

// requested: solver.backend. unsupported: why the device cannot step the scene ("" when it can:
// deviceStepUnsupported() of its particles, rigidDeviceStepUnsupported() of a rigid-only scene). bytesNeeded:
// the device step's memory (StepPlan::deviceBytes), refused above 90% of the device's. rigidBodies,
// softBodies: what the scene has, for the line. Rigid bodies go with the soft step: on the device their solve
// runs there (gpu/rigid_stepper.h), their collision detection where `rigid` says. softHost: what of the soft
// step stays on the CPU, which the line says.
BackendChoice chooseBackend(Backend requested, const CudaProbe& probe, const std::string& unsupported,
                            size_t bytesNeeded, bool rigidBodies, bool softBodies = true,
                            RigidDetection rigid = {}, SoftOnHost softHost = {});

}  // namespace vbd
