#pragma once
// The particles' part of a frame's metrics (World::measure: DESIGN.md's kinetic_energy, com, max_speed,
// min_volume_ratio, total_energy columns, and the finite check of world/finite_guard.h) as one reduction
// value, so that a device step can measure its frame where its state is and bring 72 bytes to the host
// instead of the state (gpu/frame_measure_stages.h computes the terms; SoftStepper::setFrameMeasures).
//
// operator+ is the reduction's combine: sums for the sums, max for the speed, min for det F and for the first
// non-finite particle. A value-initialized FrameSums is its identity (the reductions pad with it), hence the
// infinities.
#include <limits>

#include "math/hd.h"

namespace vbd {

struct FrameSums {
    static constexpr double kNone = std::numeric_limits<double>::infinity();
    double mass = 0;
    double mx = 0, my = 0, mz = 0;  // sum of m x over the particles (published float positions)
    double kinetic = 0;       // sum of 1/2 m |v|^2 (published float velocities): the kinetic_energy column
    double energy = 0;        // stored mechanical energy in the state's own precision (SoftSolver::
                              // mechanicalEnergy): kinetic, elastic, -m g.x, collider and contact terms
    double maxSpeed = 0;      // max |v|, published float velocities
    double minJ = kNone;      // min det F over tets, from the published float positions (kNone: no tets)
    double firstBad = kNone;  // the lowest particle index whose published x or v is not finite (kNone)
    VBD_HD FrameSums operator+(const FrameSums& o) const {
        FrameSums r;
        r.mass = mass + o.mass;
        r.mx = mx + o.mx, r.my = my + o.my, r.mz = mz + o.mz;
        r.kinetic = kinetic + o.kinetic;
        r.energy = energy + o.energy;
        r.maxSpeed = maxSpeed > o.maxSpeed ? maxSpeed : o.maxSpeed;
        r.minJ = minJ < o.minJ ? minJ : o.minJ;
        r.firstBad = firstBad < o.firstBad ? firstBad : o.firstBad;
        return r;
    }
};

}  // namespace vbd
