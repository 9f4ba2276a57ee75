#pragma once
// The tets a rigid coarse step evaluates (rigid_coarse.h: those touching a component and not interior to
// one), evaluated kLanes at a time on SIMD packs (backend/simd.h). Every correction runs two passes over
// them: the per-vertex gradient (for the reduced residual) and the exact change of their energy along the
// step (for the line search). In scalars these were two thirds of a correction (docs/coarse-space.md, "Cost
// per corrected sweep"); here they are the same tetStress and tetEnergyDelta (energy/tet_energy.h) that
// TetEnergyCache evaluates one tet at a time, instantiated on packs, so each tet's terms equal the cache's to
// the rounding of contracted multiply-adds.
//
// Layout, coloring and scatter: soft/tet_lanes.h (the tets in colored lane blocks, each vertex's terms added
// in color order, the same for any thread count). The gradient pass also returns the largest |F - F_ref|^2
// since markReference() (the refactorization watch of coarse_correction.h), so the watch costs no pass of its
// own. The energy change recomputes F from x (the x loads stay in cache) rather than storing it, for the same
// reason.
//
// Determinism: within fixed groups of 128 blocks the energy change is summed per lane (lane l of a pack adds
// its tets in batch order), the lanes pairwise at the group's end (simd::sum), and the groups in order
// (reduceSum's grouping): the same sum for any thread count; it depends on the pack width (the ISA) in the
// last bits. (Adding each lane into one scalar made the pass a chain of dependent additions: 8 per block,
// ~4 % of a corrected sweep on the 60 x 6 x 6 cantilever, bench_coarse.)
#include <cstdint>
#include <vector>

#include "soft/tet_lanes.h"

namespace vbd::coarse {

// F of a block's lanes at the last markReference(), rounded to float (it only feeds the 0.05 watch); apart
// from the blocks so that the energy change, which does not read it, does not stream it.
struct TetLaneReference {
    float F[9][TetLaneBlock::kLanes];
};

class TetBatch {
  public:
    // elems: the tets; gathered: the vertices whose gradient sums addGradient() adds to (free vertices).
    void build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& gathered);
    // Adds the tets' vertex gradients at x to g[v] of the gathered vertices (C_prev:
    // TetEnergyCache::previousC(), read when damped); returns max over the tets of |F - F_ref|^2 (Frobenius).
    double addGradient(const std::vector<Vec3d>& x, const std::vector<Mat33d>& cprev, double h, bool internal,
                       std::vector<Vec3d>& g);
    // F_ref = F at x.
    void markReference(const std::vector<Vec3d>& x);
    // sum over the tets of E_e(F + dF) - E_e(F) (tetEnergyDelta), F at x, dF of the displacement d.
    double deltaEnergy(const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                       const std::vector<Mat33d>& cprev, double h, bool internal) const;
    int numTets() const { return lanes_.tets; }

  private:
    TetLanes lanes_;
    std::vector<TetLaneReference> ref_;  // per block
    std::vector<double> change_;         // per block, the watch of the last pass
};

}  // namespace vbd::coarse
