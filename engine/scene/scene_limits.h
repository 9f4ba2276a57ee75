#pragma once
// What the engine can simulate, checked on a parsed SceneDesc before anything is allocated.
//
// The solvers keep their state, masses, materials and stiffnesses in float (the soft solver's kernel and
// the device buffers; the rigid solver's poses). A value that is finite as a double can still overflow,
// underflow to zero or lose every digit in float, and products the solver forms (mass / h^2,
// stiffness * h^2, gravity * h^2, Young's modulus times the product of overlapping youngs_scale regions,
// density * volume) can overflow where every factor alone is fine. So every derived coefficient is
// computed here in double and must lie in [kMinCoefficient, kMaxCoefficient]: float's normal range is
// [1.2e-38, 3.4e38], and the 1e30 bound leaves eight orders of magnitude for what the kernel multiplies
// a coefficient by (squared shape-function weights, strains, displacements) before anything overflows.
// Quantities known only once a mesh is imported or the model is built (per-tet mu and lambda under
// overlapping regions, masses of imported meshes) are checked by the World builder against the same
// bounds (world/finite_guard.h).
//
// Memory: the scene's particle, element and body counts are known here (box grids and cloths exactly;
// imported meshes are capped by TetGenOptions::kMaxTets), so the memory a World needs is estimated
// before it is built and a scene that would not fit into the machine's physical memory is refused
// naming the key that makes it big.
//
// Every refusal is an InputError "file: key.path: what is wrong" (exit code 2 in the CLI).
#include <cstdint>
#include <string>

#include "scene/scene_desc.h"

namespace vbd {

namespace limits {
// Smallest substep h = dt / substeps (s). Below 1 us the inertia term m / h^2 of the local systems
// outgrows every elastic term by so much that a float iterate cannot move (float spacing of positions
// ~6e-8 |x|, while a step moves h |v|); no scene of this lab needs it.
constexpr double kMinStep = 1e-6;
// Largest substep (s): h^2 must stay a normal float with room for mass / h^2.
constexpr double kMaxStep = 1e3;
constexpr double kMaxCoefficient = 1e30;
// Largest coordinate of matter (positions, box extents, mesh translation, anchors, ground height) and
// largest motion per step (|v| h, |g| h^2), in m. Float spacing at 1e6 m is 6 cm: beyond it no scene of
// this lab is resolved, and forces (stiffness * length, itself <= 1e30 * 1e6) stay below float's
// overflow. Fixed boxes and regions only select particles, so they may be larger.
constexpr double kMaxLength = 1e6;
constexpr double kMinCoefficient = 1e-30;
// A cell edge must be at least this fraction of the coordinates' magnitude: float spacing is
// 6e-8 |x|, so an edge of 1e-5 |x| is resolved to about 0.6 %, and its tets are not flattened by rounding.
constexpr double kMinRelativeEdge = 1e-5;
// Element counts are int indices; CSR items store 4 * element + local.
constexpr double kMaxElements = double(INT32_MAX) / 4;
}  // namespace limits

// Throws InputError for the first quantity outside the limits above (including the memory estimate
// against machineMemoryBytes()).
void checkSceneLimits(const SceneDesc& s);

// Memory a World of this scene needs (bytes), from its counts and the measured bytes per vertex,
// tet, cloth triangle and rigid body; `key` names the body that contributes most.
struct MemoryEstimate {
    double bytes = 0;
    double vertices = 0, tets = 0, triangles = 0, bodies = 0;
    std::string key;  // e.g. "soft_bodies[0].cells"
    double keyBytes = 0;
};
MemoryEstimate estimateSceneMemory(const SceneDesc& s);

// Physical memory of this machine (bytes); VBD_MEMORY_LIMIT_MB in the environment lowers it (tests, or
// a shared machine).
double machineMemoryBytes();

}  // namespace vbd
