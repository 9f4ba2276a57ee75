// CUB's device-wide radix sorts and scan behind CudaExec::sortByKey, sortKeys and exclusiveScan (the device
// broad phase, gpu/broad_pipeline.h). One unit compiles CUB; each call asks CUB for its scratch size first
// and grows the executor's scratch when it is short.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gpu/cuda_exec.cuh"

namespace vbd {

namespace {

void* scratchFor(void*& temp, size_t& tempBytes, size_t need, cudaStream_t stream) {
    if (need > tempBytes) {
        VBD_CUDA(cudaStreamSynchronize(stream));
        if (temp && cudaFree(temp) != cudaSuccess) (void)cudaGetLastError();  // not the next launch's error
        temp = nullptr;
        tempBytes = 0;
        VBD_CUDA(cudaMalloc(&temp, need + need / 2));
        tempBytes = need + need / 2;
    }
    return temp;
}

}  // namespace

void cudaSortByKey(void*& temp, size_t& tempBytes, const uint64_t* keysIn, uint64_t* keysOut,
                   const int* valsIn, int* valsOut, int n, int endBit, cudaStream_t stream) {
    size_t need = 0;
    VBD_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, need, keysIn, keysOut, valsIn, valsOut, n, 0, endBit,
                                             stream));
    void* t = scratchFor(temp, tempBytes, need, stream);
    VBD_CUDA(
        cub::DeviceRadixSort::SortPairs(t, need, keysIn, keysOut, valsIn, valsOut, n, 0, endBit, stream));
}

void cudaSortKeys(void*& temp, size_t& tempBytes, const uint64_t* in, uint64_t* out, int n, int endBit,
                  cudaStream_t stream) {
    size_t need = 0;
    VBD_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, need, in, out, n, 0, endBit, stream));
    void* t = scratchFor(temp, tempBytes, need, stream);
    VBD_CUDA(cub::DeviceRadixSort::SortKeys(t, need, in, out, n, 0, endBit, stream));
}

void cudaExclusiveScan(void*& temp, size_t& tempBytes, const int* in, int* out, int n, cudaStream_t stream) {
    size_t need = 0;
    VBD_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, need, in, out, n, stream));
    void* t = scratchFor(temp, tempBytes, need, stream);
    VBD_CUDA(cub::DeviceScan::ExclusiveSum(t, need, in, out, n, stream));
}

}  // namespace vbd
