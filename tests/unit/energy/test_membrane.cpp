// Stable Neo-Hookean membrane (seed, "The Tight PSD Clamp for the Membrane"): force = -grad E, the exact
// block (normal term kept) against finite differences, the clamped block PSD for any triangle, the
// seed's two lemmas, and the strain-rate damping (gradient of its potential, zero for rigid motion).
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "energy/material.h"
#include "energy/membrane.h"
#include "fd_util.h"
#include "math/quat.h"

using namespace vbd;
using namespace vbdtest;

namespace {

struct RestTri {
    std::array<Vec3d, 3> X;  // 3D rest positions in the z = 0 plane
    double d[4];
    double area;
};

RestTri randomRestTri(std::mt19937& rng) {
    for (;;) {
        RestTri t;
        t.X[0] = Vec3d(0, 0, 0);
        t.X[1] = Vec3d(1, 0, 0) + randomVec(rng, 0.3);
        t.X[2] = Vec3d(0, 1, 0) + randomVec(rng, 0.3);
        for (auto& p : t.X) p.z = 0;
        const double a = t.X[1].x - t.X[0].x, b = t.X[2].x - t.X[0].x, c = t.X[1].y - t.X[0].y,
                     dd = t.X[2].y - t.X[0].y;
        const double det = a * dd - b * c;
        if (det < 0.3) continue;
        t.d[0] = dd / det;
        t.d[1] = -b / det;
        t.d[2] = -c / det;
        t.d[3] = a / det;
        t.area = 0.5 * det;
        return t;
    }
}

double triEnergy(const RestTri& r, const std::array<Vec3d, 3>& x, double mu, double lam) {
    Vec3d f0, f1;
    triDeformationGradient(x[0], x[1], x[2], r.d, f0, f1);
    return r.area * membranePsi(f0, f1, mu, lam);
}

void vertexTerms(const RestTri& r, const std::array<Vec3d, 3>& x, int a, double mu, double lam, Vec3d& f,
                 Mat33d& H, bool clamp) {
    Vec3d f0, f1;
    triDeformationGradient(x[0], x[1], x[2], r.d, f0, f1);
    double m0, m1;
    triVertexWeight(r.d, a, m0, m1);
    membraneVertex(f0, f1, m0, m1, r.area, mu, lam, f, H, clamp);
}

// Current positions: random rigid rotation of a random affine image of the rest triangle, with a 3D
// perturbation; `scale` sets the stretch (s > 0 needs J_s > alpha).
std::array<Vec3d, 3> deform(std::mt19937& rng, const RestTri& r, double scale, double noise) {
    std::array<Vec3d, 3> x;
    const Quat q = fromRotationVector(Vec3(randomVec(rng, 3.0)));
    for (int a = 0; a < 3; ++a)
        x[size_t(a)] = Vec3d(rotate(q, Vec3(r.X[size_t(a)] * scale))) + randomVec(rng, noise);
    return x;
}

const double kMu = 2.0, kLam = 15.0;

}  // namespace

TEST(Membrane, RestStateHasZeroEnergyAndForce) {
    std::mt19937 rng(1);
    for (int trial = 0; trial < 10; ++trial) {
        RestTri r = randomRestTri(rng);
        auto x = deform(rng, r, 1.0, 0.0);
        // float rotation (1e-7) of O(1) coordinates: energy ~ mu (1e-7)^2, force ~ mu 1e-7.
        EXPECT_NEAR(triEnergy(r, x, kMu, kLam), 0.0, 1e-9);
        for (int a = 0; a < 3; ++a) {
            Vec3d f;
            Mat33d H;
            vertexTerms(r, x, a, kMu, kLam, f, H, true);
            EXPECT_LT(norm(f), 1e-5);
        }
    }
}

TEST(Membrane, ForceMatchesFiniteDifferenceOfEnergy) {
    std::mt19937 rng(2);
    const double h = 1e-6;
    for (int trial = 0; trial < 60; ++trial) {
        RestTri r = randomRestTri(rng);
        // scales 0.5 (compressed, s < 0) .. 1.6 (stretched, s > 0), plus out-of-plane noise
        auto x = deform(rng, r, 0.5 + 1.1 * (trial % 12) / 11.0, 0.3);
        for (int a = 0; a < 3; ++a) {
            Vec3d f;
            Mat33d H;
            vertexTerms(r, x, a, kMu, kLam, f, H, true);
            for (int c = 0; c < 3; ++c) {
                auto xp = x, xm = x;
                xp[size_t(a)][c] += h;
                xm[size_t(a)][c] -= h;
                const double fd = -(triEnergy(r, xp, kMu, kLam) - triEnergy(r, xm, kMu, kLam)) / (2 * h);
                // central difference O(h^2) ~ 1e-12, roundoff 1e-16 E / h ~ 1e-9 for E ~ 10.
                EXPECT_NEAR(f[c], fd, 1e-6 * (1.0 + std::fabs(fd))) << "trial " << trial << " a " << a;
            }
        }
    }
}

// The unclamped block is the exact d2E/dx_a^2 (cofactor-derivative term kept, seed's membrane block) for
// every s; the clamped block equals it wherever s >= 0.
TEST(Membrane, BlockMatchesFiniteDifferenceOfForce) {
    std::mt19937 rng(3);
    const double h = 1e-6;
    int clampedChecked = 0;
    for (int trial = 0; trial < 60; ++trial) {
        RestTri r = randomRestTri(rng);
        auto x = deform(rng, r, 0.5 + 1.1 * (trial % 12) / 11.0, 0.3);
        Vec3d f0, f1, nh;
        triDeformationGradient(x[0], x[1], x[2], r.d, f0, f1);
        const double s = kLam * (membraneArea(f0, f1, nh) - (1 + kMu / kLam));
        for (int a = 0; a < 3; ++a) {
            Vec3d f;
            Mat33d H, Hc;
            vertexTerms(r, x, a, kMu, kLam, f, H, false);
            vertexTerms(r, x, a, kMu, kLam, f, Hc, true);
            const Mat33d fdH = fdForceJacobian(x, a, h, [&](const auto& y) {
                Vec3d fy;
                Mat33d tmp;
                vertexTerms(r, y, a, kMu, kLam, fy, tmp, false);
                return fy;
            });
            // central difference of an O(10) force: 1e-9 roundoff / 1e-6 step; 1e-5 relative margin.
            EXPECT_LT(maxAbs(H - fdH), 1e-5 * (1.0 + maxAbs(H))) << "trial " << trial << " s " << s;
            if (s >= 0) {
                EXPECT_LT(maxAbs(Hc - fdH), 1e-5 * (1.0 + maxAbs(H))) << "trial " << trial;
                ++clampedChecked;
            }
        }
    }
    EXPECT_GT(clampedChecked, 30);  // the sample really contains stretched triangles
}

// The out-of-plane stiffness the seed says must not be dropped: at s > 0 the block's normal eigenvalue is
// mu|m|^2 + r|w|^2, strictly above the mu|m|^2 that a block without the cofactor-derivative term has.
TEST(Membrane, StretchedBlockHasNormalStiffnessFromTheCofactorTerm) {
    std::mt19937 rng(4);
    RestTri r = randomRestTri(rng);
    std::array<Vec3d, 3> x;
    for (int a = 0; a < 3; ++a) x[size_t(a)] = r.X[size_t(a)] * 1.5;  // in z = 0, normal = e_z
    Vec3d f;
    Mat33d H;
    vertexTerms(r, x, 0, kMu, kLam, f, H, true);
    double m0, m1;
    triVertexWeight(r.d, 0, m0, m1);
    Vec3d f0, f1, nh;
    triDeformationGradient(x[0], x[1], x[2], r.d, f0, f1);
    const double J = membraneArea(f0, f1, nh), s = kLam * (J - 1 - kMu / kLam);
    const Vec3d w = membraneW(f0, f1, m0, m1);
    const double expected = r.area * (kMu * (m0 * m0 + m1 * m1) + s / J * dot(w, w));
    // H_zz is the normal eigenvalue exactly (w, gradJ lie in the plane); double roundoff.
    EXPECT_NEAR(H(2, 2), expected, 1e-12 * expected);
    EXPECT_GT(H(2, 2), 1.2 * r.area * kMu * (m0 * m0 + m1 * m1));
}

TEST(Membrane, ClampedBlockIsPsdForCompressedAndFlippedTriangles) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 300; ++trial) {
        RestTri r = randomRestTri(rng);
        auto x = deform(rng, r, 0.05 + 2.0 * (trial % 20) / 19.0, 0.5);
        if (trial % 3 == 0) std::swap(x[1], x[2]);       // flipped (inverted in-plane orientation)
        if (trial % 7 == 0) x[2] = (x[0] + x[1]) * 0.5;  // collapsed to a segment (J_s = 0)
        for (int a = 0; a < 3; ++a) {
            Vec3d f;
            Mat33d H;
            vertexTerms(r, x, a, kMu, kLam, f, H, true);
            double m0, m1;
            triVertexWeight(r.d, a, m0, m1);
            // Smallest eigenvalue is V mu|m|^2 (the w^ direction); closed-form eigen solver accuracy
            // ~1e-7 relative at the double eigenvalue.
            EXPECT_GE(minEigenSym(H), r.area * kMu * (m0 * m0 + m1 * m1) * (1 - 1e-6)) << "trial " << trial;
            ASSERT_TRUE(isFinite(f));
        }
    }
}

TEST(Membrane, SeedLemmasHold) {
    std::mt19937 rng(6);
    for (int trial = 0; trial < 100; ++trial) {
        const Vec3d f0 = randomVec(rng), f1 = randomVec(rng);
        std::uniform_real_distribution<double> u(-2, 2);
        const double m0 = u(rng), m1 = u(rng);
        const Vec3d w = membraneW(f0, f1, m0, m1), g = membraneGradJ(f0, f1, m0, m1);
        // grad J_s = g0 m0 + g1 m1 with g_a = dJ_s/df_a from the seed's A, B, C form.
        const double A = dot(f0, f0), B = dot(f1, f1), C = dot(f0, f1), J = std::sqrt(A * B - C * C);
        const Vec3d gSeed = (f0 * B - f1 * C) * (m0 / J) + (f1 * A - f0 * C) * (m1 / J);
        // O(1) vectors in double: 1e-12.
        EXPECT_LT(norm(g - gSeed), 1e-12 * (1 + norm(g)));
        EXPECT_NEAR(dot(w, g), 0.0, 1e-12 * (1 + dot(w, w)));  // Lemma 1
        EXPECT_NEAR(norm(w), norm(g), 1e-12 * (1 + norm(w)));  // Lemma 2
        EXPECT_NEAR(dot(w, w), A * m1 * m1 - 2 * C * m0 * m1 + B * m0 * m0, 1e-12 * (1 + dot(w, w)));
    }
}

// Small-strain limit: the membrane block at rest for an in-plane displacement equals plane-stress linear
// elasticity with mu_NH = mu, lambda_NH = lambda_ps + mu (material.h's conversion, in 2D).
TEST(Membrane, SmallStrainMatchesPlaneStressElasticity) {
    const double E = 1e4, nu = 0.3;
    const Lame ps = planeStressLame(E, nu);
    EXPECT_NEAR(ps.mu, E / (2 * (1 + nu)), 1e-9 * E);
    EXPECT_NEAR(ps.lambda, E * nu / (1 - nu * nu), 1e-9 * E);
    const Lame nh = neoHookeanFromLame(ps);
    // Uniaxial stress with free lateral contraction: the stable NH lateral stretch for axial a is
    // l2 = lambda a alpha / (mu + lambda a^2); at a = 1 + e it is 1 - nu e + O(e^2).
    const double e = 1e-5, a = 1 + e, alpha = 1 + nh.mu / nh.lambda;
    const double l2 = nh.lambda * a * alpha / (nh.mu + nh.lambda * a * a);
    // O(e^2) = 1e-10 relative to e: 1e-3 e.
    EXPECT_NEAR((1 - l2) / e, nu, 1e-3);
}

TEST(MembraneDamping, ForceIsGradientOfPotentialAndZeroForRigidMotion) {
    std::mt19937 rng(7);
    const double h = 1e-6, dt = 0.01, kd = 0.05;
    for (int trial = 0; trial < 30; ++trial) {
        RestTri r = randomRestTri(rng);
        auto xp = deform(rng, r, 1.1, 0.2);
        std::array<Vec3d, 3> x;
        for (int a = 0; a < 3; ++a) x[size_t(a)] = xp[size_t(a)] + randomVec(rng, 0.05);
        Vec3d p0, p1;
        triDeformationGradient(xp[0], xp[1], xp[2], r.d, p0, p1);
        const double Cp[3] = {dot(p0, p0), dot(p0, p1), dot(p1, p1)};
        auto phi = [&](const std::array<Vec3d, 3>& y) {
            Vec3d f0, f1;
            triDeformationGradient(y[0], y[1], y[2], r.d, f0, f1);
            return membraneDampingPotential(f0, f1, Cp, r.area, kMu, kLam, kd, dt);
        };
        for (int a = 0; a < 3; ++a) {
            Vec3d f0, f1, f;
            Mat33d H;
            triDeformationGradient(x[0], x[1], x[2], r.d, f0, f1);
            double m0, m1;
            triVertexWeight(r.d, a, m0, m1);
            membraneDampingVertex(f0, f1, Cp, m0, m1, r.area, kMu, kLam, kd, dt, f, H);
            for (int c = 0; c < 3; ++c) {
                auto ap = x, am = x;
                ap[size_t(a)][c] += h;
                am[size_t(a)][c] -= h;
                const double fd = -(phi(ap) - phi(am)) / (2 * h);
                EXPECT_NEAR(f[c], fd, 1e-6 * (1.0 + std::fabs(fd)));  // as the elastic FD test
            }
            EXPECT_GE(minEigenSym(H), -1e-9 * (1 + maxAbs(H)));  // Gauss-Newton block is PSD
        }
        // Rigid motion x_prev -> R x_prev + t: C = F^T F unchanged, no damping force.
        const Quat q = fromRotationVector(Vec3(0.3f, -0.7f, 0.2f));
        const Vec3d t(0.4, -1.0, 2.0);
        std::array<Vec3d, 3> xr;
        for (int a = 0; a < 3; ++a) xr[size_t(a)] = Vec3d(rotate(q, Vec3(xp[size_t(a)]))) + t;
        // recompute C_prev of the float-rotated copy's source in double for an exact comparison
        for (int a = 0; a < 3; ++a) {
            Vec3d f0, f1, f;
            Mat33d H;
            triDeformationGradient(xr[0], xr[1], xr[2], r.d, f0, f1);
            double m0, m1;
            triVertexWeight(r.d, a, m0, m1);
            membraneDampingVertex(f0, f1, Cp, m0, m1, r.area, kMu, kLam, kd, dt, f, H);
            // float rotation: C changes by ~1e-7, rate 1e-5 /s; force ~ V kd mu 1e-5 ~ 1e-6.
            EXPECT_LT(norm(f), 1e-5);
        }
    }
}
