// Dihedral bending (energy/bending.h): angle convention, gradient and force against finite differences,
// Gauss-Newton block equal to the exact Hessian at theta = theta0, hinge damping zero for rigid motion.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "energy/bending.h"
#include "fd_util.h"
#include "math/quat.h"

using namespace vbd;
using namespace vbdtest;

namespace {

using Stencil = std::array<Vec3d, 4>;

// Hinge along x: x0 = 0, x1 = e_x, wings at angle +-phi out of the xz plane; then a random rigid motion.
Stencil hinge(std::mt19937& rng, double foldAngle) {
    Stencil x;
    x[0] = Vec3d(0, 0, 0);
    x[1] = Vec3d(1, 0, 0);
    x[2] = Vec3d(0.4, 0, 0.8);
    // wing B rotated by foldAngle about the x axis from its flat position (0.6, 0, -0.9)
    x[3] = Vec3d(0.6, 0.9 * std::sin(foldAngle), -0.9 * std::cos(foldAngle));
    for (auto& p : x) p += randomVec(rng, 0.1);
    const Quat q = fromRotationVector(Vec3(randomVec(rng, 3.0)));
    const Vec3d t = randomVec(rng, 2.0);
    for (auto& p : x) p = Vec3d(rotate(q, Vec3(p))) + t;
    return x;
}

double theta(const Stencil& x) { return dihedralAngle(x[0], x[1], x[2], x[3]); }

}  // namespace

TEST(Bending, FlatPairHasZeroAngleAndSignFollowsFold) {
    const Stencil flat = {Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0.5, 1, 0), Vec3d(0.5, -1, 0)};
    EXPECT_NEAR(theta(flat), 0.0, 1e-15);  // exactly coplanar
    Stencil up = flat;
    up[2].z = 0.1;
    up[3].z = 0.1;
    // both wings lifted by 0.1 at height 1: theta = -2 atan(0.1)
    EXPECT_NEAR(theta(up), -2 * std::atan(0.1), 1e-12);
}

TEST(Bending, GradientAndForceMatchFiniteDifferences) {
    std::mt19937 rng(11);
    const double h = 1e-6, kL = 0.7;
    for (int trial = 0; trial < 60; ++trial) {
        // fold angles spanning (-2.8, 2.8) rad: away from the degenerate fully folded +-pi
        const double fold = -2.8 + 5.6 * trial / 59.0;
        const Stencil x = hinge(rng, fold);
        const double theta0 = 0.3 * std::sin(double(trial));
        double th;
        Vec3d g[4];
        ASSERT_TRUE(dihedralGradient(x[0], x[1], x[2], x[3], th, g));
        EXPECT_NEAR(th, theta(x), 1e-14);
        // translation invariance: sum of gradients vanishes (double roundoff of O(1) terms)
        EXPECT_LT(norm(g[0] + g[1] + g[2] + g[3]), 1e-12);
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            bendingVertex(th, g[a], theta0, kL, f, H);
            for (int c = 0; c < 3; ++c) {
                Stencil xp = x, xm = x;
                xp[size_t(a)][c] += h;
                xm[size_t(a)][c] -= h;
                const double dth = (theta(xp) - theta(xm)) / (2 * h);
                // central difference of an O(1)-curvature angle: O(h^2) + roundoff 1e-16/h = 1e-10
                EXPECT_NEAR(g[a][c], dth, 1e-7) << "trial " << trial << " a " << a;
                const double fd = -(bendingEnergy(xp[0], xp[1], xp[2], xp[3], theta0, kL) -
                                    bendingEnergy(xm[0], xm[1], xm[2], xm[3], theta0, kL)) /
                                  (2 * h);
                EXPECT_NEAR(f[c], fd, 1e-7 * (1 + std::fabs(fd)));
            }
        }
    }
}

// At theta = theta0 the dropped (theta - theta0) d2theta term is zero, so the Gauss-Newton block is the
// exact Hessian: compare with the finite-difference Jacobian of the force.
TEST(Bending, GaussNewtonBlockIsExactHessianAtRestAngleAndPsd) {
    std::mt19937 rng(12);
    const double h = 1e-6, kL = 0.7;
    for (int trial = 0; trial < 40; ++trial) {
        const Stencil x = hinge(rng, -2.5 + 5.0 * trial / 39.0);
        const double theta0 = theta(x);
        for (int a = 0; a < 4; ++a) {
            double th;
            Vec3d g[4], f;
            Mat33d H;
            dihedralGradient(x[0], x[1], x[2], x[3], th, g);
            bendingVertex(th, g[a], theta0, kL, f, H);
            const Mat33d fdH = fdForceJacobian(x, a, h, [&](const Stencil& y) {
                Vec3d gy[4], fy;
                Mat33d tmp;
                double ty;
                dihedralGradient(y[0], y[1], y[2], y[3], ty, gy);
                bendingVertex(ty, gy[a], theta0, kL, fy, tmp);
                return fy;
            });
            // O(1) entries; FD error 1e-10 roundoff + O(h) from the second-order (theta - theta0) term.
            EXPECT_LT(maxAbs(H - fdH), 1e-6 * (1 + maxAbs(H))) << "trial " << trial << " a " << a;
            // k L g g^T: rank one, PSD; the closed-form eigen solver resolves the double zero eigenvalue to
            // ~sqrt(eps) = 1e-8 of the matrix scale.
            EXPECT_GE(minEigenSym(H), -1e-7 * (1 + maxAbs(H)));
        }
    }
}

TEST(Bending, DegenerateStencilGivesNoForce) {
    const Stencil x = {Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0.5, 0, 0), Vec3d(0.5, -1, 0)};  // A collapsed
    double th;
    Vec3d g[4];
    EXPECT_FALSE(dihedralGradient(x[0], x[1], x[2], x[3], th, g));
    for (const Vec3d& gi : g) EXPECT_EQ(norm(gi), 0.0);
}

TEST(BendingDamping, ForceIsGradientOfPotentialAndZeroForRigidMotion) {
    std::mt19937 rng(13);
    const double h = 1e-6, dt = 0.01, kL = 0.5, kd = 0.1;
    for (int trial = 0; trial < 30; ++trial) {
        const Stencil xp = hinge(rng, -2.0 + 4.0 * trial / 29.0);
        Stencil x = xp;
        for (auto& p : x) p += randomVec(rng, 0.03);
        const double thPrev = theta(xp);
        double th;
        Vec3d g[4];
        dihedralGradient(x[0], x[1], x[2], x[3], th, g);
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            bendingDampingVertex(th, thPrev, g[a], kL, kd, dt, f, H);
            for (int c = 0; c < 3; ++c) {
                Stencil ap = x, am = x;
                ap[size_t(a)][c] += h;
                am[size_t(a)][c] -= h;
                const double fd = -(bendingDampingPotential(theta(ap), thPrev, kL, kd, dt) -
                                    bendingDampingPotential(theta(am), thPrev, kL, kd, dt)) /
                                  (2 * h);
                EXPECT_NEAR(f[c], fd, 1e-6 * (1 + std::fabs(fd)));  // as the elastic FD test
            }
        }
        // Rigid translation and rotation of x_prev: theta unchanged, damping force zero.
        const Quat q = fromRotationVector(Vec3(-0.4f, 1.1f, 0.3f));
        Stencil xr;
        for (int a = 0; a < 4; ++a) xr[size_t(a)] = Vec3d(rotate(q, Vec3(xp[size_t(a)]))) + Vec3d(1, -2, 0.5);
        dihedralGradient(xr[0], xr[1], xr[2], xr[3], th, g);
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            bendingDampingVertex(th, thPrev, g[a], kL, kd, dt, f, H);
            // float rotation changes theta by ~1e-7: rate 1e-5, force c/h dtheta |g| ~ 0.05 * 1e-5.
            EXPECT_LT(norm(f), 1e-5);
        }
    }
}
