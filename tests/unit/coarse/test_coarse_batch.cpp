// The rigid correction's fast kernels against their references: the SIMD tet batch (tet_batch.h) against the
// scalar TetEnergyCache, and the envelope Cholesky (envelope_cholesky.h) against a dense factorization.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "coarse/coarse_correction.h"
#include "coarse/element_matrix.h"
#include "coarse/envelope_cholesky.h"
#include "coarse/rigid_coarse.h"
#include "coarse/tet_batch.h"
#include "coarse_test_util.h"

using namespace vbd;
using namespace vbd::coarse;
using coarsetest::toDouble;

namespace {

constexpr double kEps = 2.220446049250313e-16;

// The layered bar at contrast 1e2 after 3 sweeps (deformed, not converged), its stiff_rigid layout, and a
// cache at the step's data; `damped` turns on the internal damping (k_d = 0.01 s) so the C_prev lanes are
// read.
struct BarCase {
    CoarseCorrection hook;
    SoftSolver s;
    RigidLayout L;
    TetEnergyCache cache;
    std::vector<Vec3d> x;
    double h = 0;
    DampingModel damping = DampingModel::Internal;

    explicit BarCase(bool damped) {
        CoarseDesc d;
        d.enabled = true;
        d.basis = CoarseBasis::StiffRigid;
        hook.configure(d);
        SceneDesc sd = coarsetest::barScene("layers", 1e2);
        for (SoftBodyDesc& b : sd.softBodies) b.material.damping = damped ? 0.01 : 0.0;
        sd.solver.damping = DampingModel::Internal;
        coarsetest::startStep(s, sd, &hook);
        for (int k = 0; k < 3; ++k) s.sweep();
        hook.prepare(s.model());
        L = buildRigidLayout(s.model(), hook.basis());
        cache.build(s.model());
        cache.beginStep(s.model(), toDouble(s.model().xPrev), toDouble(s.model().y));
        x = toDouble(s.model().x);
        h = s.currentH();
    }
};

void expectBatchMatchesCache(bool damped) {
    BarCase c(damped);
    const SoftModel& m = c.s.model();
    ASSERT_EQ(*std::max_element(m.kd.begin(), m.kd.end()) > 0.f, damped);
    TetBatch batch;
    batch.build(m, c.L.elements, c.L.support);
    ASSERT_EQ(batch.numTets(), int(c.L.elements.size()));
    // Gradient: the same tetStress per tet, summed per vertex in another order (colors instead of vertexTets)
    // and with other multiply-add contractions: each vertex sums ~20 terms of a few ulp each, so the two
    // agree to ~1e-14 of the largest term; the gradient after 3 sweeps at contrast 1e2 is within 1e3 of its
    // terms.
    std::vector<Vec3d> ref, got(c.x.size(), Vec3d(0, 0, 0));
    c.cache.gradientElements(m, c.x, &c.L.elements, c.h, c.damping);
    c.cache.gatherGradient(m, c.x, c.L.support, c.L.evaluated, c.h, ref);
    for (int v : c.L.support)
        if (!m.fixed[size_t(v)]) got[size_t(v)] = c.cache.vertexOwnGradient(m, c.x, size_t(v), c.h);
    batch.addGradient(c.x, c.cache.previousC(), c.h, c.damping == DampingModel::Internal, got);
    double scale = 0, err = 0;
    for (int v : c.L.support) {
        scale = std::max(scale, norm(ref[size_t(v)]));
        err = std::max(err, norm(got[size_t(v)] - ref[size_t(v)]));
    }
    ASSERT_GT(scale, 0);
    EXPECT_LT(err, 1e-10 * scale);

    // Energy change along a displacement of the support (1e-4 m, as late corrections): the same
    // tetEnergyDelta per tet, summed in another order: within 64 eps of the sum of the tets' |dE|.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1e-4, 1e-4);
    std::vector<Vec3d> d(c.x.size(), Vec3d(0, 0, 0));
    for (int v : c.L.support) d[size_t(v)] = Vec3d(u(rng), u(rng), u(rng));
    const double want = c.cache.deltaEnergy(m, c.x, d, c.L.elements, c.L.support, c.h, c.damping);
    const double have = batch.deltaEnergy(c.x, d, c.cache.previousC(), c.h, true) +
                        c.cache.vertexDeltaEnergy(m, c.x, d, c.L.support, c.h);
    double sumAbs = std::abs(c.cache.vertexDeltaEnergy(m, c.x, d, c.L.support, c.h));
    for (int e : c.L.elements)
        sumAbs += std::abs(c.cache.deltaEnergy(m, c.x, d, std::vector<int>{e}, {}, c.h, c.damping));
    EXPECT_LE(std::abs(have - want), 64 * kEps * sumAbs) << have << " vs " << want;

    // The F watch: zero at the reference (to the float rounding of F_ref, ~1e-7 |F|), and the largest
    // |F - F_ref|^2 over the tets after the displacement (F_ref's rounding: ~2e-7 |F| |dF|).
    batch.markReference(c.x);
    std::vector<Vec3d> scratch(c.x.size(), Vec3d(0, 0, 0));
    EXPECT_LT(batch.addGradient(c.x, c.cache.previousC(), c.h, true, scratch), 1e-12);
    std::vector<Vec3d> x1 = c.x;
    for (size_t i = 0; i < x1.size(); ++i) x1[i] += d[i] * 100.0;
    double most = 0;
    for (int e : c.L.elements)
        most = std::max(most, (deformationGradient(m, e, x1) - deformationGradient(m, e, c.x)).frobenius2());
    const double watch = batch.addGradient(x1, c.cache.previousC(), c.h, true, scratch);
    EXPECT_NEAR(watch, most, 1e-6 * std::sqrt(most) + 1e-12);
    EXPECT_GT(most, 1e-6);
}

}  // namespace

TEST(CoarseBatch, GradientAndEnergyChangeMatchTheScalarCache) { expectBatchMatchesCache(false); }

TEST(CoarseBatch, GradientAndEnergyChangeMatchTheScalarCacheWithDamping) { expectBatchMatchesCache(true); }

namespace {

// The 7-point Laplacian of an nx x ny x nz grid plus 0.1 I (SPD), its unknowns shuffled so that the input
// order is no band.
Eigen::SparseMatrix<double> shuffledGridLaplacian(int nx, int ny, int nz) {
    const int n = nx * ny * nz;
    std::vector<int> p(static_cast<size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), std::mt19937(3));
    auto id = [&](int i, int j, int k) { return p[size_t((i * ny + j) * nz + k)]; };
    std::vector<Eigen::Triplet<double>> t;
    for (int i = 0; i < nx; ++i)
        for (int j = 0; j < ny; ++j)
            for (int k = 0; k < nz; ++k) {
                int deg = 0;
                const int a = id(i, j, k);
                auto link = [&](int i2, int j2, int k2) {
                    if (i2 < 0 || j2 < 0 || k2 < 0 || i2 >= nx || j2 >= ny || k2 >= nz) return;
                    t.emplace_back(a, id(i2, j2, k2), -1.0);
                    ++deg;
                };
                for (int s : {-1, 1}) {
                    link(i + s, j, k);
                    link(i, j + s, k);
                    link(i, j, k + s);
                }
                t.emplace_back(a, a, deg + 0.1);
            }
    Eigen::SparseMatrix<double> A(n, n);
    A.setFromTriplets(t.begin(), t.end());
    return A;
}

}  // namespace

TEST(CoarseBatch, EnvelopeCholeskySolvesLikeADenseFactorization) {
    // A long 20 x 3 x 3 grid: RCM's level sets are the grid's diagonal slices (at most 9 vertices), so every
    // row's envelope spans at most two of them plus itself, < 20 entries (dense: n (n + 1) / 2 = 16,290).
    const Eigen::SparseMatrix<double> A = shuffledGridLaplacian(20, 3, 3);
    const int n = int(A.rows());
    EnvelopeCholesky chol;
    chol.analyze(A);
    ASSERT_TRUE(chol.factorize(A));
    EXPECT_LT(chol.envelopeSize(), size_t(n) * 20);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
    const Eigen::VectorXd x = chol.solve(b);
    const Eigen::VectorXd xd = Eigen::MatrixXd(A).llt().solve(b);
    // Both backward stable: the residual within ~n eps of |A| |x|, the solutions within cond(A) ~ 1e2 of
    // that.
    EXPECT_LT((A * x - b).norm(), 1e-13 * Eigen::MatrixXd(A).norm() * x.norm());
    EXPECT_LT((x - xd).norm(), 1e-11 * xd.norm());

    // Indefinite (one diagonal entry negated): factorize reports it and solve returns zero (no step).
    Eigen::SparseMatrix<double> B = A;
    B.coeffRef(5, 5) = -1;
    EXPECT_FALSE(chol.factorize(B));
    EXPECT_EQ(chol.solve(b).norm(), 0.0);
}
