// parallelPhases (backend/phases.h): a chain of dependent loops in one team loop must give what the chain of
// separate loops gives. Each phase here reads the previous phase's values at mirrored indices, which the
// other slot wrote (the shares are contiguous halves), so a barrier that let a slot run ahead would read a
// stale value and the sums would differ from the serial chain's.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/phases.h"

using namespace vbd;

namespace {

// Phase p has size(p) indices; value p, i = 1 + value (p - 1, mirror of i) + i (every phase reads the
// previous one across the whole range). Returns the last phase's values.
std::vector<long> chain(const std::vector<size_t>& sizes, size_t minShare) {
    std::vector<std::vector<long>> v(sizes.size());
    for (size_t p = 0; p < sizes.size(); ++p) v[p].assign(sizes[p], -1);
    parallelPhases(
        sizes.size(), [&](size_t p) { return sizes[p]; },
        [&](size_t p, size_t i) {
            long prev = 0;
            if (p > 0 && !v[p - 1].empty()) {
                const size_t m = v[p - 1].size();
                prev = v[p - 1][(m - 1 - i % m)];
            }
            v[p][i] = 1 + prev + long(i);
        },
        minShare);
    return sizes.empty() ? std::vector<long>() : v.back();
}

std::vector<long> serialChain(const std::vector<size_t>& sizes) {
    ThreadLimit one(1);
    return chain(sizes, 1);
}

}  // namespace

TEST(Phases, SameAsTheSerialChainForAnyThreadCountAndShare) {
    const std::vector<std::vector<size_t>> cases = {{},
                                                    {0},
                                                    {1},
                                                    {5},
                                                    {200},
                                                    {120, 121, 119, 118},
                                                    {64, 0, 64, 3, 300},
                                                    {1000, 1000, 1000, 1000, 1000, 1000}};
    for (const auto& sizes : cases) {
        const std::vector<long> want = serialChain(sizes);
        for (int threads : {1, 2, 3, 8})
            for (size_t share : {size_t(1), size_t(4), size_t(16), size_t(64)}) {
                ThreadLimit limit(threads);
                for (int r = 0; r < 20; ++r)
                    ASSERT_EQ(chain(sizes, share), want)
                        << "threads " << threads << " share " << share << " phases " << sizes.size();
            }
    }
}

// Thousands of short chains back to back (the sweeps of a step): a late worker, a slot claimed by the
// caller at the first barrier, or a barrier of the previous chain must never mix two chains.
TEST(Phases, BackToBackChains) {
    ThreadLimit limit(2);
    const std::vector<size_t> sizes = {120, 124, 118, 130};
    const std::vector<long> want = serialChain(sizes);
    for (int r = 0; r < 3000; ++r) ASSERT_EQ(chain(sizes, 16), want) << "round " << r;
}

TEST(Phases, ExceptionReachesCallerAndTeamStaysUsable) {
    ThreadLimit limit(2);
    for (int r = 0; r < 20; ++r) {
        EXPECT_THROW(parallelPhases(
                         4, [](size_t) { return size_t(500); },
                         [&](size_t p, size_t i) {
                             if (p == size_t(r % 4) && i == size_t(23 * r))
                                 throw std::runtime_error("failed");
                         },
                         8),
                     std::runtime_error);
        std::vector<std::atomic<int>> visits(500);
        parallelFor(
            500, [&](size_t i) { visits[i].fetch_add(1); }, 4);
        for (auto& v : visits) ASSERT_EQ(v.load(), 1);
        ASSERT_EQ(chain({100, 100, 100}, 8), serialChain({100, 100, 100}));
    }
}

// With two threads and enough work per phase, both take part (one in 200 chains at least: a worker may
// sleep through any one chain, and the caller then runs its slot).
TEST(Phases, WorkersTakePart) {
    if (teamSize() < 2) GTEST_SKIP() << "one hardware thread: no workers";
    ThreadLimit limit(2);
    std::set<std::thread::id> seen;
    std::vector<std::thread::id> who(256);
    for (int r = 0; r < 200 && seen.size() < 2; ++r) {
        parallelPhases(
            3, [&](size_t) { return who.size(); },
            [&](size_t, size_t i) {
                volatile double s = 0;
                for (int k = 0; k < 2000; ++k) s = s + 1e-3;
                who[i] = std::this_thread::get_id();
            },
            1);
        seen.insert(who.begin(), who.end());
    }
    EXPECT_GE(seen.size(), 2u);
}

// Inside a team loop (a nested call) the chain runs serially on that thread, and completely.
TEST(Phases, NestedChainRunsSerially) {
    ThreadLimit limit(2);
    std::vector<std::atomic<int>> visits(8 * 3 * 40);
    parallelFor(
        8,
        [&](size_t j) {
            parallelPhases(
                3, [](size_t) { return size_t(40); },
                [&](size_t p, size_t i) { visits[(j * 3 + p) * 40 + i].fetch_add(1); }, 1);
        },
        1);
    for (auto& v : visits) ASSERT_EQ(v.load(), 1);
}
