// CUDA backend of the VBD sweep: thin wrappers around the shared per-vertex kernel.
#include <cuda_runtime.h>

#include <stdexcept>
#include <type_traits>
#include <vector>

#include "gpu/cuda_soft.h"
#include "math/error.h"
#include "math/ldl33.h"
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
    if (solveVertexSystem(H, f, dx)) x[i] += dx;
}

}  // namespace

struct CudaSoftSweeper::Impl {
    std::vector<void*> buffers;  // one device copy per array of forEachViewArray
    std::vector<DeviceArray<int>> colors;
    Vec3* x = nullptr;  // device positions (the one array the sweep writes)
    SoftView view{};
    void release() {
        for (void* p : buffers) cudaFree(p);
        buffers.clear();
    }
    ~Impl() { release(); }
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

void CudaSoftSweeper::upload(SoftSolver& solver) {
    if (solver.doublePrecision()) throw InputError("", "solver.precision", kDoubleRefused);
    const SoftModel& m = solver.model();
    // One launch per color on live x, without the pipeline's snapshot, bound or cloth references: a model
    // with self contacts (same-color partners would race) or cloth (its C_prev and theta_prev are not set
    // here) is the pipeline's (gpu/pipeline.h).
    if (m.collision.enabled || !m.tris.empty())
        throw std::runtime_error(
            "CudaSoftSweeper: tets without collision only (the device step runs the rest)");
    const SoftState<float>& st = solver.floatState();
    Impl& d = *impl_;
    d.release();
    auto toDevice = [&](auto& ptr, const auto& array) {
        using T = std::remove_const_t<std::remove_pointer_t<std::remove_reference_t<decltype(ptr)>>>;
        if (!ptr) return;
        void* dev = nullptr;
        const size_t bytes = array.size() * sizeof(T);
        if (bytes > 0) {
            VBD_CUDA_CHECK(cudaMalloc(&dev, bytes));
            VBD_CUDA_CHECK(cudaMemcpy(dev, array.data(), bytes, cudaMemcpyHostToDevice));
            d.buffers.push_back(dev);
        }
        ptr = static_cast<const T*>(dev);
    };
    // Same parameters as the CPU view; every array pointer swapped for a device copy (nullptr markers of
    // the CPU view -- no cloth, no self contacts -- are kept).
    SoftView v;
    static_cast<SoftViewParams&>(v) = solver.viewParams();
    forEachParamArray(m, v, toDevice);
    v.x = st.x.data();
    v.xPrev = st.xPrev.data();
    v.y = st.y.data();
    v.Cprev = st.Cprev.data();
    toDevice(v.x, st.x);
    toDevice(v.xPrev, st.xPrev);
    toDevice(v.y, st.y);
    toDevice(v.Cprev, st.Cprev);
    d.x = const_cast<Vec3*>(v.x);
    d.colors.clear();
    d.colors.resize(m.colorGroups.size());
    for (size_t c = 0; c < m.colorGroups.size(); ++c) d.colors[c].assign(m.colorGroups[c]);
    d.view = v;
}

void CudaSoftSweeper::sweep() {
    Impl& d = *impl_;
    for (auto& c : d.colors) {
        const int n = int(c.n);
        const int block = 128;
        sweepColorKernel<<<(n + block - 1) / block, block>>>(d.view, d.x, c.ptr, n);
        VBD_CUDA_CHECK(cudaGetLastError());
    }
    VBD_CUDA_CHECK(cudaDeviceSynchronize());
}

void CudaSoftSweeper::download(SoftSolver& solver) const {
    SoftModel& m = solver.model();
    VBD_CUDA_CHECK(cudaMemcpy(m.x.data(), impl_->x, m.x.size() * sizeof(Vec3), cudaMemcpyDeviceToHost));
}

}  // namespace vbd
