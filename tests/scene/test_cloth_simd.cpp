// The CPU sweep's SIMD cloth blocks (soft/cloth_blocks.h) against the scalar kernel (vertex_kernel.h, the one
// CUDA runs): the same membrane and hinge terms summed in another order, so per vertex they agree to the
// rounding of that sum; degenerate stencils add exact zeros on both paths; bit-identical for any thread
// count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "backend/parallel.h"
#include "soft/soft_solver.h"
#include "soft/vertex_blocks.h"

#include "cloth_drape.h"
#include "reorder_bound.h"
#include "scene_util.h"

using namespace vbd;

namespace {

const Vec3 kGravity(0, -9.81f, 0);

// A 16 x 16 sheet draped over a fixed sphere (folds: hinges bent both ways), internal damping of membranes
// and hinges, the ground below.
SceneDesc drapeScene(Precision p, DampingModel damping) {
    SceneDesc s = vbdtest::clothOverSphere(1.0f, 16, false);
    s.solver.precision = p;
    s.solver.damping = damping;
    return s;
}

using vbdtest::stateOf;

double len(const Vec3d& v) { return norm(v); }

// The size of the intermediate quantities of one membrane term (tri e, vertex a), in double: the force
// -V (mu F m + s gradJ) (+ damping) is a difference of products that nearly cancel near rest, so its rounding
// error scales with the summands' sizes, not with the result; J_s = |f0 x f1| is rounded at |f0| |f1|.
template <typename T>
void triScale(const SoftViewT<T>& v, const Vec3d* x, int e, int a, double& fScale, double& HScale) {
    const auto& t = v.tris[e];
    const double d[4] = {v.triRest[e].d[0], v.triRest[e].d[1], v.triRest[e].d[2], v.triRest[e].d[3]};
    Vec3d f0, f1;
    triDeformationGradient(x[t[0]], x[t[1]], x[t[2]], d, f0, f1);
    double m0, m1;
    triVertexWeight(d, a, m0, m1);
    const double V = v.triVolume[e], mu = v.triMu[e], lam = v.triLambda[e], kd = v.triKd[e], h = v.h;
    const double n0 = len(f0), n1 = len(f1), J = len(cross(f0, f1)), s = lam * (J - 1 - mu / lam);
    const double Fm = n0 * std::fabs(m0) + n1 * std::fabs(m1), wS = n1 * std::fabs(m0) + n0 * std::fabs(m1);
    const double mm = m0 * m0 + m1 * m1, r = s > 0 ? (s + lam * n0 * n1) / J : 0.0;
    fScale = V * (mu * Fm + (std::fabs(s) + lam * n0 * n1) * wS);
    HScale = V * (mu * mm + lam * wS * wS + 3 * r * wS * wS);
    if (!(kd > 0) || v.damping != DampingModel::Internal) return;
    const double Cp = std::fabs(v.triCprev[e][0]) + std::fabs(v.triCprev[e][1]) + std::fabs(v.triCprev[e][2]);
    const double E = ((n0 + n1) * (n0 + n1) + Cp) / (2 * h);  // bounds every |Edot_ij| before its subtraction
    fScale += V * (n0 + n1) * kd * 4 * (mu + std::fabs(lam - mu)) * E * (std::fabs(m0) + std::fabs(m1));
    HScale += V * kd / h * (mu * mm * (n0 * n0 + n1 * n1) + lam * Fm * Fm);
}

// The same for one hinge term: theta comes from atan2 of two dot products rounded at |nA| |nB| |e| (an
// absolute error of a few u in theta), the gradients from quotients and, for the edge vertices, a sum of the
// wing gradients weighted by the edge coordinates.
template <typename T>
void hingeScale(const SoftViewT<T>& v, const Vec3d* x, int e, int a, double& fScale, double& HScale) {
    const auto& q = v.hinges[e];
    const Vec3d ed = x[q[1]] - x[q[0]];
    const Vec3d nA = cross(ed, x[q[2]] - x[q[0]]), nB = cross(x[q[0]] - x[q[1]], x[q[3]] - x[q[1]]);
    const double e2 = dot(ed, ed);
    fScale = HScale = 0;
    if (!(e2 > 0) || !(dot(nA, nA) > 1e-14 * e2 * e2) || !(dot(nB, nB) > 1e-14 * e2 * e2)) return;
    const double g2 = std::sqrt(e2) / len(nA), g3 = std::sqrt(e2) / len(nB);
    const double a2 = dot(x[q[2]] - x[q[0]], ed) / e2, a3 = dot(x[q[3]] - x[q[0]], ed) / e2;
    const double g[4] = {g2 * std::fabs(1 - a2) + g3 * std::fabs(1 - a3),
                         g2 * std::fabs(a2) + g3 * std::fabs(a3), g2, g3};
    const double th = std::fabs(dihedralAngle(x[q[0]], x[q[1]], x[q[2]], x[q[3]]));
    const double kL = v.hingeKL[e], kd = v.hingeKd[e], h = v.h;
    fScale = kL * (1 + th + std::fabs(v.hingeTheta0[e])) * g[a];
    HScale = kL * g[a] * g[a];
    if (!(kd > 0) || v.damping != DampingModel::Internal) return;
    fScale += kd * kL / h * (1 + th + std::fabs(double(v.hingeThetaPrev[e]))) * g[a];
    HScale += kd * kL / h * g[a] * g[a];
}

// Per free vertex: f and H from the blocks against the scalar kernel, on a state deformed beyond the drape:
// every vertex moved by up to 0.3 cells (membranes stretched and compressed, hinges bent both ways) and one
// triangle collapsed (two of its vertices on one point: a degenerate membrane and a zero-length hinge edge).
// Bound: as tests/scene/test_soft_simd.cpp -- two orders of a sum of n terms differ by at most
// 2 gamma_n sum_k |term_k| (Higham, eq. 4.4), n = terms + 2, and each term, ~20 dependent roundings of the
// intermediates triScale/hingeScale measure, by at most 2 * 20 u of that scale between the two code paths.
template <typename T>
void checkKernels(DampingModel damping, bool increments) {
    SoftSolver solver;
    solver.build(drapeScene(std::is_same_v<T, double> ? Precision::Double : Precision::Float, damping));
    solver.setSweepOptions({true, 0, increments});
    for (int k = 0; k < 30; ++k) solver.step(1.f / 60.f, kGravity);
    solver.beginStep(1.f / 60.f, kGravity);
    solver.iterate(1);  // mid-step: x != x_prev, C_prev and theta_prev from this step
    const SoftState<T>& st = stateOf<T>(solver);
    SoftViewT<T> s = solver.viewT(st);
    const SoftModel& m = solver.model();
    ASSERT_FALSE(m.clothBlocks.empty());
    ASSERT_EQ(s.dx != nullptr, (increments && std::is_same_v<T, float>));
    // The deformed state: x = x_prev + dx (dx the iterate's plus a fixed pseudo-random offset).
    const int n = m.numVertices();
    std::vector<Vec3T<T>> x(st.x), dx(static_cast<size_t>(n));
    std::vector<Vec3d> xd(static_cast<size_t>(n));
    const double cell = 1.0 / 16;
    for (int i = 0; i < n; ++i) {
        if (!m.fixed[size_t(i)]) {
            const double u1 = std::sin(12.9898 * i) * 43758.5453, u2 = std::sin(78.233 * i) * 12345.678,
                         u3 = std::sin(37.719 * i) * 24680.135;
            const Vec3d off(u1 - std::floor(u1) - 0.5, u2 - std::floor(u2) - 0.5, u3 - std::floor(u3) - 0.5);
            x[size_t(i)] = x[size_t(i)] + Vec3T<T>(off * (0.6 * cell));
        }
    }
    const auto& tri = m.tris[m.tris.size() / 2];  // an interior triangle: collapse vertex 1 onto vertex 0
    x[size_t(tri[1])] = x[size_t(tri[0])];
    for (int i = 0; i < n; ++i) {
        dx[size_t(i)] = x[size_t(i)] - st.xPrev[size_t(i)];
        if (increments) x[size_t(i)] = st.xPrev[size_t(i)] + dx[size_t(i)];
        xd[size_t(i)] = Vec3d(x[size_t(i)]);
    }
    s.x = x.data();
    if (s.dx) s.dx = dx.data();
    std::vector<Vec3d> xe(static_cast<size_t>(n));  // the positions the terms see, for the scales
    for (int i = 0; i < n; ++i)
        xe[size_t(i)] = s.dx ? Vec3d(st.xPrev[size_t(i)]) + Vec3d(dx[size_t(i)]) : xd[size_t(i)];
    const VertexBlocks<T> vb{m.tetBlocks, st.CprevLanes.data(), m.clothBlocks};
    const double u = 0.5 * double(std::numeric_limits<T>::epsilon());
    int checked = 0, degenerate = 0;
    double worst = 0;
    for (const auto& group : m.colorGroups) {
        for (int i : group) {
            Vec3T<T> fs, fb;
            Mat33T<T> Hs, Hb;
            const bool cs = vertexForceHessian(s, i, fs, Hs);
            const bool cb = vertexForceHessianBlocks(s, vb, i, fb, Hb);
            ASSERT_EQ(cs, cb);
            Vec3T<T> f0;
            Mat33T<T> H0;
            vertexInertia(s, i, f0, H0);
            vbdtest::AbsTermSums<T> sums;
            sums.add(f0, H0);
            double fScale = 0, HScale = 0, fk, Hk;
            for (int k = m.vertexTris.begin(i); k < m.vertexTris.end(i); ++k) {
                const int item = m.vertexTris.items[size_t(k)];
                Vec3T<T> f(T(0));
                Mat33T<T> H;
                triVertexTerms(s, item >> 2, item & 3, f, H);
                sums.add(f, H);
                triScale(s, xe.data(), item >> 2, item & 3, fk, Hk);
                fScale += fk;
                HScale += Hk;
            }
            for (int k = m.vertexHinges.begin(i); k < m.vertexHinges.end(i); ++k) {
                const int item = m.vertexHinges.items[size_t(k)];
                Vec3T<T> f(T(0));
                Mat33T<T> H;
                hingeVertexTerms(s, item >> 2, item & 3, f, H);
                sums.add(f, H);
                hingeScale(s, xe.data(), item >> 2, item & 3, fk, Hk);
                fScale += fk;
                HScale += Hk;
                degenerate += fk == 0;
            }
            Vec3T<T> fo(T(0));
            Mat33T<T> Ho;
            vertexContactTerms(s, i, fo, Ho);
            sums.add(fo, Ho);
            const double gamma = sums.gamma(u), term = 40 * u;
            for (int c = 0; c < 3; ++c) {
                const double bound = gamma * sums.f[c] + term * fScale;
                ASSERT_LE(std::fabs(double(fb[c]) - double(fs[c])), bound)
                    << "vertex " << i << " f[" << c << "]";
                worst = std::max(worst, std::fabs(double(fb[c]) - double(fs[c])) / bound);
            }
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c)
                    ASSERT_LE(std::fabs(double(Hb.m[r][c]) - double(Hs.m[r][c])),
                              gamma * sums.H.m[r][c] + term * HScale)
                        << "vertex " << i << " H(" << r << "," << c << ")";
            ++checked;
        }
    }
    EXPECT_GT(checked, 250);
    // The collapsed edge's hinges were in the sums (in the increment form the two vertices' positions are
    // rounded separately and the edge is tiny but not zero).
    if (!s.dx) {
        EXPECT_GT(degenerate, 0);
    }
    std::printf("[ %s%s, damping %d ] largest |f_simd - f_scalar| / bound: %.3g\n",
                std::is_same_v<T, double> ? "double" : "float", increments ? " (increments)" : "",
                int(damping), worst);
}

TEST(ClothSimd, BlocksMatchScalarKernelInternalDamping) {
    checkKernels<double>(DampingModel::Internal, false);
    checkKernels<float>(DampingModel::Internal, true);
    checkKernels<float>(DampingModel::Internal, false);
}

TEST(ClothSimd, BlocksMatchScalarKernelNoDamping) {
    checkKernels<double>(DampingModel::None, false);
    checkKernels<float>(DampingModel::None, true);
}

// Naive damping stays on the scalar path (the cloth part of the blocks path is vertexClothTerms itself).
TEST(ClothSimd, NaiveDampingUsesScalarTerms) { checkKernels<double>(DampingModel::Naive, false); }

// Degenerate stencils on packs: a collapsed triangle gives the scalar kernel's values in its lane (its mu
// term still pulls it open; the normal terms are zero), a hinge with a collapsed edge or wing gives exact
// zeros, and the healthy lanes beside them are unaffected.
TEST(ClothSimd, DegenerateLanesMatchScalar) {
    constexpr int W = 4;
    using P = simd::Pack<double, W>;
    const Vec3d X[W][4] = {
        {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.2, -0.8}},      // bent one way
        {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, -0.9, 0.7}},      // bent the other way
        {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {0.5, 0.5, 0.5}},       // collapsed edge
        {{0, 0, 0}, {1.2, 0.1, 0}, {2.4, 0.2, 0}, {0.4, 1, 0}}};  // collapsed wing (x2 on the edge's line)
    Vec3T<P> x[4];
    for (int k = 0; k < 4; ++k)
        for (int l = 0; l < W; ++l) {
            x[k].x.v[l] = X[l][k].x;
            x[k].y.v[l] = X[l][k].y;
            x[k].z.v[l] = X[l][k].z;
        }
    P theta;
    Vec3T<P> g[4];
    const simd::Mask<W> ok = dihedralGradient(x[0], x[1], x[2], x[3], theta, g);
    for (int l = 0; l < W; ++l) {
        double th;
        Vec3d gs[4];
        const bool oks = dihedralGradient(X[l][0], X[l][1], X[l][2], X[l][3], th, gs);
        EXPECT_EQ(ok[l] != 0, oks) << "lane " << l;
        if (oks) {
            EXPECT_NEAR(theta[l], th, 1e-15) << "lane " << l;
        } else {
            EXPECT_EQ(theta[l], 0.0) << "lane " << l;
        }
        for (int k = 0; k < 4; ++k)
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(g[k][c][l], gs[k][c], 1e-14 * (1 + std::fabs(gs[k][c]))) << "lane " << l;
        for (int k = 0; k < 4 && !oks; ++k)
            EXPECT_EQ(squaredNorm(Vec3d(g[k].x[l], g[k].y[l], g[k].z[l])), 0.0);
    }
    EXPECT_GT(theta[0], 0.1);  // both signs of bending are among the lanes
    EXPECT_LT(theta[1], -0.1);
    // Membranes: lane 2's triangle (x0, x1, x2) is collapsed (x1 = x0).
    const double d[4] = {1.0, 0.0, 0.0, 1.0};
    const P dp[4] = {P(d[0]), P(d[1]), P(d[2]), P(d[3])};
    Vec3T<P> f0, f1, fp;
    triDeformationGradient(x[0], x[1], x[2], dp, f0, f1);
    Mat33T<P> Hp;
    membraneVertex(f0, f1, P(d[0]), P(d[1]), P(1e-3), P(3e4), P(6e4), fp, Hp);
    for (int l = 0; l < W; ++l) {
        Vec3d a0, a1, fsc;
        Mat33d Hsc;
        triDeformationGradient(X[l][0], X[l][1], X[l][2], d, a0, a1);
        membraneVertex(a0, a1, d[0], d[1], 1e-3, 3e4, 6e4, fsc, Hsc);
        for (int r = 0; r < 3; ++r) {
            EXPECT_NEAR(fp[r][l], fsc[r], 1e-12 * (1 + std::fabs(fsc[r]))) << "lane " << l;
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(Hp.m[r][c][l], Hsc.m[r][c], 1e-12 * (1 + std::fabs(Hsc.m[r][c]))) << "lane " << l;
        }
    }
}

// wrapAngle's single conditional step on packs equals the scalar's at the ends of its range.
TEST(ClothSimd, WrapAngleOnPacks) {
    const double pi = 3.14159265358979323846;
    const double a[4] = {2 * pi - 1e-9, -2 * pi + 1e-9, pi, -pi};
    simd::Pack<double, 4> p;
    for (int l = 0; l < 4; ++l) p.v[l] = a[l];
    const simd::Pack<double, 4> w = wrapAngle(p);
    for (int l = 0; l < 4; ++l) {
        EXPECT_EQ(w[l], wrapAngle(a[l]));
        EXPECT_GT(w[l], -pi);
        EXPECT_LE(w[l], pi);
    }
}

// Whole runs: bit-identical for one and two threads with the cloth blocks, float (increments) and double,
// with a task grain small enough that every color is split between the threads.
TEST(ClothSimd, BitIdenticalForOneAndTwoThreads) {
    for (Precision p : {Precision::Float, Precision::Double}) {
        std::vector<Vec3> x[2];
        for (int k = 0; k < 2; ++k) {
            ThreadLimit limit(k + 1);
            SoftSolver solver;
            solver.build(drapeScene(p, DampingModel::Internal));
            solver.setSweepOptions({true, 8});
            for (int t = 0; t < 20; ++t) solver.step(1.f / 60.f, kGravity);
            x[k] = solver.model().x;
        }
        vbdtest::expectBitIdentical(x[0], x[1]);
    }
}

// Whole runs: the SIMD and the scalar sweep stay together to rounding (40 steps of the drape, 10 iterations
// each, double state). The per-vertex sums differ by a few ulp (above), ~1e-16 m in a position of ~1 m; the
// sheet slides over the sphere with friction and folds, which amplifies them (measured: 1.2e-10 to 1.5e-10
// m). The bound allows 7x that, nine orders below the motion (0.6 m).
TEST(ClothSimd, RunsAgreeWithScalarSweep) {
    std::vector<Vec3d> x[2];
    for (int k = 0; k < 2; ++k) {
        SoftSolver solver;
        solver.build(drapeScene(Precision::Double, DampingModel::Internal));
        solver.setSweepOptions({k == 1, 0});
        for (int t = 0; t < 40; ++t) solver.step(1.f / 60.f, kGravity);
        solver.positions(x[k]);
    }
    SoftSolver ref;
    ref.build(drapeScene(Precision::Double, DampingModel::Internal));
    double maxDiff = 0, maxMove = 0;
    for (size_t i = 0; i < x[0].size(); ++i) {
        maxDiff = std::max(maxDiff, norm(x[0][i] - x[1][i]));
        maxMove = std::max(maxMove, norm(x[0][i] - Vec3d(ref.model().x[i])));
    }
    std::printf("[ 40 steps ] largest |x_simd - x_scalar| %.3g m, largest motion %.3g m\n", maxDiff, maxMove);
    EXPECT_GT(maxMove, 0.1);
    EXPECT_LT(maxDiff, 1e-9);
}

}  // namespace
