#pragma once
// The terms of a frame's measures (gpu/frame_sums.h) on the step's arrays, for the executor's reduce: what
// World::measure and guardFrame read from the host state after every frame, computed where the state is.
// The inputs are the host's: the kinetic_energy, com and max_speed columns, det F and the finite check read
// the positions and velocities as they would be published (rounded to float, SoftState::publish); the
// total_energy column reads the state in its own precision, as SoftSolver::mechanicalEnergy does on the CPU
// backend. Each energy term is the one G's reduction uses (gpu/step_stages.h), with the damping off: what
// is left of E_e, the membrane and bending terms, the collider and self-contact penalties is the stored
// energy (the rows against rigid bodies are cleared before the World measures: not a term here).
// Only the order of the sums differs from the host's (a few ulps of each sum).
#include <cmath>

#include "gpu/frame_sums.h"
#include "gpu/step_stages.h"
#include "soft/vertex_block.h"
#include "soft/volume_ratio.h"

namespace vbd {

// Vertex v's position as published (rounded to float): what soft/volume_ratio.h reads.
template <typename T>
struct PublishedPositions {
    const Vec3T<T>* x;
    VBD_HD Vec3 operator()(int v) const { return Vec3(x[v]); }
};

// Per particle: mass, m x, the kinetic energy and speed, -m g.x, its collider penalties, its finiteness.
template <typename T>
struct FrameVertexTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD FrameSums operator()(int i) const {
        FrameSums r;
        const Vec3 xf(a.x[i]), vf(a.v[i]);  // the published values
        if (!isFinite(xf) || !isFinite(vf)) r.firstBad = double(i);
        const double m = double(a.view.mass[i]);
        const Vec3d xd(xf);
        r.mass = m;
        r.mx = m * xd.x, r.my = m * xd.y, r.mz = m * xd.z;
        const double v2 = squaredNorm(Vec3d(vf));
        r.kinetic = 0.5 * m * v2;
        r.maxSpeed = std::sqrt(v2);
        const float off = a.view.colliderOffset ? a.view.colliderOffset[i] : 0.f;
        r.energy = colliderPenaltiesAt(
            a.view.colliders, a.view.numColliders, off, a.x[i],
            0.5 * m * squaredNorm(Vec3d(a.v[i])) - m * dot(Vec3d(s->gravity), Vec3d(a.x[i])));
        return r;
    }
};

// Per tet: V psi(F) (E_e without damping, EnergyTetTerm) and det F of the published positions
// (soft_fields.cpp minVolumeRatio). `a` has its damping off (withoutDamping).
template <typename T>
struct FrameTetTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD FrameSums operator()(int e) const {
        FrameSums r;
        r.energy = EnergyTetTerm<T>{a, s}(e);
        r.minJ = double(publishedTetJ(a.view.tets[e], a.view.DmInv[e], PublishedPositions<T>{a.x}));
        return r;
    }
};

// The heat maps of the published state computed where the state is (World::scalarField while a lazily
// published step is pending: the field crosses, not the state). Per vertex, the host's functions
// (soft/soft_fields.cpp) on the model's device copies.
template <typename T>
struct VolumeRatioFieldStage {
    StepArrays<T> a;
    float* out;
    VBD_HD void operator()(int i) const {
        out[i] = a.numTets == 0 ? 1.f
                                : vertexVolumeRatio(a.view.vtOffsets, a.view.vtItems, a.view.tets,
                                                    a.view.DmInv, PublishedPositions<T>{a.x}, i);
    }
};

// A dominance ratio of soft/vertex_block.h at the step size h: to the largest coupling, or (sumRatio) to
// their sum.
template <typename T>
struct DominanceFieldStage {
    StepArrays<T> a;
    float h;
    bool sumRatio;
    float* out;
    VBD_HD void operator()(int i) const {
        VertexBlock b;
        b.maxRatio = b.sumRatio = 1e30f;  // no tets: no neighbours (as the host's empty lists give)
        if (a.numTets > 0) b = vertexBlock(a.view, h, PublishedPositions<T>{a.x}, i);
        out[i] = sumRatio ? b.sumRatio : b.maxRatio;
    }
};

// Any of G's element terms (membrane, bending, self contact) as the energy of a FrameSums.
template <class Term>
struct FrameEnergyTerm {
    Term term;
    VBD_HD FrameSums operator()(int k) const {
        FrameSums r;
        r.energy = term(k);
        return r;
    }
};

// The arrays with the damping model off: G's element terms are then the stored elastic energy.
template <typename T>
StepArrays<T> withoutDamping(StepArrays<T> a) {
    a.view.damping = DampingModel::None;
    return a;
}

}  // namespace vbd
