// parallelPhases (backend/phases.h): a chain of dependent loops in one team loop must give what the chain of
// separate loops gives. Each phase here reads the previous phase's values at mirrored indices, which the
// other slot wrote (the shares are contiguous halves), so a barrier that let a slot run ahead would read a
// stale value and the sums would differ from the serial chain's.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/phases.h"

#include "threads_seen.h"

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
    EXPECT_GE(vbdtest::threadsSeen([](size_t n, const auto& mark) {
                  parallelPhases(
                      3, [n](size_t) { return n; }, [&](size_t, size_t i) { mark(i); }, 1);
              }),
              2u);
}

// A caller's shares (SoftSolver's shares of equal work): each index runs once per phase, each share on one
// thread, and the chain gives the serial result. Slot 0 gets nine tenths of every phase here, so the even
// halves would change threads inside slot 0's share; a run where both threads took part shows it. (Slot 0 had
// a tenth before: the caller, done with it at once, took the worker's slot too whenever the worker woke late,
// and under the sanitizer CI's load no run of 200 had the worker take part. With slot 0 nine times longer
// the worker has that long to wake.)
TEST(Phases, CallersSharesAreTheSlotsRanges) {
    if (teamSize() < 2) GTEST_SKIP() << "one hardware thread: no workers";
    ThreadLimit limit(2);
    const size_t phases = 3, n = 400;
    auto shares = [](size_t, int s, int slots, size_t size) {
        return s == 0 ? size_t(0)
                      : size * 9 / 10 + (size - size * 9 / 10) * size_t(s - 1) / size_t(slots - 1);
    };
    bool sawTwo = false;
    for (int r = 0; r < 200 && !sawTwo; ++r) {
        std::vector<std::vector<std::thread::id>> who(phases, std::vector<std::thread::id>(n));
        std::vector<std::vector<std::atomic<int>>> visits(phases);
        for (auto& v : visits) v = std::vector<std::atomic<int>>(n);
        parallelPhases(
            phases, [n](size_t) { return n; },
            [&](size_t p, size_t i) {
                volatile double spin = 0;
                for (int k = 0; k < 500; ++k) spin = spin + 1e-3;
                visits[p][i].fetch_add(1);
                who[p][i] = std::this_thread::get_id();
            },
            1, NoEarlyStart(), shares);
        for (size_t p = 0; p < phases; ++p) {
            for (size_t i = 0; i < n; ++i)
                ASSERT_EQ(visits[p][i].load(), 1) << "phase " << p << " index " << i;
            for (size_t i = 1; i < n; ++i) {
                if (i == n * 9 / 10) continue;  // the one place the thread may change
                ASSERT_EQ(who[p][i], who[p][i - 1]) << "phase " << p << " index " << i;
            }
            sawTwo = sawTwo || who[p][0] != who[p][n - 1];
        }
    }
    EXPECT_TRUE(sawTwo) << "the worker never took part";
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

namespace {

// A Gauss-Seidel chain on a path of n vertices colored by parity (the sweep in miniature): phase p updates
// the vertices of color p % 2 from their two neighbours. split marks as early the indices of a slot's share
// whose neighbours lie in the same slot's shares, as SoftSolver::prepareSplit does (without reordering: the
// early ones must come first, so the share is scanned for its first vertex with a foreign neighbour).
struct PathChain {
    int n;
    std::vector<std::vector<int>> groups;  // color 0: even vertices, color 1: odd ones
    explicit PathChain(int n_) : n(n_), groups(2) {
        for (int v = 0; v < n; ++v) groups[size_t(v % 2)].push_back(v);
    }
    // The slot of each vertex for `slots` shares per color.
    std::vector<int> slotOf(int slots) const {
        std::vector<int> s(static_cast<size_t>(n));
        for (const auto& g : groups)
            for (int k = 0; k < slots; ++k)
                for (size_t i = g.size() * size_t(k) / size_t(slots);
                     i < g.size() * size_t(k + 1) / size_t(slots); ++i)
                    s[size_t(g[i])] = k;
        return s;
    }
    std::vector<double> run(int sweeps) const {
        std::vector<double> x(static_cast<size_t>(n));
        for (int v = 0; v < n; ++v) x[size_t(v)] = double((v * 37) % 11);
        std::vector<std::vector<int>> slotsOf(kMaxSlotsTested + 1);
        for (int s = 1; s <= kMaxSlotsTested; ++s) slotsOf[size_t(s)] = slotOf(s);
        parallelPhases(
            2 * size_t(sweeps), [&](size_t p) { return groups[p % 2].size(); },
            [&](size_t p, size_t i) {
                const int v = groups[p % 2][i];
                const double l = v > 0 ? x[size_t(v) - 1] : 0.0, r = v + 1 < n ? x[size_t(v) + 1] : 0.0;
                x[size_t(v)] = 0.5 * (l + r) + 1.0;
            },
            4,
            [&](size_t p, int slot, int slots, size_t b, size_t e) {
                const std::vector<int>& so = slotsOf[size_t(slots)];
                size_t m = b;
                for (; m < e; ++m) {
                    const int v = groups[p % 2][m];
                    const bool foreign =
                        (v > 0 && so[size_t(v) - 1] != slot) || (v + 1 < n && so[size_t(v) + 1] != slot);
                    if (foreign) break;
                }
                return m;
            });
        return x;
    }
    static constexpr int kMaxSlotsTested = 8;
};

}  // namespace

// The early start must not change a bit: the interior of a share neither reads nor is read by another slot.
TEST(Phases, EarlyStartGivesTheSerialChain) {
    const PathChain chain(2000);
    std::vector<double> want;
    {
        ThreadLimit one(1);
        want = chain.run(30);
    }
    for (int threads : {2, 3, 8}) {
        ThreadLimit limit(threads);
        for (int r = 0; r < 50; ++r)
            ASSERT_EQ(chain.run(30), want) << "threads " << threads << " round " << r;
    }
}
