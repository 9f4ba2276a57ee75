#pragma once
// How a coarse step is computed for a given basis: the two-level step of the seed,
//   r = P^T (-grad G(x)),   z = (P^T A P)^{-1} r,   x <- x + alpha P z,
// in one of two ways (coarse_correction.h chooses):
//   GalerkinCorrection  P assembled column by column, P^T A P = sum_e P_e^T A_e P_e + P^T (M/h^2) P
//                       (element, patch and identity bases);
//   RigidCorrection     component bases: every component moves by an exact rigid motion, tets interior to
//                       a component drop out, and the reduced Newton matrix has 6 x 6 blocks
//                       (rigid_coarse.h).
// Both share the line search (line_search.h) and the refactorization rule (coarse_correction.cpp).
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "coarse/basis.h"
#include "coarse/element_matrix.h"
#include "coarse/energy_cache.h"
#include "soft/sweep_hook.h"

namespace vbd::coarse {

// What one correction reads: the model, the iterate, the step's h and damping, and the energy cache.
struct CorrectionContext {
    const SoftModel& m;
    const std::vector<Vec3d>& x;
    double h;
    DampingModel damping;
    const TetEnergyCache& cache;
    // Columns held at z = 0 this sweep (coarse_correction.h freezeUnseenContacts); null or empty: none. solve
    // returns the step of the system restricted to the other columns.
    const std::vector<char>* held = nullptr;
};

class Correction {
  public:
    virtual ~Correction() = default;
    // Once per model and basis.
    virtual void prepare(const SoftModel& m, const Basis& b, const DofMap& dofs) = 0;
    // Whether the Hessian factorization is renewed at every time step (else it is carried across steps
    // and renewed by the watch on F).
    virtual bool refactorEachStep() const = 0;
    // r = P^T (-grad G(x)); evaluates the deformation gradients of the tets it reads on the way.
    virtual Eigen::VectorXd reducedResidual(const CorrectionContext& c) = 0;
    // Assembles and factors P^T A P at x (rest matrix: at the rest state). Returns the eigenvalues clipped by
    // the PSD projection.
    virtual int factor(const CorrectionContext& c, ElementMatrixKind kind) = 0;
    // z = (P^T A P)^{-1} r (the rigid correction adds the rotations' curvature under the current load),
    // restricted to the columns not held (c.held).
    virtual Eigen::VectorXd solve(const CorrectionContext& c, const Eigen::VectorXd& r) = 0;
    // The exact change of G along the step alpha z (tetEnergyDelta per tet: accurate near convergence).
    virtual double deltaEnergy(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha) = 0;
    // The displacement of the step alpha z, written to `out` (vertices and dx).
    virtual void displacement(const CorrectionContext& c, const Eigen::VectorXd& z, double alpha,
                              HookUpdate& out) = 0;
    // The refactorization rule's watch: max over the tets the matrix reads of |F - F_ref|^2 (Frobenius), F at
    // the last reducedResidual, F_ref at the last factor().
    virtual double deformationChange() const = 0;
    // The assembled matrix of the last factorization.
    virtual const Eigen::SparseMatrix<double>& matrix() const = 0;
};

// The same relative 1e-10 diagonal shift for both corrections: it keeps the factorization defined when the
// columns are linearly dependent (element bases have more columns than DOFs; components of fewer than 3
// non-collinear free vertices); C + shift is SPD, so P z stays a descent direction of G.
void shiftDiagonal(Eigen::SparseMatrix<double>& C, double relative);

}  // namespace vbd::coarse
