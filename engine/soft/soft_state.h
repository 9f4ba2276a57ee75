#pragma once
// The VBD step's state in the solver's scalar T (solver.precision): the iterate and everything a step reads
// from the previous one. One template serves both precisions, so float and double cannot drift apart.
//
// The SoftModel holds the published float state (x, v, x_prev, y, v_last): what the World, the app and the
// tests read, and may edit between steps (drag, reset, a test placing vertices). After every step the state
// is published (rounded to float); before the next one it is compared with the published arrays, and any
// difference -- an edit -- reseeds the state from them (losing only the sub-float digits of that one state).
// In float the comparison is exact equality, so a float run behaves as if it iterated on the model itself.
//
// The comparison reads a float copy of what was last published (published), not the state: x is the array
// the sweep writes, and a serial pass over it before each sweep() left every line of it shared with the
// caller's core, so that each write of the next sweep on another core waited for an invalidation (the
// 10k beam's 2-thread double sweep: the worker's share took 15% longer than the caller's equal share).
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
    std::vector<Vec3> publishedX, publishedV;  // m.x and m.v as last published or seeded from

    bool ready(const SoftModel& m) const {
        return x.size() == m.x.size() && v.size() == m.v.size() && xPrev.size() == m.xPrev.size() &&
               y.size() == m.y.size() && vLast.size() == m.vLast.size() && Cprev.size() == m.tets.size() &&
               CprevLanes.size() == m.tetBlocks.cprevSize() &&
               CprevTetLanes.size() == m.tetLanes.cprevSize() &&
               (!increments || (dx.size() == x.size() && dy.size() == x.size()));
    }

    // Whether the published x and v still equal this state rounded to float (no edit since publish()): the
    // arrays equal what publish() wrote (every change of x and v outside a step is published).
    bool matchesPublished(const SoftModel& m) const {
        auto same = [](const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
            if (a.size() != b.size()) return false;
            for (size_t i = 0; i < a.size(); ++i)
                if (a[i].x != b[i].x || a[i].y != b[i].y || a[i].z != b[i].z) return false;
            return true;
        };
        return same(m.x, publishedX) && same(m.v, publishedV);
    }

    // Starts the state from the published arrays.
    void seed(const SoftModel& m) {
        publishedX = m.x;
        publishedV = m.v;
        x = widened(m.x);
        v = widened(m.v);
        xPrev = widened(m.xPrev);
        y = widened(m.y);
        vLast = widened(m.vLast);
        resetDerived(m);
    }

    // Everything but x, v, x_prev, y, v_last and the published copies, sized for m: what a step rebuilds at
    // its start (predict writes x_prev, y and the increments from x, v and v_last; C_prev, the membranes'
    // C_prev and the hinges' angles are F^T F and theta at x_prev; the Chebyshev history restarts), so the
    // values put here are only placeholders. With those five arrays set (seed, or the device step's state:
    // World::setSolver), the state is ready() for m.
    void resetDerived(const SoftModel& m) {
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

    void publishPositions(SoftModel& m) {
        publishedX.resize(m.x.size());
        parallelFor(m.x.size(), [&](size_t i) { m.x[i] = publishedX[i] = Vec3(x[i]); });
    }

    void publish(SoftModel& m) {
        publishedX.resize(m.x.size());
        publishedV.resize(m.v.size());
        parallelFor(m.x.size(), [&](size_t i) {
            m.x[i] = publishedX[i] = Vec3(x[i]);
            m.v[i] = publishedV[i] = Vec3(v[i]);
            m.xPrev[i] = Vec3(xPrev[i]);
            m.y[i] = Vec3(y[i]);
        });
        for (size_t i = 0; i < vLast.size() && i < m.vLast.size(); ++i) m.vLast[i] = Vec3(vLast[i]);
    }

  private:
    static std::vector<Vec3T<T>> widened(const std::vector<Vec3>& a) { return {a.begin(), a.end()}; }
};

}  // namespace vbd
