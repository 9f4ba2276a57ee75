// The fused hot-path evaluator equals the reference stable Neo-Hookean + internal damping functions.
#include <gtest/gtest.h>

#include "energy/damping.h"
#include "energy/tet_energy.h"
#include "energy/tet_fused.h"
#include "fd_util.h"

using namespace vbd;
using namespace vbdtest;

namespace {

// A random rest tet, F and F_prev near the identity, and k_d > 0 on every other trial.
struct TetCase {
    RestTet r;
    Mat33d F, Fp;
    double kd;
};

TetCase randomCase(std::mt19937& rng, int trial) {
    TetCase c;
    c.r = randomRestTet(rng);
    c.F =
        Mat33d::identity() + Mat33d::fromCols(randomVec(rng, 0.7), randomVec(rng, 0.7), randomVec(rng, 0.7));
    c.Fp =
        Mat33d::identity() + Mat33d::fromCols(randomVec(rng, 0.5), randomVec(rng, 0.5), randomVec(rng, 0.5));
    c.kd = trial % 2 ? 0.05 : 0.0;
    return c;
}

}  // namespace

TEST(TetFused, EqualsReferenceNeoHookeanPlusInternalDamping) {
    std::mt19937 rng(21);
    for (int trial = 0; trial < 200; ++trial) {
        const TetCase tc = randomCase(rng, trial);
        const RestTet& r = tc.r;
        const Mat33d &F = tc.F, &Fp = tc.Fp;
        const double mu = 3, lam = 11, kd = tc.kd, h = 0.01;
        for (int a = 0; a < 4; ++a) {
            const Vec3d m = tetVertexWeight(r.DmInv, a);
            Vec3d fe, fd(0, 0, 0);
            Mat33d He, Hd;
            neoHookeanVertex(F, m, r.volume, mu, lam, fe, He);
            if (kd > 0) internalDampingVertex(F, Fp, m, r.volume, mu, lam, kd, h, fd, Hd);
            Vec3d f(0, 0, 0);
            Mat33d H;
            tetVertexFused(F, m, r.volume, mu, lam, Fp.transposed() * Fp, kd, h, f, H);
            const Vec3d fr = fe + fd;
            const Mat33d Hr = kd > 0 ? He + Hd : He;
            // Same terms, different association: roundoff only (1e-12 relative in double).
            EXPECT_LT(norm(f - fr), 1e-12 * (1 + norm(fr)));
            EXPECT_LT(maxAbs(H - Hr), 1e-12 * (1 + maxAbs(Hr)));
        }
    }
}

// The residual's per-tet pass (soft/tet_residual.h) reads tetStress and tetBlockTraceForm instead of the
// fused per-vertex terms: the gradient -f_a and the block's trace m^T M m agree with them to rounding.
TEST(TetFused, StressAndBlockTraceEqualTheFusedTerms) {
    std::mt19937 rng(22);
    for (int trial = 0; trial < 200; ++trial) {
        const TetCase tc = randomCase(rng, trial);
        const RestTet& r = tc.r;
        const Mat33d &F = tc.F, &Fp = tc.Fp;
        const double mu = 3, lam = 11, kd = tc.kd, h = 0.01;
        const TetConstants<double> c{r.volume, mu, lam, kd};
        const Mat33d Cp = Fp.transposed() * Fp;
        const Mat33d S = tetStress(F, Cp, c, h, true);
        for (int a = 0; a < 4; ++a) {
            const Vec3d m = tetVertexWeight(r.DmInv, a);
            Vec3d f(0, 0, 0);
            Mat33d H;
            tetVertexFused(F, m, r.volume, mu, lam, Cp, kd, h, f, H);
            const double t = dot(m, tetBlockTraceForm(F, c, 1 / h, true) * m);
            EXPECT_LT(norm(S * m + f), 1e-12 * (1 + norm(f)));
            EXPECT_LT(std::fabs(t - H.trace()), 1e-12 * (1 + std::fabs(H.trace())));
            // Without damping (internal = false) both drop the damping terms.
            Vec3d f0(0, 0, 0);
            Mat33d H0;
            tetVertexFused(F, m, r.volume, mu, lam, Cp, 0.0, h, f0, H0);
            EXPECT_LT(norm(tetStress(F, Cp, c, h, false) * m + f0), 1e-12 * (1 + norm(f0)));
            EXPECT_LT(std::fabs(dot(m, tetBlockTraceForm(F, c, 1 / h, false) * m) - H0.trace()),
                      1e-12 * (1 + std::fabs(H0.trace())));
        }
    }
}
