// probeCuda() of a build with CUDA: device count and device 0's name, memory and compute capability.
#include <cuda_runtime.h>

#include "gpu/backend_choice.h"

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

}  // namespace vbd
