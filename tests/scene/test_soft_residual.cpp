// The residual's per-tet pass (soft/tet_residual.h: each tet's stress once, its vertex gradients added in
// color order or in contiguous parts) against the sweep's per-vertex kernel (soft/vertex_blocks.h), the
// residual's definition: the same gradient to the rounding of another summation order and another association
// of each tet's terms; and bit-identical for any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "backend/parallel.h"
#include "energy/tet_energy.h"
#include "soft/soft_solver.h"
#include "soft/tet_residual.h"
#include "soft/vertex_blocks.h"

#include "reorder_bound.h"
#include "scene_util.h"

using namespace vbd;
using vbdtest::clampedBar;

namespace {

const Vec3 kGravity(0, -9.81f, 0);

// The sagging, damped cantilever of test_soft_simd.cpp, its lowest layer pressed into the ground plane
// (collider contact and friction in the vertex sums).
SceneDesc beamScene(Precision p, DampingModel damping, int nx = 12) {
    return vbdtest::pressedBeam(p, damping, 1.001, nx);
}
using vbdtest::stateOf;

SoftSolver::SweepOptions options(bool tetResidual, bool floatIncrement = true, size_t grain = 0,
                                 int parts = 0) {
    SoftSolver::SweepOptions o;
    o.grain = grain;
    o.residualParts = parts;
    o.floatIncrement = floatIncrement;
    o.tetResidual = tetResidual;
    return o;
}

// The size of the intermediates of one tet term (tet e, vertex a) on either path, in double. The kernel
// forms -V (mu F m + s w) (+ damping), w = cof(F) m; the per-tet pass (V (mu F + s cof F + F S_d)) m. Each is
// a sum of products that nearly cancel near rest, so its rounding error scales with the products' sizes,
// bounded by V |m| (mu |F| + |s| |cof F|) (|A m| <= |A|_F |m| for either order of the products); F itself,
// formed by the same code on the same positions on both paths, may still differ by a contraction, a relative
// u, which moves s cof F by up to lambda |cof F|^2 |F| u. Damping: test_soft_simd.cpp's bound of
// V k_d |F (S_d m)| over its intermediates.
template <typename T>
double termScale(const SoftViewT<T>& v, int e, int a) {
    const auto& t = v.tets[e];
    const Mat33d Dinv(v.DmInv[e]);
    const Mat33d F =
        tetDeformationGradient(Vec3d(v.x[t[0]]), Vec3d(v.x[t[1]]), Vec3d(v.x[t[2]]), Vec3d(v.x[t[3]]), Dinv);
    const Mat33d cof = cofactor(F);
    const double m = norm(tetVertexWeight(Dinv, a));
    const double V = v.volume[e], mu = v.mu[e], lam = v.lambda[e], kd = v.kd[e], h = v.h;
    const double s = lam * (F.det() - 1.0) - mu, nF = std::sqrt(F.frobenius2()),
                 nC = std::sqrt(cof.frobenius2());
    double scale = V * m * (mu * nF + (std::fabs(s) + lam * nC * nF) * nC);
    if (v.damping == DampingModel::Internal && kd > 0) {
        const Mat33d C = F.transposed() * F, Cp(v.Cprev[e]);
        double E = 0;  // the largest |Edot_ij| before its subtraction: (|C_ij| + |Cprev_ij|) / 2h
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                E = std::max(E, (std::fabs(C.m[r][c]) + std::fabs(Cp.m[r][c])) / (2 * h));
        scale += 3.0 * V * kd * nF * (2 * mu + 3 * std::fabs(lam - mu)) * E * m;
    }
    return scale;
}

// Per free vertex, f of the per-tet pass against the kernel's, and the residual and its field. Both sums hold
// the same terms -- inertia, one term per incident tet, the collider terms -- in different orders (the
// kernel's tets per lane and the lanes pairwise; the pass's in color order), so they differ by at most
// 2 gamma_n sum_k |term_k| (reorder_bound.h), plus each tet term's own rounding on the two paths, at most
// 20 u of termScale each (a polynomial of ~20 dependent roundings, as in test_soft_simd.cpp). The residual
// |f| then differs by at most the norm of the per-component bounds (triangle inequality) plus its own
// double sum's rounding, the heat map's float |f_i| by its bound plus the float rounding of two norms. A
// wrong tet, a lost lane or a double-counted vertex would miss this by orders of magnitude.
// parts: the pass's split (SweepOptions::residualParts; the test beam's colors are small, so 0 means parts):
// colors with one block per task, or contiguous parts with their own sums, each term once either way.
template <typename T>
void checkResidual(DampingModel damping, bool floatIncrement, int parts = 0) {
    SoftSolver solver;
    solver.build(beamScene(std::is_same_v<T, double> ? Precision::Double : Precision::Float, damping));
    const size_t grain = parts == 1 ? 1 : 0;
    solver.setSweepOptions(options(true, floatIncrement, grain, parts));
    for (int k = 0; k < 8; ++k) solver.step(1.f / 60.f, kGravity);  // bent, moving, touching the ground
    solver.beginStep(1.f / 60.f, kGravity);
    solver.iterate(1);  // mid-step: x != x_prev, C_prev from this step
    std::vector<Vec3d> fNew, fOld;
    solver.setSweepOptions(options(true, floatIncrement, grain, parts));
    const double rNew = solver.residualNorm();
    const std::vector<float> fieldNew = solver.vertexResidual();
    solver.forces(fNew);
    solver.setSweepOptions(options(false, floatIncrement));
    const double rOld = solver.residualNorm();
    const std::vector<float> fieldOld = solver.vertexResidual();
    solver.forces(fOld);

    const SoftState<T>& st = stateOf<T>(solver);
    const SoftViewT<T> s = solver.viewT(st);
    const SoftModel& m = solver.model();
    const double u = 0.5 * double(std::numeric_limits<T>::epsilon());
    int checked = 0, touching = 0;
    double worst = 0, bound2 = 0;
    for (int i = 0; i < m.numVertices(); ++i) {
        if (m.fixed[size_t(i)]) {
            ASSERT_EQ(norm(fNew[size_t(i)]), 0.0);
            continue;
        }
        Vec3T<T> f0;
        Mat33T<T> H0;
        vertexInertia(s, i, f0, H0);
        vbdtest::AbsTermSums<T> sums;
        sums.add(f0, H0);
        double scale = 0;
        for (int k = m.vertexTets.begin(i); k < m.vertexTets.end(i); ++k) {
            const int item = m.vertexTets.items[size_t(k)];
            Vec3T<T> f(T(0));
            Sym33T<T> S;
            tetVertexTerms(s, item >> 2, item & 3, f, S);
            sums.add(f, S.full());
            scale += termScale(s, item >> 2, item & 3);
        }
        Vec3T<T> fo(T(0));
        Mat33T<T> Ho;
        touching += vertexOtherTerms(s, i, fo, Ho);
        sums.add(fo, Ho);
        const double gamma = sums.gamma(u), term = 40 * u;
        double d2 = 0;
        for (int c = 0; c < 3; ++c) {
            const double b = gamma * sums.f[c] + term * scale,
                         d = std::fabs(fNew[size_t(i)][c] - fOld[size_t(i)][c]);
            ASSERT_LE(d, b) << "vertex " << i << " f[" << c << "]";
            worst = std::max(worst, d / b);
            bound2 += b * b;
            d2 += b * b;
        }
        const double fu = 0.5 * double(std::numeric_limits<float>::epsilon());
        ASSERT_LE(std::fabs(double(fieldNew[size_t(i)]) - double(fieldOld[size_t(i)])),
                  std::sqrt(d2) + 2 * fu * (norm(fNew[size_t(i)]) + norm(fOld[size_t(i)])))
            << "vertex " << i << " field";
        ++checked;
    }
    const double ud = 0.5 * std::numeric_limits<double>::epsilon();
    EXPECT_LE(std::fabs(rNew - rOld), std::sqrt(bound2) + 2 * (m.numVertices() + 2) * ud * (rNew + rOld));
    EXPECT_GT(rOld, 0.0);
    EXPECT_GT(checked, 100);
    EXPECT_GT(touching, 0);  // the collider terms were part of the sums
    std::printf(
        "[ %s%s, damping %d, parts %d ] largest |f_tets - f_kernel| / bound: %.3g, residual %.6e vs "
        "%.6e\n",
        std::is_same_v<T, double> ? "double" : "float",
        std::is_same_v<T, float> && !floatIncrement ? " absolute" : "", int(damping), parts, worst, rNew,
        rOld);
}

TEST(SoftResidual, PerTetMatchesKernelInternalDamping) {
    checkResidual<double>(DampingModel::Internal, true);
    checkResidual<float>(DampingModel::Internal, true);
    checkResidual<float>(DampingModel::Internal, false);
}

// Either split of the pass between threads (soft/tet_residual.h tetResidualParts) against the kernel: a part
// that skipped or repeated a block, or a sum of the parts that lost one, misses the bound by orders of
// magnitude.
TEST(SoftResidual, PerTetMatchesKernelInColorsAndInParts) {
    SoftSolver solver;
    solver.build(beamScene(Precision::Double, DampingModel::Internal));
    EXPECT_EQ(tetResidualParts(solver.model().tetLanes), kResidualParts);  // a small model: parts
    for (int parts : {1, 2, 3, 5}) {
        checkResidual<double>(DampingModel::Internal, true, parts);
        checkResidual<float>(DampingModel::Internal, true, parts);
    }
}

TEST(SoftResidual, PerTetMatchesKernelNoDamping) {
    checkResidual<double>(DampingModel::None, true);
    checkResidual<float>(DampingModel::None, true);
}

// The step's residuals and floor with either pass over whole steps. The floor's tet part is the isotropic
// block of the tets' trace (soft_potential.cpp), between 1/sqrt(3) of the full block and the full block when
// the other terms' block is a multiple of I (inertia) and the tets' sum is positive semidefinite; collider
// blocks make that approximate, hence the margin.
TEST(SoftResidual, StepResidualsAndFloorAgree) {
    for (Precision p : {Precision::Double, Precision::Float}) {
        SoftStepStats st[2];
        for (int k = 0; k < 2; ++k) {
            SoftSolver solver;
            solver.build(beamScene(p, DampingModel::Internal));
            solver.setSweepOptions(options(k == 1));
            for (int t = 0; t < 10; ++t) st[k] = solver.step(1.f / 60.f, kGravity);
        }
        // The trajectory does not read the residual (no tolerance): the states are the same.
        const double rel = p == Precision::Double ? 1e-10 : 1e-3;
        EXPECT_NEAR(st[1].residualInitial, st[0].residualInitial, rel * st[0].residualInitial);
        EXPECT_NEAR(st[1].residualFinal, st[0].residualFinal, rel * st[0].residualFinal);
        const double ratio = st[1].residualFloor / st[0].residualFloor;
        std::printf("[ %s ] floor per tet / per vertex: %.4f\n", p == Precision::Double ? "double" : "float",
                    ratio);
        EXPECT_GT(ratio, 0.5);
        EXPECT_LT(ratio, 1.05);
    }
}

// G's and the elastic energy's tet part on the tet lanes (tetEnergySum) against the scalar loop over tets,
// double state, internal damping (its potential is in G): the same terms in another order and another
// contraction of each tet's products. They differ by at most (2 n + 64) u S: n u S for either summation order
// (S the sum of the terms' intermediate sizes, n the number of tets) plus a few roundings of each tet's
// intermediates. Per tet, psi = mu/2 (|F|^2 - 3) + lambda/2 (J - alpha)^2 - mu^2 / 2 lambda: the first term's
// products are ~mu |F|^2, and J (a sum of products of three entries, ~|F|_F^3) is rounded before it is
// squared with J - alpha, so the second contributes ~lambda |J - alpha| (|F|_F^3 + alpha); the damping
// potential (>= 0) its own size. Leaving the damping potential out would move G by its sum (printed).
TEST(SoftResidual, TetEnergyOnLanesMatchesTheScalarLoop) {
    SoftSolver solver;
    solver.build(beamScene(Precision::Double, DampingModel::Internal));
    for (int k = 0; k < 5; ++k) solver.step(1.f / 60.f, kGravity);
    ASSERT_FALSE(solver.model().tetLanes.empty());
    ASSERT_TRUE(solver.model().tetLanes.damped);
    solver.setSweepOptions(options(true));
    const double g1 = solver.incrementalPotential(), e1 = solver.mechanicalEnergy(kGravity).elastic;
    solver.setSweepOptions(options(false));
    const double g0 = solver.incrementalPotential(), e0 = solver.mechanicalEnergy(kGravity).elastic;

    const SoftModel& m = solver.model();
    const SoftState<double>& st = stateOf<double>(solver);
    double S = 0, dampingSum = 0;
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const auto& t = m.tets[e];
        const Mat33d F =
            tetDeformationGradient(st.x[t[0]], st.x[t[1]], st.x[t[2]], st.x[t[3]], Mat33d(m.DmInv[e]));
        const double mu = m.mu[e], lam = m.lambda[e], alpha = 1 + mu / lam, V = m.volume[e];
        const TetConstants<double> c{V, mu, lam, double(m.kd[e])};
        const double h = 1.0 / 60.0;
        const double damping = tetEnergy(F, st.Cprev[e], c, h, true) - tetEnergy(F, st.Cprev[e], c, h, false);
        const double f = std::sqrt(F.frobenius2());
        S += V * (mu * (F.frobenius2() + 3) + lam * std::fabs(F.det() - alpha) * (f * f * f + alpha) +
                  mu * mu / lam) +
             std::fabs(damping);
        dampingSum += damping;
    }
    const double u = 0.5 * std::numeric_limits<double>::epsilon();
    const double bound = (2.0 * double(m.tets.size()) + 64) * u * S;
    std::printf("[ lanes ] |dG| = %.3g, |dE| = %.3g, bound %.3g; the damping potential's sum %.3g J\n",
                std::fabs(g1 - g0), std::fabs(e1 - e0), bound, dampingSum);
    EXPECT_LE(std::fabs(g1 - g0), bound);
    EXPECT_LE(std::fabs(e1 - e0), bound);
    EXPECT_GT(dampingSum, 100 * bound);  // a lost damping term would fail the first check
}

// The naive damping keeps the kernel (its tet term reads the vertex's own motion): the same bits.
TEST(SoftResidual, NaiveDampingKeepsTheKernel) {
    SoftSolver solver;
    solver.build(beamScene(Precision::Double, DampingModel::Naive));
    for (int k = 0; k < 5; ++k) solver.step(1.f / 60.f, kGravity);
    solver.setSweepOptions(options(true));
    const double a = solver.residualNorm();
    solver.setSweepOptions(options(false));
    EXPECT_EQ(solver.residualNorm(), a);
}

// Bit-identical residuals, floor and field for one, two and three threads, float and double: in colors with
// one block per task, so that every color is split between the threads, and in two and three parts.
TEST(SoftResidual, BitIdenticalForAnyThreadCount) {
    for (int parts : {1, 2, 3})
        for (Precision p : {Precision::Float, Precision::Double}) {
            std::vector<double> r[3];
            std::vector<float> field[3];
            for (int k = 0; k < 3; ++k) {
                ThreadLimit limit(k + 1);
                SoftSolver solver;
                solver.build(beamScene(p, DampingModel::Internal, 24));
                solver.setSweepOptions(options(true, true, parts == 1 ? 1 : 0, parts));
                for (int t = 0; t < 6; ++t) {
                    const SoftStepStats s = solver.step(1.f / 60.f, kGravity);
                    r[k].insert(r[k].end(), {s.residualInitial, s.residualFinal, s.residualFloor, s.energy,
                                             solver.mechanicalEnergy(kGravity).elastic});
                }
                field[k] = solver.vertexResidual();
            }
            for (int k = 1; k < 3; ++k) {
                ASSERT_EQ(r[k].size(), r[0].size());
                for (size_t j = 0; j < r[0].size(); ++j)
                    ASSERT_EQ(r[k][j], r[0][j]) << "threads " << k + 1 << ", parts " << parts;
                ASSERT_EQ(field[k], field[0]);
            }
        }
}

}  // namespace
