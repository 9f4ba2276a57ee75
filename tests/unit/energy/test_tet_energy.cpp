// energy/tet_energy.h, the one source of the tet's physics: its stress is the derivative of its energy, its
// 9x9 Hessian the derivative of the stress, the exact energy difference equals the difference of energies,
// and the 12x12 element matrix agrees with the sweep's diagonal blocks and the closed-form off-diagonal ones.
#include <gtest/gtest.h>

#include "energy/tet_energy.h"
#include "energy/tet_fused.h"
#include "fd_util.h"

using namespace vbd;
using namespace vbdtest;

namespace {

Mat33d randomF(std::mt19937& rng, double s) {
    return Mat33d::identity() + Mat33d::fromCols(randomVec(rng, s), randomVec(rng, s), randomVec(rng, s));
}

Mat33d unit(int k) {
    Mat33d E;
    E(k / 3, k % 3) = 1;
    return E;
}

constexpr double kH = 0.01;

}  // namespace

TEST(TetEnergy, StressIsTheDerivativeOfTheEnergy) {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 50; ++trial) {
        const Mat33d F = randomF(rng, 0.4), Fp = randomF(rng, 0.3);
        const Mat33d Cp = Fp.transposed() * Fp;
        const TetConstants<double> c{0.7, 3.0, 11.0, trial % 2 ? 0.05 : 0.0};
        const Mat33d P = tetStress(F, Cp, c, kH, true);
        // Central differences, step 1e-6: truncation ~1e-12 |d3E|, round-off ~1e-16 E / 1e-6 ~ 1e-9 of P.
        for (int k = 0; k < 9; ++k) {
            const double eps = 1e-6;
            const double fd = (tetEnergy(F + unit(k) * eps, Cp, c, kH, true) -
                               tetEnergy(F - unit(k) * eps, Cp, c, kH, true)) /
                              (2 * eps);
            EXPECT_NEAR(P(k / 3, k % 3), fd, 1e-6 * (1 + maxAbs(P))) << "trial " << trial << " entry " << k;
        }
    }
}

TEST(TetEnergy, NeoHookeanHessianIsTheDerivativeOfTheStress) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 50; ++trial) {
        const Mat33d F = randomF(rng, 0.5);
        const double mu = 3, lam = 11;
        const Mat9T<double> H = neoHookeanHessian9(F, mu, lam);
        double scale = 0;
        for (int r = 0; r < 9; ++r)
            for (int q = 0; q < 9; ++q) scale = std::max(scale, std::fabs(H(r, q)));
        for (int l = 0; l < 9; ++l) {
            const double eps = 1e-6;
            const Mat33d dP =
                (neoHookeanP(F + unit(l) * eps, mu, lam) - neoHookeanP(F - unit(l) * eps, mu, lam)) *
                (0.5 / eps);
            for (int k = 0; k < 9; ++k) EXPECT_NEAR(H(k, l), dP(k / 3, k % 3), 1e-7 * scale);
        }
    }
}

TEST(TetEnergy, DampingHessianIsItsGaussNewtonQuadraticForm) {
    // The quadratic form dF : H dF must equal (k_d/h)(2 mu |sym(F^T dF)|^2 + lambda_L (F : dF)^2) for every
    // dF.
    std::mt19937 rng(7);
    const double mu = 3, lam = 11, kd = 0.05;
    for (int trial = 0; trial < 50; ++trial) {
        const Mat33d F = randomF(rng, 0.5), dF = randomF(rng, 1.0) - Mat33d::identity();
        const Mat9T<double> H = internalDampingHessian9(F, mu, lam, kd, kH);
        double q = 0;
        for (int k = 0; k < 9; ++k)
            for (int l = 0; l < 9; ++l) q += dF(k / 3, k % 3) * H(k, l) * dF(l / 3, l % 3);
        const Mat33d M = F.transposed() * dF, S = (M + M.transposed()) * 0.5;
        const double expected =
            kd / kH * (2 * mu * S.frobenius2() + (lam - mu) * frobeniusDot(F, dF) * frobeniusDot(F, dF));
        EXPECT_NEAR(q, expected, 1e-12 * (1 + std::fabs(expected)));
    }
}

TEST(TetEnergy, ExactDeltaEqualsTheDifferenceAndStaysAccurateWhenTiny) {
    std::mt19937 rng(9);
    for (int trial = 0; trial < 50; ++trial) {
        const Mat33d F = randomF(rng, 0.4), Fp = randomF(rng, 0.3), Cp = Fp.transposed() * Fp;
        const TetConstants<double> c{0.7, 3.0, 11.0, 0.05};
        const Mat33d dF = (randomF(rng, 1.0) - Mat33d::identity()) * 0.05;
        const double direct = tetEnergy(F + dF, Cp, c, kH, true) - tetEnergy(F, Cp, c, kH, true);
        // A moderate step: both are exact, the direct difference loses ~1e-16 of E (E ~ 10 here).
        EXPECT_NEAR(tetEnergyDelta(F, dF, Cp, c, kH, true), direct, 1e-12 * 10);
        // A tiny step (1e-10): the direct difference is round-off, the expansion still matches the
        // first-order change P : dF to O(|dF|) relative.
        const Mat33d tiny = dF * 2e-9;
        const double first = frobeniusDot(tetStress(F, Cp, c, kH, true), tiny);
        EXPECT_NEAR(tetEnergyDelta(F, tiny, Cp, c, kH, true), first, 1e-6 * std::fabs(first));
    }
}

TEST(TetEnergy, ElementMatrixBlocksAgreeWithTheSweepAndTheClosedForm) {
    // A_e = V B^T H9 B: its diagonal blocks are the sweep's H_aa (neoHookeanVertex / tetVertexFused without
    // damping) and its off-diagonal blocks the closed form neoHookeanBlock of the dominance field.
    std::mt19937 rng(11);
    for (int trial = 0; trial < 30; ++trial) {
        const RestTet r = randomRestTet(rng);
        const Mat33d F = randomF(rng, 0.4);
        const double mu = 3, lam = 11;
        const Mat12T<double> A = tetElementMatrix(neoHookeanHessian9(F, mu, lam), r.DmInv, r.volume);
        for (int a = 0; a < 4; ++a) {
            const Vec3d ma = tetVertexWeight(r.DmInv, a);
            Vec3d f;
            Mat33d Haa;
            neoHookeanVertex(F, ma, r.volume, mu, lam, f, Haa);
            for (int b = 0; b < 4; ++b) {
                const Mat33d Hab =
                    a == b ? Haa : neoHookeanBlock(F, ma, tetVertexWeight(r.DmInv, b), r.volume, mu, lam);
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k)
                        EXPECT_NEAR(A(3 * a + i, 3 * b + k), Hab(i, k), 1e-10 * (1 + maxAbs(Hab)))
                            << "trial " << trial << " block " << a << b;
            }
            // The sweep's force is -(dE/dF) m^a of the same stress.
            Vec3d fs(0, 0, 0);
            Mat33d Hs;
            tetVertexFused(F, ma, r.volume, mu, lam, Mat33d::identity(), 0.0, kH, fs, Hs);
            const TetConstants<double> c{r.volume, mu, lam, 0.0};
            const Vec3d fr = -(tetStress(F, Mat33d::identity(), c, kH, false) * ma);
            EXPECT_LT(norm(fs - fr), 1e-12 * (1 + norm(fr)));
        }
    }
}
