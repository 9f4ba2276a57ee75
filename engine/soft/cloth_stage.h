#pragma once
// The cloth contact stage of the VBD step (cloth_collision.h has the detection and the bound's derivation):
// at the start of a step, contacts are detected at x_prev with per-vertex reference motions and the initial
// guess is truncated into the penetration-free bounds; every `collision_interval` iterations they are
// detected again at the current iterate. Between detections every vertex update is truncated to its bound.
//
// Whatever the interval (0, the default: once per step), a step is re-detected before every iteration after
// the first when its start held a soft body's vertex in its bound: a body closing on another faster than 0.4
// of their gap per step. Detected once a step, such a body could only move 0.4 of the gap a step: it slowed
// to a halt before contact and the momentum was lost (two cubes, 2 m/s against one at rest: the centre of
// mass went from 1.54 to 0.26 m/s, 50 iterations, any tolerance). Each detection at the current iterate lets
// it close 0.4 of what is left, so the inertial motion is reached within a few iterations
// (test_contacts_soft AHeadOnCollisionKeepsTheCentreOfMassMoving). Sheets keep one detection a step (their
// detection is most of their step; set collision_interval to trade). Detection runs on float copies of the
// positions (it only finds pairs and radii, which float resolves far below the contact thickness); the
// truncation runs in the state's scalar.
#include <cmath>
#include <vector>

#include "soft/soft_model.h"

namespace vbd {

// Clamps x into the ball of radius b around x_c + t (cloth_collision.h's bound), in the scalar of x. One
// source for the CPU sweep and the device step's (gpu/step_stages.h BoundTerm).
template <typename T>
VBD_HD Vec3T<T> boundToBall(const Vec3T<T>& x, const Vec3& xc, const Vec3& t, float b) {
    const Vec3T<T> c = Vec3T<T>(xc) + Vec3T<T>(t);
    const Vec3T<T> d = x - c;
    const T l2 = dot(d, d), bb = T(b) * T(b);
    if (l2 <= bb) return x;
    return c + d * (T(b) / std::sqrt(l2));
}

class ClothContactStage {
  public:
    bool active(const SoftModel& m) const { return m.collision.enabled; }
    // Step start: references from the initial guess, detection at x_prev, x truncated into the bounds.
    template <typename T>
    void begin(SoftModel& m, const std::vector<Vec3T<T>>& xPrev, std::vector<Vec3T<T>>& x);
    // Whether contacts are re-detected before sweep `iteration` (1-based).
    bool due(const SoftModel& m, int iteration) const;
    // Re-detection at the current iterate, x truncated into the new bounds.
    template <typename T>
    void refresh(SoftModel& m, std::vector<Vec3T<T>>& x);

  private:
    // Truncates x into the bounds; returns whether it moved a vertex of a soft body.
    template <typename T>
    bool applyBound(const SoftModel& m, std::vector<Vec3T<T>>& x) const;
    std::vector<Vec3> xf_, xPrevf_;  // float copies of a double state for detection
    bool held_ = false;              // this step's start truncated a soft body's initial guess
};

}  // namespace vbd
