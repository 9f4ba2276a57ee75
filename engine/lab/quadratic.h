#pragma once
// Small SPD quadratics E(x) = 1/2 x^T A x - b^T x for the conditioning lab (seed: "Conditioning,
// geometrically"). Level sets are ellipsoids with principal axes = eigenvectors of A and squared
// semi-axis lengths 2(E - E*)/lambda_i, so kappa = lambda_max/lambda_min is the squared aspect ratio.
// Everything here is double and dense: the lab is about seeing the geometry, not about speed.
#include <cstdint>

#include <Eigen/Dense>

namespace vbd::lab {

// A quadratic partitioned into equal blocks of size blockSize (the "vertices" of block descent).
struct Quadratic {
    Eigen::MatrixXd A;
    Eigen::VectorXd b;
    Eigen::VectorXd x0;     // start point of every descent
    Eigen::VectorXd xStar;  // minimiser A^{-1} b
    int blockSize = 1;

    int dim() const { return int(A.rows()); }
    int blocks() const { return dim() / blockSize; }
    double energy(const Eigen::VectorXd& x) const { return 0.5 * x.dot(A * x) - b.dot(x); }
    // E* = E(x*) = -1/2 b^T x*.
    double minEnergy() const { return -0.5 * b.dot(xStar); }
    // ||x - x*||_A / ||x0 - x*||_A: the error norm every method here is analysed in.
    double relativeErrorA(const Eigen::VectorXd& x) const;
};

// The 2-D family of the seed's figures: A = R(theta) diag(1, kappa) R(theta)^T, i.e. eigenvalue 1
// (soft, the long axis of the ellipse) along u1 = (cos theta, sin theta) and eigenvalue kappa (stiff,
// short axis) along u2 = (-sin theta, cos theta). theta = 0 is axis-aligned (A diagonal).
// Entries: a = cos^2 + kappa sin^2, c = sin^2 + kappa cos^2, off-diagonal (1 - kappa) sin cos.
// b = 0, so x* = 0 and E* = 0 (the energy column of a trace is then the error energy 1/2 e^T A e).
// x0 = 2 u1 + (2/sqrt(kappa)) u2: a point that puts equal energy (2 each, E(x0) = 4) in both modes, so
// it sits on the E = 4 ellipse, is never on a principal axis (CG needs both of its steps), and rotates
// with the ellipse: changing theta only changes where the coordinate axes are relative to the picture.
// Blocks are single coordinates (blockSize 1).
Quadratic makeEllipse2d(double kappa, double angleDeg);

// Random n-D block systems with a prescribed condition number and a block-coupling knob.
//
// Construction. Let S be symmetric with zero diagonal blocks and nonpositive off-diagonal blocks on a
// connected random block graph (a chain plus ~3 random neighbours per block), scaled so that the
// Perron root of -S is 1. Then A~(t) = I + t S has unit diagonal blocks, spectrum in [1 - t, 1 + t],
// and is SPD for t in [0, 1); its block-Jacobi iteration matrix -tS has spectral radius exactly t.
// Since -S >= 0 entrywise, the Gauss-Seidel matrix (I + tL_S)^{-1}(-t L_S^T) is entrywise nonnegative
// and grows entrywise with t, so rho(M) increases monotonically with t (Stein-Rosenberg /
// Perron-Frobenius), from 0 at t = 0 (block diagonal: one sweep is exact).
// Then A = G^T A~ G with block-diagonal G, G_i = diag(exp(p u)) Q_i (Q_i a random rotation, u in
// [0, 1] fixed random per DOF). Block-diagonal congruence leaves the Gauss-Seidel spectrum unchanged
// (M' = G^{-1} M G), so rho(M) is set by t alone, while p is found by bisection so that kappa(A) equals
// the requested kappa (kappa(p) is continuous, kappa(0) = kappa(A~), kappa -> infinity as p grows).
// The requested kappa must be at least kappa(A~(t)), which is at most (1 + t)/(1 - t).
// b = A xs with xs uniform in [-1, 1]; x0 = 0. Deterministic in the seed (own uniform generator, no
// std distributions, whose output is implementation-defined).
struct BlockSystemParams {
    int blocks = 4;
    int blockSize = 3;
    double kappa = 100;     // target condition number of A
    double coupling = 0.5;  // t in [0, 1): block-Jacobi spectral radius of A (the dominance knob)
    std::uint64_t seed = 1;
};

struct BlockSystem {
    Quadratic q;
    double kappaUnscaled = 1;  // kappa(A~(t)), the smallest kappa reachable at this coupling
    double scaleExponent = 0;  // p
};

// Throws std::invalid_argument when the parameters cannot be met (callers turn it into InputError).
BlockSystem makeBlockSystem(const BlockSystemParams& p);

// kappa(A) of a symmetric positive definite matrix (2-norm), from its eigenvalues.
double conditionNumber(const Eigen::MatrixXd& A);

}  // namespace vbd::lab
