#pragma once
// The device step's executor on the CPU (gpu/pipeline.h): its memory is host memory, a launch is a
// parallelFor over the same functors, a reduction a sum in index order. It has no graphs: the pipeline
// issues every stage directly. Tests run the whole device orchestration through it without a GPU.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "backend/parallel.h"

namespace vbd {

// The order in which the host executor runs a launch's indices. A GPU runs them concurrently in no order, so
// a stage whose result depended on it (one index reading what another of the same launch writes) would differ
// there; the one-thread host runs them in index order and would not show it. Tests run the same steps
// Reversed and Shuffled against Forward (test_gpu_host_pipeline / test_gpu_rigid_host
// LaunchOrderChangesNothing): any difference is an intra-launch dependence. Reversed and Shuffled run on the
// calling thread. Process-wide; set it only while no step runs (ScopedLaunchOrder).
enum class LaunchOrder { Forward, Reversed, Shuffled };
inline LaunchOrder& hostLaunchOrder() {
    static LaunchOrder order = LaunchOrder::Forward;
    return order;
}
struct ScopedLaunchOrder {
    explicit ScopedLaunchOrder(LaunchOrder o) : was(hostLaunchOrder()) { hostLaunchOrder() = o; }
    ~ScopedLaunchOrder() { hostLaunchOrder() = was; }
    ScopedLaunchOrder(const ScopedLaunchOrder&) = delete;
    ScopedLaunchOrder& operator=(const ScopedLaunchOrder&) = delete;
    LaunchOrder was;
};

struct HostExec {
    // The sweeps' default width here is 1 lane (SweepStage: the CPU solver's order, bit for bit); a wider
    // tile set by a test is emulated by its first lane, which does every lane's share (gpu/tile_sum.h).
    static constexpr bool kTiles = false;
    template <typename U>
    U* alloc(size_t n) {
        if (n == 0) return nullptr;
        void* p = std::calloc(n, sizeof(U));
        if (!p) throw std::bad_alloc();
        return static_cast<U*>(p);
    }
    void release(void* p) { std::free(p); }
    static void freeMemory(void* p) { std::free(p); }
    static void syncDevice() {}
    // A point in the executor's work that another thread can wait for (CudaExec::mark): the host's work is
    // done when it is issued.
    void* mark() { return nullptr; }
    static void waitMark(void* m) { (void)m; }
    static void freeMark(void* m) { (void)m; }
    // bytes of the executor's memory to the host at once, from any thread (after waitMark).
    static void downloadNow(void* dst, const void* src, size_t bytes) {
        if (bytes) std::memcpy(dst, src, bytes);
    }
    template <typename U>
    void upload(U* dst, const U* src, size_t n) {
        if (n) std::memcpy(static_cast<void*>(dst), static_cast<const void*>(src), n * sizeof(U));
    }
    template <typename U>
    void download(U* dst, const U* src, size_t n) {
        upload(dst, src, n);
    }
    template <typename F>
    void forEach(int n, const F& f) {
        if (n <= 0) return;
        switch (hostLaunchOrder()) {
            case LaunchOrder::Forward:
                parallelFor(size_t(n), [&](size_t i) { f(int(i)); });
                return;
            case LaunchOrder::Reversed:
                for (int i = n - 1; i >= 0; --i) f(i);
                return;
            case LaunchOrder::Shuffled: {
                // A Fisher-Yates permutation from a generator that moves on with every launch (deterministic
                // for a given sequence of launches).
                static std::uint32_t state = 12345u;
                std::vector<int> order(static_cast<size_t>(n));
                for (int i = 0; i < n; ++i) order[size_t(i)] = i;
                for (int i = n - 1; i > 0; --i) {
                    state = state * 1664525u + 1013904223u;
                    std::swap(order[size_t(i)], order[size_t((state >> 8) % std::uint32_t(i + 1))]);
                }
                for (int i : order) f(i);
                return;
            }
        }
    }
    template <typename F>
    void forEach(int n, const F& f, int block) {  // the device's block size: nothing to the host
        (void)block;
        forEach(n, f);
    }
    // *out (+)= sum of f(i), i = 0..n-1, in index order (partials unused on the host).
    template <typename F, typename R>
    void reduce(int n, const F& f, R* partials, R* out, bool accumulate) {
        (void)partials;
        R sum{};
        for (int i = 0; i < n; ++i) sum = sum + f(i);
        *out = accumulate ? *out + sum : sum;
    }
    // keysOut, valsOut <- the n pairs (keysIn[k], valsIn[k]) sorted by key, stably (equal keys keep their
    // order); keys below 2^endBit. In and out are distinct arrays.
    void sortByKey(const uint64_t* keysIn, uint64_t* keysOut, const int* valsIn, int* valsOut, int n,
                   int endBit) {
        (void)endBit;
        std::vector<int> order(size_t(n > 0 ? n : 0));
        for (int k = 0; k < n; ++k) order[size_t(k)] = k;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keysIn[a] < keysIn[b]; });
        for (int k = 0; k < n; ++k) {
            keysOut[k] = keysIn[order[size_t(k)]];
            valsOut[k] = valsIn[order[size_t(k)]];
        }
    }
    void sortKeys(const uint64_t* in, uint64_t* out, int n, int endBit) {
        (void)endBit;
        if (n <= 0) return;
        std::copy(in, in + n, out);
        std::sort(out, out + n);
    }
    // out[k] = in[0] + ... + in[k - 1] for k < n (out[0] = 0).
    void exclusiveScan(const int* in, int* out, int n) {
        int sum = 0;
        for (int k = 0; k < n; ++k) {
            const int v = in[k];  // in and out may be the same array
            out[k] = sum;
            sum += v;
        }
    }
    void sync() {}
    void drain() {}
    bool graphs() const { return false; }
    template <typename Issue>
    void captureGraph(Issue&& issue) {
        issue();
    }
    void launchGraph() {}
    void dropGraph() {}
    void* nativeStream() const { return nullptr; }
    int device() const { return -1; }                              // host memory
    size_t setPersistingWindow(const void*, size_t) { return 0; }  // no cache to steer
};

}  // namespace vbd
