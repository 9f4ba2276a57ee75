// Long-run stability of the built-in rigid scenes (issue 12): 10,000 frames (2.8 minutes of
// simulated time at 60 Hz) of the spinning body and of the 10- and 20-row pyramids. Rigid frames
// are cheap: the whole file runs in ~20 s on two cores.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"

namespace vbd {
namespace {

constexpr float kH = 1.0f / 60.0f;
constexpr int kFrames = 10000;

double angularMomentum(const RigidSolver& s) {
    const RigidBodyState& st = s.states()[0];
    const Vec3d wb = rotateInv(Quatd(st.rotation), Vec3d(st.angularVelocity));
    const Vec3d I = s.inertia(0);
    return norm(Vec3d(I.x * wb.x, I.y * wb.y, I.z * wb.z));
}

TEST(RigidLongRun, SpinningBodyKeepsEnergyAndMomentum) {
    // rigid_spin.json: a 1 x 2 x 3 box spinning at 4 rad/s about its intermediate axis, which
    // tumbles (a flip every few seconds). The seed's explicit gyroscopic step took its kinetic
    // energy from 4.0e3 to 7.3e6 J over these frames. The implicit midpoint step conserves KE
    // and |L| exactly; the float state's rounding (~1e-7 a step, a random walk) leaves 1.3e-5
    // and 6.6e-6 measured. Bounds: KE within 1e-3 (the issue asks for 1%), |L| within 1e-4.
    SceneDesc sc = rigidSpinScene();
    sc.solver.diagnostics = false;
    RigidSolver s(sc);
    const double ke0 = s.kineticEnergy(), l0 = angularMomentum(s);
    double keWorst = 0, lWorst = 0;
    for (int i = 0; i < kFrames; ++i) {
        s.step(kH);
        keWorst = std::max(keWorst, std::fabs(s.kineticEnergy() / ke0 - 1.0));
        lWorst = std::max(lWorst, std::fabs(angularMomentum(s) / l0 - 1.0));
    }
    std::printf("spin, %d frames: max |KE/KE0 - 1| %.2e, max ||L|/|L0| - 1| %.2e\n", kFrames, keWorst,
                lWorst);
    EXPECT_LT(keWorst, 1e-3);
    EXPECT_LT(lWorst, 1e-4);
}

void pyramidRests(int rows) {
    // The pyramid of rigid_pyramid.json (20 rows, 210 boxes of 0.5 m) and a 10-row one. Before
    // the normal multiplier stopped integrating the stabilization (contactDual), the 20-row one
    // rocked out of plane with growing amplitude from frame ~1,500 (kinetic energy 2e-6 J at
    // frame 1,000, 0.11 at 2,500, 6e2 at 3,500) and collapsed near frame 5,100. Requirements: the
    // top box stays within 1 cm of its start over all frames (the start-up dip while the load
    // of the rows above arrives is part of it: 6.6 mm measured on 20 rows, 1.2 mm on 10), no box
    // moves more than 1 cm, and at the end everything is at rest (< 1 mm/s; measured 1e-5 m/s on
    // 20 rows, 1e-8 m/s on 10).
    SceneDesc sc = rigidPyramidScene(rows, 0.5f);
    sc.solver.diagnostics = false;
    RigidSolver s(sc);
    const std::vector<RigidBodyState> x0 = s.states();
    const size_t top = x0.size() - 1;
    float topWorst = 0;
    double speedWorst = 0;
    for (int i = 0; i < kFrames; ++i) {
        s.step(kH);
        topWorst = std::max(topWorst, norm(s.states()[top].position - x0[top].position));
        if (i >= 60) speedWorst = std::max(speedWorst, s.maxSpeed());  // after the first second
    }
    float anyBox = 0;
    for (size_t b = 0; b < x0.size(); ++b)
        anyBox = std::max(anyBox, norm(s.states()[b].position - x0[b].position));
    std::printf(
        "%d-row pyramid, %d frames: top box max drift %.5f m, any box at the end %.5f m, max speed after 1 s "
        "%.2e m/s, final %.2e m/s\n",
        rows, kFrames, topWorst, anyBox, speedWorst, s.maxSpeed());
    EXPECT_LT(topWorst, 0.01f);
    EXPECT_LT(anyBox, 0.01f);
    EXPECT_LT(s.maxSpeed(), 1e-3);
    // Bounded all along, not only at the end: the collapse went through 0.6 m/s.
    EXPECT_LT(speedWorst, 1e-2);
}

TEST(RigidLongRun, TenRowPyramidRests) { pyramidRests(10); }
TEST(RigidLongRun, TwentyRowPyramidRests) { pyramidRests(20); }

}  // namespace
}  // namespace vbd
