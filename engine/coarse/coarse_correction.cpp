#include "coarse/coarse_correction.h"

#include <algorithm>
#include <chrono>

#include "backend/timer.h"
#include "coarse/galerkin_correction.h"
#include "coarse/line_search.h"
#include "coarse/rigid_correction.h"

namespace vbd::coarse {

namespace {

ElementMatrixKind kindOf(CoarseMatrix m) {
    return m == CoarseMatrix::Rest ? ElementMatrixKind::Rest : ElementMatrixKind::ProjectedHessian;
}

}  // namespace

void CoarseCorrection::configure(const CoarseDesc& desc) {
    desc_ = desc;
    built_ = false;
    needFactor_ = true;
}

void CoarseCorrection::useIdentityBasis(bool on) {
    identity_ = on;
    built_ = false;
}

const Eigen::VectorXd& CoarseCorrection::lastDirection() const {
    static const Eigen::VectorXd none;
    const auto* g = dynamic_cast<const GalerkinCorrection*>(method_.get());
    return g ? g->lastDirection() : none;
}

int CoarseCorrection::prepare(const SoftModel& m) {
    if (built_ && modelVertices_ == m.numVertices() && modelTets_ == int(m.tets.size())) return numColumns();
    dofs_ = DofMap(m);
    vertexOfDof_.assign(size_t(dofs_.numDofs / 3), -1);
    for (size_t i = 0; i < dofs_.dofBase.size(); ++i)
        if (dofs_.dofBase[i] >= 0) vertexOfDof_[size_t(dofs_.dofBase[i])] = int(i);
    numBodies_ = 0;
    for (int b : m.bodyOfVertex) numBodies_ = std::max(numBodies_, b + 1);
    // Where the basis is evaluated: only component bases use positions (their columns' description: the rigid
    // correction recomputes its modes from the iterate itself).
    const std::vector<Vec3>& at = desc_.matrix == CoarseMatrix::Rest ? m.x0 : m.x;
    const std::unique_ptr<BasisStrategy> strategy =
        identity_ ? makeIdentityBasis() : makeBasisStrategy(desc_);
    basis_ = strategy->build(m, dofs_, std::vector<Vec3d>(at.begin(), at.end()));
    if (basis_.components.empty())
        method_ = std::make_unique<GalerkinCorrection>();
    else
        method_ = std::make_unique<RigidCorrection>();
    method_->prepare(m, basis_, dofs_);
    built_ = true;
    needFactor_ = true;
    modelVertices_ = m.numVertices();
    modelTets_ = int(m.tets.size());
    return numColumns();
}

void CoarseCorrection::startCache(const HookView& v) {
    if (!cache_.built(v.model)) cache_.build(v.model);
    cache_.beginStep(v.model, v.xPrev, v.y);
    cacheStarted_ = true;
}

void CoarseCorrection::beginStep(const HookView& v) {
    if (desc_.matrix == CoarseMatrix::Hessian && method_ && method_->refactorEachStep()) needFactor_ = true;
    startCache(v);
    lastFull_ = true;
}

bool CoarseCorrection::refactorDue(double h) {
    const bool hessian = desc_.matrix == CoarseMatrix::Hessian;
    const bool backtracked = hessian && !lastFull_ && !backtrackRefactored_;
    const bool moved = hessian && !needFactor_ && method_->deformationChange() > 0.05 * 0.05;
    const bool due = needFactor_ || refactorEvery_ || factorH_ != h || backtracked || moved;
    if (due) backtrackRefactored_ = backtracked;
    return due;
}

void CoarseCorrection::factor(const CorrectionContext& c) {
    ScopedTimer t(stats_.setupMs);
    stats_.clippedEigenvalues += method_->factor(c, kindOf(desc_.matrix));
    ++stats_.factorizations;
    needFactor_ = false;
    factorH_ = c.h;
}

void CoarseCorrection::finish(bool accepted, double alpha) {
    if (accepted) ++stats_.accepted;
    lastFull_ = accepted && alpha == 1;
    if (lastFull_) {
        ++stats_.fullSteps;
        backtrackRefactored_ = false;
    }
    stats_.lastAlpha = accepted ? alpha : 0;
}

int CoarseCorrection::freezeUnseenContacts(const SoftModel& m) {
    held_.clear();
    const Csr& vc = m.collision.vertexContacts;
    const bool rows = m.bodyRowOffsets.size() == size_t(m.numVertices()) + 1;
    if (vc.rows() <= 0 && !rows) return 0;
    std::vector<char> body(size_t(numBodies_), 0);
    int count = 0;
    for (int v = 0; v < m.numVertices(); ++v) {
        const bool self = v < vc.rows() && vc.begin(v) < vc.end(v);
        const bool coupled = rows && m.bodyRowOffsets[size_t(v)] < m.bodyRowOffsets[size_t(v) + 1];
        const int b = m.bodyOfVertex[size_t(v)];
        if ((self || coupled) && b >= 0 && b < numBodies_ && !body[size_t(b)]) body[size_t(b)] = 1, ++count;
    }
    if (count == 0) return 0;
    const auto heldVertex = [&](int v) {
        const int b = v >= 0 ? m.bodyOfVertex[size_t(v)] : -1;
        return b >= 0 && b < numBodies_ && body[size_t(b)] != 0;
    };
    held_.assign(basis_.columns.size(), 0);
    if (!basis_.components.empty()) {
        for (const StiffComponent& c : basis_.components)
            if (std::any_of(c.vertices.begin(), c.vertices.end(), heldVertex))
                for (int k = 0; k < 6; ++k) held_[size_t(c.firstColumn) + size_t(k)] = 1;
    } else {
        for (size_t j = 0; j < basis_.columns.size(); ++j) {
            const std::vector<int>& d = basis_.columns[j].dofs;
            held_[j] = std::any_of(d.begin(), d.end(),
                                   [&](int dof) { return heldVertex(vertexOfDof_[size_t(dof / 3)]); });
        }
    }
    return count;
}

void CoarseCorrection::afterSweep(const HookView& v, int, HookUpdate& update) {
    if (prepare(v.model) == 0) return;  // empty basis: plain VBD, bit for bit
    const auto t0 = std::chrono::steady_clock::now();
    const double setup0 = stats_.setupMs;
    if (!cacheStarted_) startCache(v);
    cache_.setDrag(v.drag);
    cache_.setNaiveDamping(v.model, v.damping == DampingModel::Naive, v.h);
    cache_.lagContacts(v.model, v.x, v.h, v.contact);
    if (freezeUnseenContacts(v.model) > 0) {
        ++stats_.holdingSweeps;
        // Every column held: nothing to correct (not counted as a correction).
        if (std::find(held_.begin(), held_.end(), char(0)) == held_.end()) return;
    }
    const CorrectionContext c{v.model, v.x, v.h, v.damping, cache_, &held_};
    const Eigen::VectorXd r = method_->reducedResidual(c);  // r = P^T (-grad G(x))
    if (refactorDue(v.h)) factor(c);                        // P^T A P
    const Eigen::VectorXd z = method_->solve(c, r);         // z = (P^T A P)^{-1} r, held columns out
    ++stats_.corrections;
    const double G0 = recordEnergy_ ? cache_.eval(v.model, v.x, v.h, v.damping, nullptr) : 0.0;
    const LineSearchResult ls =
        backtrack([&](double a) { return method_->deltaEnergy(c, z, a); }, lineSearch_);
    if (ls.accepted) method_->displacement(c, z, ls.alpha, update);  // x <- x + alpha P z
    finish(ls.accepted, ls.alpha);
    if (recordEnergy_) {
        std::vector<Vec3d> x1 = v.x;
        for (int i : update.vertices) x1[size_t(i)] += update.dx[size_t(i)];
        stats_.energyBefore.push_back(G0);
        stats_.energyAfter.push_back(cache_.eval(v.model, x1, v.h, v.damping, nullptr));
    }
    stats_.correctionMs += msSince(t0) - (stats_.setupMs - setup0);
}

}  // namespace vbd::coarse

namespace vbd {

std::unique_ptr<CoarseHook> makeCoarseHook() { return std::make_unique<coarse::CoarseCorrection>(); }

}  // namespace vbd
