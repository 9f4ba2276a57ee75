#pragma once
// A backend that runs the rigid bodies' solve (gpu/rigid_pipeline.h) for a RigidSolver: the World calls it
// instead of RigidSolver::step when the soft step runs on the device. Broad and narrow phase, contact
// matching and warm start, the per-body adjacency and the coloring stay on the CPU (RigidSolver::
// beginStepForDevice; setDeviceContacts moves the narrow phase and the matching to the device); the forward
// step, the colored 6x6 block sweeps, the dual and penalty updates, the diagnostics and the velocities run on
// the executor. The results (poses, velocities, the contacts' multipliers and penalties the next step's
// matching warm-starts from, the joints', the iteration records) are written back into the solver, so that
// everything that reads it (World, app, metrics, the next CPU step) sees the state RigidSolver::step would
// have left. No CUDA types: the World and the tests include it.
#include <memory>
#include <string>

#include "gpu/device_bodies.h"
#include "rigid/rigid_solver.h"

namespace vbd {

class RigidStepper {
  public:
    virtual ~RigidStepper() = default;
    // One substep of size h, as RigidSolver::step. Throws std::runtime_error for a device failure.
    virtual void step(RigidSolver& solver, float h) = 0;
    // The states of the last step in the executor's memory; current when solver's states are still those
    // the step wrote back (compared with a host copy of them: any edit since, a CPU step, a rebuilt solver
    // with another body count, makes it false).
    virtual DeviceRigidBodies deviceBodies(const RigidSolver& solver) const = 0;
    // The device part of the last step by phase (ms, host clock): the uploads, the kernels, the downloads
    // (with the host's unpacking). Measured only while profiled: the executor is then synchronized between
    // the phases, which takes away their overlap. Zeros otherwise.
    struct PhaseMs {
        double detect = 0;  // with device contacts: pairs up, the narrow phase, counts down, the CPU's lists
        double upload = 0, kernels = 0, download = 0;
    };
    virtual void setProfiled(bool on) = 0;
    virtual PhaseMs phaseMs() const = 0;
    // The sweep's layout: lanes per body, 1 (a thread per body) or a tile of 4, 8, 16 or 32 lanes that split
    // the body's contacts (gpu/rigid_stages.h RigidSweepTileStage). 1 unless set (the tile's speed is to be
    // measured on a device); on the host executor a tile's first lane solves the whole body, so the results
    // are the same. Throws std::invalid_argument for another width.
    virtual void setLanesPerBody(int lanes) = 0;
    virtual int lanesPerBody() const = 0;
    // Threads per block of the sweep launches: 32, 64, 128 or 256 (the default, as every other launch). A
    // color of the pile is ten blocks of 256 bodies on a card of 132 multiprocessors; smaller blocks spread
    // it (not yet measured on a device). The results do not depend on it. Throws std::invalid_argument.
    virtual void setSweepBlock(int threads) = 0;
    virtual int sweepBlock() const = 0;
    // Where the narrow phase and the contact matching run. false (the default): on the CPU, in
    // RigidSolver::beginStepForDevice, and every contact record is uploaded each step. true: on the executor
    // (gpu/rigid_stages.h RigidRotationStage, RigidNarrowStage, RigidMatchStage: the CPU's collidePair and
    // matchManifold), between the CPU's broad phase and its ranges, lists and coloring (RigidSolver::
    // beginDetectionForDevice, rangesForDevice, listsForDevice), which read only the point counts downloaded
    // in between. Last step's contacts stay on the executor for the warm start while the solver's contacts
    // are the ones this stepper wrote (RigidSolver::contactsVersion; otherwise they are uploaded first). The
    // step's contact records stay there too: the solver's are deferred (RigidSolver::deferContacts) and come
    // down when the host first reads them (the app's contact markers, a CPU step, a copy of the solver), or
    // before this stepper reuses their memory for another solver or goes away. On the host executor the
    // results are the CPU path's, bit for bit.
    virtual void setDeviceContacts(bool on) = 0;
    virtual bool deviceContacts() const = 0;
    // With device contacts, the grid broad phase on the executor too (gpu/broad_pipeline.h: the CPU's pair
    // list, so the steps do not change); the CPU keeps the bounds, the grid's cell size and the candidate
    // filter. Off by default; without device contacts it changes nothing.
    virtual void setDeviceBroadPhase(bool on) = 0;
    virtual bool deviceBroadPhase() const = 0;
    // With device contacts, how many steps began from a solver's records kept in the executor's memory by a
    // copy (a restored timeline frame: PendingContacts::kept), copied there instead of through the host.
    virtual size_t contactsRestoredOnDevice() const = 0;
};

// Why the device rigid step cannot run this solver's steps, or "": rows coupled to particles
// (RigidSolver::setExternalBlocks, world/coupling.h) are assembled between the CPU's sweeps.
std::string rigidDeviceStepUnsupported(const RigidSolver& solver);

// The device rigid step's orchestration run by the host executor (tests: the CPU-side check of all but the
// kernels' launch).
std::unique_ptr<RigidStepper> makeHostRigidStepper();
// The device rigid step on CUDA device 0. Throws std::runtime_error when CUDA is not compiled in or there is
// no device.
std::unique_ptr<RigidStepper> makeCudaRigidStepper();

}  // namespace vbd
