// The four descent bases (descent.h) against their exact behaviour: one-sweep convergence where the
// basis is aligned, the Gauss-Seidel rate where it is not, CG's finite termination, and energy
// monotonicity of exact line searches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "lab/descent.h"
#include "lab/quadratic.h"
#include "lab/spectral.h"
#include "unit/lab/lab_util.h"

using namespace vbd::lab;

namespace {

double errAtSweep(const Quadratic& q, const DescentPath& p, int s) {
    return q.relativeErrorA(p.x[size_t(p.sweepEnd(s))]);
}

}  // namespace

TEST(LabDescent, AxisAlignedEllipseConvergesInOneBcdSweep) {
    // kappa = 25, principal axes on the coordinate axes: each coordinate solve is exact.
    for (double deg : {0.0, 90.0}) {
        const Quadratic q = makeEllipse2d(25, deg);
        const DescentPath p = runMethod(q, Method::Bcd, 1);
        ASSERT_EQ(p.steps(), 2);
        // x* = 0, so this is an absolute A-norm error relative to ||x0||_A = sqrt(8); at 90 degrees the
        // off-diagonal is 24 cos(90 deg) sin(90 deg) ~ 1.5e-15, whose effect is ~1e-16.
        EXPECT_LE(errAtSweep(q, p, 1), 1e-12) << deg;
    }
}

TEST(LabDescent, TiltedBcdContractsByRhoPerSweep) {
    // 45 degrees, kappa = 25: rho = (24/26)^2. M has rank one (first column zero), so from the first
    // sweep on the error is M's eigenvector and each sweep multiplies it by exactly rho.
    const double kappa = 25, rho = std::pow((kappa - 1) / (kappa + 1), 2);
    const Quadratic q = makeEllipse2d(kappa, 45);
    EXPECT_NEAR(spectralRadius(gaussSeidelMatrix(q.A, 1)), rho, 1e-14);
    const DescentPath p = runMethod(q, Method::Bcd, 40);
    for (int s = 2; s <= 40; ++s) {
        // Errors stay >= rho^40 = 1.6e-3 of the start, so rounding (1e-16 relative) is invisible at 1e-12.
        EXPECT_NEAR(errAtSweep(q, p, s) / errAtSweep(q, p, s - 1), rho, 1e-12) << "sweep " << s;
    }
    // The same holds at any tilt for the closed-form rho = b^2/(ac).
    const Quadratic q30 = makeEllipse2d(kappa, 30);
    const double rho30 = q30.A(0, 1) * q30.A(0, 1) / (q30.A(0, 0) * q30.A(1, 1));
    const DescentPath p30 = runMethod(q30, Method::Bcd, 10);
    EXPECT_NEAR(errAtSweep(q30, p30, 10) / errAtSweep(q30, p30, 9), rho30, 1e-12);
}

TEST(LabDescent, NdBcdAsymptoticRateIsRho) {
    const Quadratic q = makeBlockSystem(params(4, 3, 1e3, 0.7, 2)).q;
    const Eigen::MatrixXd M = gaussSeidelMatrix(q.A, 3);
    Eigen::VectorXd mags = Eigen::EigenSolver<Eigen::MatrixXd>(M, false).eigenvalues().cwiseAbs();
    std::sort(mags.data(), mags.data() + mags.size(), std::greater<double>());
    const double rho = mags(0), sub = mags(1) / mags(0);
    const DescentPath p = runMethod(q, Method::Bcd, 30);
    // Window [20, 30]: the error is still >= rho^30 (~1e-9 here, well above rounding), and the
    // subdominant modes have decayed by sub^20 relative to the dominant one, which bounds the
    // deviation of the observed mean contraction from rho (factor 4 for the constants of the modes).
    ASSERT_GT(std::pow(rho, 30), 1e-12);
    const double observed = std::pow(errAtSweep(q, p, 30) / errAtSweep(q, p, 20), 0.1);
    EXPECT_NEAR(observed, rho, (4 * std::pow(sub, 20) + 1e-6) * rho) << "subdominant ratio " << sub;
}

TEST(LabDescent, CgIsExactInTwoStepsIn2d) {
    for (double kappa : {1.5, 25.0, 1e3, 1e6})
        for (double deg : {10.0, 30.0, 45.0, 70.0}) {
            const Quadratic q = makeEllipse2d(kappa, deg);
            const DescentPath p = runCg(q, 2);
            // Exact arithmetic: 0. Two steps of rounding in a system of condition kappa leave an A-norm
            // error ~ kappa * eps relative; 1e-14 * kappa (>= 45 eps * kappa) covers it.
            EXPECT_LE(q.relativeErrorA(p.x[2]), 1e-14 * kappa) << kappa << " " << deg;
            // and one step is not enough (x0 is on neither axis): the check above is not vacuous.
            if (kappa > 2) {
                EXPECT_GT(q.relativeErrorA(p.x[1]), 1e-3);
            }
        }
}

TEST(LabDescent, CgIsExactInAtMostNStepsInNd) {
    // n = 12 (4 blocks of 3). In exact arithmetic CG ends at step n. In floating point the Krylov
    // basis loses conjugacy (Greenbaum-Strakos 1992) and termination is delayed as kappa grows:
    // measured here, kappa = 10 ends at n with error <= 1.4e-12, kappa = 1e3 still has 1e-3 at n and
    // ends by 2n. Tolerance 1e-9 at n for kappa = 10: three orders above the measured rounding, and
    // far below CG's non-terminating bound 2 q^n = 8e-4 (q = 0.52), so a CG that only contracted by
    // its rate would fail.
    for (std::uint64_t seed : {1u, 2u, 3u})
        for (double t : {0.0, 0.5}) {
            const Quadratic q = makeBlockSystem(params(4, 3, 10, t, seed)).q;
            const DescentPath p = runCg(q, 12);
            EXPECT_LE(q.relativeErrorA(p.x[12]), 1e-9) << seed << " " << t;
            const Quadratic hard = makeBlockSystem(params(4, 3, 1e3, t, seed)).q;
            const DescentPath ph = runCg(hard, 24);
            // Attainable accuracy ~ kappa * eps = 2e-13 once terminated.
            EXPECT_LE(hard.relativeErrorA(ph.x[24]), 1e-11) << seed << " " << t;
        }
}

TEST(LabDescent, EigenbasisIsExactInOneSweep) {
    for (double deg : {0.0, 30.0, 45.0}) {
        const Quadratic q = makeEllipse2d(25, deg);
        const DescentPath p = runMethod(q, Method::Eigen, 1);
        EXPECT_EQ(p.stepsPerSweep, 2);
        EXPECT_LE(q.relativeErrorA(p.x.back()), 1e-13);  // kappa * eps with margin
    }
    for (double kappa : {10.0, 1e4}) {
        const Quadratic q = makeBlockSystem(params(4, 3, kappa, 0.8, 4)).q;
        const DescentPath p = runMethod(q, Method::Eigen, 1);
        // The computed eigenvectors are orthonormal to ~n eps, the steps then exact: error ~ n kappa eps.
        EXPECT_LE(q.relativeErrorA(p.x.back()), 1e-15 * 12 * kappa) << kappa;
    }
}

TEST(LabDescent, LocalEigenBasisBeatsBcdOnTiltedEllipse) {
    // 2-D, kappa = 25 at 30 degrees: the only pair patch is the whole 2x2, so local/all walks the two
    // principal axes (stiff first) and is exact after one sweep, where bcd is still at rho = 0.81.
    const Quadratic q = makeEllipse2d(25, 30);
    const DescentPath loc = runMethod(q, Method::Local, 1);
    const DescentPath bcd = runMethod(q, Method::Bcd, 100);
    EXPECT_LE(errAtSweep(q, loc, 1), 1e-13);
    EXPECT_GT(errAtSweep(q, bcd, 1), 0.5);  // measured 0.811
    EXPECT_EQ(sweepsToTol(q, loc, 1e-8), 1);
    // From sweep 1 on the error contracts by exactly rho, so bcd needs 1 + ceil(log(tol/e1)/log rho)
    // sweeps (= 89 here).
    const double rho = spectralRadius(gaussSeidelMatrix(q.A, 1)), e1 = errAtSweep(q, bcd, 1);
    EXPECT_EQ(sweepsToTol(q, bcd, 1e-8), 1 + int(std::ceil(std::log(1e-8 / e1) / std::log(rho))));
    // n-D (12 DOF, coupling 0.9, kappa 1e3): sweeps to 1e-8, measured bcd 80, local/all 28 (with 30
    // sparse line searches per sweep against bcd's 4 block solves).
    const Quadratic qn = makeBlockSystem(params(4, 3, 1e3, 0.9, 7)).q;
    const int sb = sweepsToTol(qn, runMethod(qn, Method::Bcd, 200), 1e-8);
    const int sl = sweepsToTol(qn, runMethod(qn, Method::Local, 200), 1e-8);
    EXPECT_GT(sb, 0);
    EXPECT_GT(sl, 0);
    EXPECT_LT(2 * sl, sb) << "bcd " << sb << " local " << sl;
    const double rl = spectralRadius(sweepOperator(qn, localPlan(qn)));
    EXPECT_LT(rl, spectralRadius(gaussSeidelMatrix(qn.A, 3)));
}

TEST(LabDescent, EnergyIsNonIncreasingAlongEveryPath) {
    std::vector<Quadratic> qs = {makeEllipse2d(25, 30), makeEllipse2d(1e4, 45), makeEllipse2d(3, 0)};
    qs.push_back(makeBlockSystem(params(4, 3, 1e3, 0.8, 1)).q);
    qs.push_back(makeBlockSystem(params(6, 1, 1e5, 0.5, 2)).q);
    for (const Quadratic& q : qs)
        for (Method m : {Method::Bcd, Method::Cg, Method::Eigen, Method::Local})
            for (LocalModes lm : {LocalModes::All, LocalModes::Stiff, LocalModes::Soft}) {
                if (m != Method::Local && lm != LocalModes::All) continue;
                const DescentPath p = runMethod(q, m, m == Method::Cg ? 3 * q.dim() : 30, lm);
                // Exact line searches never raise E; evaluating E = 1/2 x^T A x - b^T x rounds at
                // ~ n eps (||A|| ||x||^2 + ||b|| ||x||), which bounds the allowed wiggle.
                double xmax = 0;
                for (const auto& x : p.x) xmax = std::max(xmax, x.norm());
                const double slack = 10 * q.dim() * std::numeric_limits<double>::epsilon() *
                                     (q.A.norm() * xmax * xmax + q.b.norm() * xmax);
                for (int k = 1; k <= p.steps(); ++k)
                    ASSERT_LE(p.energy[size_t(k)], p.energy[size_t(k) - 1] + slack)
                        << methodName(m) << "/" << localModesName(lm) << " n " << q.dim() << " step " << k;
                // The recorded energies are E(x) itself, not a running estimate.
                EXPECT_NEAR(p.energy.back(), q.energy(p.x.back()), slack);
                // and every path ends below where it started.
                EXPECT_LT(p.energy.back(), p.energy.front());
            }
}

TEST(LabDescent, PathsRecordStepsAndSweeps) {
    const Quadratic q = makeBlockSystem(params(4, 3, 100, 0.5, 1)).q;
    const DescentPath b = runMethod(q, Method::Bcd, 5);
    EXPECT_EQ(b.stepsPerSweep, 4);  // one block solve per block
    EXPECT_EQ(b.steps(), 20);
    EXPECT_EQ(b.sweeps(), 5);
    EXPECT_EQ(runMethod(q, Method::Eigen, 2).stepsPerSweep, 12);  // one step per eigenvector
    EXPECT_EQ(runCg(q, 7).steps(), 7);
    ASSERT_EQ(b.sweep.size(), b.x.size());
    EXPECT_EQ(b.sweep[0], 0);
    for (int k = 1; k <= b.steps(); ++k) EXPECT_EQ(b.sweep[size_t(k)], (k - 1) / 4 + 1);
    // A bcd step changes only its own block.
    for (int k = 1; k <= b.steps(); ++k) {
        const int blk = (k - 1) % 4;
        const Eigen::VectorXd d = b.x[size_t(k)] - b.x[size_t(k) - 1];
        for (int i = 0; i < 12; ++i)
            if (i / 3 != blk) {
                EXPECT_EQ(d(i), 0.0);
            }
    }
    // Local directions are sparse: each touches two blocks (6 of the 12 coordinates) at most.
    for (const SubspaceStep& st : localPlan(q).steps) EXPECT_LE(st.support.size(), 6u);
}

TEST(LabDescent, CgSaysWhereItsExactTerminationEnds) {
    // The path carries n = dim so that a plot running CG past n steps can mark where exact termination was
    // due (the steps after it are CG without conjugacy); the other methods carry 0.
    const Quadratic q = makeBlockSystem(params(4, 3, 1e3, 0.5, 7)).q;
    EXPECT_EQ(runCg(q, 36).exactSteps, 12);
    EXPECT_EQ(runMethod(q, Method::Bcd, 3).exactSteps, 0);
}
