#pragma once
// The coarse step for component bases (stiff_rigid): each component moves by an exact rigid motion, only the
// tets that are not interior to a component and the components' vertices are evaluated, the reduced gradient
// is the projection on the current rigid modes, and the reduced matrix has 6 x 6 blocks along component
// adjacency (rigid_coarse.h has the math). Each solve is a Newton step on the reduced problem: the assembled
// matrix plus the curvature of the rotations under the current load. The factorization is carried across
// steps and renewed by the watch on F.
//
// Cost (docs/coarse-space.md, "Cost per corrected sweep"): the two passes over the evaluated tets run on SIMD
// packs (tet_batch.h), the F watch rides on the gradient pass, the factor is an envelope Cholesky
// (envelope_cholesky.h), and the accepted step reuses the displacement its line search judged.
#include <vector>

#include <Eigen/SparseCore>

#include "coarse/correction.h"
#include "coarse/envelope_cholesky.h"
#include "coarse/rigid_coarse.h"
#include "coarse/tet_batch.h"

namespace vbd::coarse {

class RigidCorrection final : public Correction {
  public:
    void prepare(const SoftModel& m, const Basis& b, const DofMap& dofs) override;
    bool refactorEachStep() const override { return false; }
    Eigen::VectorXd reducedResidual(const CorrectionContext& c) override;
    int factor(const CorrectionContext& c, ElementMatrixKind kind) override;
    Eigen::VectorXd solve(const CorrectionContext& c, const Eigen::VectorXd& r) override;
    double deltaEnergy(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha) override;
    void displacement(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha,
                      HookUpdate& out) override;
    double deformationChange() const override { return change_; }
    const Eigen::SparseMatrix<double>& matrix() const override { return C_; }

  private:
    const Basis* basis_ = nullptr;
    bool needsCurvature_ = true;
    RigidLayout layout_;
    TetBatch batch_;                 // layout_.elements, gathered at layout_.support
    Eigen::SparseMatrix<double> C_;  // assembled reduced matrix (without the rotation curvature)
    EnvelopeCholesky chol_;
    double change_ = 0;     // the F watch of the last reducedResidual
    double dispAlpha_ = 0;  // the alpha disp_ holds (0: none, for the current z)
    RigidMotions motions_;
    std::vector<Vec3d> centers_, grad_, disp_, x0_;
};

}  // namespace vbd::coarse
