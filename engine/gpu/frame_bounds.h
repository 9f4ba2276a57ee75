#pragma once
// What the window reads of a frame's particles besides its measures (gpu/frame_sums.h), measured where the
// state is so that a lazily published device step does not bring the positions to the host for them: the
// axis-aligned bounds of ranges of particles (World::surfaceBounds: each soft body's or cloth's box, which
// the renderer's ground shadows and marker sizes read; SoftStepper::setFrameBounds; a tree of boxes,
// gpu/bounds_plan.h),
// and the positions of listed particles (World::pinPositions; SoftStepper::setGathered). The positions are
// read as publishing rounds them (float), so the host's loop over World::positions() gives the same box bit
// for bit: min and max do not depend on the order. And the nearest hit of a ray with the surface triangles
// (World::surfaceHit, the app's hover readout), again on the published rounding: a reduction whose sum is
// the nearer hit (mesh/surface_ray.h), so the order of the device's tree does not matter either.
#include "gpu/bounds_plan.h"
#include "math/hd.h"
#include "math/vec3.h"
#include "mesh/surface_ray.h"

namespace vbd {

struct FrameBounds {
    // The identity (an empty range): lo above everything, hi below.
    float lo[3] = {3.4e38f, 3.4e38f, 3.4e38f};
    float hi[3] = {-3.4e38f, -3.4e38f, -3.4e38f};
    VBD_HD bool empty() const { return lo[0] > hi[0]; }
    VBD_HD FrameBounds operator+(const FrameBounds& o) const {
        FrameBounds r;
        for (int k = 0; k < 3; ++k) {
            r.lo[k] = lo[k] < o.lo[k] ? lo[k] : o.lo[k];
            r.hi[k] = hi[k] > o.hi[k] ? hi[k] : o.hi[k];
        }
        return r;
    }
    VBD_HD static FrameBounds of(const Vec3& p) {
        FrameBounds r;
        r.lo[0] = r.hi[0] = p.x;
        r.lo[1] = r.hi[1] = p.y;
        r.lo[2] = r.hi[2] = p.z;
        return r;
    }
};

// The box tree of gpu/bounds_plan.h. Level 0: item k boxes its particles of x (the published rounding of the
// state's positions).
template <typename T>
struct ParticleChunkBoundsStage {
    const Vec3T<T>* x;
    const BoundsItem* items;  // this level's
    FrameBounds* boxes;
    VBD_HD void operator()(int k) const {
        const BoundsItem it = items[k];
        FrameBounds b;
        for (int i = it.begin; i < it.end; ++i) b = b + FrameBounds::of(Vec3(x[i]));
        boxes[it.out] = b;
    }
};

// A level above: item k boxes its boxes of the levels below.
struct BoxGroupBoundsStage {
    const BoundsItem* items;  // this level's
    FrameBounds* boxes;
    VBD_HD void operator()(int k) const {
        const BoundsItem it = items[k];
        FrameBounds b;
        for (int i = it.begin; i < it.end; ++i) b = b + boxes[i];
        boxes[it.out] = b;
    }
};

// Range r's box from the tree (empty for an empty range).
struct RangeBoundsStage {
    const int* rangeBox;
    const FrameBounds* boxes;
    FrameBounds* out;
    VBD_HD void operator()(int r) const { out[r] = rangeBox[r] >= 0 ? boxes[rangeBox[r]] : FrameBounds{}; }
};

// The published positions of listed particles (World::pinPositions: the fixed ones), gathered with the
// frame's measures so that their markers read no state from the host.
template <typename T>
struct GatherPositionsStage {
    const Vec3T<T>* x;
    const int* index;
    Vec3* out;
    VBD_HD void operator()(int k) const { out[k] = Vec3(x[index[k]]); }
};

// Triangle k (corners tris[3k..3k+2]) against the ray.
template <typename T>
struct SurfaceRayTerm {
    const Vec3T<T>* x;
    const int* tris;
    const SurfaceRay* ray;
    VBD_HD SurfaceHit operator()(int k) const {
        const int c[3] = {tris[3 * k], tris[3 * k + 1], tris[3 * k + 2]};
        const Vec3 p[3] = {Vec3(x[c[0]]), Vec3(x[c[1]]), Vec3(x[c[2]])};
        return triangleHit(*ray, k, c, p);
    }
};

}  // namespace vbd
