#pragma once
// Four descent strategies on E(x) = 1/2 x^T A x - b^T x, each "a choice of descent basis" (seed:
// "Every iterative method is a choice of descent basis"). Every step is an exact minimisation of E over
// a small subspace x + span(V) (a line search when V is one column):
//     x <- x + V (V^T A V)^{-1} V^T r,   r = b - A x,
// so E never increases. A path records one entry per step and says which sweep each step belongs to.
//
//   bcd    block Gauss-Seidel = VBD without colouring: one exact block solve per block in index order.
//   cg     conjugate gradients: one A-conjugate Krylov direction per step (one step = one "sweep").
//   eigen  the global eigenbasis A = Q Lambda Q^T: one exact step along each eigenvector (softest
//          first), i.e. each decoupled parabola z_i* = b~_i / lambda_i solved once. Exact in one sweep.
//   local  the sparse local-eigen basis (the seed's fourth strategy), defined in LocalModes below.
#include <string>
#include <vector>

#include "lab/quadratic.h"

namespace vbd::lab {

enum class Method { Bcd, Cg, Eigen, Local };
const char* methodName(Method m);
bool parseMethod(const std::string& s, Method& out);

// The sparse local-eigen basis. Its patches are the coupled block pairs p = {i, j}, i < j, A_ij != 0
// (the lab's stand-in for FEM elements: an element couples exactly the vertices it touches). Each
// patch's principal submatrix A_pp (2 bs x 2 bs) is eigendecomposed, A_pp = Q_p Lambda_p Q_p^T, and its
// eigenvectors, zero-padded to R^n, are the directions: sparse like block coordinates (support = two
// blocks), spectrally informed like the eigenbasis (each is a principal axis of the local energy).
// Patches are visited in lexicographic (i, j) order. Under All, a block coupled to no other block is a
// patch of its own (so an axis-aligned 2-D ellipse gets the two coordinate axes).
//   All    every eigenvector of every patch, stiffest first, each with an exact line search. Sweeping
//          all of Q_p minimises E exactly over the patch (its columns are A_pp-orthogonal), so a sweep
//          is multiplicative Schwarz on overlapping pair patches. In 2-D the only patch is the whole
//          space, so this is the global eigenbasis (stiff axis first) and is exact in one sweep.
//   Stiff  the seed's two-level loop: a bcd sweep (the smoother), then a line search along the single
//          stiffest eigenvector of each patch (the seed's "stiffest few modes per element").
//   Soft   the same with the softest eigenvector of each patch (the multigrid choice: smoothers leave
//          soft, near-kernel error behind, so a coarse space should hold it).
enum class LocalModes { All, Stiff, Soft };
const char* localModesName(LocalModes m);
bool parseLocalModes(const std::string& s, LocalModes& out);

// One step: exact minimisation over x + E_s V, E_s the coordinate injection of `support`.
struct SubspaceStep {
    std::vector<int> support;
    Eigen::MatrixXd V;  // support.size() x k
};

// The fixed per-sweep direction list of bcd, eigen and local (CG's directions depend on the iterate).
struct SweepPlan {
    std::vector<SubspaceStep> steps;
};

SweepPlan bcdPlan(const Quadratic& q);
SweepPlan eigenPlan(const Quadratic& q);
SweepPlan localPlan(const Quadratic& q, LocalModes modes = LocalModes::All);

struct DescentPath {
    Method method = Method::Bcd;
    std::vector<Eigen::VectorXd> x;  // x[0] = start, x[k] after step k
    std::vector<double> energy;      // E(x[k])
    std::vector<int> sweep;          // 0 for the start, s >= 1 for the steps of sweep s
    int stepsPerSweep = 1;
    // CG: n = dim, the step at which it ends in exact arithmetic; the steps after it are CG past its
    // conjugacy (see runCg) and the plots mark the boundary. 0 for the other methods.
    int exactSteps = 0;

    int steps() const { return int(x.size()) - 1; }
    int sweeps() const { return stepsPerSweep > 0 ? steps() / stepsPerSweep : 0; }
    int sweepEnd(int s) const { return s * stepsPerSweep; }  // index of the last entry of sweep s
};

// Runs `sweeps` sweeps of a fixed plan (residual recomputed from scratch at the start of each sweep,
// updated in place within it).
DescentPath runPlan(const Quadratic& q, const SweepPlan& plan, int sweeps, Method tag);
// `iterations` CG steps from x0 (stepsPerSweep = 1). A step whose direction has p^T A p <= 0 (the
// residual vanished exactly) leaves x unchanged. In exact arithmetic CG ends in n = dim steps (n A-conjugate
// directions span R^n); in floating point the directions lose their conjugacy (Greenbaum & Strakos 1992) and
// a run past n steps is no longer the textbook method. The path says so: exactSteps = n, which the plots
// mark. (Restarting from the residual every n steps was measured too: it converges slower than letting the
// recurrence continue, e.g. 7e-6 instead of 1e-13 at 2n on a 12-dimensional system of kappa 1e3.)
DescentPath runCg(const Quadratic& q, int iterations);
// Dispatch: `sweeps` sweeps of method m (CG: `sweeps` iterations).
DescentPath runMethod(const Quadratic& q, Method m, int sweeps, LocalModes modes = LocalModes::All);

// Per-sweep error propagation operator of a fixed plan: e <- T e with
// T = prod_s (I - E_s V_s (V_s^T A V_s)^{-1} V_s^T E_s^T A) (first step rightmost). For bcd this is the
// block Gauss-Seidel matrix M = -(D + L)^{-1} L^T; its spectral radius is the asymptotic sweep rate.
Eigen::MatrixXd sweepOperator(const Quadratic& q, const SweepPlan& plan);

// First sweep s (0 = the start) whose end point has ||x - x*||_A / ||x0 - x*||_A <= tol, -1 if none.
int sweepsToTol(const Quadratic& q, const DescentPath& path, double tol);
// The same counted in steps.
int stepsToTol(const Quadratic& q, const DescentPath& path, double tol);

}  // namespace vbd::lab
