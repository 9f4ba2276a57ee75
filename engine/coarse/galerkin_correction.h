#pragma once
// The Galerkin coarse step for bases given as columns (element, patch, identity): P assembled once per basis,
// P^T A P = P^T Y with Y = sum_e S_e (A_e P_e) + (M/h^2 + H_v) P, factored with a sparse LDL^T. The step is
// the linear update x + alpha P z.
#include <vector>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "coarse/correction.h"

namespace vbd::coarse {

class GalerkinCorrection final : public Correction {
  public:
    void prepare(const SoftModel& m, const Basis& b, const DofMap& dofs) override;
    bool refactorEachStep() const override { return true; }
    Eigen::VectorXd reducedResidual(const CorrectionContext& c) override;
    int factor(const CorrectionContext& c, ElementMatrixKind kind) override;
    Eigen::VectorXd solve(const CorrectionContext& c, const Eigen::VectorXd& r) override;
    double deltaEnergy(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha) override;
    void displacement(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha,
                      HookUpdate& out) override;
    double deformationChange() const override;
    const Eigen::SparseMatrix<double>& matrix() const override { return C_; }
    // P z of the last solve over free DOFs.
    const Eigen::VectorXd& lastDirection() const { return dir_; }

  private:
    // x + alpha P z over free vertices into xc_, and the displacement xc_ - x into disp_.
    void along(const std::vector<Vec3d>& x, double alpha);
    using RowIter = Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator;
    Eigen::MatrixXd elementColumns(const SoftModel& m, int e, std::vector<int>& slot,
                                   std::vector<int>& cols) const;
    Eigen::SparseMatrix<double> elementProducts(const CorrectionContext& c, ElementMatrixKind kind,
                                                int& clipped) const;
    Eigen::SparseMatrix<double> vertexTerms(const CorrectionContext& c) const;
    Eigen::SparseMatrix<double> assemble(const CorrectionContext& c, ElementMatrixKind kind,
                                         int& clipped) const;
    const DofMap* dofs_ = nullptr;
    int ncol_ = 0;
    Eigen::SparseMatrix<double> P_, Pt_, C_;
    Eigen::SparseMatrix<double, Eigen::RowMajor> Prow_;
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
    // The factorization restricted to the columns not held (held rows and columns replaced by the identity),
    // made again when the held set or C changes.
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> heldLdlt_;
    std::vector<char> heldFor_;
    bool heldStale_ = true;
    std::vector<int> active_;  // tets touching some column: the only ones whose A_e enters P^T A P
    std::vector<int> allElements_, allVertices_;
    std::vector<char> allUsed_;
    std::vector<Vec3d> grad_, xc_, disp_;
    const TetEnergyCache* cache_ = nullptr;  // of the last reducedResidual (its F)
    std::vector<Mat33d> Fref_;               // per tet, at the last factor()
    Eigen::VectorXd dir_;
};

}  // namespace vbd::coarse
