#include "coarse/galerkin_correction.h"

#include <algorithm>
#include <numeric>

namespace vbd::coarse {

void shiftDiagonal(Eigen::SparseMatrix<double>& C, double relative) {
    for (int k = 0; k < C.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(C, k); it; ++it)
            if (it.row() == it.col()) it.valueRef() = it.value() > 0 ? it.value() * (1 + relative) : 1.0;
}

void GalerkinCorrection::prepare(const SoftModel& m, const Basis& b, const DofMap& dofs) {
    dofs_ = &dofs;
    ncol_ = int(b.columns.size());
    std::vector<Eigen::Triplet<double>> t;
    for (size_t j = 0; j < b.columns.size(); ++j) {
        const Column& c = b.columns[j];
        for (size_t q = 0; q < c.dofs.size(); ++q) t.emplace_back(c.dofs[q], int(j), c.vals[q]);
    }
    P_.resize(dofs.numDofs, ncol_);
    P_.setFromTriplets(t.begin(), t.end());
    Pt_ = P_.transpose();
    Prow_ = P_;
    active_.clear();
    for (size_t e = 0; e < m.tets.size(); ++e) {
        bool any = false;
        for (int v : m.tets[e]) {
            const int base = dofs.dofBase[size_t(v)];
            if (base >= 0)
                for (int q = 0; q < 3; ++q)
                    any |= Prow_.outerIndexPtr()[3 * base + q + 1] > Prow_.outerIndexPtr()[3 * base + q];
        }
        if (any) active_.push_back(int(e));
    }
    allElements_.resize(m.tets.size());
    std::iota(allElements_.begin(), allElements_.end(), 0);
    allVertices_.resize(size_t(m.numVertices()));
    std::iota(allVertices_.begin(), allVertices_.end(), 0);
    allUsed_.assign(m.tets.size(), 1);
}

// r = -grad G in double from the iterate. (The solver's float forces sum O(contrast) terms whose round-off,
// projected on the columns of a stiff region, is as large as the signal near convergence.)
Eigen::VectorXd GalerkinCorrection::reducedResidual(const CorrectionContext& c) {
    cache_ = &c.cache;
    c.cache.gradientElements(c.m, c.x, nullptr, c.h, c.damping);
    c.cache.gatherGradient(c.m, c.x, allVertices_, allUsed_, c.h, grad_);
    Eigen::VectorXd r(dofs_->numDofs);
    for (int i = 0; i < c.m.numVertices(); ++i) {
        const int b = dofs_->dofBase[size_t(i)];
        if (b >= 0)
            r.segment<3>(3 * b) =
                Eigen::Vector3d(-grad_[size_t(i)].x, -grad_[size_t(i)].y, -grad_[size_t(i)].z);
    }
    return Pt_ * r;
}

// The columns of P touching tet e (slot[col] = their position in `cols`) and P_e, the rows of P on the tet's
// 12 DOFs as a dense 12 x |cols| matrix.
Eigen::MatrixXd GalerkinCorrection::elementColumns(const SoftModel& m, int e, std::vector<int>& slot,
                                                   std::vector<int>& cols) const {
    const auto& t = m.tets[size_t(e)];
    cols.clear();
    for (int a = 0; a < 4; ++a) {
        const int b = dofs_->dofBase[size_t(t[size_t(a)])];
        for (int q = 0; b >= 0 && q < 3; ++q)
            for (RowIter it(Prow_, 3 * b + q); it; ++it)
                if (slot[size_t(it.col())] < 0) {
                    slot[size_t(it.col())] = int(cols.size());
                    cols.push_back(int(it.col()));
                }
    }
    Eigen::MatrixXd Pe = Eigen::MatrixXd::Zero(12, Eigen::Index(cols.size()));
    for (int a = 0; a < 4; ++a) {
        const int b = dofs_->dofBase[size_t(t[size_t(a)])];
        for (int q = 0; b >= 0 && q < 3; ++q)
            for (RowIter it(Prow_, 3 * b + q); it; ++it) Pe(3 * a + q, slot[size_t(it.col())]) = it.value();
    }
    return Pe;
}

// Y = sum_e S_e (A_e P_e) over the tets touching some column (S_e scatters the tet's rows to its free DOFs).
Eigen::SparseMatrix<double> GalerkinCorrection::elementProducts(const CorrectionContext& c,
                                                                ElementMatrixKind kind, int& clipped) const {
    std::vector<Eigen::Triplet<double>> yt;
    std::vector<int> slot(size_t(ncol_), -1), cols;
    for (int e : active_) {
        const Eigen::MatrixXd Pe = elementColumns(c.m, e, slot, cols);
        if (cols.empty()) continue;
        const Eigen::MatrixXd Ye = elementMatrix(c.m, e, kind, c.damping, c.h, c.x, &clipped) * Pe;
        const auto& t = c.m.tets[size_t(e)];
        for (int a = 0; a < 4; ++a) {
            const int b = dofs_->dofBase[size_t(t[size_t(a)])];
            for (int q = 0; b >= 0 && q < 3; ++q)
                for (size_t k = 0; k < cols.size(); ++k)
                    yt.emplace_back(3 * b + q, cols[k], Ye(3 * a + q, Eigen::Index(k)));
        }
        for (int col : cols) slot[size_t(col)] = -1;
    }
    Eigen::SparseMatrix<double> Y(dofs_->numDofs, ncol_);
    Y.setFromTriplets(yt.begin(), yt.end());
    return Y;
}

// P^T (M/h^2 + H_v) P: the inertia and the vertex potentials' Gauss-Newton blocks (collider penalties, drag).
Eigen::SparseMatrix<double> GalerkinCorrection::vertexTerms(const CorrectionContext& c) const {
    Eigen::VectorXd mh2(dofs_->numDofs);
    std::vector<Eigen::Triplet<double>> vt;
    for (int i = 0; i < c.m.numVertices(); ++i) {
        const int b = dofs_->dofBase[size_t(i)];
        if (b < 0) continue;
        mh2.segment<3>(3 * b).setConstant(double(c.m.mass[size_t(i)]) / (c.h * c.h));
        Mat33d Hv;
        c.cache.vertexPotential(c.m, size_t(i), c.x[size_t(i)], nullptr, &Hv);
        if (Hv.frobenius2() == 0) continue;
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) vt.emplace_back(3 * b + r, 3 * b + q, Hv(r, q));
    }
    Eigen::SparseMatrix<double> C = Pt_ * mh2.asDiagonal() * P_;
    if (!vt.empty()) {
        Eigen::SparseMatrix<double> Hv(dofs_->numDofs, dofs_->numDofs);
        Hv.setFromTriplets(vt.begin(), vt.end());
        C += Pt_ * Hv * P_;
    }
    return C;
}

// P^T A P = P^T Y + P^T (M/h^2 + H_v) P, symmetrized.
Eigen::SparseMatrix<double> GalerkinCorrection::assemble(const CorrectionContext& c, ElementMatrixKind kind,
                                                         int& clipped) const {
    Eigen::SparseMatrix<double> C = Pt_ * elementProducts(c, kind, clipped);
    C += vertexTerms(c);
    Eigen::SparseMatrix<double> Ct = C.transpose();
    return 0.5 * (C + Ct);
}

int GalerkinCorrection::factor(const CorrectionContext& c, ElementMatrixKind kind) {
    int clipped = 0;
    C_ = assemble(c, kind, clipped);
    shiftDiagonal(C_, 1e-10);
    ldlt_.compute(C_);
    Fref_.resize(c.m.tets.size());
    for (int e : active_) Fref_[size_t(e)] = c.cache.lastF(e);
    if (ldlt_.info() != Eigen::Success) {
        for (int k = 0; k < C_.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(C_, k); it; ++it)
                if (it.row() == it.col()) it.valueRef() *= 1 + 1e-6;
        ldlt_.compute(C_);
    }
    heldStale_ = true;
    return clipped;
}

double GalerkinCorrection::deformationChange() const {
    double most = 0;
    if (cache_ && Fref_.size() == size_t(cache_->numTets()))
        for (int e : active_) most = std::max(most, (cache_->lastF(e) - Fref_[size_t(e)]).frobenius2());
    return most;
}

// With held columns: the system restricted to the others. A patch column may span two bodies (patches are
// binned over the whole model), so a kept column can couple to a held one through P^T A P: zeroing z after
// the full solve would not give the restricted step (nor, in general, a descent direction).
Eigen::VectorXd GalerkinCorrection::solve(const CorrectionContext& c, const Eigen::VectorXd& r) {
    const bool holding = c.held && std::find(c.held->begin(), c.held->end(), char(1)) != c.held->end();
    if (!holding) {
        Eigen::VectorXd z = ldlt_.solve(r);
        dir_ = P_ * z;
        return z;
    }
    const std::vector<char>& held = *c.held;
    if (heldStale_ || heldFor_ != held) {
        Eigen::SparseMatrix<double> Cr = C_;
        Cr.prune(
            [&](Eigen::Index i, Eigen::Index j, double) { return !held[size_t(i)] && !held[size_t(j)]; });
        for (Eigen::Index j = 0; j < Cr.cols(); ++j)
            if (held[size_t(j)]) Cr.coeffRef(j, j) = 1;
        heldLdlt_.compute(Cr);
        if (heldLdlt_.info() != Eigen::Success) {  // as factor(): a slightly heavier diagonal, once
            for (Eigen::Index j = 0; j < Cr.cols(); ++j) Cr.coeffRef(j, j) *= 1 + 1e-6;
            heldLdlt_.compute(Cr);
        }
        heldFor_ = held;
        heldStale_ = false;
    }
    if (heldLdlt_.info() != Eigen::Success) {  // no step rather than a garbage one
        dir_ = Eigen::VectorXd::Zero(P_.rows());
        return Eigen::VectorXd::Zero(r.size());
    }
    Eigen::VectorXd rr = r;
    for (Eigen::Index j = 0; j < rr.size(); ++j)
        if (held[size_t(j)]) rr(j) = 0;
    // A held row is the identity alone with a zero right-hand side: its z is exactly 0.
    Eigen::VectorXd z = heldLdlt_.solve(rr);
    dir_ = P_ * z;
    return z;
}

void GalerkinCorrection::along(const std::vector<Vec3d>& x, double alpha) {
    xc_ = x;
    disp_.assign(x.size(), Vec3d(0, 0, 0));
    for (size_t i = 0; i < x.size(); ++i) {
        const int b = dofs_->dofBase[i];
        if (b < 0) continue;
        xc_[i] += Vec3d(dir_(3 * b), dir_(3 * b + 1), dir_(3 * b + 2)) * alpha;
        disp_[i] = xc_[i] - x[i];
    }
}

// Judged on the exact line x + alpha P z before any rounding to the solver's precision: rounding a rigidly
// moved stiff component to float re-rounds every vertex independently, which costs more elastic energy
// (O(contrast) x ulp^2) than a small correction gains (docs/coarse-space.md).
double GalerkinCorrection::deltaEnergy(const CorrectionContext& c, const Eigen::VectorXd&, double alpha) {
    along(c.x, alpha);
    return c.cache.deltaEnergy(c.m, c.x, disp_, allElements_, allVertices_, c.h, c.damping, true);
}

void GalerkinCorrection::displacement(const CorrectionContext& c, const Eigen::VectorXd&, double alpha,
                                      HookUpdate& out) {
    out.vertices.clear();
    for (size_t i = 0; i < c.x.size(); ++i) {
        const int b = dofs_->dofBase[i];
        if (b < 0) continue;
        out.vertices.push_back(int(i));
        out.dx[i] = Vec3d(dir_(3 * b), dir_(3 * b + 1), dir_(3 * b + 2)) * alpha;
    }
}

}  // namespace vbd::coarse
