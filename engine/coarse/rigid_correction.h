#pragma once
// The coarse step for component bases (stiff_rigid): each component moves by an exact rigid motion, only the
// tets that are not interior to a component and the components' vertices are evaluated, the reduced gradient
// is the projection on the current rigid modes, and the reduced matrix has 6 x 6 blocks along component
// adjacency (rigid_coarse.h has the math). Each solve is a Newton step on the reduced problem: the assembled
// matrix plus the curvature of the rotations under the current load. The factorization is carried across
// steps and renewed by the watch on F.
#include <vector>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "coarse/correction.h"
#include "coarse/rigid_coarse.h"

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
    const std::vector<int>& watchedElements() const override { return layout_.elements; }
    const Eigen::SparseMatrix<double>& matrix() const override { return C_; }

  private:
    const Basis* basis_ = nullptr;
    RigidLayout layout_;
    Eigen::SparseMatrix<double> C_;  // assembled reduced matrix (without the rotation curvature)
    Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> llt_;
    std::vector<Vec3d> centers_, grad_, xc_, disp_, x0_;
};

}  // namespace vbd::coarse
