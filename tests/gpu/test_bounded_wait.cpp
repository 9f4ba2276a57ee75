// gpu/bounded_wait.h: the interop writer's teardown waits for its stream at most a limit (a renderer that
// never signals must not hang the app), and never gives up before the limit.
#include <gtest/gtest.h>

#include <chrono>

#include "gpu/bounded_wait.h"

using namespace vbd;
using namespace std::chrono;

TEST(BoundedWait, ReturnsOnceReady) {
    int polls = 0;
    EXPECT_TRUE(waitBounded([&] { return ++polls == 5; }, milliseconds(10000), microseconds(10)));
    EXPECT_EQ(polls, 5);  // asked until it said so, and not again
    polls = 0;
    EXPECT_TRUE(waitBounded([&] { return ++polls > 0; }, milliseconds(0)));  // ready at once: no wait
    EXPECT_EQ(polls, 1);
}

TEST(BoundedWait, GivesUpAfterTheLimitAndNotBefore) {
    int polls = 0;
    const auto t0 = steady_clock::now();
    EXPECT_FALSE(waitBounded(
        [&] {
            ++polls;
            return false;
        },
        milliseconds(50), microseconds(100)));
    const auto waited = steady_clock::now() - t0;
    EXPECT_GE(waited, milliseconds(50));  // the limit is a floor: a slow renderer still gets its time
    EXPECT_GE(polls, 2);                  // asked at the start and again at the end at least
    // The ceiling is the point (no hang); generous for this shared machine's scheduling.
    EXPECT_LT(waited, seconds(5));
}
