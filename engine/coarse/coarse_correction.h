#pragma once
// Element-eigenmode coarse-space correction inside the VBD loop (seed, "Element eigenmodes as a free
// coarse basis", pseudo-code after "Slotted into the VBD loop"). After each full color sweep:
//   r = -grad G(x)                         (in double, element_hessian.h)
//   (P^T A P) z = P^T r                    (sparse Cholesky, Eigen SimplicialLDLT / SimplicialLLT)
//   x <- x + alpha P z,  alpha in {1, 1/2, ..., 1/32} the first with G(x + alpha P z) <= G(x),
//                        else x is left unchanged (the correction never increases G).
// G and grad G are evaluated in double (element_hessian.h: tets, inertia, internal damping, collider
// penalties and the picking spring; friction and gap damping have no potential) at the solver's positions:
// its double state (solver.precision = double) or its float state converted. The line search judges the exact
// change of G (TetEnergyCache::deltaEnergy) along the unrounded step; the accepted point is then stored in
// the solver's precision. A = sum_e A_e + M/h^2 over free DOFs, A_e the per-tet PSD-projected Hessian (matrix
// "hessian") or the rest stiffness (matrix "rest"), both with the damping Gauss-Newton term
// (element_hessian.h).
//
// Two paths. Bases made of stiff components (stiff_rigid) go through rigid_coarse.h: the step is an exact
// rigid motion of each component, tets interior to a component drop out of gradient, matrix and line search,
// and the reduced matrix has 6 x 6 blocks along component adjacency. Every other basis (element, patch, P =
// I) is assembled element by element: P^T A P = sum_e P_e^T A_e P_e + P^T (M/h^2) P with P_e the rows of P on
// tet e, through Y = sum_e S_e (A_e P_e) and P^T Y.
//
// Refactorization rule: "rest": once per basis (and when h changes). "hessian": at the first correction of
// each time step (generic path only; the rigid path carries its factorization over), and again when (a) some
// tet of the coarse support moved its F by more than 0.05 (Frobenius) since the last factorization, or (b)
// the previous line search could not take alpha = 1 (once per run of such corrections: near the float floor a
// refactorization does not restore alpha = 1, and repeating it every sweep only costs). The pattern of P^T A
// P depends only on the basis, which is built once per model.
#include <vector>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "coarse/coarse_basis.h"
#include "coarse/coarse_hook.h"
#include "coarse/element_hessian.h"
#include "coarse/rigid_coarse.h"

namespace vbd::coarse {

struct CorrectionStats {
    int corrections = 0;  // afterSweep calls that solved the coarse system
    int accepted = 0;     // ... whose step was taken (some alpha)
    int fullSteps = 0;    // ... with alpha = 1
    int factorizations = 0;
    int clippedEigenvalues = 0;  // PSD projection activity over all factorizations
    double lastAlpha = 0;
    double setupMs = 0, correctionMs = 0;
    // Per correction, when recordEnergy is on: exact G (double, unrounded line) before / after, and the
    // solver's G of the float state before / after (rounding included).
    std::vector<double> energyBefore, energyAfter, floatEnergyBefore, floatEnergyAfter;
};

class CoarseCorrection : public CoarseHook {
  public:
    void configure(const CoarseDesc& desc) override;
    void beginStep(SoftSolver& solver) override;
    void afterSweep(SoftSolver& solver, int iteration) override;

    // Test and experiment controls.
    void useIdentityBasis(bool on) {
        identity_ = on;
        built_ = false;
    }  // P = I: a (projected) Newton step
    void setRefactorEverySweep(bool on) { refactorEvery_ = on; }
    void setLineSearch(bool on) { lineSearch_ = on; }
    void setRecordEnergy(bool on) { recordEnergy_ = on; }

    // Builds the basis (if the model changed) now; returns the number of columns.
    int prepare(SoftSolver& solver);
    int numColumns() const { return int(basis_.columns.size()); }
    int numDofs() const { return dofs_.numDofs; }
    const Basis& basis() const { return basis_; }
    const CorrectionStats& stats() const { return stats_; }
    void resetStats() { stats_ = CorrectionStats{}; }
    // P z of the last correction over free DOFs, before the line search (generic path; the rigid path moves
    // components by exact rigid motions instead).
    const Eigen::VectorXd& lastDirection() const { return dir_; }
    // The assembled coarse matrix of the last factorization (with the 1e-10 relative diagonal shift).
    const Eigen::SparseMatrix<double>& coarseMatrix() const { return C_; }

  private:
    void buildP(const SoftModel& m);
    void factor(SoftSolver& solver);
    void factorRigid(SoftSolver& solver);
    bool refactorDue(double h);
    void finishCorrection(bool ok, double alpha);
    void afterSweepRigid(SoftSolver& solver);
    bool hessianMoved() const;
    void loadPositions(const SoftSolver& solver, std::vector<Eigen::Vector3d>& x) const;
    void storePositions(SoftSolver& solver, const std::vector<Eigen::Vector3d>& x,
                        const std::vector<int>* verts) const;
    void startCache(SoftSolver& solver);

    CoarseDesc desc_;
    bool identity_ = false, refactorEvery_ = false, lineSearch_ = true, recordEnergy_ = false;
    bool rigidPath_ = false, cacheStarted_ = false;
    RigidLayout rigid_;
    Eigen::SparseMatrix<double>
        Cbase_;  // rigid path: assembled reduced matrix (without the rotation curvature)
    Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> rigidLlt_;
    std::vector<Eigen::Vector3d> centers_, disp_;
    std::vector<int> allElements_, allVertices_;
    bool built_ = false, needFactor_ = true, lastFull_ = true, backtrackRefactored_ = false;
    int modelVertices_ = -1, modelTets_ = -1;
    double factorH_ = -1;
    DofMap dofs_;
    Basis basis_;
    Eigen::SparseMatrix<double> P_, Pt_, C_;
    Eigen::SparseMatrix<double, Eigen::RowMajor> Prow_;
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt_;
    std::vector<int> activeElements_;
    std::vector<Eigen::Matrix3d> Fref_;
    Eigen::VectorXd dir_;
    std::vector<Eigen::Vector3d> xd_, xc_, grad_;
    CorrectionStats stats_;
    TetEnergyCache cache_;
};

}  // namespace vbd::coarse
