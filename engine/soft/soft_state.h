#pragma once
// The VBD step's state in the solver's scalar T (solver.precision): the iterate and everything a step reads
// from the previous one. One template serves both precisions, so float and double cannot drift apart.
//
// The SoftModel holds the published float state (x, v, x_prev, y, v_last): what the World, the app and the
// tests read, and may edit between steps (drag, reset, a test placing vertices). After every step the state
// is published (rounded to float); before the next one it is compared with the published arrays, and any
// difference -- an edit -- reseeds the state from them (losing only the sub-float digits of that one state).
// In float the comparison is exact equality, so a float run behaves as if it iterated on the model itself.
#include <array>
#include <vector>

#include "backend/parallel.h"
#include "math/mat33.h"
#include "soft/soft_model.h"

namespace vbd {

// out = in, converted element-wise to out's scalar.
template <typename D, typename S>
void convertInto(std::vector<Vec3T<D>>& out, const std::vector<Vec3T<S>>& in) {
    out.resize(in.size());
    for (size_t i = 0; i < in.size(); ++i) out[i] = Vec3T<D>(in[i]);
}

template <typename T>
struct SoftState {
    std::vector<Vec3T<T>> x;                       // the iterate
    std::vector<Vec3T<T>> v;                       // velocity of the last finished step
    std::vector<Vec3T<T>> xPrev;                   // positions at the start of the step
    std::vector<Vec3T<T>> y;                       // inertial target x_prev + h v + h^2 g
    std::vector<Vec3T<T>> vLast;                   // velocity of the step before (adaptive initial guess)
    std::vector<Mat33T<T>> Cprev;                  // F^T F at x_prev per tet (internal damping reference)
    std::vector<T> CprevLanes;                     // Cprev in SoftModel::tetBlocks' order (the CPU sweep's)
    std::vector<T> CprevTetLanes;                  // Cprev in SoftModel::tetLanes' order (the residual's)
    std::vector<std::array<T, 3>> triCprev;        // (C00, C01, C11) at x_prev per membrane triangle
    std::vector<T> hingeThetaPrev;                 // dihedral angle at x_prev per bending hinge
    std::vector<Vec3T<T>> chebPrev, chebPrevPrev;  // Chebyshev history
    std::vector<Vec3T<T>> force;                   // scratch: f = -grad G per vertex
    std::vector<T> tetSums;                        // scratch: its tet terms and blocks' trace, 4 per vertex
                                                   // (soft/tet_residual.h)
    // The increment form (soft/state_update.h), chosen before seed(): dx = x - x_prev and dy = y - x_prev
    // stored next to x = fl(x_prev + dx). Empty in the absolute form.
    bool increments = false;
    std::vector<Vec3T<T>> dx, dy;

    bool ready(const SoftModel& m) const {
        return x.size() == m.x.size() && v.size() == m.v.size() && xPrev.size() == m.xPrev.size() &&
               y.size() == m.y.size() && vLast.size() == m.vLast.size() && Cprev.size() == m.tets.size() &&
               CprevLanes.size() == m.tetBlocks.cprevSize() &&
               CprevTetLanes.size() == m.tetLanes.cprevSize() &&
               (!increments || (dx.size() == x.size() && dy.size() == x.size()));
    }

    // Whether the published x and v still equal this state rounded to float (no edit since publish()).
    bool matchesPublished(const SoftModel& m) const {
        for (size_t i = 0; i < m.x.size(); ++i) {
            const Vec3 xf(x[i]), vf(v[i]);
            if (xf.x != m.x[i].x || xf.y != m.x[i].y || xf.z != m.x[i].z || vf.x != m.v[i].x ||
                vf.y != m.v[i].y || vf.z != m.v[i].z)
                return false;
        }
        return true;
    }

    // Starts the state from the published arrays. C_prev restarts at F^T F of the published x_prev.
    void seed(const SoftModel& m) {
        x = widened(m.x);
        v = widened(m.v);
        xPrev = widened(m.xPrev);
        y = widened(m.y);
        vLast = widened(m.vLast);
        dx.clear();
        dy.clear();
        if (increments) {
            dx.resize(x.size());
            dy.resize(x.size());
            for (size_t i = 0; i < x.size(); ++i) {
                dx[i] = x[i] - xPrev[i];
                dy[i] = y[i] - xPrev[i];
            }
        }
        Cprev.assign(m.tets.size(), Mat33T<T>::identity());
        fillCprevLanes(m.tetBlocks, Cprev, CprevLanes);
        fillCprevTetLanes(m.tetLanes, Cprev, CprevTetLanes);
        triCprev.assign(m.tris.size(), {T(1), T(0), T(1)});
        hingeThetaPrev.assign(m.hingeTheta0.begin(), m.hingeTheta0.end());
        chebPrev.clear();
        chebPrevPrev.clear();
    }

    // Reseeds when the state is missing or the published arrays were edited.
    void sync(const SoftModel& m) {
        if (!ready(m) || !matchesPublished(m)) seed(m);
    }

    void publishPositions(SoftModel& m) const {
        parallelFor(m.x.size(), [&](size_t i) { m.x[i] = Vec3(x[i]); });
    }

    void publish(SoftModel& m) const {
        parallelFor(m.x.size(), [&](size_t i) {
            m.x[i] = Vec3(x[i]);
            m.v[i] = Vec3(v[i]);
            m.xPrev[i] = Vec3(xPrev[i]);
            m.y[i] = Vec3(y[i]);
        });
        for (size_t i = 0; i < vLast.size() && i < m.vLast.size(); ++i) m.vLast[i] = Vec3(vLast[i]);
    }

  private:
    static std::vector<Vec3T<T>> widened(const std::vector<Vec3>& a) { return {a.begin(), a.end()}; }
};

}  // namespace vbd
