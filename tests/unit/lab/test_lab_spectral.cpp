// Closed forms of the conditioning lab (seed: "Conditioning, geometrically", "Diagonal dominance is a
// different geometry"): rho of 2x2 Gauss-Seidel, the 45-degree rate, CG's factor, dominance measures.
#include <gtest/gtest.h>

#include <cmath>

#include "lab/descent.h"
#include "lab/quadratic.h"
#include "lab/spectral.h"

using namespace vbd::lab;

namespace {

// Deterministic samples without <random>'s implementation-defined distributions.
double hashUniform(int i, int salt) {
    const double v = std::sin(12.9898 * i + 78.233 * salt) * 43758.5453;
    return v - std::floor(v);
}

}  // namespace

TEST(LabSpectral, GaussSeidelRho2x2IsBSquaredOverAC) {
    for (int i = 0; i < 50; ++i) {
        const double a = 0.1 + 10.0 * hashUniform(i, 1), c = 0.1 + 10.0 * hashUniform(i, 2);
        // |b| < sqrt(ac) keeps the matrix SPD; sign of b random.
        const double b = (2.0 * hashUniform(i, 3) - 1.0) * 0.999 * std::sqrt(a * c);
        Eigen::MatrixXd A(2, 2);
        A << a, b, b, c;
        const double expected = b * b / (a * c);
        // M = [[0, -b/a], [0, b^2/(ac)]] is triangular: its eigenvalues come out within a few ulps.
        EXPECT_NEAR(spectralRadius(gaussSeidelMatrix(A, 1)), expected, 1e-12 * expected) << "sample " << i;
    }
}

TEST(LabSpectral, TiltedEllipseRhoClosedForm) {
    const double kappa = 25;
    // Axis-aligned: A diagonal, no coupling, rho = 0 (cos(90 deg) is 6e-17, so allow rounding there).
    EXPECT_EQ(spectralRadius(gaussSeidelMatrix(makeEllipse2d(kappa, 0).A, 1)), 0.0);
    EXPECT_LT(spectralRadius(gaussSeidelMatrix(makeEllipse2d(kappa, 90).A, 1)), 1e-28);
    // 45 degrees: a = c = (1 + kappa)/2, b = (1 - kappa)/2, rho = ((kappa - 1)/(kappa + 1))^2.
    const double r = (kappa - 1) / (kappa + 1);
    // Entries carry one rounding each from cos/sin(pi/4): relative 1e-14 covers them.
    EXPECT_NEAR(spectralRadius(gaussSeidelMatrix(makeEllipse2d(kappa, 45).A, 1)), r * r, 1e-14);
    // Any tilt: ac = kappa + (kappa - 1)^2 x and b^2 = (kappa - 1)^2 x with x = sin^2(2 theta)/4, so
    // rho(theta) = (kappa - 1)^2 x / (kappa + (kappa - 1)^2 x): the same kappa is far from the same
    // rate, rising from 0 at 0 degrees to its maximum at 45.
    double prev = -1;
    for (int deg = 0; deg <= 45; deg += 5) {
        const double rho = spectralRadius(gaussSeidelMatrix(makeEllipse2d(kappa, deg).A, 1));
        const double x = std::pow(std::sin(2.0 * deg * M_PI / 180), 2) / 4, k1 = (kappa - 1) * (kappa - 1);
        EXPECT_NEAR(rho, k1 * x / (kappa + k1 * x), 1e-13) << deg;  // O(1) values, a few roundings
        EXPECT_GT(rho, prev) << deg;
        prev = rho;
    }
}

TEST(LabSpectral, EllipseFamilyGeometry) {
    for (double kappa : {1.0, 4.0, 25.0, 1e4})
        for (double deg : {0.0, 17.0, 45.0, 120.0}) {
            const Quadratic q = makeEllipse2d(kappa, deg);
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(q.A);
            // Entries are O(kappa) with one rounding each: 1e-14 * kappa absolute.
            EXPECT_NEAR(es.eigenvalues()(0), 1.0, 1e-14 * kappa);
            EXPECT_NEAR(es.eigenvalues()(1), kappa, 1e-14 * kappa);
            const double th = deg * M_PI / 180;
            const Eigen::Vector2d u1(std::cos(th), std::sin(th));
            // A u1 = u1: the soft (long) axis is at theta from the x axis.
            EXPECT_NEAR((q.A * u1 - u1).norm(), 0.0, 1e-14 * kappa);
            // The start point carries energy 2 in each mode: E(x0) = 4, on neither axis.
            EXPECT_NEAR(q.energy(q.x0), 4.0, 1e-13 * kappa);
            EXPECT_EQ(q.minEnergy(), 0.0);
        }
}

TEST(LabSpectral, CgFactorAndPredictions) {
    EXPECT_DOUBLE_EQ(cgFactor(25.0), 4.0 / 6.0);  // (5 - 1)/(5 + 1)
    EXPECT_DOUBLE_EQ(cgFactor(1.0), 0.0);
    // 0.5^10 = 9.8e-4 <= 1e-3 < 0.5^9: ten sweeps.
    EXPECT_EQ(predictedSweeps(0.5, 1e-3), 10);
    EXPECT_EQ(predictedSweeps(0.0, 1e-3), 1);
    EXPECT_EQ(predictedSweeps(1.0, 1e-3), -1);
    // kappa = 25: 2 (2/3)^k <= 1e-6 first at k = 36, but n = 2 caps it.
    EXPECT_EQ(predictedCgIterations(25.0, 1e-6, 1000), 36);
    EXPECT_EQ(predictedCgIterations(25.0, 1e-6, 2), 2);
}

TEST(LabSpectral, DominanceMeasures2d) {
    for (double deg : {10.0, 30.0, 45.0, 80.0}) {
        const Quadratic q = makeEllipse2d(25, deg);
        const double a = q.A(0, 0), b = q.A(0, 1), c = q.A(1, 1);
        const BlockDominance d = blockDominance(q.A, 1);
        const double rho = spectralRadius(gaussSeidelMatrix(q.A, 1));
        // 2-D identities (spectral.h): whitened = |b|/sqrt(ac) for both blocks, rho = whitened^2 =
        // fv[0] fv[1]. A few roundings of O(1) quantities: 1e-13.
        EXPECT_NEAR(d.whitened[0], std::abs(b) / std::sqrt(a * c), 1e-13);
        EXPECT_NEAR(d.whitened[1], d.whitened[0], 1e-13);
        EXPECT_NEAR(d.maxWhitened * d.maxWhitened, rho, 1e-13);
        EXPECT_NEAR(d.fv[0] * d.fv[1], rho, 1e-13);
        EXPECT_NEAR(d.fv[0], std::abs(b) / a, 1e-13);
    }
}

TEST(LabSpectral, BcdSweepOperatorIsGaussSeidelMatrix) {
    // Composing the per-block A-orthogonal projections of one bcd sweep must give M = -(D+L)^{-1} L^T:
    // two independent derivations of the same operator.
    for (int bs : {1, 2, 3}) {
        BlockSystemParams p;
        p.blocks = 5;
        p.blockSize = bs;
        p.kappa = 200;
        p.coupling = 0.7;
        p.seed = 11;
        const Quadratic q = makeBlockSystem(p).q;
        const Eigen::MatrixXd M = gaussSeidelMatrix(q.A, bs);
        const Eigen::MatrixXd T = sweepOperator(q, bcdPlan(q));
        // Both are products of solves with blocks of condition <= kappa: error ~ kappa * eps * ||M||.
        EXPECT_LT((M - T).norm(), 1e-11 * (1.0 + M.norm())) << "bs " << bs;
    }
}

TEST(LabSpectral, LocalTwoLevelRatesClosedForm) {
    // local/stiff = bcd sweep then a line search along the stiff axis u2; local/soft along u1. The
    // line search along a unit eigenvector u is the A-orthogonal (= Euclidean) projection away from u,
    // so T = (I - u u^T) M, whose nonzero eigenvalue is w^T M w for the remaining axis w. With
    // M = [[0, -b/a], [0, rho]]: stiff rate |s (rho s - (b/a) c)|, soft rate |c (rho c + (b/a) s)|.
    for (double deg : {15.0, 30.0, 45.0, 60.0}) {
        const Quadratic q = makeEllipse2d(25, deg);
        const double a = q.A(0, 0), b = q.A(0, 1), cc = q.A(1, 1), rho = b * b / (a * cc);
        const double th = deg * M_PI / 180, c = std::cos(th), s = std::sin(th);
        const double stiff = spectralRadius(sweepOperator(q, localPlan(q, LocalModes::Stiff)));
        const double soft = spectralRadius(sweepOperator(q, localPlan(q, LocalModes::Soft)));
        // O(1) quantities through a 2x2 eigen solve: 1e-12.
        EXPECT_NEAR(stiff, std::abs(s * (rho * s - (b / a) * c)), 1e-12) << deg;
        EXPECT_NEAR(soft, std::abs(c * (rho * c + (b / a) * s)), 1e-12) << deg;
    }
    // The finding this makes exact: at 45 degrees and kappa 25, correcting along the stiff axis makes
    // the sweep slower than plain bcd (300/338 = 0.8876 > rho = 144/169 = 0.8521): bcd's leftover
    // error is the soft axis, and the soft correction cuts the rate to 0.0355.
    const Quadratic q = makeEllipse2d(25, 45);
    const double rho = spectralRadius(gaussSeidelMatrix(q.A, 1));
    EXPECT_NEAR(spectralRadius(sweepOperator(q, localPlan(q, LocalModes::Stiff))), 300.0 / 338.0, 1e-12);
    EXPECT_GT(spectralRadius(sweepOperator(q, localPlan(q, LocalModes::Stiff))), rho);
    EXPECT_LT(spectralRadius(sweepOperator(q, localPlan(q, LocalModes::Soft))), rho / 10);
}
