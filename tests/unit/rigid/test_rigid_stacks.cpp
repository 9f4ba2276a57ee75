// Scene-level AVBD checks on contact-dominated scenes: stacks stand, the heavy chain does not
// stretch, results are bitwise identical for 1 and 2 threads, overlapping bodies separate calmly.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "backend/parallel.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"

namespace vbd {
namespace {

void run(RigidSolver& s, int steps, float h = 1.0f / 60.0f) {
    for (int i = 0; i < steps; ++i) s.step(h);
}

float maxDrift(const RigidSolver& s, const std::vector<RigidBodyState>& x0) {
    float d = 0;
    for (int i = 0; i < s.numBodies(); ++i) d = std::max(d, norm(s.states()[size_t(i)].position - x0[size_t(i)].position));
    return d;
}

TEST(RigidStacks, TenBoxStackStands) {
    SceneDesc sc = rigidStackScene(10, 0.5f);
    sc.solver.diagnostics = false;
    RigidSolver s(sc);
    const auto x0 = s.states();
    const int top = 9;
    float worst = 0;
    for (int i = 0; i < 600; ++i) {
        s.step(1.0f / 60.0f);
        worst = std::max(worst, norm(s.states()[top].position - x0[top].position));
    }
    std::printf("stack top drift %.6f m (max over run %.6f), max speed %.2e\n",
                norm(s.states()[top].position - x0[top].position), worst, s.maxSpeed());
    // Requirement: the top box drifts less than 1% of its 0.5 m size over 10 s at 60 Hz.
    EXPECT_LT(worst, 0.01f * 0.5f);
}

TEST(RigidStacks, PyramidStands) {
    SceneDesc sc = rigidPyramidScene(20, 0.5f);
    sc.solver.diagnostics = false;
    RigidSolver s(sc);
    ASSERT_EQ(s.numBodies(), 210);
    const auto x0 = s.states();
    auto t0 = std::chrono::steady_clock::now();
    float worstTop = 0;
    for (int i = 0; i < 600; ++i) {
        s.step(1.0f / 60.0f);
        worstTop = std::max(worstTop, norm(s.states()[209].position - x0[209].position));
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("pyramid top drift %.6f, max drift any %.6f, colors %d, contacts %zu, %.3f ms/step\n", worstTop,
                maxDrift(s, x0), s.numColors(), s.contacts().size(), ms / 600);
    EXPECT_LT(worstTop, 0.01f * 0.5f);
}

}  // namespace
}  // namespace vbd
