#include "coarse/coarse_correction.h"

#include <chrono>
#include <cmath>
#include <numeric>

#include "coarse/element_hessian.h"

namespace vbd::coarse {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

ElementMatrixKind kindOf(CoarseMatrix m) {
    return m == CoarseMatrix::Rest ? ElementMatrixKind::Rest : ElementMatrixKind::ProjectedHessian;
}

// Where the basis is evaluated (rigid columns of stiff_rigid; every other basis uses rest data only). The
// rigid path recomputes its modes from the current positions itself (rigid_coarse.h), so for it these are
// only the columns' description (Basis::columns, counts and tests).
const std::vector<Vec3>& basisPositions(const SoftModel& m, const CoarseDesc& d) {
    return d.matrix == CoarseMatrix::Rest ? m.x0 : m.x;
}

template <typename V>
void toDouble(const std::vector<V>& a, std::vector<Eigen::Vector3d>& out) {
    out.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i)
        out[i] = Eigen::Vector3d(double(a[i].x), double(a[i].y), double(a[i].z));
}

}  // namespace

// The solver's iterate in double: its double state (solver.precision = double), or its float state converted.
void CoarseCorrection::loadPositions(const SoftSolver& solver, std::vector<Eigen::Vector3d>& x) const {
    if (solver.useDouble())
        toDouble(solver.xD(), x);
    else
        toDouble(solver.model().x, x);
}

// Writes x back to the solver's iterate at `verts` (all free vertices when null): the double state as is,
// or rounded to float.
void CoarseCorrection::storePositions(SoftSolver& solver, const std::vector<Eigen::Vector3d>& x,
                                      const std::vector<int>* verts) const {
    const bool dbl = solver.useDouble();
    std::vector<Vec3>& xf = solver.model().x;
    std::vector<Vec3d>& xd = solver.xD();
    auto put = [&](size_t i) {
        if (dbl)
            xd[i] = Vec3d(x[i].x(), x[i].y(), x[i].z());
        else
            xf[i] = Vec3(float(x[i].x()), float(x[i].y()), float(x[i].z()));
    };
    if (verts) {
        for (int v : *verts) put(size_t(v));
    } else {
        for (size_t i = 0; i < x.size(); ++i)
            if (dofs_.dofBase[i] >= 0) put(i);
    }
}

void CoarseCorrection::startCache(SoftSolver& solver) {
    const SoftModel& m = solver.model();
    if (!cache_.built(m)) cache_.build(m);
    std::vector<Eigen::Vector3d> xp, y;
    if (solver.useDouble()) {
        toDouble(solver.xPrevD(), xp);
        toDouble(solver.yD(), y);
    } else {
        toDouble(m.xPrev, xp);
        toDouble(m.y, y);
    }
    cache_.beginStep(m, xp, y);
    cacheStarted_ = true;
}

void CoarseCorrection::configure(const CoarseDesc& desc) {
    desc_ = desc;
    built_ = false;
    needFactor_ = true;
}

void CoarseCorrection::beginStep(SoftSolver& solver) {
    // The rigid path keeps its factorization across steps: its matrix depends on the evaluated tets' F and
    // on the components' orientation, and both are watched by rule (a) (a rotation by ~0.03 rad moves F by
    // 0.05). The generic path refactors at every step.
    if (desc_.matrix == CoarseMatrix::Hessian && !rigidPath_) needFactor_ = true;
    startCache(solver);
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
    // The rigid path works from the components directly; P, its transpose and the active elements serve
    // the generic path only.
    rigidPath_ = !identity_ && !basis_.components.empty();
    if (rigidPath_)
        rigid_ = buildRigidLayout(m, basis_);
    else
        buildP(m);
    built_ = true;
    needFactor_ = true;
    modelVertices_ = m.numVertices();
    modelTets_ = int(m.tets.size());
    return numColumns();
}

bool CoarseCorrection::hessianMoved() const {
    for (int e : rigidPath_ ? rigid_.elements : activeElements_)
        if ((cache_.lastF(e) - Fref_[size_t(e)]).norm() > 0.05) return true;
    return false;
}

// Generic path (element, patch and identity bases): P^T A P = P^T Y, Y = sum_e S_e (A_e P_e), at xd_.
void CoarseCorrection::factor(SoftSolver& solver) {
    auto t0 = std::chrono::steady_clock::now();
    const SoftModel& m = solver.model();
    const double h = solver.currentH();
    const DampingModel damping = solver.params().damping;
    const ElementMatrixKind kind = kindOf(desc_.matrix);
    const int ncol = numColumns();
    std::vector<Eigen::Triplet<double>> yt;
    std::vector<int> slot(size_t(ncol), -1), cols;
    Fref_.resize(m.tets.size());
    for (int e : activeElements_) {
        const auto& t = m.tets[size_t(e)];
        if (kind == ElementMatrixKind::ProjectedHessian) Fref_[size_t(e)] = cache_.lastF(e);
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
        const Mat12 Ae = elementMatrix(m, e, kind, damping, h, &stats_.clippedEigenvalues, &xd_);
        const Eigen::MatrixXd Ye = Ae * Pe;
        for (int a = 0; a < 4; ++a) {
            const int b = dofs_.dofBase[size_t(t[size_t(a)])];
            if (b < 0) continue;
            for (int q = 0; q < 3; ++q)
                for (size_t c = 0; c < cols.size(); ++c)
                    yt.emplace_back(3 * b + q, cols[c], Ye(3 * a + q, Eigen::Index(c)));
        }
        for (int c : cols) slot[size_t(c)] = -1;
    }
    Eigen::SparseMatrix<double> Y(dofs_.numDofs, ncol);
    Y.setFromTriplets(yt.begin(), yt.end());
    Eigen::VectorXd mh2(dofs_.numDofs);
    for (int i = 0; i < m.numVertices(); ++i) {
        const int b = dofs_.dofBase[size_t(i)];
        if (b >= 0) mh2.segment<3>(3 * b).setConstant(double(m.mass[size_t(i)]) / (h * h));
    }
    Eigen::SparseMatrix<double> C = Pt_ * Y;
    C += Pt_ * mh2.asDiagonal() * P_;
    // Vertex potentials (collider penalties, drag): their Gauss-Newton 3x3 blocks, where nonzero.
    std::vector<Eigen::Triplet<double>> vt;
    for (int i = 0; i < m.numVertices(); ++i) {
        const int b = dofs_.dofBase[size_t(i)];
        if (b < 0) continue;
        Eigen::Matrix3d Hv = Eigen::Matrix3d::Zero();
        Eigen::Vector3d unused = Eigen::Vector3d::Zero();
        cache_.vertexPotential(m, size_t(i), xd_[size_t(i)], &unused, &Hv);
        if (Hv.isZero(0.0)) continue;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) vt.emplace_back(3 * b + r, 3 * b + c, Hv(r, c));
    }
    if (!vt.empty()) {
        Eigen::SparseMatrix<double> Hv(dofs_.numDofs, dofs_.numDofs);
        Hv.setFromTriplets(vt.begin(), vt.end());
        C += Pt_ * Hv * P_;
    }
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

void CoarseCorrection::factorRigid(SoftSolver& solver) {
    auto t0 = std::chrono::steady_clock::now();
    const SoftModel& m = solver.model();
    const double h = solver.currentH();
    const bool rest = desc_.matrix == CoarseMatrix::Rest;
    std::vector<Eigen::Vector3d> xr;
    if (rest) toDouble(m.x0, xr);
    Eigen::SparseMatrix<double> C =
        assembleRigid(m, basis_, rigid_, cache_, rest ? xr : xd_, kindOf(desc_.matrix),
                      solver.params().damping, h, &stats_.clippedEigenvalues);
    // The same relative 1e-10 diagonal shift as the generic path (dependent columns: components of fewer
    // than 3 non-collinear free vertices).
    for (int k = 0; k < C.outerSize(); ++k)
        for (Eigen::SparseMatrix<double>::InnerIterator it(C, k); it; ++it)
            if (it.row() == it.col()) it.valueRef() = it.value() > 0 ? it.value() * (1 + 1e-10) : 1.0;
    Cbase_ = C;
    C_ = C;
    rigidLlt_.analyzePattern(Cbase_);
    if (!rest) {
        Fref_.resize(m.tets.size());
        for (int e : rigid_.elements) Fref_[size_t(e)] = cache_.lastF(e);
    }
    ++stats_.factorizations;
    needFactor_ = false;
    factorH_ = h;
    stats_.setupMs += msSince(t0);
}

bool CoarseCorrection::refactorDue(double h) {
    const bool backtracked = desc_.matrix == CoarseMatrix::Hessian && !lastFull_ && !backtrackRefactored_;
    const bool due = needFactor_ || refactorEvery_ || factorH_ != h || backtracked ||
                     (desc_.matrix == CoarseMatrix::Hessian && hessianMoved());
    if (due) backtrackRefactored_ = backtracked;
    return due;
}

void CoarseCorrection::finishCorrection(bool ok, double alpha) {
    if (ok) ++stats_.accepted;
    lastFull_ = ok && alpha == 1;
    if (lastFull_) {
        ++stats_.fullSteps;
        backtrackRefactored_ = false;
    }
    stats_.lastAlpha = ok ? alpha : 0;
}

// Rigid path (rigid_coarse.h): only the tets that are not interior to a component and the component vertices'
// inertia are evaluated, the reduced gradient is the projection on the current rigid modes, and the step is
// an exact rigid motion of each component.
void CoarseCorrection::afterSweepRigid(SoftSolver& solver) {
    const SoftModel& m = solver.model();
    auto t0 = std::chrono::steady_clock::now();
    const double h = double(solver.currentH());
    const DampingModel damping = solver.params().damping;
    loadPositions(solver, xd_);
    componentCenters(basis_, xd_, centers_);
    cache_.evalElements(m, xd_, rigid_.elements, h, damping, true);
    cache_.gatherGradient(m, xd_, rigid_.support, rigid_.evaluated, h, grad_);
    if (refactorDue(h)) {
        stats_.correctionMs += msSince(t0);
        factorRigid(solver);
        t0 = std::chrono::steady_clock::now();
    }
    // Newton on the reduced problem: C plus the curvature of the rotations under the current load,
    // K_q = (1/L^2) sum_v [sym(r g^T) - (g . r) I] (rigid_coarse.h), refreshed every sweep (a numeric
    // refactorization of the small block-sparse matrix; the assembly of C is what is reused).
    rigidLlt_.factorize(Cbase_ + rotationCurvature(basis_, centers_, xd_, grad_));
    if (rigidLlt_.info() != Eigen::Success) {
        // Indefinite curvature (compressive load along a rotation): keep its PSD part only.
        rigidLlt_.factorize(Cbase_ + rotationCurvature(basis_, centers_, xd_, grad_, true));
        ++stats_.clippedEigenvalues;
    }
    const Eigen::VectorXd z = rigidLlt_.solve(-projectOnRigidModes(basis_, centers_, xd_, grad_));
    ++stats_.corrections;
    const double Gf0 = recordEnergy_ ? solver.incrementalPotential() : 0.0;
    const double G0 = recordEnergy_ ? cache_.eval(m, xd_, h, damping, nullptr) : 0.0;
    // Backtracking on the exact change of G along the retraction (deltaEnergy: accurate near convergence).
    xc_ = xd_;
    disp_.assign(xd_.size(), Eigen::Vector3d::Zero());
    double alpha = 1;
    bool ok = !lineSearch_;
    if (ok) rigidRetract(basis_, rigid_, centers_, z, 1.0, xd_, xc_);
    for (int tries = 0; tries < 6 && lineSearch_; ++tries, alpha *= 0.5) {
        rigidRetract(basis_, rigid_, centers_, z, alpha, xd_, xc_, &disp_);
        const double dGa = cache_.deltaEnergy(m, xd_, disp_, rigid_.elements, rigid_.support, h, damping);
        if (dGa <= 0) {
            ok = true;
            break;
        }
    }
    if (ok) storePositions(solver, xc_, &rigid_.support);
    finishCorrection(ok, alpha);
    if (recordEnergy_) {
        stats_.energyBefore.push_back(G0);
        stats_.energyAfter.push_back(ok ? cache_.eval(m, xc_, h, damping, nullptr) : G0);
        stats_.floatEnergyBefore.push_back(Gf0);
        stats_.floatEnergyAfter.push_back(solver.incrementalPotential());
    }
    stats_.correctionMs += msSince(t0);
}

void CoarseCorrection::afterSweep(SoftSolver& solver, int iteration) {
    prepare(solver);
    if (basis_.columns.empty()) return;  // empty basis: plain VBD, bit for bit
    if (!cacheStarted_) startCache(solver);
    const SoftView v = solver.view();
    cache_.setDrag(v.dragVertex, Eigen::Vector3d(v.dragTarget.x, v.dragTarget.y, v.dragTarget.z),
                   double(v.dragStiffness));
    if (rigidPath_) return afterSweepRigid(solver);
    const SoftModel& m = solver.model();
    auto t0 = std::chrono::steady_clock::now();
    // r = -grad G in double from the solver's positions. The solver's float forces sum O(contrast) terms
    // (mu F and s cof F cancel to the stress) and their round-off, projected on the columns of a stiff
    // region, is as large as the signal near convergence (docs/coarse-space.md, "float floor").
    loadPositions(solver, xd_);
    const double h = double(solver.currentH());
    const DampingModel damping = solver.params().damping;
    const double G0 = cache_.eval(m, xd_, h, damping, &grad_);
    // The refactorization decision uses the F just computed by the gradient (no extra pass).
    if (refactorDue(h)) {
        stats_.correctionMs += msSince(t0);
        factor(solver);
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
    disp_.assign(xd_.size(), Eigen::Vector3d::Zero());
    if (allElements_.size() != m.tets.size() || allVertices_.size() != size_t(m.numVertices())) {
        allElements_.resize(m.tets.size());
        std::iota(allElements_.begin(), allElements_.end(), 0);
        allVertices_.resize(size_t(m.numVertices()));
        std::iota(allVertices_.begin(), allVertices_.end(), 0);
    }
    auto along = [&](double a) {
        xc_ = xd_;
        for (int i = 0; i < m.numVertices(); ++i) {
            const int b = dofs_.dofBase[size_t(i)];
            if (b >= 0) xc_[size_t(i)] += a * dir_.segment<3>(3 * b);
        }
    };
    for (int tries = 0; tries < 6 && lineSearch_; ++tries, alpha *= 0.5) {
        along(alpha);
        for (size_t i = 0; i < xc_.size(); ++i) disp_[i] = xc_[i] - xd_[i];
        const double dG = cache_.deltaEnergy(m, xd_, disp_, allElements_, allVertices_, h, damping);
        if (dG <= 0) {
            G1 = recordEnergy_ ? cache_.eval(m, xc_, h, damping, nullptr) : G0 + dG;
            ok = true;
            break;
        }
    }
    if (!lineSearch_) {
        ok = true;
        alpha = 1;
        along(1.0);
        if (recordEnergy_) G1 = cache_.eval(m, xc_, h, damping, nullptr);
    }
    if (ok)
        storePositions(solver, xc_, nullptr);
    else
        G1 = G0;
    finishCorrection(ok, alpha);
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
