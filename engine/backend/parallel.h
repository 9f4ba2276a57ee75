#pragma once
// CPU backend: parallel_for over a functor. Kernels are written as VBD_HD functions of one index;
// the CPU runs them on the thread team (backend/thread_team.h), the CUDA backend through a
// one-thread-per-index kernel (same body).
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

#include "backend/thread_team.h"

namespace vbd {

namespace detail {
// The calling thread's limit (0 = every thread of the team): a limit belongs to the thread that set
// it, so two simulations stepped on two threads (the app's side-by-side windows) keep their own.
inline thread_local int threadLimit = 0;
}  // namespace detail

// Limits the threads of the loops this thread starts, for the life of the returned object
// (0 = hardware default). TBB's global limit follows, for the loops that still run on TBB (the
// team busy with another thread's loop, tbb::parallel_sort).
class ThreadLimit {
  public:
    explicit ThreadLimit(int threads) : previous_(detail::threadLimit) {
        if (threads > 0) {
            detail::threadLimit = threads;
            ctl_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         static_cast<size_t>(threads));
        }
    }
    ~ThreadLimit() { detail::threadLimit = previous_; }
    ThreadLimit(const ThreadLimit&) = delete;
    ThreadLimit& operator=(const ThreadLimit&) = delete;

  private:
    int previous_;
    std::unique_ptr<tbb::global_control> ctl_;
};

// Runs f(i) for i in [0, n). grain: loops of at most grain indices run on the caller, and no thread
// takes fewer than grain indices at once (choose it so that a chunk's work dwarfs one atomic claim,
// ~0.05 µs, and the false sharing at its edges).
template <typename F>
void parallelFor(size_t n, const F& f, size_t grain = 64) {
    if (n == 0) return;
    const int threads = detail::threadLimit > 0 ? detail::threadLimit : teamSize();
    if (n <= grain || threads <= 1 || insideTeamLoop()) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    const ChunkFn body = [](const void* ctx, size_t begin, size_t end) {
        const F& g = *static_cast<const F*>(ctx);
        for (size_t i = begin; i != end; ++i) g(i);
    };
    if (teamRun(n, grain, threads, body, &f)) return;
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
