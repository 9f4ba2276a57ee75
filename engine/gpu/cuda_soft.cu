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
    // cloth: membranes, hinges, per-vertex contact offsets, self contacts of this step
    DeviceArray<std::array<int, 3>> tris;
    DeviceArray<TriRest> triRest;
    DeviceArray<float> triVolume, triMu, triLambda, triKd;
    DeviceArray<std::array<float, 3>> triCprev;
    DeviceArray<int> vtriOffsets, vtriItems;
    DeviceArray<std::array<int, 4>> hinges;
    DeviceArray<float> hingeTheta0, hingeKL, hingeKd, hingeThetaPrev;
    DeviceArray<int> vhOffsets, vhItems;
    DeviceArray<float> colliderOffset;
    DeviceArray<SelfContact> contacts;
    DeviceArray<int> vcOffsets, vcItems;
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
    d.tris.assign(m.tris);
    d.triRest.assign(m.triRest);
    d.triVolume.assign(m.triVolume);
    d.triMu.assign(m.triMu);
    d.triLambda.assign(m.triLambda);
    d.triKd.assign(m.triKd);
    d.triCprev.assign(m.triCprev);
    d.vtriOffsets.assign(m.vertexTris.offsets);
    d.vtriItems.assign(m.vertexTris.items);
    d.hinges.assign(m.hinges);
    d.hingeTheta0.assign(m.hingeTheta0);
    d.hingeKL.assign(m.hingeKL);
    d.hingeKd.assign(m.hingeKd);
    d.hingeThetaPrev.assign(m.hingeThetaPrev);
    d.vhOffsets.assign(m.vertexHinges.offsets);
    d.vhItems.assign(m.vertexHinges.items);
    d.colliderOffset.assign(m.colliderOffset);
    d.contacts.assign(m.collision.contacts);
    d.vcOffsets.assign(m.collision.vertexContacts.offsets);
    d.vcItems.assign(m.collision.vertexContacts.items);
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
    v.tris = d.tris.ptr;
    v.triRest = d.triRest.ptr;
    v.triVolume = d.triVolume.ptr;
    v.triMu = d.triMu.ptr;
    v.triLambda = d.triLambda.ptr;
    v.triKd = d.triKd.ptr;
    v.triCprev = d.triCprev.ptr;
    v.vtriOffsets = d.vtriOffsets.ptr;
    v.vtriItems = d.vtriItems.ptr;
    v.hinges = d.hinges.ptr;
    v.hingeTheta0 = d.hingeTheta0.ptr;
    v.hingeKL = d.hingeKL.ptr;
    v.hingeKd = d.hingeKd.ptr;
    v.hingeThetaPrev = d.hingeThetaPrev.ptr;
    v.vhOffsets = d.vhOffsets.ptr;
    v.vhItems = d.vhItems.ptr;
    // Keep the CPU view's "absent" markers (nullptr) where the host has none.
    v.colliderOffset = v.colliderOffset ? d.colliderOffset.ptr : nullptr;
    v.contacts = v.contacts ? d.contacts.ptr : nullptr;
    v.vcOffsets = v.vcOffsets ? d.vcOffsets.ptr : nullptr;
    v.vcItems = v.vcItems ? d.vcItems.ptr : nullptr;
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
