// Stable Neo-Hookean tet: force against central differences of the energy, the per-vertex block against
// central differences of the force, PSD-ness of the block, over random deformations including inverted
// tets (seed, "The Per-Vertex Block").
#include <gtest/gtest.h>

#include "energy/material.h"
#include "energy/neo_hookean.h"
#include "fd_util.h"

using namespace vbd;
using namespace vbdtest;

namespace {

double tetEnergy(const RestTet& r, const std::array<Vec3d, 4>& x, double mu, double lam) {
    Mat33d F = tetDeformationGradient(x[0], x[1], x[2], x[3], r.DmInv);
    return r.volume * neoHookeanPsi(F, mu, lam);
}

struct Sample {
    RestTet rest;
    std::array<Vec3d, 4> x;
    double J;
};

std::vector<Sample> samples(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<Sample> out;
    int inverted = 0;
    while (int(out.size()) < n) {
        Sample s;
        s.rest = randomRestTet(rng);
        // Random affine map plus per-vertex noise; every third sample mirrored to invert the tet.
        Mat33d A = Mat33d::identity() +
                   Mat33d::fromCols(randomVec(rng, 0.6), randomVec(rng, 0.6), randomVec(rng, 0.6));
        if (out.size() % 3 == 2) A = A * Mat33d::fromCols({-1, 0, 0}, {0, 1, 0}, {0, 0, 1});
        for (int a = 0; a < 4; ++a) s.x[size_t(a)] = A * s.rest.X[size_t(a)] + randomVec(rng, 0.1);
        s.J = tetDeformationGradient(s.x[0], s.x[1], s.x[2], s.x[3], s.rest.DmInv).det();
        if (std::fabs(s.J) < 1e-3) continue;
        inverted += s.J < 0;
        out.push_back(s);
    }
    EXPECT_GT(inverted, n / 5);  // the sample set really contains inverted tets
    return out;
}

}  // namespace

TEST(NeoHookean, RestIsStressFreeAndZeroEnergy) {
    // alpha = 1 + mu/lambda makes P(I) = mu I + lambda(1 - alpha) I = 0; the constant makes psi(I) = 0.
    Mat33d P = neoHookeanP(Mat33d::identity(), 3.0, 7.0);
    EXPECT_LT(maxAbs(P), 1e-14);
    EXPECT_NEAR(neoHookeanPsi(Mat33d::identity(), 3.0, 7.0), 0.0, 1e-14);
}

TEST(NeoHookean, LameConversionMatchesLinearElasticity) {
    // Small-strain check: for F = I + eps*G the stress must equal the linear one, 2 mu sym(G) + lambda_L
    // tr(G) I.
    const Lame lame = lameFromYoungPoisson(1e5, 0.3);
    const Lame nh = neoHookeanFromLame(lame);
    EXPECT_NEAR(nh.lambda, lame.lambda + lame.mu, 1e-9);
    std::mt19937 rng(1);
    Mat33d G = Mat33d::fromCols(randomVec(rng), randomVec(rng), randomVec(rng));
    const double eps = 1e-6;
    Mat33d P = neoHookeanP(Mat33d::identity() + G * eps, nh.mu, nh.lambda) * (1.0 / eps);
    Mat33d lin = (G + G.transposed()) * lame.mu + Mat33d::diag(lame.lambda * G.trace());
    // O(eps) nonlinearity relative to the stress scale E ~ 1e5: 1e-6 * 1e5 * O(1).
    EXPECT_LT(maxAbs(P - lin), 1e-4 * maxAbs(lin) + 1.0);
}

TEST(NeoHookean, ForceMatchesFiniteDifferenceOfEnergy) {
    const double mu = 2.0, lam = 15.0, h = 1e-6;
    for (const Sample& s : samples(60, 7)) {
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            Mat33d F = tetDeformationGradient(s.x[0], s.x[1], s.x[2], s.x[3], s.rest.DmInv);
            neoHookeanVertex(F, tetVertexWeight(s.rest.DmInv, a), s.rest.volume, mu, lam, f, H);
            for (int c = 0; c < 3; ++c) {
                auto xp = s.x, xm = s.x;
                xp[size_t(a)][c] += h;
                xm[size_t(a)][c] -= h;
                double fd = -(tetEnergy(s.rest, xp, mu, lam) - tetEnergy(s.rest, xm, mu, lam)) / (2 * h);
                // Central difference error O(h^2 E''') ~ 1e-12 relative; roundoff ~ 1e-16 E / h ~ 1e-9.
                EXPECT_NEAR(f[c], fd, 1e-6 * (1.0 + std::fabs(fd)))
                    << "J=" << s.J << " a=" << a << " c=" << c;
            }
        }
    }
}

TEST(NeoHookean, BlockMatchesFiniteDifferenceOfForceAndIsPsd) {
    // The diagonal block is the exact d2E/dx_a^2 (the s d2J/dF2 term cancels on it), so it must match the
    // finite-difference Jacobian of the force for every F, inverted ones included.
    const double mu = 2.0, lam = 15.0, h = 1e-6;
    for (const Sample& s : samples(60, 11)) {
        for (int a = 0; a < 4; ++a) {
            const Vec3d m = tetVertexWeight(s.rest.DmInv, a);
            Vec3d f;
            Mat33d H;
            neoHookeanVertex(tetDeformationGradient(s.x[0], s.x[1], s.x[2], s.x[3], s.rest.DmInv), m,
                             s.rest.volume, mu, lam, f, H);
            const Mat33d fdH = fdForceJacobian(s.x, a, h, [&](const auto& y) {
                Vec3d fy;
                Mat33d tmp;
                neoHookeanVertex(tetDeformationGradient(y[0], y[1], y[2], y[3], s.rest.DmInv), m,
                                 s.rest.volume, mu, lam, fy, tmp);
                return fy;
            });
            EXPECT_LT(maxAbs(H - fdH), 1e-6 * (1.0 + maxAbs(H))) << "J=" << s.J;
            // PSD: mu|m|^2 I + lambda w w^T has eigenvalues >= mu|m|^2 V > 0 (the double eigenvalue costs the
            // closed-form eigen solver ~sqrt(eps) relative accuracy, hence 1e-6).
            EXPECT_GE(minEigenSym(H), s.rest.volume * mu * dot(m, m) * (1 - 1e-6));
        }
    }
}

TEST(NeoHookean, InvertedTetIsPushedBackThroughZeroVolume) {
    // The unclamped s = lambda (J - alpha) < 0 for J < 0: moving vertex 3 along its force raises J.
    std::mt19937 rng(3);
    RestTet r = randomRestTet(rng);
    std::array<Vec3d, 4> x = r.X;
    x[3] = x[3] - Vec3d(0, 0, 1.6);  // push through the base plane
    Mat33d F = tetDeformationGradient(x[0], x[1], x[2], x[3], r.DmInv);
    ASSERT_LT(F.det(), 0);
    Vec3d f;
    Mat33d H;
    neoHookeanVertex(F, tetVertexWeight(r.DmInv, 3), r.volume, 1.0, 10.0, f, H);
    x[3] += f * 1e-3;
    EXPECT_GT(tetDeformationGradient(x[0], x[1], x[2], x[3], r.DmInv).det(), F.det());
}
