#pragma once
// A backend that runs the whole soft-body step (gpu/step_stages.h) for a SoftSolver's model: the World calls
// it instead of SoftSolver::step when solver.backend picks the device. It keeps its own state in the solver's
// precision, publishes it into the model after every step (what the World, the app and the tests read), and
// reseeds from the model when the published arrays were edited between steps (drag, reset, restore), as
// SoftState::sync does on the CPU. No CUDA types: the World and the tests include it.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device_particles.h"
#include "gpu/frame_bounds.h"
#include "gpu/frame_sums.h"
#include "gpu/tet_records.h"
#include "mesh/surface_ray.h"
#include "soft/soft_solver.h"

namespace vbd {

// A device step's state saved in the device's memory (the app's timeline saves one a frame: no host copy):
// x, v, x_prev, y, v_last in the stepper's precision and the residual field when one was kept. Freed with its
// last holder; it outlives the stepper that made it (another stepper of the same kind restores it).
class DeviceStateCopy {
  public:
    virtual ~DeviceStateCopy() = default;
    virtual size_t bytes() const = 0;
    virtual int numVertices() const = 0;
    // The saved state brought to the host, as SoftStepper::saveCarried gives a published one: its precision's
    // state (x, v, x_prev, y, v_last and the published arrays they round to) and the residual field (empty
    // when none was kept).
    virtual void toHost(SoftSolver::Carried& c) const = 0;
    // The saved positions and velocities as published (rounded to float), each that is not null: one
    // blocking copy per array that waits for the save's copies only (not for a step issued after it), from
    // any thread (the app's render thread reads a frame's positions from its save only when it draws them).
    virtual void particles(std::vector<Vec3>* x, std::vector<Vec3>* v) const = 0;
};

class SoftStepper {
  public:
    virtual ~SoftStepper() = default;
    // Uploads the model and plans the step for the solver's parameters (call again after setParams or a
    // rebuilt model). Throws std::runtime_error for a device failure.
    virtual void configure(SoftSolver& solver) = 0;
    // One substep of size h, as SoftSolver::step: same stats, same iteration records, same published
    // state. Advances the solver's clock. publish = false leaves the model as it was (the World's lazy
    // publish, benchmarks of the device step alone; the next step then goes on from the device state, and
    // publishPending brings it to the model when a reader needs it).
    virtual SoftStepStats step(SoftSolver& solver, float h, const Vec3& gravity, bool publish = true) = 0;
    // The state of the last step, if it was not published, into the model (and the residual field into the
    // solver), as step(publish = true) would have: true when it downloaded. Call before saveCarried or any
    // read of the model's positions, velocities or the solver's residual field after unpublished steps.
    virtual bool publishPending(SoftSolver& solver) = 0;
    // Each step also reduces the particles' frame measures on the device (gpu/frame_sums.h: what
    // World::measure and guardFrame read from the published state), read with the step's results; off by
    // default. frameMeasures: the last step's, false when it did not measure them.
    virtual void setFrameMeasures(bool on) = 0;
    virtual bool frameMeasures(FrameSums& out) const = 0;
    // With the measures, the boxes of these particle ranges [begin, end) (gpu/frame_bounds.h: World::
    // surfaceBounds), one reduction each; none by default. frameBounds: the last measured step's, one per
    // range; false when that step measured nothing.
    virtual void setFrameBounds(std::vector<std::array<int, 2>> ranges) = 0;
    virtual bool frameBounds(std::vector<FrameBounds>& out) const = 0;
    // With the measures, the published positions of these particles (GatherPositionsStage: World::
    // pinPositions); none by default. gathered: the last measured step's, in the order given; false when that
    // step measured nothing. Throws std::invalid_argument for a negative index.
    virtual void setGathered(std::vector<int> particles) = 0;
    virtual bool gathered(std::vector<Vec3>& out) const = 0;
    // With the measures, the nearest hit of a ray with these triangles (corner particle indices; World::
    // surfaceHit: the app's hover readout), a reduction over them (mesh/surface_ray.h, on the positions as
    // publishing rounds them, so the host's loop over the published positions gives the same hit bit for
    // bit on the host executor); nothing is cast until both are set. setSurfaceRay(nullptr) stops casting.
    // surfaceHit: the last measured step's hit and the ray it was cast along; false when that step cast
    // none. Throws std::invalid_argument for a negative index (one past the model's: at the next step).
    virtual void setRayTriangles(std::vector<std::array<int, 3>> tris) = 0;
    virtual void setSurfaceRay(const SurfaceRay* ray) = 0;
    virtual bool surfaceHit(SurfaceRay& ray, SurfaceHit& out) const = 0;
    // The last step's state copied within the device's memory (nullptr before any step since configure);
    // restoreOnDevice puts such a copy back as the state the next step starts from, its published arrays then
    // pending (as after step(publish = false)): false, nothing changed, when the copy is of another
    // precision, executor or vertex count (DeviceStateCopy::toHost then gives its host form).
    virtual std::shared_ptr<const DeviceStateCopy> saveOnDevice() = 0;
    virtual bool restoreOnDevice(const DeviceStateCopy& copy, SoftSolver& solver) = 0;
    // The same step in parts, for the World's coupled step (world/coupling.h), which works between the
    // particles' sweeps as it does with SoftSolver::beginStep / iterate / converged / stepPositions /
    // endStep: beginStep after the model's body colliders and rows are set (they go up with it); iterate(k)
    // one sweep (after its Chebyshev step, |grad G| when recorded); converged() SoftSolver::converged;
    // stepPositions the iterate in double (downloaded once per sweep); bodiesChanged after the model's body
    // colliders or rows changed (uploaded); endStep the end of the step, the published state and the clock,
    // as step.
    virtual void beginStep(SoftSolver& solver, float h, const Vec3& gravity) = 0;
    virtual void iterate(int k) = 0;
    virtual bool converged() = 0;
    virtual void stepPositions(std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev) = 0;
    virtual void bodiesChanged(const SoftModel& m) = 0;
    virtual SoftStepStats endStep(SoftSolver& solver) = 0;
    // The sweep's layout: lanes per vertex, 1 (a thread per vertex) or a tile of 4, 8, 16 or 32 lanes (a
    // warp) per vertex (gpu/step_stages.h SweepTileStage). Unless set: kDefaultLanesPerVertex on CUDA for a
    // model with tets and 1 for cloth alone (a tile's lanes split the tets only), 1 on the host executor (1
    // lane is the CPU solver's order, bit for bit; a wider tile's first lane does every lane's share in turn,
    // summed in the device's order). Throws std::invalid_argument for another width.
    virtual void setLanesPerVertex(int lanes) = 0;
    virtual int lanesPerVertex() const = 0;
    // The tile sweep's register budget on CUDA, as resident blocks per multiprocessor its kernel is built for
    // (1: the compiler's choice; 2 to 4 cap the registers, for 4 and 8 lanes per vertex; no effect on the
    // host executor or on the results). Unless set: defaultSweepMinBlocks on CUDA (2 in double, 1 in float),
    // 1 on the host executor. Throws std::invalid_argument outside 1..4.
    virtual void setSweepMinBlocks(int blocks) = 0;
    virtual int sweepMinBlocks() const = 0;
    // How the tile sweep reads each incidence's tet (gpu/tet_records.h): the tet arrays with the stored
    // C_prev (Arrays), or a 64-byte record per tet (TetRecords) or per incidence (IncidenceRecords) with
    // C_prev computed from x_prev. Placed (or freed) by the next step; the results are the same bit for bit
    // on the host executor. Default Arrays (or VBD_CUDA_TET_LAYOUT, step_plan.h). No effect with 1 lane per
    // vertex. Throws std::invalid_argument for a value outside TetLayout. tetRecordBytes: the records the
    // last step placed (0: the arrays).
    virtual void setTetLayout(TetLayout layout) = 0;
    virtual TetLayout tetLayout() const = 0;
    virtual size_t tetRecordBytes() const = 0;
    // An L2 persisting window over the positions x (CudaExec::setPersistingWindow): the sweep gathers its
    // neighbours' positions, while the tet data streams through L2 once per color and evicts them (the
    // profile in docs/gpu.md: L2 hit rate 48%). Default off, or on with VBD_CUDA_L2_PERSIST=1; no effect on
    // the results or on the host executor. persistingBytes: what the window covers (0: none).
    virtual void setPersistingPositions(bool on) = 0;
    // The device's state as of its last published step into `c` (the state of the stepper's precision: x, v,
    // x_prev, y, v_last in full precision, and the published arrays they round to), for World::saveState: a
    // restored frame then seeds the device step with the digits below float (the configure after a restore
    // seeds from the solver's state wherever it matches the published arrays). Nothing when no step was
    // published since the last configure.
    virtual void saveCarried(SoftSolver::Carried& c) const = 0;
    virtual size_t persistingBytes() const = 0;
    virtual const std::vector<IterationRecord>& iterations() const = 0;
    virtual void clearIterations() = 0;
    // The residual heat map (SoftSolver::vertexResidual, |grad_i G| of the step's final iterate). Wanted: the
    // device keeps the per-vertex values its residual reduction computes anyway, and every published step
    // downloads them into the solver's field. Not wanted (the default): nothing is kept or downloaded, and a
    // published step empties the solver's field, which would otherwise describe an older state.
    virtual void setResidualField(bool wanted) = 0;
    // The field of the last step's final iterate, computed now from the state that step left on the device
    // (a reader that starts wanting it between steps). False, `out` untouched, when no step ran since the
    // last configure or the field is not wanted.
    virtual bool residualField(std::vector<float>& out) = 0;
    // While the last step's state is pending (step with publish = false): the residual field publishPending
    // would give the solver (empty when not wanted), downloaded alone, the state left pending: true. False,
    // `out` untouched, when nothing is pending (the solver's field is current then).
    virtual bool pendingResidualField(std::vector<float>& out) = 0;
    // While the last step's state is pending: the volume-ratio heat map (soft_fields.h volumeRatioField) of
    // the state publishPending would give, computed on the device and downloaded alone, the state left
    // pending: true. False, `out` untouched, when nothing is pending (the host computes it then).
    virtual bool pendingVolumeRatio(std::vector<float>& out) = 0;
    // The same for a dominance heat map (soft_fields.h diagonalDominanceField) at step size h: the ratio to
    // the largest coupling, or with sumRatio to their sum.
    virtual bool pendingDominance(float h, bool sumRatio, std::vector<float>& out) = 0;
    // The device state's positions and the stream that orders work after the step (the interop kernel);
    // `current` says whether a step has run since the last configure.
    virtual DeviceParticles deviceParticles() const = 0;
};

// The device step's orchestration run by the host executor: the same stages through parallelFor (tests;
// the CPU-side check of everything but the kernels' launch).
std::unique_ptr<SoftStepper> makeHostPipelineStepper(Precision precision);
// The device step on CUDA device 0, state in `precision`. Throws std::runtime_error when CUDA is not compiled
// in or has no device.
std::unique_ptr<SoftStepper> makeCudaStepper(Precision precision);

}  // namespace vbd
