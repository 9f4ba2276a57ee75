#pragma once
// The start of a VBD step for a free vertex, shared by the CPU solver (soft_solver.cpp) and the device
// step (gpu/step_stages.h).
//   y = x + h v + h^2 g                                   (the inertial target of G)
//   x = y                                                 (inertial initial guess), or
//   x = x + h v + h^2 a~ g/|g|,  a~ = clamp(dot(v - v_last, g/|g|) / h, 0, |g|)
// the VBD paper's adaptive initial guess (sec. 3.6): a body resting on the ground (acceleration ~ 0)
// starts where it is instead of h^2 g inside the ground.
#include "math/hd.h"
#include "math/vec3.h"

namespace vbd {

// a~ of the adaptive guess.
template <typename T>
VBD_HD T adaptiveAcceleration(const Vec3T<T>& v, const Vec3T<T>& vLast, T h, const Vec3T<T>& gdir, T g) {
    const T aG = dot(v - vLast, gdir) / h;
    return aG < T(0) ? T(0) : (aG > g ? g : aG);
}

template <typename T>
VBD_HD void predictFreeVertex(Vec3T<T>& x, Vec3T<T>& y, const Vec3T<T>& v, const Vec3T<T>& vLast, T h,
                              const Vec3T<T>& gravity, const Vec3T<T>& gdir, T g, bool adaptive) {
    y = x + v * h + gravity * (h * h);
    if (adaptive) {
        x = x + v * h + gdir * (adaptiveAcceleration(v, vLast, h, gdir, g) * h * h);
    } else {
        x = y;
    }
}

// The same start for a state that stores the step's increment (soft/state_update.h): dx = x - x_prev and
// dy = y - x_prev, formed without x_prev so that they carry every digit of the step's motion.
template <typename T>
VBD_HD void predictFreeIncrement(Vec3T<T>& dx, Vec3T<T>& dy, const Vec3T<T>& v, const Vec3T<T>& vLast, T h,
                                 const Vec3T<T>& gravity, const Vec3T<T>& gdir, T g, bool adaptive) {
    dy = v * h + gravity * (h * h);
    dx = adaptive ? v * h + gdir * (adaptiveAcceleration(v, vLast, h, gdir, g) * h * h) : dy;
}

}  // namespace vbd
