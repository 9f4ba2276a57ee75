#pragma once
// The tets a rigid coarse step evaluates (rigid_coarse.h: those touching a component and not interior to
// one), evaluated kLanes at a time on SIMD packs (backend/simd.h). Every correction runs two passes over
// them: the per-vertex gradient (for the reduced residual) and the exact change of their energy along the
// step (for the line search). In scalars these were two thirds of a correction (docs/coarse-space.md, "Cost
// per corrected sweep"); here they are the same tetStress and tetEnergyDelta (energy/tet_energy.h) that
// TetEnergyCache evaluates one tet at a time, instantiated on packs, so each tet's terms equal the cache's to
// the rounding of contracted multiply-adds.
//
// Layout: blocks of kLanes tets as structure of arrays, a lane per tet (the model's single-precision rest
// data, read into double lanes exactly as TetEnergyCache widens it: a block is under 1 KB, and a pass streams
// the blocks, so their size is its memory traffic). The tets are colored so that no two of one color share a
// vertex, and ordered by color, each color padded to whole blocks (padding lanes have volume 0 and write
// nothing). The gradient pass then adds each tet's four vertex gradients straight into the per-vertex sums,
// color after color: within a color no two lanes or blocks touch one vertex, so blocks run in parallel
// without atomics, and each vertex receives its terms in color order, the same for any thread count. (Writing
// the 4 x 24 bytes of every tet to per-incidence slots and gathering them per vertex streamed twice the
// batch's size through memory.) The pass also returns the largest |F - F_ref|^2 since markReference() (the
// refactorization watch of coarse_correction.h), so the watch costs no pass of its own. The energy change
// recomputes F from x (the x loads stay in cache) rather than storing it, for the same reason.
//
// Determinism: within fixed groups of 128 blocks the energy change is summed per lane (lane l of a pack adds
// its tets in batch order), the lanes pairwise at the group's end (simd::sum), and the groups in order
// (reduceSum's grouping): the same sum for any thread count; it depends on the pack width (the ISA) in the
// last bits. (Adding each lane into one scalar made the pass a chain of dependent additions: 8 per block,
// ~4 % of a corrected sweep on the 60 x 6 x 6 cantilever, bench_coarse.)
#include <cstdint>
#include <vector>

#include "soft/soft_model.h"

namespace vbd::coarse {

struct TetLaneBlock {
    static constexpr int kLanes = 8;
    int32_t x3[4][kLanes];  // 3 x vertex index of the tet's vertices
    uint8_t gathered[4];    // bit l: lane l's vertex a receives its gradient (not padding, a gathered vertex)
    float Dinv[9][kLanes];  // Dm^{-1}, row-major
    float V[kLanes], mu[kLanes], lambda[kLanes], kd[kLanes];
};

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
    int numTets() const { return tets_; }

  private:
    std::vector<TetLaneBlock> blocks_;
    std::vector<size_t> colorStart_;     // blocks of color c: [colorStart_[c], colorStart_[c + 1])
    std::vector<TetLaneReference> ref_;  // per block
    std::vector<int32_t> c9_;            // per lane: 9 x tet index, its C_prev (read when damped only)
    std::vector<double> change_;         // per block, the watch of the last pass
    int tets_ = 0;
    bool damped_ = false;
};

}  // namespace vbd::coarse
