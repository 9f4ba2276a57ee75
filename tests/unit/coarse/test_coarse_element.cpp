// Element matrices of the coarse space against finite differences and the solver's own forces.
#include <gtest/gtest.h>

#include <random>

#include "coarse/basis.h"
#include "coarse/element_matrix.h"
#include "coarse/energy_cache.h"
#include "coarse_test_util.h"

using namespace vbd;
using namespace vbd::coarse;

namespace {

// coarsetest::smallBox stretched 5% along x plus a 1e-3 random perturbation: the stable Neo-Hookean
// Hessian is positive definite there (skew eigenvalue mu + s*1.05 > 0), so the PSD projection is inactive
// and A is the exact Hessian of G.
void stretch(SoftModel& m, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1e-3f, 1e-3f);
    for (int i = 0; i < m.numVertices(); ++i) {
        if (m.fixed[size_t(i)]) continue;
        Vec3& x = m.x[size_t(i)];
        x = Vec3(-2 + (x.x + 2) * 1.05f + u(gen), x.y + u(gen), x.z + u(gen));
    }
}

using coarsetest::toDouble;

}  // namespace

TEST(CoarseElement, HessianMatchesFiniteDifferencesOfGradient) {
    for (DampingModel damping : {DampingModel::None, DampingModel::Internal}) {
        SoftSolver s;
        coarsetest::startStep(s, coarsetest::smallBox(damping));
        SoftModel& m = s.model();
        stretch(m, 3);
        const double h = s.currentH();
        const DofMap dm(m);
        // Assemble sum_e A_e + M/h^2 densely.
        Eigen::MatrixXd A = Eigen::MatrixXd::Zero(dm.numDofs, dm.numDofs);
        int clipped = 0;
        const std::vector<Vec3d> x = toDouble(m.x);
        for (size_t e = 0; e < m.tets.size(); ++e) {
            const Mat12d Ae =
                elementMatrix(m, int(e), ElementMatrixKind::ProjectedHessian, damping, h, x, &clipped);
            for (int a = 0; a < 4; ++a)
                for (int b = 0; b < 4; ++b) {
                    const int ia = dm.dofBase[size_t(m.tets[e][size_t(a)])],
                              ib = dm.dofBase[size_t(m.tets[e][size_t(b)])];
                    if (ia >= 0 && ib >= 0) A.block<3, 3>(3 * ia, 3 * ib) += Ae.block<3, 3>(3 * a, 3 * b);
                }
        }
        for (int i = 0; i < m.numVertices(); ++i)
            if (dm.dofBase[size_t(i)] >= 0)
                A.block<3, 3>(3 * dm.dofBase[size_t(i)], 3 * dm.dofBase[size_t(i)]) +=
                    Eigen::Matrix3d::Identity() * double(m.mass[size_t(i)]) / (h * h);
        EXPECT_EQ(clipped, 0);
        // Central differences of the double gradient, step 1e-6 m (truncation ~1e-12 relative, round-off
        // ~1e-16/1e-6 relative to the force scale).
        Eigen::MatrixXd H(dm.numDofs, dm.numDofs);
        const double eps = 1e-6;
        for (int i = 0; i < m.numVertices(); ++i) {
            const int b = dm.dofBase[size_t(i)];
            if (b < 0) continue;
            for (int k = 0; k < 3; ++k) {
                std::vector<Vec3d> xp = x, xm = x, gp, gm;
                xp[size_t(i)][k] += eps;
                xm[size_t(i)][k] -= eps;
                potentialAndGradient(m, xp, h, damping, &gp);
                potentialAndGradient(m, xm, h, damping, &gm);
                for (int j = 0; j < m.numVertices(); ++j)
                    if (dm.dofBase[size_t(j)] >= 0)
                        H.block<3, 1>(3 * dm.dofBase[size_t(j)], 3 * b + k) =
                            coarsetest::toEigen((gp[size_t(j)] - gm[size_t(j)]) / (2 * eps));
            }
        }
        const double scale = A.cwiseAbs().maxCoeff();
        if (damping == DampingModel::None) {
            // Exact Hessian: FD error only (~1e-8 of the largest entry).
            EXPECT_LT((A - H).cwiseAbs().maxCoeff(), 1e-6 * scale);
        } else {
            // Gauss-Newton damping drops dF/dx S_d; S_d ~ k_d |Edot| mu with |Edot| ~ 3 /s here, i.e. a few %
            // of k_d/h mu = 0.6 mu: the matrices agree to 5% of the largest entry, not to FD accuracy.
            EXPECT_LT((A - H).cwiseAbs().maxCoeff(), 5e-2 * scale);
        }
    }
}

TEST(CoarseElement, DoubleGradientMatchesSolverForces) {
    SoftSolver s;
    coarsetest::startStep(s, coarsetest::barScene("layers", 1e2));
    SoftModel& m = s.model();
    for (int k = 0; k < 3; ++k) s.sweep();  // a deformed, unconverged state
    std::vector<Vec3d> f, g;
    s.forces(f);
    potentialAndGradient(m, toDouble(m.x), s.currentH(), s.params().damping, &g);
    double fmax = 0, diff = 0;
    for (int i = 0; i < m.numVertices(); ++i) {
        fmax = std::max(fmax, norm(f[size_t(i)]));
        diff = std::max(diff, norm(f[size_t(i)] + g[size_t(i)]));
    }
    // The solver sums O(mu) float terms per vertex; 1e-3 of the largest force covers that round-off at
    // contrast 1e2 while any sign or factor error would be O(1).
    EXPECT_GT(fmax, 0);
    EXPECT_LT(diff, 1e-3 * fmax);
}

TEST(CoarseElement, RigidMotionsAreInTheRestKernel) {
    SoftSolver s;
    coarsetest::startStep(s, coarsetest::barScene("half", 1e4));
    const SoftModel& m = s.model();
    for (size_t e = 0; e < m.tets.size(); e += 97) {
        const Mat12d K = restStiffness(m, int(e));
        Eigen::Matrix<double, 12, 6> R = Eigen::Matrix<double, 12, 6>::Zero();
        for (int a = 0; a < 4; ++a) {
            const Vec3 p = m.x0[size_t(m.tets[e][size_t(a)])];
            R.block<3, 3>(3 * a, 0).setIdentity();
            Eigen::Matrix3d W;
            W << 0, p.z, -p.y, -p.z, 0, p.x, p.y, -p.x, 0;  // columns: e_k x p
            R.block<3, 3>(3 * a, 3) = W;
        }
        // K R = 0 up to round-off of K's O(mu/h) entries times |p| ~ 2.
        EXPECT_LT((K * R).cwiseAbs().maxCoeff(), 1e-9 * K.cwiseAbs().maxCoeff()) << "tet " << e;
    }
}

TEST(CoarseBasis, StiffComponentsAndFilters) {
    SoftSolver s;
    coarsetest::startStep(s, coarsetest::barScene("layers", 1e4));
    const SoftModel& m = s.model();
    const DofMap dm(m);
    CoarseDesc d;
    d.basis = CoarseBasis::StiffRigid;
    const std::vector<Vec3d> X = toDouble(m.x0);
    const Basis rigid = makeBasisStrategy(d)->build(m, dm, X);
    // 16 cell layers along x, odd ones stiff: 8 separated stiff slabs, 6 rigid modes each.
    EXPECT_EQ(rigid.components.size(), 8u);
    EXPECT_EQ(rigid.columns.size(), 48u);
    d.basis = CoarseBasis::Element;
    d.filter = CoarseFilter::Contrast;
    // Layers are one cell thick and every tet of a cell spans it in x (5-tet and Kuhn splits), so every tet
    // shares a vertex with the other material: the filter keeps all of them.
    EXPECT_EQ(makeBasisStrategy(d)->build(m, dm, X).candidateElements, int(m.tets.size()));
    SoftSolver half;
    coarsetest::startStep(half, coarsetest::barScene("half", 1e4));
    const DofMap dh(half.model());
    // Half layout: only the two cell slabs next to x = 0 touch the other material, 2 x 16 cells x 5 tets.
    EXPECT_EQ(makeBasisStrategy(d)->build(half.model(), dh, toDouble(half.model().x0)).candidateElements,
              160);
    d.filter = CoarseFilter::CrossColor;
    const Basis cross = makeBasisStrategy(d)->build(m, dm, X);
    // A tet's vertices have 4 different colors, so only modes carried by a single free vertex (tets with
    // three clamped vertices) are dropped.
    EXPECT_LT(cross.droppedCrossColor, 100);
    EXPECT_EQ(int(cross.columns.size()) + cross.droppedCrossColor, cross.candidateElements);
}
