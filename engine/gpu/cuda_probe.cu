// probeCuda() of a build with CUDA: device count and device 0's name, memory and compute capability.
#include <cuda_runtime.h>

#include "gpu/backend_choice.h"
#include "gpu/cuda_exec.cuh"

namespace vbd {

const CudaProbe& probeCuda() {
    static const CudaProbe probe = [] {
        CudaProbe p;
        p.compiled = true;
        int n = 0;
        const cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            p.error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
            cudaGetLastError();  // clear the sticky-free error so later calls start clean
            return p;
        }
        p.devices = n;
        if (n == 0) return p;
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
            p.name = prop.name;
            p.memoryBytes = prop.totalGlobalMem;
            p.major = prop.major;
            p.minor = prop.minor;
        }
        return p;
    }();
    return probe;
}

double deviceCopySeconds(size_t bytes) {
    // Buffers kept between calls (the benchmark calls this once per iteration).
    static void *src = nullptr, *dst = nullptr;
    static size_t held = 0;
    if (held != bytes) {
        if (src) cudaFree(src);
        if (dst) cudaFree(dst);
        src = dst = nullptr;
        held = 0;
        VBD_CUDA(cudaMalloc(&src, bytes));
        VBD_CUDA(cudaMalloc(&dst, bytes));
        VBD_CUDA(cudaMemset(src, 1, bytes));
        held = bytes;
    }
    cudaEvent_t a, b;
    VBD_CUDA(cudaEventCreate(&a));
    VBD_CUDA(cudaEventCreate(&b));
    VBD_CUDA(cudaEventRecord(a));
    VBD_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
    VBD_CUDA(cudaEventRecord(b));
    VBD_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    VBD_CUDA(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return double(ms) * 1e-3;
}

}  // namespace vbd
