#pragma once
// Exact convergence quantities of the small systems (seed: "Conditioning, geometrically" and "Diagonal
// dominance is a different geometry").
#include <vector>

#include "lab/quadratic.h"

namespace vbd::lab {

// Block Gauss-Seidel iteration matrix M = -(D + L)^{-1} L^T, with D the block diagonal and L the
// strictly block-lower part of A (blocks of size bs). One bcd sweep maps the error e to M e.
// For 2x2 [[a, b], [b, c]] with 1x1 blocks, M = [[0, -b/a], [0, b^2/(ac)]], so rho(M) = b^2/(ac).
Eigen::MatrixXd gaussSeidelMatrix(const Eigen::MatrixXd& A, int bs);

// max |lambda_i| of a general square matrix (Eigen::EigenSolver; the matrices here are small).
double spectralRadius(const Eigen::MatrixXd& M);

// CG's factor q = (sqrt(kappa) - 1)/(sqrt(kappa) + 1) in ||e_k||_A <= 2 q^k ||e_0||_A.
double cgFactor(double kappa);

// Block diagonal dominance, per block i (coupling ratios: < 1 means block i dominates its row):
//   whitened[i] = sum_{j != i} || D_i^{-1/2} A_ij D_j^{-1/2} ||_2   (the measure reported as
//                 "dominance"). It is invariant under block-diagonal rescaling A -> G^T A G, which is
//                 also true of rho(M), so it separates alignment from per-block stiffness; for the
//                 generator's A = G^T (I + tS) G it is exactly t * sum_j ||S_ij||. In 2-D both blocks
//                 give |b|/sqrt(ac), so rho(M) = whitened^2.
//   fv[i]       = ||D_i^{-1}||_2 * sum_{j != i} ||A_ij||_2 (Feingold-Varga block diagonal dominance:
//                 max_i fv[i] < 1 guarantees block Jacobi and Gauss-Seidel converge). In 2-D the two
//                 values |b|/a and |b|/c multiply to rho(M).
struct BlockDominance {
    std::vector<double> whitened, fv;
    double maxWhitened = 0, maxFv = 0;
};
BlockDominance blockDominance(const Eigen::MatrixXd& A, int bs);

// Sweeps for an error contracting by `rate` per sweep to fall by `tol`: ceil(log tol / log rate);
// 1 when rate == 0 (exact after one sweep), -1 when rate >= 1 (no convergence). Asymptotic estimate:
// it ignores the transient of the first sweep.
int predictedSweeps(double rate, double tol);
// CG iterations from the bound 2 q^k <= tol, capped at n (finite termination in exact arithmetic).
int predictedCgIterations(double kappa, double tol, int n);

}  // namespace vbd::lab
