#pragma once
// Collision detection for the AVBD rigid solver: a uniform-grid broad phase (O(n) for bodies of similar size)
// and the bounding boxes it sorts. The narrow phase (manifolds of plane / box / sphere / capsule pairs, each
// point with a feature key that names the features it came from, so that contacts persist across frames and
// warm start) is rigid/narrow_phase.h, one source for the CPU and the device.
#include <cstdint>
#include <utility>
#include <vector>

#include "rigid/broad_grid.h"
#include "rigid/narrow_phase.h"
#include "rigid/rigid_body.h"

namespace vbd {

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

// The grid for these boxes: cells of twice the median extent (ext: working array).
BroadGrid broadGridFor(const std::vector<Aabb>& boxes, std::vector<float>& ext);

// Pairs (i < j) whose boxes overlap, sorted, without duplicates. Boxes much larger than the grid
// cell (ramps, static slabs) are tested against every other box instead of being rasterized.
void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs,
                BroadPhaseScratch& scratch);
void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs);

}  // namespace vbd
