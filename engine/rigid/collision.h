#pragma once
// Collision detection for the AVBD rigid solver: a uniform-grid broad phase (O(n) for bodies of
// similar size) and narrow-phase manifolds for plane / box / sphere / capsule pairs. Box-box uses
// the separating axis test over 15 axes (face axes preferred) and clips the incident face against
// the reference face, reduced to at most 4 points. Every point carries a feature key that names
// the geometric features it came from, so contacts persist across frames and warm start.
#include <cstdint>
#include <utility>
#include <vector>

#include "rigid/rigid_body.h"

namespace vbd {

struct Pose {
    Vec3 p;
    Quat q;
};

struct ManifoldPoint {
    Vec3 pA, pB;       // world points on A and on B; separation = n . (pB - pA) (< 0: penetrating)
    uint32_t key = 0;  // feature key, unique inside one manifold
};

// Contact normal points from A to B.
struct Manifold {
    Vec3 normal{0, 1, 0};
    int count = 0;
    ManifoldPoint pts[4];
};

struct Aabb {
    Vec3 lo, hi;
};
Aabb shapeAabb(const Collider& c, const Pose& x, float margin);

// The broad phase's working arrays, kept by the caller across steps: rebuilt every step, they were ~4 MB
// of fresh allocations on the 10,000-box pile, and the pages glibc handed back and took again cost page
// faults every step.
struct BroadPhaseScratch {
    std::vector<float> extent;
    std::vector<int> cellCount, big, pairStart;
    std::vector<std::pair<uint64_t, int>> raw, entries;
    std::vector<uint32_t> bucketCount;
    std::vector<size_t> bucketStart;
    std::vector<std::vector<std::pair<int, int>>> part;
    std::vector<std::pair<int, int>> unsorted;
};

// Pairs (i < j) whose boxes overlap, sorted, without duplicates. Boxes much larger than the grid
// cell (ramps, static slabs) are tested against every other box instead of being rasterized.
void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs,
                BroadPhaseScratch& scratch);
void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs);

// Narrow phase. Returns the number of points with separation <= margin (0 = no contact).
int collide(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb, float margin, Manifold& m);
// Against the ground plane y = height (A = the plane, normal +y).
int collidePlane(float height, const Collider& b, const Pose& xb, float margin, Manifold& m);

// Box-box by SAT and face clipping (box_box.cpp).
int collideBoxBox(const Vec3& ha, const Pose& xa, const Vec3& hb, const Pose& xb, float margin, Manifold& m);
// The same with the rotation matrices toMatrix(xa.q), toMatrix(xb.q) given.
int collideBoxBox(const Vec3& ha, const Pose& xa, const Mat33& Ra, const Vec3& hb, const Pose& xb,
                  const Mat33& Rb, float margin, Manifold& m);

// Keeps the 4 points of a larger set that span the largest area (deepest first), used by the
// face clipper and the plane-box test. sep[i] is each point's separation.
int reduceManifold(ManifoldPoint* pts, const float* sep, int count, const Vec3& normal);

}  // namespace vbd
