#pragma once
// Writes of the VBD iterate, one source for the CPU solver (soft_solver.cpp) and the device step
// (gpu/step_stages.h), for the two ways a state can hold it:
//   absolute   x stored (the double state; the float state with SoftSolver::SweepOptions::floatIncrement off)
//   increment  x = x_prev + dx with dx, the step's motion so far, stored next to x (the float state)
// Why the increment: a float holds x to u |x| (u = 2^-24), so the residual of an absolute float state cannot
// fall below about (stiffness) x u |x| -- the float floor of docs/coarse-space.md, which for a body a metre
// from the origin is far above what a converged step needs. dx holds the step's motion to u |dx|, and the
// kernel forms the differences it needs (edge vectors, x - y, x - x_prev) from x_prev differences and dx
// (soft/vertex_kernel.h: elementPositions), so no term rounds at |x|. In the increment form x is kept equal
// to fl(x_prev + dx) after every write: colliders, the picking spring, cloth collision and the published
// model read it unchanged.
// dx == nullptr selects the absolute form in every function below.
#include "math/hd.h"
#include "math/vec3.h"

namespace vbd {

template <typename T>
VBD_HD bool sameValue(const Vec3T<T>& a, const Vec3T<T>& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

// x_i += d (a VBD local solve, a coarse correction).
template <typename T>
VBD_HD void moveVertex(Vec3T<T>* x, Vec3T<T>* dx, const Vec3T<T>* xPrev, int i, const Vec3T<T>& d) {
    if (dx) {
        dx[i] += d;
        x[i] = xPrev[i] + dx[i];
    } else {
        x[i] += d;
    }
}

// x_i = p, an absolute position (a kinematic vertex, a collision bound).
template <typename T>
VBD_HD void placeVertex(Vec3T<T>* x, Vec3T<T>* dx, const Vec3T<T>* xPrev, int i, const Vec3T<T>& p) {
    x[i] = p;
    if (dx) dx[i] = p - xPrev[i];
}

// After code that writes absolute positions into x (cloth collision bounds): dx_i = x_i - x_prev,i wherever
// x_i no longer equals fl(x_prev,i + dx_i).
template <typename T>
VBD_HD void resyncIncrement(const Vec3T<T>* x, Vec3T<T>* dx, const Vec3T<T>* xPrev, int i) {
    if (dx && !sameValue(x[i], Vec3T<T>(xPrev[i] + dx[i]))) dx[i] = x[i] - xPrev[i];
}

// The quantity that extrapolation and velocities work on: dx in the increment form, x in the absolute one.
template <typename T>
VBD_HD Vec3T<T> iterateValue(const Vec3T<T>* x, const Vec3T<T>* dx, int i) {
    return dx ? dx[i] : x[i];
}
template <typename T>
VBD_HD void setIterateValue(Vec3T<T>* x, Vec3T<T>* dx, const Vec3T<T>* xPrev, int i, const Vec3T<T>& q) {
    if (dx) {
        dx[i] = q;
        x[i] = xPrev[i] + q;
    } else {
        x[i] = q;
    }
}

// x_i - x_prev,i of the step so far (exact in the increment form).
template <typename T>
VBD_HD Vec3T<T> stepMotion(const Vec3T<T>* x, const Vec3T<T>* dx, const Vec3T<T>* xPrev, int i) {
    return dx ? dx[i] : x[i] - xPrev[i];
}

// The length that sets the rounding floor of vertex i's force (soft_potential.cpp, the device residual):
// absolute: the largest coordinate of x (x is known to u |x|); increment: the larger of |dx|_inf (dx is known
// to u |dx|) and the model's longest rest edge (the kernel's edge vectors and F are known to u of their own
// size, a perturbation of u times an edge).
template <typename T>
VBD_HD double floorLength(const Vec3T<T>* x, const Vec3T<T>* dx, int i, double edgeLength) {
    const Vec3T<T>& p = dx ? dx[i] : x[i];
    const double ax = p.x < 0 ? -double(p.x) : double(p.x), ay = p.y < 0 ? -double(p.y) : double(p.y),
                 az = p.z < 0 ? -double(p.z) : double(p.z);
    double s = ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az);
    if (dx && edgeLength > s) s = edgeLength;
    return s;
}

}  // namespace vbd
