#include "coarse/coarse_correction.h"

#include <chrono>
#include <cmath>

#include "coarse/element_hessian.h"

namespace vbd::coarse {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

ElementMatrixKind kindOf(CoarseMatrix m) {
    return m == CoarseMatrix::Rest ? ElementMatrixKind::Rest : ElementMatrixKind::ProjectedHessian;
}

// Columns move with the iterate only for rigid modes under the Hessian (they are rigid motions about the
// current configuration); every other basis is built once from rest data.
const std::vector<Vec3>& basisPositions(const SoftModel& m, const CoarseDesc& d) {
    return d.matrix == CoarseMatrix::Rest ? m.x0 : m.x;
}

}  // namespace

void CoarseCorrection::configure(const CoarseDesc& desc) {
    desc_ = desc;
    built_ = false;
    needFactor_ = true;
}

void CoarseCorrection::beginStep(SoftSolver& solver) {
    if (desc_.matrix == CoarseMatrix::Hessian) needFactor_ = true;
    if (!cache_.built(solver.model())) cache_.build(solver.model());
    cache_.beginStep(solver.model());
    lastFull_ = true;
}

void CoarseCorrection::buildP(const SoftModel& m) {
    std::vector<Eigen::Triplet<double>> t;
    for (size_t j = 0; j < basis_.columns.size(); ++j) {
        const Column& c = basis_.columns[j];
        for (size_t q = 0; q < c.dofs.size(); ++q) t.emplace_back(c.dofs[q], int(j), c.vals[q]);
    }
    P_.resize(dofs_.numDofs, int(basis_.columns.size()));
    P_.setFromTriplets(t.begin(), t.end());
    Pt_ = P_.transpose();
    Prow_ = P_;
    // Tets that touch some column: the only ones whose A_e enters P^T A P.
    activeElements_.clear();
    for (size_t e = 0; e < m.tets.size(); ++e) {
        bool any = false;
        for (int v : m.tets[e]) {
            const int b = dofs_.dofBase[size_t(v)];
            if (b >= 0)
                for (int q = 0; q < 3; ++q)
                    any |= Prow_.outerIndexPtr()[3 * b + q + 1] > Prow_.outerIndexPtr()[3 * b + q];
        }
        if (any) activeElements_.push_back(int(e));
    }
}

int CoarseCorrection::prepare(SoftSolver& solver) {
    const SoftModel& m = solver.model();
    if (built_ && modelVertices_ == m.numVertices() && modelTets_ == int(m.tets.size())) return numColumns();
    dofs_ = DofMap(m);
    if (identity_) {
        basis_ = Basis{};
        for (int i = 0; i < dofs_.numDofs; ++i) basis_.columns.push_back(Column{{i}, {1.0}});
    } else {
        basis_ = buildBasis(m, desc_, dofs_, basisPositions(m, desc_));
    }
    buildP(m);
    built_ = true;
    needFactor_ = true;
    modelVertices_ = m.numVertices();
    modelTets_ = int(m.tets.size());
    return numColumns();
}

bool CoarseCorrection::hessianMoved(const SoftModel& m) const {
    for (int e : activeElements_)
        if ((cache_.lastF(e) - Fref_[size_t(e)]).norm() > 0.05) return true;
    return false;
}

void CoarseCorrection::factor(SoftSolver& solver) {
    auto t0 = std::chrono::steady_clock::now();
    SoftModel& m = solver.model();
    const double h = solver.currentH();
    const DampingModel damping = solver.params().damping;
    const ElementMatrixKind kind = kindOf(desc_.matrix);
    const bool moving = !basis_.components.empty() && desc_.matrix == CoarseMatrix::Hessian;
    if (moving) {
        updateRigidColumns(basis_, dofs_, m.x);
        buildP(m);
    }
    const int ncol = numColumns();
    std::vector<Eigen::Triplet<double>> yt, ct;
    std::vector<int> slot(size_t(ncol), -1), cols;
    Fref_.resize(m.tets.size());
    for (int e : activeElements_) {
        const auto& t = m.tets[size_t(e)];
        if (kind == ElementMatrixKind::ProjectedHessian)
            Fref_[size_t(e)] = deformationGradient(m, e, m.x.data());
        // Columns touching the tet, as a dense P_e (12 x ncols).
        cols.clear();
        for (int v : t) {
            const int b = dofs_.dofBase[size_t(v)];
            if (b < 0) continue;
            for (int q = 0; q < 3; ++q)
                for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Prow_, 3 * b + q); it;
                     ++it)
                    if (slot[size_t(it.col())] < 0) {
                        slot[size_t(it.col())] = int(cols.size());
                        cols.push_back(int(it.col()));
                    }
        }
        if (cols.empty()) continue;
        Eigen::MatrixXd Pe = Eigen::MatrixXd::Zero(12, Eigen::Index(cols.size()));
        for (int a = 0; a < 4; ++a) {
            const int b = dofs_.dofBase[size_t(t[size_t(a)])];
            if (b < 0) continue;
            for (int q = 0; q < 3; ++q)
                for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Prow_, 3 * b + q); it;
                     ++it)
                    Pe(3 * a + q, slot[size_t(it.col())]) = it.value();
        }
        // Y_e = A_e P_e. For a tet inside stiff component q, q's six columns are exact rigid motions of the
        // tet (see header): A_e p = V B^T H9 dF with dF = 0 (translations) or [omega]_x F (rotations), and
        // with the rest matrix A_e p = 0 exactly. Other columns go through the dense product.
        const int comp = basis_.componentOfElement.empty() ? -1 : basis_.componentOfElement[size_t(e)];
        const int q0 = comp >= 0 ? basis_.components[size_t(comp)].firstColumn : -1;
        Eigen::MatrixXd Ye = Eigen::MatrixXd::Zero(12, Eigen::Index(cols.size()));
        bool generic = false;
        for (int c : cols) generic |= !(c >= q0 && c < q0 + 6 && q0 >= 0);
        if (generic) {
            const Mat12 Ae = elementMatrix(m, e, kind, damping, h, &stats_.clippedEigenvalues);
            for (size_t c = 0; c < cols.size(); ++c)
                if (!(q0 >= 0 && cols[c] >= q0 && cols[c] < q0 + 6))
                    Ye.col(Eigen::Index(c)) = Ae * Pe.col(Eigen::Index(c));
        }
        if (q0 >= 0 && kind == ElementMatrixKind::ProjectedHessian) {
            const StiffComponent& sc = basis_.components[size_t(comp)];
            const size_t k = size_t(e);
            const Eigen::Matrix3d F = deformationGradient(m, e, m.x.data());
            // The projected H9 (as for every other tet). Tried and dropped: the unprojected closed form
            // H9 dF = mu dF + lambda cof (cof : dF) + s dcof[dF]; along rotations only the geometric
            // stiffness survives, which is slightly negative under compression, and differs from the
            // projected value by ~3e-4 of the largest coarse entry at contrast 1e2.
            Mat9 H = projectPsd(neoHookeanHessianF(F, m.mu[k], m.lambda[k]), &stats_.clippedEigenvalues);
            if (damping == DampingModel::Internal && m.kd[k] > 0)
                H += internalDampingHessianF(F, m.mu[k], m.lambda[k], m.kd[k], h);
            const Mat9x12 B = deformationJacobian(m.DmInv[k]);
            for (int r = 0; r < 3; ++r) {
                Eigen::Vector3d w = Eigen::Vector3d::Zero();
                w(r) = 1.0 / sc.radius;
                Eigen::Matrix3d W;
                W << 0, -w(2), w(1), w(2), 0, -w(0), -w(1), w(0), 0;
                const Eigen::Matrix3d D = W * F;
                Vec9 dF;
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) dF(3 * i + j) = D(i, j);
                Ye.col(slot[size_t(q0 + 3 + r)]) = double(m.volume[k]) * (B.transpose() * (H * dF));
            }
        }

        for (int a = 0; a < 4; ++a) {
            const int b = dofs_.dofBase[size_t(t[size_t(a)])];
            if (b < 0) continue;
            for (int q = 0; q < 3; ++q)
                for (size_t c = 0; c < cols.size(); ++c)
                    yt.emplace_back(3 * b + q, cols[c], Ye(3 * a + q, Eigen::Index(c)));
        }
        for (int c : cols) slot[size_t(c)] = -1;
    }
    Eigen::SparseMatrix<double> Y(dofs_.numDofs, ncol), Cd(ncol, ncol);
    Y.setFromTriplets(yt.begin(), yt.end());
    Cd.setFromTriplets(ct.begin(), ct.end());
    Eigen::VectorXd mh2(dofs_.numDofs);
    for (int i = 0; i < m.numVertices(); ++i) {
        const int b = dofs_.dofBase[size_t(i)];
        if (b >= 0) mh2.segment<3>(3 * b).setConstant(double(m.mass[size_t(i)]) / (h * h));
    }
    Eigen::SparseMatrix<double> C = Pt_ * Y;
    C += Cd;
    C += Pt_ * mh2.asDiagonal() * P_;
    Eigen::SparseMatrix<double> Ct = C.transpose();
    C = 0.5 * (C + Ct);
    // A relative 1e-10 diagonal shift keeps LDLT^T defined when the columns are linearly dependent (element
    // bases have more columns than DOFs); C + shift is SPD, so P z stays a descent direction of G.
    for (int k = 0; k < C.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(C, k); it; ++it)
            if (it.row() == it.col()) it.valueRef() = it.value() > 0 ? it.value() * (1 + 1e-10) : 1.0;
    C_ = C;
    ldlt_.compute(C_);
    if (ldlt_.info() != Eigen::Success) {
        for (int k = 0; k < C_.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(C_, k); it; ++it)
                if (it.row() == it.col()) it.valueRef() *= 1 + 1e-6;
        ldlt_.compute(C_);
    }
    ++stats_.factorizations;
    needFactor_ = false;
    factorH_ = h;
    stats_.setupMs += msSince(t0);
}

void CoarseCorrection::afterSweep(SoftSolver& solver, int iteration) {
    prepare(solver);
    if (basis_.columns.empty()) return;  // empty basis: plain VBD, bit for bit
    SoftModel& m = solver.model();
    auto t0 = std::chrono::steady_clock::now();
    // r = -grad G in double from the float positions. The solver's float forces sum O(contrast) terms
    // (mu F and s cof F cancel to the stress) and their round-off, projected on the rigid columns of a
    // stiff component, is as large as the signal near convergence (docs/coarse-space.md, "float floor").
    xd_.resize(size_t(m.numVertices()));
    for (int i = 0; i < m.numVertices(); ++i)
        xd_[size_t(i)] = Eigen::Vector3d(m.x[size_t(i)].x, m.x[size_t(i)].y, m.x[size_t(i)].z);
    const double h = double(solver.currentH());
    const DampingModel damping = solver.params().damping;
    if (!cache_.built(m)) {
        cache_.build(m);
        cache_.beginStep(m);
    }
    const double G0 = cache_.eval(m, xd_, h, damping, &grad_);
    // The refactorization decision uses the F just computed by the gradient (no extra pass).
    const bool backtracked = desc_.matrix == CoarseMatrix::Hessian && !lastFull_ && !backtrackRefactored_;
    if (needFactor_ || refactorEvery_ || factorH_ != h || backtracked ||
        (desc_.matrix == CoarseMatrix::Hessian && hessianMoved(m))) {
        stats_.correctionMs += msSince(t0);
        factor(solver);
        backtrackRefactored_ = backtracked;
        t0 = std::chrono::steady_clock::now();
    }
    Eigen::VectorXd r(dofs_.numDofs);
    for (int i = 0; i < m.numVertices(); ++i) {
        const int b = dofs_.dofBase[size_t(i)];
        if (b >= 0) r.segment<3>(3 * b) = -grad_[size_t(i)];
    }
    const Eigen::VectorXd z = ldlt_.solve(Pt_ * r);
    dir_ = P_ * z;
    ++stats_.corrections;
    const double Gf0 = recordEnergy_ ? solver.incrementalPotential() : 0.0;
    // Backtracking on the exact G along the exact line x0 + alpha P z (double, before rounding to float).
    // Judging the rounded float state instead rejects every small correction at high contrast: rounding a
    // rigidly moved stiff component to float re-rounds every vertex independently, which costs more
    // elastic energy (O(contrast) x ulp^2) than the correction gains (measured in docs/coarse-space.md).
    double alpha = 1, G1 = G0;
    bool ok = false;
    for (int tries = 0; tries < 6 && lineSearch_; ++tries, alpha *= 0.5) {
        xc_ = xd_;
        for (int i = 0; i < m.numVertices(); ++i) {
            const int b = dofs_.dofBase[size_t(i)];
            if (b >= 0) xc_[size_t(i)] += alpha * dir_.segment<3>(3 * b);
        }
        G1 = cache_.eval(m, xc_, h, damping, nullptr);
        if (G1 <= G0) {
            ok = true;
            break;
        }
    }
    if (!lineSearch_) {
        ok = true;
        alpha = 1;
        xc_ = xd_;
        for (int i = 0; i < m.numVertices(); ++i) {
            const int b = dofs_.dofBase[size_t(i)];
            if (b >= 0) xc_[size_t(i)] += dir_.segment<3>(3 * b);
        }
        if (recordEnergy_) G1 = cache_.eval(m, xc_, h, damping, nullptr);
    }
    if (ok) {
        for (int i = 0; i < m.numVertices(); ++i)
            if (dofs_.dofBase[size_t(i)] >= 0)
                m.x[size_t(i)] =
                    Vec3(float(xc_[size_t(i)].x()), float(xc_[size_t(i)].y()), float(xc_[size_t(i)].z()));
        ++stats_.accepted;
    } else {
        G1 = G0;
        alpha = 0;
    }
    lastFull_ = alpha == 1;
    if (lastFull_) {
        ++stats_.fullSteps;
        backtrackRefactored_ = false;
    }
    stats_.lastAlpha = alpha;
    if (recordEnergy_) {
        stats_.energyBefore.push_back(G0);
        stats_.energyAfter.push_back(G1);
        stats_.floatEnergyBefore.push_back(Gf0);
        stats_.floatEnergyAfter.push_back(solver.incrementalPotential());
    }
    stats_.correctionMs += msSince(t0);
}

}  // namespace vbd::coarse

namespace vbd {

std::unique_ptr<CoarseHook> makeCoarseHook() { return std::make_unique<coarse::CoarseCorrection>(); }

}  // namespace vbd
