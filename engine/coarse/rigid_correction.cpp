#include "coarse/rigid_correction.h"

#include "backend/parallel.h"

namespace vbd::coarse {

void RigidCorrection::prepare(const SoftModel& m, const Basis& b, const DofMap&) {
    basis_ = &b;
    layout_ = buildRigidLayout(m, b);
    batch_.build(m, layout_.elements, layout_.support);
    x0_ = std::vector<Vec3d>(m.x0.begin(), m.x0.end());
    disp_.clear();
    dispAlpha_ = 0;
}

// grad G at the support: each vertex's own terms, then its evaluated tets (tet_batch.h: in color order).
Eigen::VectorXd RigidCorrection::reducedResidual(const CorrectionContext& c) {
    componentCenters(*basis_, c.x, centers_);
    grad_.resize(c.x.size());
    parallelFor(layout_.support.size(), [&](size_t k) {
        const size_t v = size_t(layout_.support[k]);
        grad_[v] = c.m.fixed[v] ? Vec3d(0, 0, 0) : c.cache.vertexOwnGradient(c.m, c.x, v, c.h);
    });
    change_ = batch_.addGradient(c.x, c.cache.previousC(), c.h, c.damping == DampingModel::Internal, grad_);
    dispAlpha_ = 0;
    return -projectOnRigidModes(*basis_, centers_, c.x, grad_);
}

int RigidCorrection::factor(const CorrectionContext& c, ElementMatrixKind kind) {
    int clipped = 0;
    C_ = assembleRigid(c.m, *basis_, layout_, c.cache, kind == ElementMatrixKind::Rest ? x0_ : c.x, kind,
                       c.damping, c.h, &clipped);
    shiftDiagonal(C_, 1e-10);
    chol_.analyze(C_);
    needsCurvature_ = false;
    for (const StiffComponent& c : basis_->components) needsCurvature_ |= c.curvature;
    if (!needsCurvature_) chol_.factorize(C_);  // reused by every solve until the next factor()
    batch_.markReference(c.x);
    return clipped;
}

// Newton on the reduced problem: C plus the curvature of the rotations under the current load,
// K_q = (1/L^2) sum_v [sym(r g^T) - (g . r) I] (rigid_coarse.h), refreshed every sweep (a numeric
// refactorization of the small block-sparse matrix; the assembly of C is what is reused).
// Held columns (c.held) are zeroed after the solve: every component lies in one body (stiff components are
// face-connected tets, aggregates are binned per body), and P^T A P joins no two bodies, so the rest is the
// restricted system's step.
Eigen::VectorXd RigidCorrection::solve(const CorrectionContext& c, const Eigen::VectorXd& r) {
    dispAlpha_ = 0;
    if (needsCurvature_) {
        // Indefinite curvature (compressive load along a rotation): its PSD part.
        if (!chol_.factorize(C_ + rotationCurvature(*basis_, centers_, c.x, grad_)))
            chol_.factorize(C_ + rotationCurvature(*basis_, centers_, c.x, grad_, true));
    }
    Eigen::VectorXd z = chol_.solve(r);
    if (c.held)
        for (Eigen::Index j = 0; j < z.size() && size_t(j) < c.held->size(); ++j)
            if ((*c.held)[size_t(j)]) z(j) = 0;
    return z;
}

// Judged on the unrounded rigid displacement (rigid_coarse.h, rigidRetract), computed with the vertex terms
// in one pass over the support. disp_ is zero off the support (the evaluated tets' other vertices do not
// move).
double RigidCorrection::deltaEnergy(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha) {
    if (disp_.size() != c.x.size()) disp_.assign(c.x.size(), Vec3d(0, 0, 0));
    rigidMotions(*basis_, z, alpha, motions_);
    const double vertices = reduceSum<double>(layout_.support.size(), [&](size_t k) {
        const size_t v = size_t(layout_.support[k]);
        disp_[v] = rigidDisplacementAt(layout_, motions_, centers_, c.x, v);
        return c.cache.vertexDelta(c.m, c.x, v, disp_[v], c.h);
    });
    dispAlpha_ = alpha;
    return batch_.deltaEnergy(c.x, disp_, c.cache.previousC(), c.h, c.damping == DampingModel::Internal) +
           vertices;
}

// The retracted positions as a displacement, (x + d) - x: x + (x' - x) reproduces x' = x + d to round-off.
// d is the one the line search judged at this alpha, else computed here.
void RigidCorrection::displacement(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha,
                                   HookUpdate& out) {
    if (dispAlpha_ != alpha) {
        if (disp_.size() != c.x.size()) disp_.assign(c.x.size(), Vec3d(0, 0, 0));
        rigidDisplacement(*basis_, layout_, centers_, z, alpha, c.x, disp_);
        dispAlpha_ = alpha;
    }
    out.vertices = layout_.support;
    for (int v : layout_.support) out.dx[size_t(v)] = (c.x[size_t(v)] + disp_[size_t(v)]) - c.x[size_t(v)];
}

}  // namespace vbd::coarse
