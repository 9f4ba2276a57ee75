#pragma once
// The cloth contact stage of the VBD step (cloth_collision.h has the detection and the bound's derivation):
// at the start of a step, contacts are detected at x_prev with per-vertex reference motions and the initial
// guess is truncated into the penetration-free bounds; every `collision_interval` iterations they are
// detected again at the current iterate. Between detections every vertex update is truncated to its bound.
// Float state only: cloth runs in float precision (SoftSolver::setParams refuses double with cloth).
#include <vector>

#include "soft/soft_model.h"

namespace vbd {

class ClothContactStage {
  public:
    bool active(const SoftModel& m) const { return m.collision.enabled; }
    // Step start: references from the initial guess, detection at x_prev, x truncated into the bounds.
    void begin(SoftModel& m, const std::vector<Vec3>& xPrev, std::vector<Vec3>& x) const;
    // Whether contacts are re-detected before sweep `iteration` (1-based).
    bool due(const SoftModel& m, int iteration) const;
    // Re-detection at the current iterate, x truncated into the new bounds.
    void refresh(SoftModel& m, std::vector<Vec3>& x) const;

  private:
    void applyBound(const SoftModel& m, std::vector<Vec3>& x) const;
};

}  // namespace vbd
