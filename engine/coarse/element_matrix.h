#pragma once
// Per-tet second derivatives of G for the coarse system P^T A P. The physics (the 9x9 Hessians with respect
// to vec(F), the 12x12 element matrix) is energy/tet_energy.h; this file chooses which matrix the coarse
// space uses and adds the one thing it needs that the solver does not: the PSD projection.
#include <vector>

#include <Eigen/Dense>

#include "soft/soft_model.h"

namespace vbd::coarse {

using Mat9d = Eigen::Matrix<double, 9, 9>;
using Mat12d = Eigen::Matrix<double, 12, 12>;

enum class ElementMatrixKind { ProjectedHessian, Rest };

// Clamps negative eigenvalues to 0. `clipped` (optional) counts the eigenvalues that were negative beyond
// round-off (below -1e-12 of the largest magnitude).
Mat9d projectPsd(const Mat9d& H, int* clipped = nullptr);

// The F-space matrix of tet e: the projected Neo-Hookean Hessian at F (or the rest Hessian at F = I, which
// is PSD and needs no projection), plus the internal damping's Gauss-Newton term.
Mat9d elementHessianF(const SoftModel& m, int e, const Mat33d& F, ElementMatrixKind kind,
                      DampingModel damping, double h, int* clipped = nullptr);

// A_e without the mass term at the positions x (ProjectedHessian) or at F = I (Rest). Naive damping is not
// in it: the coarse G holds it as a vertex potential (TetEnergyCache::setNaiveDamping).
Mat12d elementMatrix(const SoftModel& m, int e, ElementMatrixKind kind, DampingModel damping, double h,
                     const std::vector<Vec3d>& x, int* clipped = nullptr);

// Rest elastic stiffness K_e (no damping), the source of the element eigenmodes.
Mat12d restStiffness(const SoftModel& m, int e);

// The deformation gradient of tet e at positions x, and the tet's vertex weights m^a as a 3 x 4 matrix.
Mat33d deformationGradient(const SoftModel& m, int e, const std::vector<Vec3d>& x);

}  // namespace vbd::coarse
