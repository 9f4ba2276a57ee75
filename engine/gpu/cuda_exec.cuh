#pragma once
// The device step's executor on CUDA (gpu/pipeline.h): device memory, one kernel per stage launch on one
// stream, deterministic two-pass reductions, and the whole step captured once into a CUDA graph and
// replayed (the per-step values live in device memory, StepScalars, so the graph never changes).
// Every runtime call is checked; a failure throws std::runtime_error naming the call, file and line.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>


#include "gpu/staged_copies.h"
#include "gpu/step_plan.h"

namespace vbd {

inline void cudaCheck(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                                 cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
#define VBD_CUDA(x) ::vbd::cudaCheck((x), #x, __FILE__, __LINE__)

// The resident blocks per multiprocessor a functor asks of its kernel: __launch_bounds__' second argument,
// which caps the registers at 65536 / (kBlockSize * blocks) so that that many blocks fit. 1 (the compiler's
// choice) unless the functor names kMinBlocks (SweepTileStage).
template <typename F, typename = void>
struct MinBlocksOf {
    static constexpr int value = 1;
};
template <typename F>
struct MinBlocksOf<F, std::void_t<decltype(F::kMinBlocks)>> {
    static constexpr int value = F::kMinBlocks;
};

// One thread per index; a functor writes only entries of its own index (gpu/step_stages.h). Launched with
// kBlockSize threads a block, or fewer (CudaExec::forEach's block: a multiple of the warp).
template <typename F>
__global__ void __launch_bounds__(kBlockSize) forEachKernel(F f, int n) {
    // 64-bit: the last block's indices pass INT_MAX when n is within a block of it.
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f(int(i));
}
// The same built for MinBlocks resident blocks per multiprocessor. (A second kernel, not a defaulted
// argument of the first: ptxas gave the sweep 96 registers under __launch_bounds__(256, 1) against 80
// under __launch_bounds__(256).)
template <typename F, int MinBlocks>
__global__ void __launch_bounds__(kBlockSize, MinBlocks) forEachKernelCapped(F f, int n) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f(int(i));
}

// Shared storage for kBlockSize values of R (R has default member initializers, so no __shared__ R[]).
template <typename R>
__device__ R* sharedSlots() {
    static_assert(sizeof(R) % sizeof(double) == 0, "reduction values are made of doubles");
    __shared__ double raw[kBlockSize * (sizeof(R) / sizeof(double))];
    return reinterpret_cast<R*>(raw);
}

// Tree sum of the block's kBlockSize slots into slot 0 (fixed order: deterministic).
template <typename R>
__device__ void blockSum(R* buf) {
    const int t = int(threadIdx.x);
    for (int s = kBlockSize / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = buf[t] + buf[t + s];
        __syncthreads();
    }
}

// Pass 1: partials[b] = sum of f(i) over block b's indices.
template <typename F, typename R>
__global__ void __launch_bounds__(kBlockSize) reducePartialKernel(F f, int n, R* partials) {
    R* buf = sharedSlots<R>();
    const long long i = (long long)blockIdx.x * kBlockSize + threadIdx.x;
    buf[threadIdx.x] = i < n ? f(int(i)) : R{};
    __syncthreads();
    blockSum(buf);
    if (threadIdx.x == 0) partials[blockIdx.x] = buf[0];
}

// Pass 2 (one block): *out (+)= sum of the m partials, each thread a strided serial sum, then the tree.
template <typename R>
__global__ void __launch_bounds__(kBlockSize)
    reduceFinalKernel(const R* partials, int m, R* out, int accumulate) {
    R* buf = sharedSlots<R>();
    R s{};
    for (int j = int(threadIdx.x); j < m; j += kBlockSize) s = s + partials[j];
    buf[threadIdx.x] = s;
    __syncthreads();
    blockSum(buf);
    if (threadIdx.x == 0) *out = accumulate ? *out + buf[0] : buf[0];
}

// The staging area's operations on the executor's stream (gpu/staged_copies.h).
struct CudaCopyOps {
    cudaStream_t stream = nullptr;
    void* allocPinned(size_t bytes) {
        void* p = nullptr;
        VBD_CUDA(cudaMallocHost(&p, bytes));
        return p;
    }
    // A failed free leaves its error as the thread's last error, which the next launch's cudaGetLastError
    // would report as its own: cleared here (freeing is also done on unwinding paths).
    void freePinned(void* p) {
        if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
    }
    void toDevice(void* dst, const void* src, size_t bytes) {
        VBD_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    }
    void toHost(void* dst, const void* src, size_t bytes) {
        VBD_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    }
    void wait() { VBD_CUDA(cudaStreamSynchronize(stream)); }
    bool capturing() const {
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        return cudaStreamIsCapturing(stream, &status) != cudaSuccess || status != cudaStreamCaptureStatusNone;
    }
};

// Whether host-device copies are staged (gpu/staged_copies.h): only with VBD_CUDA_STAGED=1 in the environment
// until a device has measured it and run the parity tests with it (written without one: tests/gpu/
// device_check.sh runs both and the benchmark compares the two).
inline bool stagedCopiesWanted() {
    const char* env = std::getenv("VBD_CUDA_STAGED");
    return env && env[0] == '1';
}

// CUB's radix sorts and scan for the types the device broad phase needs (gpu/cuda_sort.cu, the one unit that
// compiles CUB). temp, tempBytes: the caller's scratch, grown as needed (the stream drained first).
void cudaSortByKey(void*& temp, size_t& tempBytes, const uint64_t* keysIn, uint64_t* keysOut, const int* valsIn,
                   int* valsOut, int n, int endBit, cudaStream_t stream);
void cudaSortKeys(void*& temp, size_t& tempBytes, const uint64_t* in, uint64_t* out, int n, int endBit,
                  cudaStream_t stream);
void cudaExclusiveScan(void*& temp, size_t& tempBytes, const int* in, int* out, int n, cudaStream_t stream);

class CudaExec {
  public:
    static constexpr bool kTiles = true;  // the sweep's default: kDefaultLanesPerVertex (gpu/step_plan.h)
    CudaExec() : stream_(newStream()), copies_(CudaCopyOps{stream_}, stagedCopiesWanted()) {}
    CudaExec(CudaExec&& o) noexcept
        : stream_(o.stream_), graph_(o.graph_), copies_(std::move(o.copies_)), temp_(o.temp_),
          tempBytes_(o.tempBytes_), window_(o.window_) {
        o.stream_ = nullptr;
        o.graph_ = nullptr;
        o.temp_ = nullptr;
        o.tempBytes_ = 0;
        o.window_ = cudaAccessPolicyWindow{};  // the moved-from destructor must not clear the window
    }
    CudaExec(const CudaExec&) = delete;
    CudaExec& operator=(const CudaExec&) = delete;
    CudaExec& operator=(CudaExec&&) = delete;
    ~CudaExec() {
        drain();
        if (window_.num_bytes > 0) clearPersisting();
        if (temp_) cudaFree(temp_);
        dropGraph();
        if (stream_) cudaStreamDestroy(stream_);
    }

    template <typename U>
    U* alloc(size_t n) {
        if (n == 0) return nullptr;
        notCapturing("alloc");
        void* p = nullptr;
        VBD_CUDA(cudaMalloc(&p, n * sizeof(U)));
        VBD_CUDA(cudaMemsetAsync(p, 0, n * sizeof(U), stream_));
        return static_cast<U*>(p);
    }
    // cudaFree synchronizes the device first; a failure is cleared as in CudaCopyOps::freePinned.
    void release(void* p) { freeMemory(p); }
    // Memory of alloc freed without an executor (a saved state outlives the stepper that made it).
    static void freeMemory(void* p) {
        if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
    }
    // Every stream's work done (before another executor reads what one wrote).
    static void syncDevice() { VBD_CUDA(cudaDeviceSynchronize()); }
    // An event recorded after the work issued so far on this executor's stream: another thread waits for
    // that work alone (waitMark), not for what the stream runs later (a step in flight), as a device or
    // stream synchronization would. Freed with freeMark.
    void* mark() {
        cudaEvent_t e = nullptr;
        VBD_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync));  // no spinning
        const cudaError_t r = cudaEventRecord(e, stream_);
        if (r != cudaSuccess) cudaEventDestroy(e);
        VBD_CUDA(r);
        return e;
    }
    static void waitMark(void* m) {
        if (m) VBD_CUDA(cudaEventSynchronize(static_cast<cudaEvent_t>(m)));
    }
    static void freeMark(void* m) {
        if (m && cudaEventDestroy(static_cast<cudaEvent_t>(m)) != cudaSuccess) (void)cudaGetLastError();
    }
    // bytes of device memory to the host at once, from any thread (after waitMark): a blocking copy on the
    // legacy default stream, which the step's non-blocking stream does not wait for (nor it for that).
    static void downloadNow(void* dst, const void* src, size_t bytes) {
        if (bytes) VBD_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    }
    template <typename U>
    void upload(U* dst, const U* src, size_t n) {
        copies_.upload(dst, src, n * sizeof(U));
    }
    template <typename U>
    void download(U* dst, const U* src, size_t n) {
        copies_.download(dst, src, n * sizeof(U));
    }
    template <typename F>
    void forEach(int n, const F& f) {
        forEach(n, f, kBlockSize);
    }
    // forEach in blocks of `block` threads (32 to kBlockSize, a multiple of 32): a launch of few indices
    // then spreads over more multiprocessors (a color of the rigid pile: 2,500 bodies, ten blocks of 256).
    template <typename F>
    void forEach(int n, const F& f, int block) {
        if (n <= 0) return;
        if (block < 32 || block > kBlockSize || block % 32 != 0)
            throw std::invalid_argument("CudaExec::forEach: block of " + std::to_string(block) + " threads");
        const int blocks = int((static_cast<long long>(n) + block - 1) / block);
        if constexpr (MinBlocksOf<F>::value > 1)
            forEachKernelCapped<F, MinBlocksOf<F>::value><<<blocks, block, 0, stream_>>>(f, n);
        else
            forEachKernel<<<blocks, block, 0, stream_>>>(f, n);
        VBD_CUDA(cudaGetLastError());
    }
    template <typename F, typename R>
    void reduce(int n, const F& f, R* partials, R* out, bool accumulate) {
        const int blocks = n > 0 ? blocksFor(n) : 0;
        if (blocks > 0) {
            reducePartialKernel<<<blocks, kBlockSize, 0, stream_>>>(f, n, partials);
            VBD_CUDA(cudaGetLastError());
        }
        reduceFinalKernel<<<1, kBlockSize, 0, stream_>>>(static_cast<const R*>(partials), blocks, out,
                                                         accumulate ? 1 : 0);
        VBD_CUDA(cudaGetLastError());
    }
    // The sorts and the scan may grow their scratch (a stream sync and cudaMalloc): never inside a capture.
    void sortByKey(const uint64_t* keysIn, uint64_t* keysOut, const int* valsIn, int* valsOut, int n,
                   int endBit) {
        notCapturing("sortByKey");
        if (n > 0) cudaSortByKey(temp_, tempBytes_, keysIn, keysOut, valsIn, valsOut, n, endBit, stream_);
    }
    void sortKeys(const uint64_t* in, uint64_t* out, int n, int endBit) {
        notCapturing("sortKeys");
        if (n > 0) cudaSortKeys(temp_, tempBytes_, in, out, n, endBit, stream_);
    }
    void exclusiveScan(const int* in, int* out, int n) {
        notCapturing("exclusiveScan");
        if (n > 0) cudaExclusiveScan(temp_, tempBytes_, in, out, n, stream_);
    }
    void sync() {
        const cudaError_t e = cudaStreamSynchronize(stream_);
        if (e != cudaSuccess) copies_.discard();  // StagedCopies::discard: not copied out into what may be gone
        VBD_CUDA(e);
        copies_.idle();
    }
    void drain() noexcept {
        if (stream_ && cudaStreamSynchronize(stream_) != cudaSuccess) {
            copies_.discard();
            return;
        }
        copies_.idle();  // memcpy only: the pending downloads' regions hold what their DMAs wrote
    }
    bool graphs() const { return true; }
    template <typename Issue>
    void captureGraph(Issue&& issue) {
        dropGraph();
        VBD_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        try {
            issue();
        } catch (...) {
            cudaGraph_t g = nullptr;
            cudaStreamEndCapture(stream_, &g);  // leaves the stream out of capture mode
            if (g) cudaGraphDestroy(g);
            throw;
        }
        cudaGraph_t g = nullptr;
        VBD_CUDA(cudaStreamEndCapture(stream_, &g));
        cudaError_t e = windowOnKernelNodes(g);
        if (e == cudaSuccess) e = cudaGraphInstantiate(&graph_, g, 0);
        cudaGraphDestroy(g);  // the executable graph keeps what it needs
        VBD_CUDA(e);
    }
    void launchGraph() { VBD_CUDA(cudaGraphLaunch(graph_, stream_)); }
    void dropGraph() noexcept {
        if (graph_) cudaGraphExecDestroy(graph_);
        graph_ = nullptr;
    }
    // An L2 persisting window over [base, base + bytes) (an access policy: hits persist, the rest streams)
    // for this stream's kernels and the graphs it captures afterwards; bytes = 0 clears it, resets the
    // persisting lines and gives the carve-out back. Returns the bytes covered: 0 where the device has no
    // persisting L2 or refuses the carve-out (under MPS the limit cannot be changed; MIG disables it: a hint
    // refused is no window, not a failed step). The carve-out (cudaLimitPersistingL2CacheSize) is the
    // device's, asked for at the window's size up to its maximum; the hit ratio is what was granted over the
    // window.
    size_t setPersistingWindow(const void* base, size_t bytes) {
        int dev = 0, maxPersist = 0, maxWindow = 0;
        VBD_CUDA(cudaGetDevice(&dev));
        VBD_CUDA(cudaDeviceGetAttribute(&maxPersist, cudaDevAttrMaxPersistingL2CacheSize, dev));
        VBD_CUDA(cudaDeviceGetAttribute(&maxWindow, cudaDevAttrMaxAccessPolicyWindowSize, dev));
        cudaAccessPolicyWindow w{};
        if (base && bytes > 0 && maxPersist > 0 && maxWindow > 0) {
            const size_t window = std::min(bytes, size_t(maxWindow));
            size_t granted = 0;
            if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, std::min(window, size_t(maxPersist))) !=
                    cudaSuccess ||
                cudaDeviceGetLimit(&granted, cudaLimitPersistingL2CacheSize) != cudaSuccess)
                granted = 0;
            (void)cudaGetLastError();  // a refusal is not an error of the next launch
            if (granted > 0) {
                w.base_ptr = const_cast<void*>(base);
                w.num_bytes = window;
                w.hitRatio = float(std::min(1.0, double(granted) / double(window)));
                w.hitProp = cudaAccessPropertyPersisting;
                w.missProp = cudaAccessPropertyStreaming;
            }
        }
        cudaStreamAttrValue v{};
        v.accessPolicyWindow = w;
        VBD_CUDA(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v));
        if (w.num_bytes == 0 && window_.num_bytes > 0) clearPersisting();
        window_ = w;
        return w.num_bytes;
    }
    cudaStream_t stream() const { return stream_; }
    void* nativeStream() const { return stream_; }
    int device() const { return 0; }  // cudaSetDevice(0) in the constructor

  private:
    // A call that allocates or waits for the stream, issued while the stream is captured into a graph (the
    // step's issue sequence, gpu/pipeline.h stepAsGraph): the capture would be invalidated, or the wait hidden
    // by a later drain(). No such call is captured today; this makes a change that adds one fail loudly.
    void notCapturing(const char* what) const {
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        VBD_CUDA(cudaStreamIsCapturing(stream_, &status));
        if (status != cudaStreamCaptureStatusNone)
            throw std::logic_error(std::string("CudaExec::") + what + " inside a graph capture");
    }
    // The lines of a window left persisting reset, and the carve-out given back to the device's normal use
    // (the CUDA guide: persisting lines stay until reset). Errors ignored: also called from the destructor,
    // and what it undoes is a cache hint.
    void clearPersisting() noexcept {
        cudaCtxResetPersistingL2Cache();
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
        (void)cudaGetLastError();
    }
    // The persisting window on every kernel node of a captured graph: set explicitly rather than relying on
    // the capture to copy the stream's attribute into the nodes.
    cudaError_t windowOnKernelNodes(cudaGraph_t g) const {
        if (window_.num_bytes == 0) return cudaSuccess;
        size_t count = 0;
        cudaError_t e = cudaGraphGetNodes(g, nullptr, &count);
        if (e != cudaSuccess || count == 0) return e;
        std::vector<cudaGraphNode_t> nodes(count);
        e = cudaGraphGetNodes(g, nodes.data(), &count);
        for (size_t i = 0; i < count && e == cudaSuccess; ++i) {
            cudaGraphNodeType type{};
            e = cudaGraphNodeGetType(nodes[i], &type);
            if (e != cudaSuccess || type != cudaGraphNodeTypeKernel) continue;
            cudaKernelNodeAttrValue v{};
            v.accessPolicyWindow = window_;
            e = cudaGraphKernelNodeSetAttribute(nodes[i], cudaKernelNodeAttributeAccessPolicyWindow, &v);
        }
        return e;
    }

    static cudaStream_t newStream() {
        VBD_CUDA(cudaSetDevice(0));
        cudaStream_t s = nullptr;
        VBD_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        return s;
    }

    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t graph_ = nullptr;
    StagedCopies<CudaCopyOps> copies_;
    void* temp_ = nullptr;  // the sorts' and scans' scratch (cudaSortByKey)
    size_t tempBytes_ = 0;
    cudaAccessPolicyWindow window_{};  // setPersistingWindow's (num_bytes 0: none)
};

}  // namespace vbd
