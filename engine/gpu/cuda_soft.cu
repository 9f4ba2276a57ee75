// CUDA backend of the VBD sweep: thin wrappers around the shared per-vertex kernel.
#include <cuda_runtime.h>

#include <stdexcept>
#include <vector>

#include "gpu/cuda_soft.h"
#include "math/chol33.h"
#include "soft/vertex_kernel.h"

namespace vbd {

namespace {

void check(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                                 cudaGetErrorString(e));
}
#define VBD_CUDA_CHECK(x) check((x), #x, __FILE__, __LINE__)

template <typename T>
struct DeviceArray {
    T* ptr = nullptr;
    size_t n = 0;
    void assign(const std::vector<T>& v) {
        release();
        n = v.size();
        if (n == 0) return;
        VBD_CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
        VBD_CUDA_CHECK(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    void release() {
        if (ptr) cudaFree(ptr);
        ptr = nullptr;
        n = 0;
    }
    ~DeviceArray() { release(); }
};

// One thread per vertex of the color. Vertices of a color share no element, so each thread reads its
// neighbours (other colors) and writes only its own position: no atomics, as on the CPU.
__global__ void sweepColorKernel(SoftView s, Vec3* x, const int* verts, int n) {
    const int k = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k >= n) return;
    const int i = verts[k];
    Vec3 f;
    Mat33 H;
    vertexForceHessian(s, i, f, H);
    Vec3 dx;
    if (solveSpd33(H, f, dx)) x[i] += dx;
}

}  // namespace

struct CudaSoftSweeper::Impl {
    DeviceArray<Vec3> x, xPrev, y;
    DeviceArray<float> mass, volume, mu, lambda, kd;
    DeviceArray<std::array<int, 4>> tets;
    DeviceArray<Mat33> DmInv, Cprev;
    DeviceArray<int> vtOffsets, vtItems;
    DeviceArray<ParticleCollider> colliders;
    std::vector<DeviceArray<int>> colors;
    SoftView view{};
};

bool CudaSoftSweeper::available(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (why)
            *why =
                e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
        return false;
    }
    return true;
}

CudaSoftSweeper::CudaSoftSweeper() : impl_(std::make_unique<Impl>()) {}
CudaSoftSweeper::~CudaSoftSweeper() = default;

void CudaSoftSweeper::upload(const SoftSolver& solver) {
    const SoftModel& m = solver.model();
    Impl& d = *impl_;
    d.x.assign(m.x);
    d.xPrev.assign(m.xPrev);
    d.y.assign(m.y);
    d.mass.assign(m.mass);
    d.volume.assign(m.volume);
    d.mu.assign(m.mu);
    d.lambda.assign(m.lambda);
    d.kd.assign(m.kd);
    d.tets.assign(m.tets);
    d.DmInv.assign(m.DmInv);
    d.Cprev.assign(m.Cprev);
    d.vtOffsets.assign(m.vertexTets.offsets);
    d.vtItems.assign(m.vertexTets.items);
    d.colliders.assign(m.colliders);
    d.colors.clear();
    d.colors.resize(m.colorGroups.size());
    for (size_t c = 0; c < m.colorGroups.size(); ++c) d.colors[c].assign(m.colorGroups[c]);
    // Same parameters as the CPU view, pointers swapped for device ones.
    SoftView v = solver.view();
    v.x = d.x.ptr;
    v.xPrev = d.xPrev.ptr;
    v.y = d.y.ptr;
    v.mass = d.mass.ptr;
    v.tets = d.tets.ptr;
    v.DmInv = d.DmInv.ptr;
    v.volume = d.volume.ptr;
    v.mu = d.mu.ptr;
    v.lambda = d.lambda.ptr;
    v.kd = d.kd.ptr;
    v.Cprev = d.Cprev.ptr;
    v.vtOffsets = d.vtOffsets.ptr;
    v.vtItems = d.vtItems.ptr;
    v.colliders = d.colliders.ptr;
    d.view = v;
}

void CudaSoftSweeper::sweep() {
    Impl& d = *impl_;
    for (auto& c : d.colors) {
        const int n = int(c.n);
        const int block = 128;
        sweepColorKernel<<<(n + block - 1) / block, block>>>(d.view, d.x.ptr, c.ptr, n);
        VBD_CUDA_CHECK(cudaGetLastError());
    }
    VBD_CUDA_CHECK(cudaDeviceSynchronize());
}

void CudaSoftSweeper::download(SoftSolver& solver) const {
    SoftModel& m = solver.model();
    VBD_CUDA_CHECK(cudaMemcpy(m.x.data(), impl_->x.ptr, m.x.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
}

}  // namespace vbd
