#pragma once
// CPU backend: parallel_for over a functor. Kernels are written as VBD_HD functions of one index;
// the CPU runs them through TBB, the CUDA backend through a one-thread-per-index kernel (same body).
// Determinism: every index writes only its own outputs (gather, no atomics), so results do not
// depend on the partition or the thread count. Reductions go through reduceSum, which sums fixed
// blocks in a fixed order.
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

namespace vbd {

// Limits the number of worker threads for the life of the returned object (0 = hardware default).
class ThreadLimit {
  public:
    explicit ThreadLimit(int threads) {
        if (threads > 0)
            ctl_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         static_cast<size_t>(threads));
    }

  private:
    std::unique_ptr<tbb::global_control> ctl_;
};

template <typename F>
void parallelFor(size_t n, const F& f, size_t grain = 64) {
    if (n == 0) return;
    if (n <= grain) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, grain), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) f(i);
    });
}

// Deterministic sum of f(i) over [0, n): fixed-size blocks summed in parallel, then in order.
template <typename T, typename F>
T reduceSum(size_t n, const F& f, size_t block = 1024) {
    const size_t nb = (n + block - 1) / block;
    std::vector<T> partial(nb, T(0));
    parallelFor(
        nb,
        [&](size_t b) {
            T s = T(0);
            const size_t e = (b + 1) * block < n ? (b + 1) * block : n;
            for (size_t i = b * block; i < e; ++i) s += f(i);
            partial[b] = s;
        },
        1);
    T s = T(0);
    for (const T& p : partial) s += p;
    return s;
}

}  // namespace vbd
