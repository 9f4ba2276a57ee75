// The CPU sweep's SIMD tet blocks (soft/tet_blocks.h) against the scalar kernel (vertex_kernel.h, the one
// CUDA runs and the portable reference): the same terms summed in another order, so per vertex they agree to
// the rounding of that sum; and, like the scalar kernel, bit-identical for any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "backend/parallel.h"
#include "soft/soft_solver.h"
#include "soft/vertex_blocks.h"

#include "reorder_bound.h"
#include "scene_util.h"

using namespace vbd;
using vbdtest::clampedBar;

namespace {

const Vec3 kGravity(0, -9.81f, 0);

SceneDesc beamScene(Precision p, DampingModel damping, double ground = 1.001) {
    return vbdtest::pressedBeam(p, damping, ground);
}
using vbdtest::stateOf;

// What SoftSolver::viewT builds: the parameters and the state's arrays.

// The size of the intermediate quantities of one tet term (tet e, vertex a), in double: the force is
// -V (mu F m + s w) (+ damping), a difference of products that nearly cancel near rest, so its rounding error
// scales with V (mu |F m| + |s| |w|), not with the (small) result; likewise the block with its two (or four)
// summands. Evaluated from the same inputs as the kernel.
template <typename T>
void termScale(const SoftViewT<T>& v, int e, int a, double& fScale, double& HScale) {
    const auto& t = v.tets[e];
    const Mat33d Dinv(v.DmInv[e]);
    const Mat33d F =
        tetDeformationGradient(Vec3d(v.x[t[0]]), Vec3d(v.x[t[1]]), Vec3d(v.x[t[2]]), Vec3d(v.x[t[3]]), Dinv);
    const Vec3d m = tetVertexWeight(Dinv, a);
    const double V = v.volume[e], mu = v.mu[e], lam = v.lambda[e], kd = v.kd[e], h = v.h;
    const Vec3d Fm = F * m, w = cofactor(F) * m;
    const double s = lam * (F.det() - 1.0) - mu, mm = dot(m, m), nF2 = F.frobenius2();
    fScale = V * (mu * norm(Fm) + std::fabs(s) * norm(w));
    HScale = V * (mu * mm + lam * dot(w, w));
    if (!(kd > 0) || v.damping == DampingModel::None) return;
    if (v.damping == DampingModel::Internal) {
        const Mat33d C = F.transposed() * F, Cp(v.Cprev[e]);
        double E = 0;  // the largest |Edot_ij| before its subtraction: (|C_ij| + |Cprev_ij|) / 2h
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                E = std::max(E, (std::fabs(C.m[r][c]) + std::fabs(Cp.m[r][c])) / (2 * h));
        fScale += 3.0 * V * kd * std::sqrt(nF2) * (2 * mu + 3 * std::fabs(lam - mu)) * E * std::sqrt(mm);
        HScale += V * kd / h * (mu * mm * nF2 + lam * dot(Fm, Fm));
    } else {
        const Vec3d dx = Vec3d(v.x[t[a]]) - Vec3d(v.xPrev[t[a]]);
        fScale += kd / h * HScale * norm(dx);
        HScale += kd / h * HScale;
    }
}

// Per free vertex: f and H from the blocks against the scalar kernel. Both add the same terms -- inertia, one
// term per incident tet, then the collider -- but in different orders, and a pack lane may round a term
// differently from the scalar code (the compiler fuses multiply-adds per code path). Bound: any two orders of
// a floating-point sum of n terms differ by at most 2 gamma_n sum_k |term_k| (gamma_n = n u / (1 - n u),
// Higham, Accuracy and Stability, eq. 4.4), n = terms + 2 for the final additions; and each term, a
// polynomial of at most ~20 dependent roundings in the intermediates termScale measures, differs by at most
// 2 * 20 u of that scale between the two paths. A wrong lane (another tet, another C_prev, a lost padding
// zero) would miss this by orders of magnitude.
template <typename T>
void checkKernels(DampingModel damping) {
    SoftSolver solver;
    solver.build(beamScene(std::is_same_v<T, double> ? Precision::Double : Precision::Float, damping));
    for (int k = 0; k < 8; ++k) solver.step(1.f / 60.f, kGravity);  // bent, moving, touching the ground
    solver.beginStep(1.f / 60.f, kGravity);
    solver.iterate(1);  // mid-step: x != x_prev, C_prev from this step
    const SoftState<T>& st = stateOf<T>(solver);
    const SoftViewT<T> s = solver.viewT(st);
    const SoftModel& m = solver.model();
    const double u = 0.5 * double(std::numeric_limits<T>::epsilon());
    int checked = 0, touching = 0;
    double worst = 0;  // the largest force difference as a fraction of its bound
    for (const auto& group : m.colorGroups) {
        for (int i : group) {
            Vec3T<T> fs, fb;
            Mat33T<T> Hs, Hb;
            const bool cs = vertexForceHessian(s, i, fs, Hs);
            const bool cb =
                vertexForceHessianBlocks(s, {m.tetBlocks, st.CprevLanes.data(), m.clothBlocks}, i, fb, Hb);
            ASSERT_EQ(cs, cb);
            touching += cs;
            // sum_k |term_k| per component: inertia, each tet term alone, the collider terms.
            Vec3T<T> f0;
            Mat33T<T> H0;
            vertexInertia(s, i, f0, H0);
            vbdtest::AbsTermSums<T> sums;
            sums.add(f0, H0);
            double fScale = 0, HScale = 0;
            for (int k = m.vertexTets.begin(i); k < m.vertexTets.end(i); ++k) {
                const int item = m.vertexTets.items[size_t(k)];
                Vec3T<T> f(T(0));
                Sym33T<T> S;
                tetVertexTerms(s, item >> 2, item & 3, f, S);
                sums.add(f, S.full());
                double fk, Hk;
                termScale(s, item >> 2, item & 3, fk, Hk);
                fScale += fk;
                HScale += Hk;
            }
            Vec3T<T> fo(T(0));
            Mat33T<T> Ho;
            vertexOtherTerms(s, i, fo, Ho);
            sums.add(fo, Ho);
            const double gamma = sums.gamma(u), term = 40 * u;
            for (int c = 0; c < 3; ++c)
                ASSERT_LE(std::fabs(double(fb[c]) - double(fs[c])), gamma * sums.f[c] + term * fScale)
                    << "vertex " << i << " f[" << c << "]";
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c)
                    ASSERT_LE(std::fabs(double(Hb.m[r][c]) - double(Hs.m[r][c])),
                              gamma * sums.H.m[r][c] + term * HScale)
                        << "vertex " << i << " H(" << r << "," << c << ")";
            for (int c = 0; c < 3; ++c)
                worst = std::max(
                    worst, std::fabs(double(fb[c]) - double(fs[c])) / (gamma * sums.f[c] + term * fScale));
            ++checked;
        }
    }
    EXPECT_GT(checked, 100);
    EXPECT_GT(touching, 0);  // the collider terms were part of the sums
    std::printf("[ %s, damping %d ] largest |f_simd - f_scalar| / bound: %.3g\n",
                std::is_same_v<T, double> ? "double" : "float", int(damping), worst);
}

TEST(SoftSimd, BlocksMatchScalarKernelInternalDamping) {
    checkKernels<double>(DampingModel::Internal);
    checkKernels<float>(DampingModel::Internal);
}

TEST(SoftSimd, BlocksMatchScalarKernelNaiveDamping) {
    checkKernels<double>(DampingModel::Naive);
    checkKernels<float>(DampingModel::Naive);
}

TEST(SoftSimd, BlocksMatchScalarKernelNoDamping) {
    checkKernels<double>(DampingModel::None);
    checkKernels<float>(DampingModel::None);
}

// Every free vertex with tets has exactly its incidences in the blocks, in the sweep's order, padding zeroed.
TEST(SoftSimd, BlocksHoldEveryIncidence) {
    SoftSolver solver;
    solver.build(beamScene(Precision::Double, DampingModel::Internal));
    const SoftModel& m = solver.model();
    const TetBlocks& tb = m.tetBlocks;
    int expectedFirst = 0;
    for (const auto& group : m.colorGroups) {
        for (int i : group) {
            const int cnt = m.vertexTets.end(i) - m.vertexTets.begin(i);
            ASSERT_EQ(tb.count[size_t(i)], cnt);
            ASSERT_EQ(tb.first[size_t(i)], expectedFirst);  // sweep order: one contiguous range per color
            for (int k = 0; k < (cnt + TetBlock::kLanes - 1) / TetBlock::kLanes * TetBlock::kLanes; ++k) {
                const TetBlock& b = tb.blocks[size_t(expectedFirst + k / TetBlock::kLanes)];
                const int l = k % TetBlock::kLanes;
                if (k < cnt) {
                    const int item = m.vertexTets.items[size_t(m.vertexTets.begin(i) + k)];
                    ASSERT_EQ(b.item[l], item);
                    for (int v = 0; v < 4; ++v)
                        ASSERT_EQ(b.x3[v][l], 3 * m.tets[size_t(item >> 2)][size_t(v)]);
                    ASSERT_EQ(b.volume[l], m.volume[size_t(item >> 2)]);
                } else {
                    ASSERT_EQ(b.volume[l], 0.f);
                    ASSERT_EQ(b.x3[0][l], 3 * i);
                }
            }
            expectedFirst += (cnt + TetBlock::kLanes - 1) / TetBlock::kLanes;
        }
    }
    EXPECT_EQ(size_t(expectedFirst), tb.blocks.size());
    for (int i = 0; i < m.numVertices(); ++i)
        if (m.fixed[size_t(i)]) {
            EXPECT_EQ(tb.first[size_t(i)], -1);
        }
}

// Whole runs: the SIMD and the scalar sweep stay together to rounding (30 steps of the sagging beam landing
// on the ground, 10 iterations each, double state). The per-vertex sums differ by a few ulp (above), i.e.
// ~1e-16 m in a position of ~1 m; the bound allows a growth by 1e4 over 300 Gauss-Seidel sweeps of a damped
// motion with contact (measured: 7e-16 m), ten orders below the motion (centimetres).
TEST(SoftSimd, RunsAgreeWithScalarSweep) {
    std::vector<Vec3d> x[2];
    for (int k = 0; k < 2; ++k) {
        SoftSolver solver;
        solver.build(beamScene(Precision::Double, DampingModel::Internal, 0.97));
        solver.setSweepOptions({k == 1, 0});
        for (int t = 0; t < 30; ++t) solver.step(1.f / 60.f, kGravity);
        solver.positions(x[k]);
    }
    double maxDiff = 0, maxMove = 0;
    SoftSolver ref;
    ref.build(beamScene(Precision::Double, DampingModel::Internal, 0.97));
    for (size_t i = 0; i < x[0].size(); ++i) {
        maxDiff = std::max(maxDiff, norm(x[0][i] - x[1][i]));
        maxMove = std::max(maxMove, norm(x[0][i] - Vec3d(ref.model().x[i])));
    }
    std::printf("[ 30 steps ] largest |x_simd - x_scalar| %.3g m, largest motion %.3g m\n", maxDiff, maxMove);
    EXPECT_GT(maxMove, 0.01);
    EXPECT_LT(maxDiff, 1e-12);
}

// Bit-identical for one and two threads, float and double, with a task grain small enough that every color
// is split between the threads.
TEST(SoftSimd, BitIdenticalForOneAndTwoThreads) {
    for (Precision p : {Precision::Float, Precision::Double}) {
        std::vector<Vec3> x[2];
        for (int k = 0; k < 2; ++k) {
            ThreadLimit limit(k + 1);
            SoftSolver solver;
            solver.build(beamScene(p, DampingModel::Internal, 0.97));
            solver.setSweepOptions({true, 8});
            for (int t = 0; t < 20; ++t) solver.step(1.f / 60.f, kGravity);
            x[k] = solver.model().x;
        }
        ASSERT_EQ(x[0].size(), x[1].size());
        for (size_t i = 0; i < x[0].size(); ++i) {
            ASSERT_EQ(x[0][i].x, x[1][i].x);
            ASSERT_EQ(x[0][i].y, x[1][i].y);
            ASSERT_EQ(x[0][i].z, x[1][i].z);
        }
    }
}

}  // namespace
