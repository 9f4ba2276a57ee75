// Damping models (seed, "The Damping Trap"): the internal-variable model is the gradient of its
// dissipation potential, is zero under rigid translation and rotation, and its Gauss-Newton block is the
// exact Hessian at zero strain rate; the naive Rayleigh model damps a rigid translation.
#include <gtest/gtest.h>

#include "energy/damping.h"
#include "fd_util.h"
#include "math/quat.h"

using namespace vbd;
using namespace vbdtest;

namespace {

const double kMu = 2.0, kLam = 9.0, kKd = 0.05, kH = 0.01;

Mat33d Fof(const RestTet& r, const std::array<Vec3d, 4>& x) {
    return tetDeformationGradient(x[0], x[1], x[2], x[3], r.DmInv);
}

}  // namespace

TEST(InternalDamping, ForceIsGradientOfDissipationPotential) {
    std::mt19937 rng(5);
    const double h = 1e-6;
    for (int trial = 0; trial < 30; ++trial) {
        RestTet r = randomRestTet(rng);
        std::array<Vec3d, 4> xp, x;
        for (int a = 0; a < 4; ++a) {
            xp[size_t(a)] = r.X[size_t(a)] + randomVec(rng, 0.2);
            x[size_t(a)] = xp[size_t(a)] + randomVec(rng, 0.05);
        }
        const Mat33d Fp = Fof(r, xp);
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            internalDampingVertex(Fof(r, x), Fp, tetVertexWeight(r.DmInv, a), r.volume, kMu, kLam, kKd, kH, f,
                                  H);
            for (int c = 0; c < 3; ++c) {
                auto a1 = x, a2 = x;
                a1[size_t(a)][c] += h;
                a2[size_t(a)][c] -= h;
                double fd = -(internalDampingPotential(Fof(r, a1), Fp, r.volume, kMu, kLam, kKd, kH) -
                              internalDampingPotential(Fof(r, a2), Fp, r.volume, kMu, kLam, kKd, kH)) /
                            (2 * h);
                // Potential ~ V kd mu |Edot|^2 h ~ 1e-2..1; central difference + roundoff ~ 1e-8 relative.
                EXPECT_NEAR(f[c], fd, 1e-6 * (1.0 + std::fabs(fd)));
            }
        }
    }
}

TEST(InternalDamping, BlockIsExactHessianAtZeroRateAndPsdEverywhere) {
    std::mt19937 rng(9);
    const double h = 1e-6;
    for (int trial = 0; trial < 30; ++trial) {
        RestTet r = randomRestTet(rng);
        std::array<Vec3d, 4> x;
        for (int a = 0; a < 4; ++a) x[size_t(a)] = r.X[size_t(a)] + randomVec(rng, 0.2);
        const Mat33d Fp = Fof(r, x);  // x_prev = x: Edot = 0, so the dropped dF/dx S_d term is zero
        for (int a = 0; a < 4; ++a) {
            const Vec3d m = tetVertexWeight(r.DmInv, a);
            Vec3d f;
            Mat33d H;
            internalDampingVertex(Fof(r, x), Fp, m, r.volume, kMu, kLam, kKd, kH, f, H);
            const Mat33d fdH = fdForceJacobian(x, a, h, [&](const std::array<Vec3d, 4>& y) {
                Vec3d fy;
                Mat33d t;
                internalDampingVertex(Fof(r, y), Fp, m, r.volume, kMu, kLam, kKd, kH, fy, t);
                return fy;
            });
            EXPECT_LT(maxAbs(H - fdH), 1e-6 * (1.0 + maxAbs(H)));
            EXPECT_GE(minEigenSym(H), -1e-12 * maxAbs(H));
        }
        // PSD away from zero rate too.
        std::array<Vec3d, 4> y;
        for (int a = 0; a < 4; ++a) y[size_t(a)] = x[size_t(a)] + randomVec(rng, 0.1);
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            internalDampingVertex(Fof(r, y), Fp, tetVertexWeight(r.DmInv, a), r.volume, kMu, kLam, kKd, kH, f,
                                  H);
            EXPECT_GE(minEigenSym(H), -1e-12 * maxAbs(H));
        }
    }
}

TEST(InternalDamping, ZeroForceUnderRigidTranslationAndRotation) {
    std::mt19937 rng(13);
    for (int trial = 0; trial < 20; ++trial) {
        RestTet r = randomRestTet(rng);
        std::array<Vec3d, 4> xp, xt, xr;
        const Vec3d shift = randomVec(rng, 0.5);
        const Mat33d R = toMatrix(fromAxisAngle(randomVec(rng), 0.7));
        for (int a = 0; a < 4; ++a) {
            xp[size_t(a)] = r.X[size_t(a)] + randomVec(rng, 0.2);  // deformed previous state
            xt[size_t(a)] = xp[size_t(a)] + shift;
            xr[size_t(a)] = R * xp[size_t(a)] + shift;  // a finite rotation, not infinitesimal
        }
        const Mat33d Fp = Fof(r, xp);
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d H;
            const Vec3d m = tetVertexWeight(r.DmInv, a);
            internalDampingVertex(Fof(r, xt), Fp, m, r.volume, kMu, kLam, kKd, kH, f, H);
            // C = F^T F is exactly invariant: only roundoff of products of O(1) numbers remains.
            EXPECT_LT(norm(f), 1e-10);
            internalDampingVertex(Fof(r, xr), Fp, m, r.volume, kMu, kLam, kKd, kH, f, H);
            EXPECT_LT(norm(f), 1e-10);
        }
    }
}

TEST(NaiveDamping, DampsRigidTranslation) {
    // The seed's bug, reproduced on purpose: K_aa v != 0 even though the element does not deform.
    std::mt19937 rng(17);
    RestTet r = randomRestTet(rng);
    Vec3d fe;
    Mat33d K;
    neoHookeanVertex(Mat33d::identity(), tetVertexWeight(r.DmInv, 1), r.volume, kMu, kLam, fe, K);
    const Vec3d xPrev(0, 1, 0), x = xPrev + Vec3d(0, -0.1, 0);  // pure fall
    Vec3d f;
    Mat33d H;
    naiveDampingVertex(K, x, xPrev, kKd, kH, f, H);
    EXPECT_GT(f.y, 0.1 * kKd / kH * r.volume * kMu * 0.1);  // pushes up, against the fall
    // and the internal model does not
    internalDampingVertex(Mat33d::identity(), Mat33d::identity(), tetVertexWeight(r.DmInv, 1), r.volume, kMu,
                          kLam, kKd, kH, f, H);
    EXPECT_LT(norm(f), 1e-14);
}
