#pragma once
// VBD for particles (Chen et al. 2024; the seed's "What Is VBD, in a Nutshell?"). One substep of size h:
//
//   beginStep   predict y = x + h v + h^2 g; adaptive initial guess; cloth contact detection
//   iterate     for each color (vertices of a color in parallel): x_i += H_i^{-1} f_i
//               accelerate (Chebyshev), correct (the sweep hook: coarse space), record |grad G|, G
//   endStep     v = (x - x_prev) / h; publish the state
//
// step() is exactly that loop; experiments and tests call the three stages themselves to measure between
// sweeps. The iterate lives in a SoftState<T> in the scalar of solver.precision (soft_state.h); the
// SoftModel holds its published float copy.
#include <type_traits>
#include <vector>

#include "diagnostics/metrics.h"
#include "soft/cloth_stage.h"
#include "soft/soft_model.h"
#include "soft/soft_state.h"
#include "soft/sweep_hook.h"

namespace vbd {

struct SoftStepStats {
    double residualInitial = 0, residualFinal = 0, energy = 0;
    double residualFloor = 0;  // rounding floor of residualFinal for the state's precision
    double solveMs = 0, diagnosticsMs = 0, hookMs = 0;
    double collisionMs = 0;  // cloth collision detection (broad + narrow phase, bounds)
    int contacts = 0;        // self/cloth contact pairs at the last detection
    int iterations = 0;      // sweeps run (fewer than solver.iterations when solver.tolerance stopped them)
};

// The mechanical energy of the particles, by kind (J). Damping potentials are dissipation, not stored energy.
struct EnergyParts {
    double kinetic = 0, elastic = 0, gravitational = 0, contact = 0;
    double total() const { return kinetic + elastic + gravitational + contact; }
};

class SoftSolver {
  public:
    SoftSolver() = default;
    // Builds particles, tets, masses, fixed vertices, colliders and the coloring from the scene's soft
    // bodies. Throws InputError for unusable input.
    void build(const SceneDesc& scene);
    void setParams(const SolverDesc& s);
    const SolverDesc& params() const { return params_; }

    // One substep of size h: solver.iterations sweeps, or fewer when solver.tolerance is met (the relative
    // residual |grad G| / |grad G_0| after a sweep). Appends per-iteration records (frame field left 0) when
    // diagnostics are on.
    SoftStepStats step(float h, const Vec3& gravity);
    void beginStep(float h, const Vec3& gravity);
    void iterate(int iteration);
    // Whether step() may run all its sweeps as one chain (nothing runs between two sweeps).
    bool sweepsFuse() const;
    bool converged() const;
    SoftStepStats endStep();

    // The model with the published float state (editable between steps: the next step starts from it).
    SoftModel& model() { return m_; }
    const SoftModel& model() const { return m_; }
    // The kernel parameters (materials, topology, colliders, cloth) as raw host pointers.
    SoftViewParams viewParams() const;
    ContactParams contactParams() const;
    float currentH() const { return h_; }
    // The solver clock (kinematic vertices): a device backend that steps the model advances it too.
    double clock() const { return time_; }
    void setClock(double t) { time_ = t; }
    bool doublePrecision() const { return params_.precision == Precision::Double; }
    // The state of either precision (the CUDA backend uploads the float one; tests read the double one),
    // synced with the published state outside a step.
    const SoftState<float>& floatState() {
        syncState();
        return stateF_;
    }
    const SoftState<double>& doubleState() {
        syncState();
        return stateD_;
    }

    // The iterate in double (exactly; in float precision widened).
    void positions(std::vector<Vec3d>& out);
    // Inside a step: the iterate x and the step's start x_prev in double, as the kernel reads them (the
    // coupling's body side evaluates the same contact law on them).
    void stepPositions(std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev);
    // Diagnostics of the iterate (DESIGN principle 7), over free DOFs.
    double incrementalPotential();       // G(x)
    double residualNorm();               // |grad G|; fills vertexResidual()
    void forces(std::vector<Vec3d>& f);  // f = -grad G per vertex (0 on fixed vertices), in double
    // Kinetic, elastic, gravitational and contact energy of the state (for the metrics' total_energy).
    EnergyParts mechanicalEnergy(const Vec3& gravity);
    // |grad_i G| per vertex (float; 0 on fixed vertices) of the last residual evaluation: a step's final
    // iterate. A backend that steps the model elsewhere writes its field here (gpu/soft_stepper.h).
    const std::vector<float>& vertexResidual() const { return residual_; }
    std::vector<float>& vertexResidual() { return residual_; }
    const std::vector<IterationRecord>& iterations() const { return its_; }
    void clearIterations() { its_.clear(); }

    // One Gauss-Seidel sweep over all colors of the iterate (no acceleration, no correction), and one run of
    // `hook` on the iterate with its update applied. Outside a step both publish the positions.
    void sweep();
    void correct(SweepHook& hook, int iteration);
    // Starts `hook` on the current step data (what beginStep does for the installed hook), e.g. after a test
    // edited x_prev or y.
    void startHook(SweepHook& hook);

    // The CPU sweep's kernel and task size (tests and benchmarks; the defaults are the measured best):
    // simd = the tet and cloth terms in SIMD packs from SoftModel::tetBlocks and clothBlocks
    // (soft/vertex_blocks.h), otherwise the scalar kernel CUDA runs; grain = vertices per task, 0 for the
    // default.
    struct SweepOptions {
        bool simd = true;
        size_t grain = 0;
        // The float state in the increment form (soft/state_update.h); off: absolute float positions (the
        // float-floor experiment compares the two). The double state is always absolute.
        bool floatIncrement = true;
        // The residual's tet terms once per tet (soft/tet_residual.h; with simd, internal or no damping);
        // off: the sweep's per-vertex kernel.
        bool tetResidual = true;
        // How the per-tet pass splits between threads (soft/tet_residual.h): 0, by the model's size
        // (tetResidualParts); 1, color after color; k > 1, k parts.
        int residualParts = 0;
    };
    void setSweepOptions(const SweepOptions& o) { sweepOptions_ = o; }
    const SweepOptions& sweepOptions() const { return sweepOptions_; }

    // What a step reads besides the published model arrays (World::saveState / restoreState): the state of
    // either precision, the solver clock (kinematic vertices) and the last residual field (the heat map).
    // A restored state that no longer matches the published arrays is reseeded by the next step, as the
    // original run would have done (soft_state.h).
    struct Carried {
        SoftState<float> f;
        SoftState<double> d;
        double time = 0;
        std::vector<float> residual;
    };
    Carried carried() const { return {stateF_, stateD_, time_, residual_}; }
    // The state of one precision as the CPU solver holds it (the device step seeds from it where it still
    // matches the published arrays: gpu/pipeline.h).
    const SoftState<float>& floatState() const { return stateF_; }
    const SoftState<double>& doubleState() const { return stateD_; }
    void setCarried(Carried c) {
        stateF_ = std::move(c.f);
        stateD_ = std::move(c.d);
        time_ = c.time;
        residual_ = std::move(c.residual);
    }

    void setSweepHook(SweepHook* hook) { hook_ = hook; }
    SweepHook* sweepHook() const { return hook_; }
    // What the hook reads besides the positions, for a step of length h (the device step's hook calls).
    HookSettings hookSettings(float h) const;
    void setDrag(int vertex, const Vec3& target, float k) { drag_ = {vertex, target, k}; }

    // The kernel's view of a state (the model's parameter arrays + the state's x, x_prev, y and references);
    // instantiated for float and double.
    template <typename T>
    SoftViewT<T> viewT(const SoftState<T>& st) const;

  private:
    template <typename T>
    SoftState<T>& state() {
        if constexpr (std::is_same_v<T, double>)
            return stateD_;
        else
            return stateF_;
    }
    // Calls f(state) with the state of the current precision.
    template <typename F>
    decltype(auto) withState(F&& f) {
        return doublePrecision() ? f(state<double>()) : f(state<float>());
    }
    // Outside a step: reseed the state if the published arrays were edited (soft_state.h).
    void syncState();
    template <typename T>
    std::vector<Vec3T<T>>& snapshotOf() {
        if constexpr (std::is_same_v<T, double>)
            return xReadD_;
        else
            return xRead_;
    }
    std::vector<Vec3> dxRead_;  // the increments' snapshot (float increment form)
    // The sweep's shares and early start (backend/phases.h) for splitSlots_ slots: slot s of color c runs
    // colorGroups[c][shareBegin_[c][s], shareBegin_[c][s + 1]) (about equal work), which lists first the
    // vertices whose neighbours all lie in that slot's shares (interior_[c][s] of them), then the others.
    int splitSlots_ = 0;
    std::vector<std::vector<size_t>> shareBegin_;
    std::vector<std::vector<size_t>> interior_;
    void prepareSplit(int slots);
    size_t shareStart(size_t color, int slot, int slots, size_t size) const;
    size_t splitAt(size_t color, int slot, int slots, size_t b) const;

    // Stages (soft_solver.cpp), each one template for both precisions.
    template <typename T>
    void predict(SoftState<T>& st, float h, const Vec3& gravity);
    template <typename T>
    void predictIncrements(SoftState<T>& st, T h, T tNext, const Vec3T<T>& gravity, bool adaptive);
    template <typename T>
    Vec3T<T> kinematicPosition(int vertex, T t) const;
    template <typename T>
    void refreshCprev(SoftState<T>& st);
    template <typename T>
    void sweepT(SoftState<T>& st, int sweeps = 1);
    template <typename T>
    void accelerate(SoftState<T>& st, int iteration);
    template <typename T>
    HookView hookView(SoftState<T>& st, bool refreshStepData);
    template <typename T>
    void correctT(SoftState<T>& st, SweepHook& hook, int iteration, bool refreshStepData);
    template <typename T>
    void finalize(SoftState<T>& st, float h);
    void record(int iteration, double residual);

    // Diagnostics (soft_potential.cpp).
    template <typename T>
    void computeForces(SoftState<T>& st);
    template <typename T>
    double residualNormT(SoftState<T>& st);
    // The tets' part of G or of the elastic energy on the tet lanes (soft_potential.cpp).
    template <typename T>
    bool laneTetEnergy(const SoftState<T>& st, bool damping, double& out) const;
    template <typename T>
    double incrementalPotentialT(const SoftState<T>& st) const;
    template <typename T>
    EnergyParts energyParts(const SoftState<T>& st, const Vec3& gravity) const;
    template <typename T>
    double bodyContactEnergy(const SoftState<T>& st) const;

    SoftModel m_;
    SolverDesc params_;
    float h_ = 1.f / 60.f;
    double time_ = 0;
    SoftState<float> stateF_;
    SoftState<double> stateD_;
    ClothContactStage cloth_;
    bool inStep_ = false;
    SoftStepStats stats_;
    double lastResidual_ = 0, residualFloor_ = 0;
    std::vector<double> floor2_;  // per-vertex residual floor squared (soft_potential.cpp)
    std::vector<float> residual_;
    std::vector<char> inContact_;
    // Positions snapshot of the current color (contacts couple same-color vertices), per precision.
    std::vector<Vec3> xRead_;
    std::vector<Vec3d> xReadD_;
    HookWidened hookWidened_;  // the hook's double view of a float iterate
    HookUpdate update_;
    double chebOmega_ = 1;
    std::vector<IterationRecord> its_;
    SweepHook* hook_ = nullptr;
    SweepOptions sweepOptions_;
    DragSpring drag_;
};

}  // namespace vbd
