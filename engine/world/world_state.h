#pragma once
// What World::saveState keeps (world.h "History"). One step of the World reads, besides the scene's
// fixed data (topology, rest shapes, materials, colours, colliders):
//   soft:  the published arrays x, v, x_prev, y, v_last of SoftModel and the SoftState of the solver's
//          precision (soft_state.h: the iterate, v_last for the adaptive initial guess, and the x_prev
//          references C_prev, the cloth's C_prev and hinge angles, which the next step rewrites but the
//          restored frame's diagnostics read), the solver clock (kinematic vertices), the last residual
//          field (the heat map);
//   rigid: poses, velocities, the previous step's poses and velocities (adaptive guess), and the contact
//          and joint penalties and multipliers carried as warm start; all of it is the RigidSolver's
//          state, so the state keeps a copy of the whole solver (its fixed data is small);
//   world: frame, time, the frame's convergence record, the rigid bodies of desc (the app adds some).
// The coarse correction's carried factorization is not part of it: restoreState starts a fresh one, so
// with the coarse correction on a restored run is deterministic but may take other sweeps than the
// first run did where that run reused a factorization.
#include <cstdint>
#include <memory>
#include <vector>

#include "gpu/soft_stepper.h"
#include "rigid/rigid_body.h"
#include "soft/soft_solver.h"
#include "world/world.h"

namespace vbd {

class RigidSolver;

// The particle arrays of SoftModel that change from step to step.
struct SoftArrays {
    std::vector<Vec3> x, v, xPrev, y, vLast;
};

struct WorldStateData final : WorldState {
    std::uint64_t origin = 0;  // id of the World that saved it
    SoftArrays soft;
    SoftSolver::Carried carried;
    // A lazily published device step's state saved on the device (soft and carried's states then empty,
    // carried.time the clock): restored there by a stepper of its kind, else brought to the host (hostForm).
    std::shared_ptr<const DeviceStateCopy> device;
    std::shared_ptr<const RigidSolver> rigid;  // null without rigid bodies
    // The World's description when saved (World::sharedDesc: one copy per change, shared by the frames saved
    // between changes; a copy of the pile's 10,000 body descriptions took 0.4 ms a frame): its rigid bodies.
    std::shared_ptr<const SceneDesc> desc;
    // The bodies' states (the rigid solver's): what a World other than the origin takes.
    const std::vector<RigidBodyState>& bodyStates() const;
    std::vector<IterationRecord> lastIterations;
    size_t bytes() const override;
    bool carriesParticles() const override { return true; }
    void particles(std::vector<Vec3>* x, std::vector<Vec3>* v) const override;
};

// withState = false: the solver's states are left out (the caller puts the device's in), its clock and
// residual field kept.
void saveSoft(const SoftSolver& solver, WorldStateData& out, bool withState = true);
// False (and nothing changed) when the particle counts differ.
bool restoreSoft(SoftSolver& solver, const WorldStateData& s);
// The soft part of a state saved on the device as saveSoft would have saved it: the published arrays and the
// state of its precision (DeviceStateCopy::toHost), the clock.
void hostForm(const WorldStateData& s, WorldStateData& out);

}  // namespace vbd
