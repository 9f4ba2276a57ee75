#pragma once
// Two-way coupling of moving AVBD rigid bodies with VBD particles (soft bodies and cloth), inside the solve.
//
// One iteration of a coupled step (World::stepCoupled) is a block Gauss-Seidel sweep over two blocks:
//   1. publish    every dynamic body's current iterate (pose) into the particles' body colliders
//   2. particles  all particle colors; each vertex's block gains the contact terms of the bodies it may touch
//                 (energy/body_contact.h), the bodies frozen at their current iterate
//   3. bodyTerms  with the particles frozen at their new iterate, every body's 6x6 block gains the sum of its
//                 particle contacts' forces and Hessians (the same law, the opposite force, one point)
//   4. bodies     all body colors (AVBD's 6x6 solves), then the AVBD dual update of the rigid rows and of
//                 the particle-body rows (dualUpdate: both sides at their new iterate).
// Why this order: each side sees the other's latest iterate (a Gauss-Seidel split, like the color order
// inside one solver), and one force law evaluated at one configuration pair means that what a particle
// pushes the body by is exactly what the body pushes back, so at convergence momentum goes from one to the
// other rather than being created. Within a truncated solve the two sides read each other one half-iteration
// apart, and with friction the difference is large: a physics audit slid a 64 kg soft cube at 3 m/s onto a
// free 600 kg plate (frictionless ground, mu 0.5): the centre of mass, 0.289 m/s, reached 0.554 m/s at
// 10 iterations and 2 substeps, 0.399 at 50, 0.2895 at 300 and 0.2892 at 2000 (the residual shows it). The
// particles go first because the bodies' initial guess is the better one (a falling box
// is predicted exactly; a sheet under it is not), and the bodies answer last in the step with the dual
// update that their own rows need. Every (vertex, body) pair is an AVBD row (energy/body_contact.h says why
// a plain penalty does not do): both sides read the same k and lambda, so the force stays one force; the
// rows' penalty starts at the effective inertia min(m_vertex, m_body)/h^2 (as the rigid contacts' floor),
// and k and lambda are warm started across steps by (vertex, body) as the rigid contacts are by feature.
//
// Candidates (which vertex may touch which body) are found once per step, from the start-of-step positions,
// the particles' and the bodies' predicted motion and a margin; the force is evaluated at the current
// iterates and is zero for a candidate that does not touch. Everything is gathered per vertex and per body
// in index order, so the result is the same for any thread count.
#include <functional>
#include <vector>

#include "math/schur66.h"
#include "rigid/rigid_solver.h"
#include "soft/soft_solver.h"

namespace vbd {

class RigidParticleCoupling {
  public:
    // The particles' iterate and step-start positions in double: SoftSolver::stepPositions, or the device
    // step's (gpu/soft_stepper.h), whichever steps the particles.
    using PositionReader = std::function<void(std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev)>;
    // Coupling is on when there are particles and a dynamic body.
    static bool active(const SoftSolver& soft, const RigidSolver& rigid);
    // After both solvers' beginStep: candidate pairs and the body colliders at the bodies' initial guess.
    // stiffness: the contact penalty (N/m).
    void begin(SoftSolver& soft, const RigidSolver& rigid, float h, const Vec3& gravity, const SolverDesc& p);
    // Step 1: the bodies' current iterate into the particles' colliders.
    void publishBodies(SoftSolver& soft, const RigidSolver& rigid) const;
    // Step 3: the particles' contact terms on every body at the particles' current iterate; the blocks are
    // what RigidSolver::setExternalBlocks reads.
    void bodyTerms(SoftSolver& soft, const RigidSolver& rigid, float h, const PositionReader& read);
    const std::vector<Block66d>& blocks() const { return blocks_; }
    // Step 5: the rows' dual update at both sides' current iterate (after the body sweep).
    void dualUpdate(SoftSolver& soft, const RigidSolver& rigid, const PositionReader& read);
    // Forgets the warm start (a restored World state).
    void reset() { previous_.clear(); }
    // After the step: the particles no longer see the bodies (outside a step their poses are the published
    // ones, and the next step finds new candidates).
    void end(SoftSolver& soft);
    int numCandidates() const { return int(bodyRowItems_.items.size()); }

  private:
    void bodyBlock(int c, const SoftModel& m, float h, Block66d& blk) const;
    void readPositions(const SoftModel& m, const PositionReader& read);
    std::vector<int> bodyIndex_;   // rigid body of each collider
    std::vector<int> colliderOf_;  // collider of each rigid body (-1: fixed)
    Csr bodyRowItems_;             // collider -> its rows in SoftModel::bodyRows
    // Last step's rows (vertex, rigid body, k, lambda), sorted: the warm start.
    struct Kept {
        int vertex, body;
        float k, lambda;
    };
    std::vector<Kept> previous_;
    double beta_ = 0, kMax_ = 0;
    std::vector<Block66d> blocks_;
    std::vector<Vec3d> x_, xPrev_;
    std::vector<double> offset_;  // per vertex contact thickness
    float contactEps_ = 1e-3f;
};

}  // namespace vbd
