// runIsolated (mesh/isolated.h), the child process that assimp and TetGen run in: what it returns, how it
// ends a crash or a loop, and what the child does not inherit.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include "mesh/isolated.h"

namespace vbd {
namespace {

// A child that sleeps `seconds` (a reader looping on its file) under a deadline; `took`: the run's wall time.
IsolatedRun sleeper(int seconds, double timeout, double& took) {
    const auto t0 = std::chrono::steady_clock::now();
    const IsolatedRun run = runIsolated(
        [seconds] {
            std::this_thread::sleep_for(std::chrono::seconds(seconds));
            return std::string("late");
        },
        timeout);
    took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return run;
}

TEST(Isolated, TheChildsBytesComeBackWhole) {
    // 24 MiB: many times a pipe's buffer, so the parent must read while the child writes.
    const IsolatedRun run = runIsolated([] { return std::string(24u << 20, 'x') + "end"; }, 60);
    ASSERT_EQ(run.end, IsolatedRun::End::Done);
    EXPECT_EQ(run.bytes.size(), (24u << 20) + 3);
    EXPECT_EQ(run.bytes.substr(run.bytes.size() - 3), "end");
}

TEST(Isolated, ACrashIsItsSignalAndALoopIsStoppedAtTheDeadline) {
    const IsolatedRun crash = runIsolated([]() -> std::string { std::abort(); }, 60);
    EXPECT_EQ(crash.end, IsolatedRun::End::Crashed);
    EXPECT_EQ(crash.signal, SIGABRT);
    EXPECT_NE(crash.signalText().find("signal 6"), std::string::npos) << crash.signalText();
    EXPECT_TRUE(crash.bytes.empty());

    double took = 0;
    const IsolatedRun loop = sleeper(30, 0.5, took);
    EXPECT_EQ(loop.end, IsolatedRun::End::TimedOut);
    EXPECT_TRUE(loop.bytes.empty());
    EXPECT_LT(took, 10.0);  // the deadline (0.5 s) and the kill, not the child's 30 s
}

// The app closing while a mesh is imported: the run ends within its 0.1 s poll, not at the deadline.
TEST(Isolated, ACancelEndsARunAtOnce) {
    std::thread closer([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancelIsolatedRuns(true);
    });
    double took = 0;
    const IsolatedRun run = sleeper(60, 120, took);
    closer.join();
    cancelIsolatedRuns(false);
    EXPECT_EQ(run.end, IsolatedRun::End::Cancelled);
    EXPECT_LT(took, 10.0);
    // Off again, runs run.
    EXPECT_EQ(runIsolated([] { return std::string("ok"); }, 60).bytes, "ok");
}

// A descriptor the parent holds (here a pipe's write end, as a popen of ffmpeg holds one) is closed in the
// child: held there, the pipe's reader would wait for the child (an MP4 take's pclose blocked for as long as
// TetGen ran).
TEST(Isolated, TheChildHoldsNoDescriptorOfItsParent) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    const int held = ::fcntl(p[1], F_DUPFD, 200);  // above what the child opens for itself
    ASSERT_GE(held, 200);
    const IsolatedRun run =
        runIsolated([held] { return std::string(::fcntl(held, F_GETFD) == -1 ? "closed" : "open"); }, 60);
    ASSERT_EQ(run.end, IsolatedRun::End::Done);
    EXPECT_EQ(run.bytes, "closed");
    ::close(p[0]);
    ::close(p[1]);
    ::close(held);
}

}  // namespace
}  // namespace vbd
