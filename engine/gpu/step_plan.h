#pragma once
// The host side of the device step, computed on the CPU and tested there: what the device step supports,
// the flattened color lists, the Chebyshev weights, the diagnostics it records, the launch sizes (checked
// against int and grid limits) and the device memory it needs. No CUDA types.
#include <cstddef>
#include <string>
#include <vector>

#include "gpu/tet_records.h"
#include "scene/scene_desc.h"
#include "soft/soft_model.h"

namespace vbd {

// Why the device step cannot run this model with these parameters ("" when it can). The device step runs
// tets, cloth membranes and bending, kinematic and fixed vertices, ground and static colliders, the picking
// spring, Chebyshev, the diagnostics, collision (cloth self-collision, soft-soft contact: detected on the
// host, gpu/pipeline.h) and the sweep hook (the coarse correction: on the host between the device's sweeps);
// it refuses only a model without vertices. The solver parameters stay in the signature for refusals to come.
std::string deviceStepUnsupported(const SoftModel& m, const SolverDesc& s);

// Threads per block of every per-index launch (a multiple of the warp, and the reduction's shared array).
constexpr int kBlockSize = 256;

// The CUDA sweep's layout unless set (SoftStepper::setLanesPerVertex, setSweepMinBlocks): the fastest
// measured on an H200 at 700k tets and 120 iterations (docs/gpu.md, "Lanes per vertex"): 8 lanes per vertex
// in either precision; the double kernel built for 2 resident blocks per multiprocessor (148 registers
// capped at 128: 36.1 ms against 41.9-44.7 ms uncapped), the float kernel left to the compiler (80
// registers; capped at 64 it spills and gains nothing measurable).
constexpr int kDefaultLanesPerVertex = 8;
constexpr int defaultSweepMinBlocks(bool doubleState) { return doubleState ? 2 : 1; }
// The L2 persisting window over the positions (SoftStepper::setPersistingPositions): off until a device has
// measured it (bench_gpu BM_GpuSoftStepL2); VBD_CUDA_L2_PERSIST=1 turns it on.
bool persistingPositionsFromEnv();
// The tile sweep's tet layout (SoftStepper::setTetLayout, gpu/tet_records.h): the arrays until a device has
// measured the records (bench_gpu BM_GpuSoftStepRecords); VBD_CUDA_TET_LAYOUT=tet or incidence picks the tet
// or incidence records for a World's steppers (the device check's `vbdlab sim` runs), anything else the
// arrays.
TetLayout tetLayoutFromEnv();

// Blocks of kBlockSize covering n indices (n >= 0; 0 blocks for n = 0: nothing is launched).
int blocksFor(long long n);

struct StepPlan {
    int n = 0, numTets = 0, numTris = 0, numHinges = 0;
    std::vector<int> colorVerts;    // color groups concatenated (free vertices only)
    std::vector<int> colorOffsets;  // colorVerts range of color c: [offsets[c], offsets[c + 1])
    int iterations = 0;
    double chebyshevRho = 0;
    std::vector<double> chebyshevWeights;  // weight of iteration k at [k] (index 0 unused), as the CPU's
    bool residualEachIteration = false;    // diagnostics or a tolerance: |grad G| after every sweep
    bool energyEachIteration = false;      // diagnostics: G after every sweep
    bool tolerance = false;  // the host reads the residual after each sweep (no whole-step graph)
    bool doublePrecision = true;

    int numColors() const { return int(colorOffsets.size()) - 1; }
    int colorSize(int c) const { return colorOffsets[size_t(c) + 1] - colorOffsets[size_t(c)]; }
    // Result slots: per iteration 0..iterations, |grad G|^2, floor^2 and G (doubles).
    static constexpr int kSlotsPerIteration = 3;
    size_t resultDoubles() const { return size_t(iterations + 1) * kSlotsPerIteration; }
    // Partial sums of a two-pass reduction over the longest range the step reduces over (one per block):
    // vertices (|grad G| in Sum2 partials, G's vertex and body terms), tets, membrane triangles and hinges
    // (G's element terms). A cloth has ~3 hinges per vertex: sized by the vertices and tets alone, G's hinge
    // pass wrote past the partials on a device (the host executor does not use them).
    size_t reductionPartials() const;
    // Device bytes the step allocates for model m (parameters, state, scratch).
    size_t deviceBytes(const SoftModel& m) const;
};

// Throws std::runtime_error when the model exceeds the device step's index range (int indices, 4 * tet +
// local packed in an int) -- the scene limits keep built-in scenes far below.
StepPlan makeStepPlan(const SoftModel& m, const SolverDesc& s);

// Chebyshev weights of SoftSolver::accelerate: w_1 = 1, w_2 = 2 / (2 - rho^2), w_k = 4 / (4 - rho^2 w_{k-1}).
std::vector<double> chebyshevWeights(double rho, int iterations);

}  // namespace vbd
