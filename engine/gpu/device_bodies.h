#pragma once
// Where the device rigid step keeps the bodies' states: what the CUDA-Vulkan interop kernel reads to write
// the renderer's body instances (gpu/body_instances.h) without a copy through the host. Plain pointers, no
// CUDA types (the World and the app include it).
namespace vbd {

struct RigidBodyState;

struct DeviceRigidBodies {
    const RigidBodyState* state = nullptr;  // [n] in the executor's memory (device memory on CUDA); nullptr
                                            // before the first step
    int n = 0;
    void* stream = nullptr;  // the cudaStream_t the rigid step runs on (nullptr: the host executor)
    // The CUDA device the rigid step runs on, set before its first step (-1: host memory, or the World has no
    // device rigid step).
    int cudaDevice = -1;
    // state holds the solver's current states: the last rigid step ran on the device and nothing changed the
    // solver's states since (an edit, a restored frame, a step on the CPU). When false, read World::bodies().
    bool current = false;
};

}  // namespace vbd
