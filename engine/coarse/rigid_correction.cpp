#include "coarse/rigid_correction.h"

namespace vbd::coarse {

void RigidCorrection::prepare(const SoftModel& m, const Basis& b, const DofMap&) {
    basis_ = &b;
    layout_ = buildRigidLayout(m, b);
    x0_ = std::vector<Vec3d>(m.x0.begin(), m.x0.end());
}

Eigen::VectorXd RigidCorrection::reducedResidual(const CorrectionContext& c) {
    componentCenters(*basis_, c.x, centers_);
    c.cache.evalElements(c.m, c.x, layout_.elements, c.h, c.damping, true);
    c.cache.gatherGradient(c.m, c.x, layout_.support, layout_.evaluated, c.h, grad_);
    return -projectOnRigidModes(*basis_, centers_, c.x, grad_);
}

int RigidCorrection::factor(const CorrectionContext& c, ElementMatrixKind kind) {
    int clipped = 0;
    C_ = assembleRigid(c.m, *basis_, layout_, c.cache, kind == ElementMatrixKind::Rest ? x0_ : c.x, kind,
                       c.damping, c.h, &clipped);
    shiftDiagonal(C_, 1e-10);
    llt_.analyzePattern(C_);
    return clipped;
}

// Newton on the reduced problem: C plus the curvature of the rotations under the current load,
// K_q = (1/L^2) sum_v [sym(r g^T) - (g . r) I] (rigid_coarse.h), refreshed every sweep (a numeric
// refactorization of the small block-sparse matrix; the assembly of C is what is reused).
Eigen::VectorXd RigidCorrection::solve(const CorrectionContext& c, const Eigen::VectorXd& r) {
    llt_.factorize(C_ + rotationCurvature(*basis_, centers_, c.x, grad_));
    if (llt_.info() != Eigen::Success)  // indefinite curvature (compressive load along a rotation): PSD part
        llt_.factorize(C_ + rotationCurvature(*basis_, centers_, c.x, grad_, true));
    return llt_.solve(r);
}

// Judged on the unrounded rigid displacement (rigid_coarse.h, rigidRetract).
double RigidCorrection::deltaEnergy(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha) {
    xc_ = c.x;
    disp_.assign(c.x.size(), Vec3d(0, 0, 0));
    rigidRetract(*basis_, layout_, centers_, z, alpha, c.x, xc_, &disp_);
    return c.cache.deltaEnergy(c.m, c.x, disp_, layout_.elements, layout_.support, c.h, c.damping);
}

// The retracted positions as a displacement (x + (x' - x) reproduces x' to round-off).
void RigidCorrection::displacement(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha,
                                   HookUpdate& out) {
    xc_ = c.x;
    rigidRetract(*basis_, layout_, centers_, z, alpha, c.x, xc_);
    out.vertices = layout_.support;
    for (int v : layout_.support) out.dx[size_t(v)] = xc_[size_t(v)] - c.x[size_t(v)];
}

}  // namespace vbd::coarse
