// The n-D block generator (quadratic.h): requested kappa is met, the coupling knob alone sets the
// Gauss-Seidel rate, and kappa alone does not (the seed's "kappa is not the governing quantity").
#include <gtest/gtest.h>

#include <stdexcept>

#include "lab/descent.h"
#include "lab/quadratic.h"
#include "lab/spectral.h"
#include "unit/lab/lab_util.h"

using namespace vbd::lab;

TEST(LabGenerator, HitsRequestedConditionNumber) {
    for (int bs : {1, 3})
        for (double kappa : {20.0, 1e3, 1e6})
            for (double t : {0.0, 0.4, 0.8})
                for (std::uint64_t seed : {1u, 5u}) {
                    const BlockSystem s = makeBlockSystem(params(6, bs, kappa, t, seed));
                    // The issue asks for 1%; the bisection stops at 1e-10 relative, so 1e-8 is safe.
                    EXPECT_NEAR(conditionNumber(s.q.A), kappa, 1e-8 * kappa)
                        << "bs " << bs << " kappa " << kappa << " t " << t;
                    // Exactly symmetric and positive definite; x* solves A x = b.
                    EXPECT_EQ((s.q.A - s.q.A.transpose()).norm(), 0.0);
                    EXPECT_EQ(s.q.A.llt().info(), Eigen::Success);
                    // Residual of an LLT solve: ~kappa eps relative to ||b||.
                    EXPECT_LT((s.q.A * s.q.xStar - s.q.b).norm(), 1e-13 * kappa * s.q.b.norm());
                }
}

TEST(LabGenerator, CouplingKnobMonotonicallyRaisesRho) {
    // rho(M) strictly increases with t (Stein-Rosenberg on the nonnegative Jacobi matrix tN) and is
    // 0 at t = 0, at fixed kappa and seed.
    double prev = -1;
    for (int k = 0; k <= 9; ++k) {
        const double t = 0.1 * k;
        const Quadratic q = makeBlockSystem(params(4, 3, 1e3, t, 3)).q;
        const double rho = spectralRadius(gaussSeidelMatrix(q.A, 3));
        if (k == 0) {
            EXPECT_LT(rho, 1e-12);  // block diagonal: rounding of the zero coupling only
        } else {
            EXPECT_GT(rho, prev + 1e-3) << "t " << t;  // steps of 0.1 in t move rho by >= 0.01 here
        }
        EXPECT_LT(rho, 1.0);
        prev = rho;
    }
}

TEST(LabGenerator, KappaDoesNotSetTheBcdRate) {
    // Block-diagonal congruence changes kappa but not the Gauss-Seidel spectrum: at fixed coupling
    // and seed, kappa from 20 to 1e6 leaves rho(M) unchanged. Same for the whitened dominance, which
    // is exactly linear in t.
    const int bs = 3;
    const Quadratic ref = makeBlockSystem(params(5, bs, 20, 0.6, 9)).q;
    const double rho = spectralRadius(gaussSeidelMatrix(ref.A, bs));
    const double dom = blockDominance(ref.A, bs).maxWhitened;
    for (double kappa : {1e2, 1e4, 1e6}) {
        const Quadratic q = makeBlockSystem(params(5, bs, kappa, 0.6, 9)).q;
        // Similarity through blocks of condition up to kappa: ~sqrt(kappa) * eps growth, 1e-9 relative.
        EXPECT_NEAR(spectralRadius(gaussSeidelMatrix(q.A, bs)), rho, 1e-9 * rho) << kappa;
        EXPECT_NEAR(blockDominance(q.A, bs).maxWhitened, dom, 1e-9 * dom) << kappa;
    }
    for (double t : {0.15, 0.3, 0.9}) {
        const Quadratic q = makeBlockSystem(params(5, bs, 1e3, t, 9)).q;
        EXPECT_NEAR(blockDominance(q.A, bs).maxWhitened / t, dom / 0.6, 1e-9 * dom) << t;
    }
}

TEST(LabGenerator, DeterministicInTheSeed) {
    const Quadratic a = makeBlockSystem(params(4, 2, 50, 0.5, 42)).q;
    const Quadratic b = makeBlockSystem(params(4, 2, 50, 0.5, 42)).q;
    const Quadratic c = makeBlockSystem(params(4, 2, 50, 0.5, 43)).q;
    EXPECT_EQ((a.A - b.A).norm(), 0.0);
    EXPECT_EQ((a.b - b.b).norm(), 0.0);
    EXPECT_GT((a.A - c.A).norm(), 1e-3 * a.A.norm());  // a different seed is a different system
}

TEST(LabGenerator, RefusesUnreachableRequests) {
    // kappa(I + tS) >= (1 + lambda_max(S) t)/(1 - t) > 1 for t > 0: kappa = 1 cannot be met.
    EXPECT_THROW(makeBlockSystem(params(4, 3, 1.0, 0.5, 1)), std::invalid_argument);
    EXPECT_THROW(makeBlockSystem(params(4, 3, 100, 1.0, 1)), std::invalid_argument);
    EXPECT_THROW(makeBlockSystem(params(1, 3, 100, 0.5, 1)), std::invalid_argument);
    EXPECT_THROW(makeBlockSystem(params(4, 3, 0.5, 0.0, 1)), std::invalid_argument);
    // t = 0 and kappa = 1: A = Q^T I Q = I, fine.
    EXPECT_NEAR(conditionNumber(makeBlockSystem(params(4, 3, 1.0, 0.0, 1)).q.A), 1.0, 1e-12);
}
