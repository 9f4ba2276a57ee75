// The thread team behind parallelFor (backend/thread_team.h): every index runs exactly once whatever
// the loop size, chunk size, thread limit, nesting or concurrent callers; exceptions reach the caller and
// leave the team usable; ThreadLimit belongs to the thread that set it.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/parallel.h"

#include "threads_seen.h"

using namespace vbd;

namespace {

// Runs a loop of n counting visits per index; true when each index was visited exactly once.
bool eachOnce(size_t n, size_t grain) {
    std::vector<std::atomic<int>> visits(n);
    parallelFor(
        n, [&](size_t i) { visits[i].fetch_add(1, std::memory_order_relaxed); }, grain);
    for (size_t i = 0; i < n; ++i)
        if (visits[i].load() != 1) return false;
    return true;
}

}  // namespace

TEST(ThreadTeam, EveryIndexExactlyOnce) {
    for (int threads : {1, 2, 3, 8}) {
        ThreadLimit limit(threads);
        for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(7), size_t(64), size_t(65),
                         size_t(127), size_t(1000), size_t(4099), size_t(100000)})
            for (size_t grain : {size_t(1), size_t(4), size_t(16), size_t(128)})
                ASSERT_TRUE(eachOnce(n, grain)) << "threads " << threads << " n " << n << " grain " << grain;
    }
}

// Thousands of back-to-back short loops: the publish / join protocol (epochs, late workers) must never
// lose or repeat an index, and a loop's results must be visible to the caller when it returns.
TEST(ThreadTeam, BackToBackLoopsSeeEachOthersWrites) {
    ThreadLimit limit(2);
    std::vector<int> a(97, 0);
    for (int round = 1; round <= 5000; ++round)
        parallelFor(
            a.size(), [&](size_t i) { a[i] += 1; }, 1);
    for (int v : a) ASSERT_EQ(v, 5000);
}

TEST(ThreadTeam, NestedLoopsRunSeriallyAndCompletely) {
    ThreadLimit limit(2);
    std::vector<std::atomic<int>> visits(64 * 50);
    parallelFor(
        64,
        [&](size_t i) {
            parallelFor(
                50, [&](size_t j) { visits[i * 50 + j].fetch_add(1, std::memory_order_relaxed); }, 1);
        },
        1);
    for (auto& v : visits) ASSERT_EQ(v.load(), 1);
}

// Two threads starting loops at once (the app's two windows): one gets the team, the other TBB; both
// complete every index.
TEST(ThreadTeam, ConcurrentCallers) {
    std::atomic<bool> ok{true};
    auto caller = [&] {
        ThreadLimit limit(2);
        for (int r = 0; r < 300; ++r)
            if (!eachOnce(500 + size_t(r), 8)) ok = false;
    };
    std::thread a(caller), b(caller);
    a.join();
    b.join();
    EXPECT_TRUE(ok.load());
}

TEST(ThreadTeam, ExceptionReachesCallerAndTeamStaysUsable) {
    ThreadLimit limit(2);
    for (int r = 0; r < 20; ++r) {
        EXPECT_THROW(parallelFor(
                         1000,
                         [&](size_t i) {
                             if (i == size_t(37 * r)) throw std::runtime_error("index failed");
                         },
                         4),
                     std::runtime_error);
        ASSERT_TRUE(eachOnce(1000, 4));
    }
}

// ThreadLimit(1) keeps every index on the calling thread; the previous limit comes back when it ends.
TEST(ThreadTeam, LimitOfOneRunsOnTheCaller) {
    ThreadLimit two(2);
    {
        ThreadLimit one(1);
        std::vector<std::thread::id> who(5000);
        parallelFor(
            who.size(), [&](size_t i) { who[i] = std::this_thread::get_id(); }, 1);
        for (const auto& id : who) ASSERT_EQ(id, std::this_thread::get_id());
    }
    EXPECT_EQ(detail::threadLimit, 2);
    EXPECT_TRUE(eachOnce(5000, 1));
}

// With two threads allowed and enough work, the loop really is shared (on a machine with 2+ hardware
// threads): over many long loops the workers must take part at least once. A worker may sleep through
// any single loop, so this asks for one in 200.
TEST(ThreadTeam, WorkersTakePart) {
    if (teamSize() < 2) GTEST_SKIP() << "one hardware thread: no workers";
    ThreadLimit limit(2);
    EXPECT_GE(vbdtest::threadsSeen([](size_t n, const auto& mark) { parallelFor(n, mark, 1); }), 2u);
}

// reduceSum adds fixed blocks in a fixed order: the same bits for every thread count.
TEST(ThreadTeam, ReduceSumIsThreadCountIndependent) {
    auto f = [](size_t i) { return 1.0 / double(i + 1); };
    double ref = 0;
    {
        ThreadLimit one(1);
        ref = reduceSum<double>(100000, f);
    }
    for (int threads : {2, 3, 8}) {
        ThreadLimit limit(threads);
        EXPECT_EQ(reduceSum<double>(100000, f), ref) << threads << " threads";
    }
}
