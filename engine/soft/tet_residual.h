#pragma once
// The tet terms of the solver's residual |grad G| (SoftSolver::computeForces) once per tet instead of once
// per incidence: each tet's stress dE_e/dF (tetStress) on SIMD lanes over tets, its four vertex gradients
// g_a = (dE_e/dF) m^a added into per-vertex sums in color order (soft/tet_lanes.h: no atomics, the same sums
// for any thread count). The sweep's per-vertex kernel forms F and the stress's products for each of a tet's
// four vertices; the residual needs no block, so one evaluation per tet gives the same gradient to rounding
// (tests/scene/test_soft_residual.cpp bounds the difference).
//
// The positions are the sweep's (blockPositions: x, or in the increment form the differences of x_prev and
// dx relative to the tet's first vertex), so F is the kernel's. Internal damping or none: the naive
// damping's tet term reads the vertex's own motion x_a - x_prev,a, which is not a function of the tet's F,
// and its models keep the per-vertex kernel.
#include "soft/soft_model.h"

namespace vbd {

// Blocks per task of the colored pass. A box grid's tets need ~30 colors (a vertex is in 24 tets), so a small
// model's colors are a few blocks of ~2 µs each, and split between two threads the barriers between them ate
// the gain (the bar's pass took 74k cycles against 55k on one thread, the cube's 97k against 100k; rdtsc).
constexpr size_t kResidualColorGrain = 64;
// Parts of the pass when its colors are too small to split.
constexpr int kResidualParts = 2;

// How addTetForces splits the tets of `tl` between threads, from the model alone (so that the sums are the
// same for any thread count): 1, color after color, the blocks of a color in parallel, when the largest color
// has two tasks of kResidualColorGrain blocks; else kResidualParts parts, each a contiguous range of the
// blocks run in order into its own sums, which the caller adds in part order. A part needs no barrier
// between colors (one thread adds all of its terms), at the price of its own n-vertex buffer: on the cube the
// pass went from 115k cycles on either thread count to 64k on two (rdtsc).
int tetResidualParts(const TetLanes& tl);

// For vertex a of every tet of `tl` whose vertex is gathered, at the view's state: sums[4 v .. 4 v + 2] -=
// g_a and sums[4 v + 3] += tr H_aa (tetBlockTraceForm: the rounding floor's stiffness), v the vertex (a
// record of 4 T per vertex: one 32-byte store per term in double). cprevLanes: C_prev in the lanes' order
// (SoftState::CprevTetLanes). parts (tetResidualParts): 1 adds into sums, which the caller zeroes, color
// after color with `grain` blocks per task; more: part p zeroes sums + p stride (stride >= 4 n) and adds its
// blocks' terms into it.
template <typename T>
void addTetForces(const TetLanes& tl, const SoftViewT<T>& s, const T* cprevLanes, T* sums, size_t stride,
                  int parts, size_t grain = kResidualColorGrain);

// sum over the tets of E_e (energy/tet_energy.h tetEnergy: V psi(F), plus the internal damping potential when
// `damping` and some k_d > 0; cprevLanes as above) at the double state's x: the tet part of G and of the
// elastic energy, which the scalar loops of soft_potential.cpp evaluated one tet at a time. Summed per lane
// within fixed groups of blocks, the lanes pairwise (simd::sum) and the groups in order: the same sum for any
// thread count; it differs from the scalar loop's in the last bits (another order).
double tetEnergySum(const TetLanes& tl, const SoftViewT<double>& s, const double* cprevLanes, bool damping);

}  // namespace vbd
