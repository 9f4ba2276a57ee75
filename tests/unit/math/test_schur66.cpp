// The 6x6 Schur-complement solve against a dense Gaussian elimination on random SPD systems.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "math/schur66.h"

namespace vbd {
namespace {

// Dense 6x6 solve with partial pivoting (reference).
void denseSolve(double A[6][6], double b[6], double x[6]) {
    for (int c = 0; c < 6; ++c) {
        int p = c;
        for (int r = c + 1; r < 6; ++r)
            if (std::fabs(A[r][c]) > std::fabs(A[p][c])) p = r;
        for (int k = 0; k < 6; ++k) std::swap(A[c][k], A[p][k]);
        std::swap(b[c], b[p]);
        for (int r = c + 1; r < 6; ++r) {
            double f = A[r][c] / A[c][c];
            for (int k = c; k < 6; ++k) A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 5; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < 6; ++k) s -= A[r][k] * x[k];
        x[r] = s / A[r][r];
    }
}

// Random SPD 6x6 = B B^T + shift I with blocks [H_ll H_al^T; H_al H_aa].
Block66d randomSystem(std::mt19937& rng, double scaleLin, double scaleAng, double full[6][6], double rhs[6]) {
    std::normal_distribution<double> n(0, 1);
    double B[6][6];
    for (auto& row : B)
        for (double& v : row) v = n(rng);
    const double s[6] = {scaleLin, scaleLin, scaleLin, scaleAng, scaleAng, scaleAng};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            double v = 0;
            for (int k = 0; k < 6; ++k) v += B[i][k] * B[j][k];
            full[i][j] = (v + (i == j ? 0.5 : 0.0)) * std::sqrt(s[i] * s[j]);
        }
    Block66d b;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            b.hll.m[r][c] = full[r][c];
            b.hal.m[r][c] = full[3 + r][c];
            b.haa.m[r][c] = full[3 + r][3 + c];
        }
    for (int i = 0; i < 6; ++i) rhs[i] = n(rng);
    b.flin = {rhs[0], rhs[1], rhs[2]};
    b.fang = {rhs[3], rhs[4], rhs[5]};
    return b;
}

TEST(Schur66, MatchesDenseSolve) {
    std::mt19937 rng(7);
    // Mass-like scale contrasts between the linear and angular blocks, as for real bodies
    // (m/h^2 ~ 1e5, I/h^2 ~ 1e2).
    const double scales[][2] = {{1, 1}, {1e5, 1e2}, {1e2, 1e5}, {1e8, 1}};
    for (auto sc : scales)
        for (int t = 0; t < 50; ++t) {
            double A[6][6], b[6], x[6];
            Block66d blk = randomSystem(rng, sc[0], sc[1], A, b);
            // The regularization changes H_aa by 1e-9 (tr/3 + 1): a relative perturbation of about
            // 1e-9 of the solution, times the condition number of these random systems (< 1e3).
            Vec3d dx, dw;
            ASSERT_TRUE(schurSolve66(blk, dx, dw));
            denseSolve(A, b, x);
            double err = 0, nx = 0;
            for (int i = 0; i < 3; ++i) {
                err += (dx[i] - x[i]) * (dx[i] - x[i]) + (dw[i] - x[3 + i]) * (dw[i] - x[3 + i]);
                nx += x[i] * x[i] + x[3 + i] * x[3 + i];
            }
            EXPECT_LT(std::sqrt(err / nx), 1e-5) << "scales " << sc[0] << " " << sc[1];
        }
}

TEST(Schur66, ResidualOfSolution) {
    std::mt19937 rng(8);
    for (int t = 0; t < 50; ++t) {
        double A[6][6], b[6];
        Block66d blk = randomSystem(rng, 1.0, 1.0, A, b);
        Vec3d dx, dw;
        ASSERT_TRUE(schurSolve66(blk, dx, dw));
        const double x[6] = {dx.x, dx.y, dx.z, dw.x, dw.y, dw.z};
        // |A x - b| / |b| at the regularization level (1e-9 tr(H_aa)/3 times |x|).
        double r2 = 0, b2 = 0;
        for (int i = 0; i < 6; ++i) {
            double s = -b[i];
            for (int k = 0; k < 6; ++k) s += A[i][k] * x[k];
            r2 += s * s;
            b2 += b[i] * b[i];
        }
        EXPECT_LT(std::sqrt(r2 / b2), 1e-7);
    }
}

TEST(Schur66, SingularAngularBlockIsRegularized) {
    // A point-like body: H_aa = 0 (no inertia, no contacts). The 1e-9 (tr/3 + 1) shift makes the
    // Schur complement SPD; the linear part is still solved exactly.
    Block66d b;
    b.clear();
    b.hll = Mat33d::diag(4.0);
    b.flin = Vec3d(1, 2, 3);
    Vec3d dx, dw;
    ASSERT_TRUE(schurSolve66(b, dx, dw));
    EXPECT_NEAR(dx.x, 0.25, 1e-12);
    EXPECT_NEAR(dx.z, 0.75, 1e-12);
    EXPECT_LT(norm(dw), 1e-12);
}

TEST(Schur66, RejectsIndefinite) {
    Block66d b;
    b.clear();
    b.hll = Mat33d::diag(-1.0);
    b.haa = Mat33d::diag(1.0);
    b.flin = Vec3d(1, 0, 0);
    Vec3d dx, dw;
    EXPECT_FALSE(schurSolve66(b, dx, dw));
    EXPECT_EQ(norm(dx), 0.0);  // the body keeps its pose
}

TEST(Schur66, FloatVersion) {
    std::mt19937 rng(9);
    double A[6][6], b[6], x[6];
    Block66d blk = randomSystem(rng, 1.0, 1.0, A, b);
    Block66 f;
    f.hll = Mat33(blk.hll);
    f.hal = Mat33(blk.hal);
    f.haa = Mat33(blk.haa);
    f.flin = Vec3(blk.flin);
    f.fang = Vec3(blk.fang);
    Vec3 dx, dw;
    ASSERT_TRUE(schurSolve66(f, dx, dw));
    denseSolve(A, b, x);
    // Single precision with condition number < 1e3: relative error below 1e-3.
    double e = norm(Vec3d(dx) - Vec3d(x[0], x[1], x[2])) + norm(Vec3d(dw) - Vec3d(x[3], x[4], x[5]));
    double n = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3] + x[4] * x[4] + x[5] * x[5]);
    EXPECT_LT(e / n, 1e-3);
}

}  // namespace
}  // namespace vbd
