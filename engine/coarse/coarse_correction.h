#pragma once
// The coarse-space correction inside the VBD loop (seed, "Element eigenmodes as a free coarse basis", the
// pseudo-code after "Slotted into the VBD loop"). After each full color sweep:
//   r = P^T (-grad G(x))                  G, grad G in double (energy_cache.h)
//   z = (P^T A P)^{-1} r                  A: the PSD-projected Hessian ("hessian") or the rest stiffness
//                                         ("rest") plus M/h^2, damping and penalty terms (element_matrix.h)
//   x <- x + alpha P z                    alpha in {1, 1/2, ..., 1/32}, the first with G(x + alpha P z) <=
//   G(x)
//                                         by the exact change of G (line_search.h); none: x unchanged
// The basis comes from a BasisStrategy (basis.h); the step from a Correction (correction.h): the Galerkin one
// for column bases, the rigid one for component bases.
//
// Refactorization rule: "rest": once per basis (and when h changes). "hessian": at the first correction of
// each time step (Galerkin only; the rigid correction carries its factorization over), and again when (a)
// some watched tet moved its F by more than 0.05 (Frobenius) since the last factorization, or (b) the
// previous line search could not take alpha = 1 (once per run of such corrections: near the round-off floor a
// refactorization does not restore alpha = 1, and repeating it every sweep only costs).
#include <memory>
#include <vector>

#include "coarse/basis.h"
#include "coarse/coarse_hook.h"
#include "coarse/correction.h"
#include "coarse/energy_cache.h"

namespace vbd::coarse {

struct CorrectionStats {
    int corrections = 0;  // corrections that solved the coarse system
    int accepted = 0;     // ... whose step was taken (some alpha)
    int fullSteps = 0;    // ... with alpha = 1
    int factorizations = 0;
    int clippedEigenvalues = 0;  // PSD projection activity over all factorizations
    double lastAlpha = 0;
    double setupMs = 0, correctionMs = 0;
    // Sweeps in which some body was held (a contact G does not hold: freezeUnseenContacts).
    int holdingSweeps = 0;
    // Per correction, when recordEnergy is on: exact G (double) before / after.
    std::vector<double> energyBefore, energyAfter;
};

class CoarseCorrection : public CoarseHook {
  public:
    void configure(const CoarseDesc& desc) override;
    void beginStep(const HookView& view) override;
    void afterSweep(const HookView& view, int iteration, HookUpdate& update) override;

    // Test and experiment controls.
    void useIdentityBasis(bool on);  // P = I: a (projected) Newton step
    void setRefactorEverySweep(bool on) { refactorEvery_ = on; }
    void setLineSearch(bool on) { lineSearch_ = on; }
    void setRecordEnergy(bool on) { recordEnergy_ = on; }

    // Builds the basis (if the model changed) now; returns the number of columns.
    int prepare(const SoftModel& m);
    int numColumns() const { return int(basis_.columns.size()); }
    int numDofs() const { return dofs_.numDofs; }
    const Basis& basis() const { return basis_; }
    const CorrectionStats& stats() const { return stats_; }
    void resetStats() { stats_ = CorrectionStats{}; }
    // P z of the last correction over free DOFs (Galerkin correction only; empty otherwise).
    const Eigen::VectorXd& lastDirection() const;
    // The assembled coarse matrix of the last factorization (with the 1e-10 relative diagonal shift).
    const Eigen::SparseMatrix<double>& coarseMatrix() const { return method_->matrix(); }

  private:
    void startCache(const HookView& view);
    bool refactorDue(double h);
    void factor(const CorrectionContext& c);
    void finish(bool accepted, double alpha);
    // Marks in held_ the columns that move a vertex of a body with a contact the coarse G does not hold:
    // contacts between soft bodies and cloth (the collision stage's) and the candidate rows against moving
    // rigid bodies. G holds tets, inertia, colliders and the picking spring only; a correction moving such a
    // body judged its step by an energy without that contact and took steps that raised the true one (the
    // aggregate space pushed cloth_cube's cube through its hammock: total energy 6.5 -> 185 J in four frames,
    // tets at 0.23 of their volume). The solve is then the system restricted to the other columns
    // (correction.h): no vertex of a held body moves, and G is exact for what does. Returns the bodies held.
    int freezeUnseenContacts(const SoftModel& m);

    CoarseDesc desc_;
    bool identity_ = false, refactorEvery_ = false, lineSearch_ = true, recordEnergy_ = false;
    bool built_ = false, cacheStarted_ = false, needFactor_ = true, lastFull_ = true,
         backtrackRefactored_ = false;
    int modelVertices_ = -1, modelTets_ = -1;
    double factorH_ = -1;
    DofMap dofs_;
    std::vector<int> vertexOfDof_;  // free DOF / 3 -> vertex
    int numBodies_ = 0;             // soft bodies and cloths: 1 + the largest SoftModel::bodyOfVertex
    std::vector<char> held_;        // per column: held this sweep (freezeUnseenContacts)
    Basis basis_;
    std::unique_ptr<Correction> method_;
    TetEnergyCache cache_;
    CorrectionStats stats_;
};

}  // namespace vbd::coarse
