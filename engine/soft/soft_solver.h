#pragma once
// VBD for particles (Chen et al. 2024): per substep
//   predict  y = x + h v + h^2 g, initial guess x = y (prescribed positions for fixed vertices)
//   for each iteration: for each color (in parallel inside a color): x_i += H_i^{-1} f_i
//                       then Chebyshev extrapolation (optional), then the sweep hook (coarse correction)
//   finalize v = (x - x_prev) / h.
#include <functional>
#include <vector>

#include "diagnostics/metrics.h"
#include "soft/soft_model.h"

namespace vbd {

class SoftSolver;

// Called after every full color sweep (the coarse-space correction plugs in here).
class SweepHook {
  public:
    virtual ~SweepHook() = default;
    virtual void beginStep(SoftSolver& solver) {}
    virtual void afterSweep(SoftSolver& solver, int iteration) = 0;
};

struct SoftStepStats {
    double residualInitial = 0, residualFinal = 0, energy = 0;
    double solveMs = 0, diagnosticsMs = 0, hookMs = 0;
    double collisionMs = 0;  // cloth collision detection (broad + narrow phase, bounds)
    int contacts = 0;        // self/cloth contact pairs at the last detection
    int iterations = 0;
};

class SoftSolver {
  public:
    SoftSolver() = default;
    // Builds particles, tets, masses, fixed vertices, colliders and the coloring from the scene's soft
    // bodies. Throws InputError for unusable input.
    void build(const SceneDesc& scene);
    // Throws InputError naming solver.precision for a double-precision request on a model with cloth.
    void setParams(const SolverDesc& s);
    const SolverDesc& params() const { return params_; }

    // One substep of size h. Appends per-iteration records (frame field left 0) when diagnostics are on.
    SoftStepStats step(float h, const Vec3& gravity);

    SoftModel& model() { return m_; }
    const SoftModel& model() const { return m_; }
    SoftView view() const;
    float currentH() const { return h_; }

    // Diagnostics of the current iterate x (DESIGN principle 7), over free DOFs.
    double incrementalPotential() const;  // G(x)
    double residualNorm();                // |grad G| over free vertices; fills vertexResidual()
    // f = -grad G per vertex (zero for fixed vertices), evaluated in the solver's precision.
    void computeForces(std::vector<Vec3>& f) const;
    void computeForces(std::vector<Vec3d>& f) const;
    const std::vector<float>& vertexResidual() const { return residual_; }
    const std::vector<IterationRecord>& iterations() const { return its_; }
    void clearIterations() { its_.clear(); }

    // Per-vertex fields for the heat map.
    void volumeRatioField(std::vector<float>& out) const;
    // Block diagonal dominance of the elastic+inertia Hessian row of each vertex:
    //   r_i = ||H_ii|| / max_j ||H_ij||   (Frobenius norms, H_ij summed over shared tets).
    // Low values mean one neighbour's coupling rivals the vertex's own block: the seed's interface quantity.
    void diagonalDominanceField(std::vector<float>& out, std::vector<float>* sumRatio = nullptr) const;
    // The inspected vertex: its 3x3 block D_i (inertia + elastic, the matrix of its local solve at rest of
    // damping and contact) and the two dominance ratios of diagonalDominanceField.
    void vertexBlockInfo(int i, Mat33& block, float& maxRatio, float& sumRatio) const;
    double minVolumeRatio() const;

    void setSweepHook(SweepHook* hook) { hook_ = hook; }
    void setDrag(int vertex, const Vec3& target, float k) {
        dragVertex_ = vertex;
        dragTarget_ = target;
        dragK_ = k;
    }
    // One Gauss-Seidel sweep over all colors at the current state (used by tests and the coarse module).
    // In double mode it sweeps the double state xD() (the float model().x is refreshed at the end of step).
    void sweep();

    // Double-precision state (solver.precision = double). The iterate is xD(); model().x, v, xPrev, y are
    // written from it at the end of every step. A sweep hook in double mode edits xD(), not model().x.
    // At the start of a step the shadow is reseeded from the float arrays if they were edited in between
    // (float(xD) != model().x or float(vD) != model().v for some vertex).
    bool doubleState() const { return params_.precision == Precision::Double; }
    std::vector<Vec3d>& xD() { return shadow_.x; }
    const std::vector<Vec3d>& xD() const { return shadow_.x; }
    const std::vector<Vec3d>& xPrevD() const { return shadow_.xPrev; }
    const std::vector<Vec3d>& yD() const { return shadow_.y; }
    // Whether the iterate currently lives in the double state: double mode once the shadow exists (before
    // the first step the float state is the iterate). Diagnostics and the coarse module read this.
    bool useDouble() const { return doubleState() && shadowReady(); }

    // The double state (solver.precision = double): the iterate and its step's inputs.
    struct DoubleState {
        std::vector<Vec3d> x, v, xPrev, y, vLast, chebPrev, chebPrevPrev, force;
        std::vector<Mat33d> Cprev;
    };
    // What step() carries from one step to the next outside model() (World::saveState / restoreState):
    // the double state, the clock of kinematic vertices, and the last residual field (the heat map).
    struct Carried {
        DoubleState shadow;
        double time = 0;
        std::vector<float> residual;
    };
    Carried carried() const { return {shadow_, time_, residual_}; }
    void setCarried(Carried c) {
        shadow_ = doubleState() ? std::move(c.shadow) : DoubleState{};
        time_ = c.time;
        residual_ = std::move(c.residual);
    }

  private:
    // The iterate's arrays in scalar T: the SoftModel's for float, shadow_ for double. Every stage below is
    // one template run on either, so the two precisions cannot drift apart.
    template <typename T>
    struct StateRef;
    template <typename T>
    StateRef<T> state();
    template <typename T>
    SoftViewT<T> viewT() const;
    template <typename T>
    void predict(float h, const Vec3& gravity);
    template <typename T>
    void refreshCprev();
    template <typename T>
    void sweepT();
    template <typename T>
    void chebyshev(int iteration);
    template <typename T>
    void finalize(float h);
    template <typename T>
    void computeForcesT(std::vector<Vec3T<T>>& f) const;
    template <typename T>
    double residualNormT();
    template <typename T>
    double incrementalPotentialT() const;
    template <typename T>
    SoftStepStats stepT(float h, const Vec3& gravity);
    // Double mode: reseed the shadow from the float arrays when they were edited since the last step, and
    // write the float arrays from the shadow.
    // compareValues = false only fills a missing shadow.
    void reseedShadow(bool compareValues);
    void writeFloatState();
    bool shadowReady() const;
    void checkPrecision() const;
    // Cloth collision detection at the current x (round > 0) or x_prev (round 0, which also picks the
    // query radius and the common translation and truncates the initial guess).
    void detectClothCollisions(bool firstRound);
    void applyStepBound();
    SoftModel m_;
    SolverDesc params_;
    float h_ = 1.f / 60.f;
    double time_ = 0;
    std::vector<float> residual_;
    std::vector<Vec3> forceScratch_;
    std::vector<char> inContact_;
    std::vector<Vec3>
        xRead_;  // positions snapshot of the current color (self contacts couple same-color vertices)
    std::vector<Vec3> chebPrev_, chebPrevPrev_;
    DoubleState shadow_;
    double chebOmega_ = 1;
    std::vector<IterationRecord> its_;
    SweepHook* hook_ = nullptr;
    int dragVertex_ = -1;
    Vec3 dragTarget_;
    float dragK_ = 0;
};

}  // namespace vbd
