#pragma once
// The tets a rigid coarse step evaluates (rigid_coarse.h: those touching a component and not interior to one),
// evaluated kLanes at a time on SIMD packs (backend/simd.h). Every correction runs two passes over them: the
// per-vertex gradient (for the reduced residual) and the exact change of their energy along the step (for the
// line search). In scalars these were two thirds of a correction (docs/coarse-space.md, "Cost per corrected
// sweep"); here they are the same tetStress and tetEnergyDelta (energy/tet_energy.h) that TetEnergyCache
// evaluates one tet at a time, instantiated on packs, so each tet's terms equal the cache's to the rounding
// of contracted multiply-adds.
//
// Layout: blocks of kLanes tets as structure of arrays, a lane per tet, the last block padded with volume-0
// lanes (their terms are exact zeros). The gradient pass writes each tet's four vertex gradients to their
// vertex's incidence slots, which run per gathered vertex in the order of SoftModel::vertexTets: a vertex's
// sum is then a contiguous run added in the order of TetEnergyCache::gatherGradient. The pass also returns
// the largest |F - F_ref|^2 since markReference() (the refactorization watch of coarse_correction.h), so the
// watch costs no pass of its own. The energy change recomputes F from x (a few gathers from x, which stays in
// cache) rather than storing it: storing cost more memory traffic than the arithmetic it saved.
//
// Determinism: each block writes only its own slots; the energy change adds the tets one by one in batch order
// within fixed groups of 1024 tets and the groups in order (the grouping of reduceSum over the tets): the
// same sum for any thread count.
#include <cstdint>
#include <vector>

#include "soft/soft_model.h"

namespace vbd::coarse {

// The model's own single-precision rest data (read into double lanes exactly, as TetEnergyCache widens them):
// a block is 1 KB, and a pass streams the blocks, so their size is its memory traffic.
struct TetLaneBlock {
    static constexpr int kLanes = 8;
    int32_t x3[4][kLanes];    // 3 x vertex index of the tet's vertices
    int32_t slot[4][kLanes];  // incidence slot of each vertex's gradient (the discard slot when not gathered)
    int32_t c9[kLanes];       // 9 x tet index: the tet's C_prev in TetEnergyCache::previousC()
    float Dinv[9][kLanes];    // Dm^{-1}, row-major
    float V[kLanes], mu[kLanes], lambda[kLanes], kd[kLanes];
    float Fref[9][kLanes];  // F at the last markReference(), rounded: it only feeds the 0.05 watch
};

class TetBatch {
  public:
    // elems: the tets (in the order their energy changes are summed); verts: the vertices whose gradient
    // sums addVertexGradient() returns (k indexes verts).
    void build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& verts);
    // The tets' vertex gradients and F at x (C_prev: TetEnergyCache::previousC(), read when damped);
    // returns max over the tets of |F - F_ref|^2 (Frobenius).
    double gradient(const std::vector<Vec3d>& x, const std::vector<Mat33d>& cprev, double h, bool internal);
    // g += the gradients of the batch's tets at vertex verts[k] from the last gradient pass.
    void addVertexGradient(size_t k, Vec3d& g) const {
        for (int s = slotOffsets_[k]; s < slotOffsets_[k + 1]; ++s) g += slots_[size_t(s)];
    }
    // F_ref = F at x.
    void markReference(const std::vector<Vec3d>& x);
    // sum over the tets of E_e(F + dF) - E_e(F) (tetEnergyDelta), F at x, dF of the displacement d.
    double deltaEnergy(const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                       const std::vector<Mat33d>& cprev, double h, bool internal) const;
    int numTets() const { return tets_; }

  private:
    std::vector<TetLaneBlock> blocks_;
    std::vector<int> slotOffsets_;  // per gathered vertex: its slots [offsets[k], offsets[k + 1])
    std::vector<Vec3d> slots_;      // the last one is the discard slot
    int tets_ = 0;
    bool damped_ = false;
};

}  // namespace vbd::coarse
