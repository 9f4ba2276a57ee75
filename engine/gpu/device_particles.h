#pragma once
// Where the device step keeps the particle positions: what the CUDA-Vulkan interop kernel reads to write the
// renderer's vertex records without a copy through the host. Plain pointers, no CUDA types (the World and
// the app include it).
namespace vbd {

struct DeviceParticles {
    const void* x = nullptr;  // Vec3T<double or float>[n] in the executor's memory (device memory on CUDA)
    int n = 0;
    bool doublePrecision = false;  // Vec3d (solver.precision = double) or Vec3
    void* stream = nullptr;        // the cudaStream_t the step runs on (nullptr: the host executor)
    int cudaDevice = -1;           // the CUDA device that holds x (-1: host memory)
    // x holds this frame's state: the last step ran on the device and nothing reseeded it since (a step
    // that ran on the CPU, a restored frame, new solver settings). When false, read World::positions().
    bool current = false;
};

}  // namespace vbd
