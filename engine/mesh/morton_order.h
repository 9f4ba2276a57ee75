#pragma once
// Orders points along a Morton (Z-order) curve: sorted by the key, points that are close in the list are
// close in space, so a contiguous share of the list is a compact piece of the model.
//
// Used for the sweep order inside a color: a color's vertices are independent, so their order changes no
// result, but the thread team (backend/thread_team.h) gives each thread a contiguous share of every loop.
// With the grid numbering of a box (x fastest, z slowest) the two halves of a 4 x 31 x 4-vertex bar are
// its two z-slabs, and every vertex has a neighbour in the other thread's half; in Morton order they are
// the two ends of the bar and only the cross-section between them is shared.
#include <cstdint>
#include <vector>

#include "math/vec3.h"

namespace vbd {

// Key of p in the cube of side `size` at `lo`, 21 bits per axis, interleaved x, y, z from the low bit.
// One scale for all three axes: a long thin body keeps its aspect, so the key's top bits split it
// along its length first.
uint64_t mortonKey(const Vec3& p, const Vec3& lo, float size);

// Sorts `items` (indices into points) by the Morton key of their point in the bounding cube of those
// points; equal keys keep ascending index order, so the result is a function of the input alone.
void sortMorton(std::vector<int>& items, const std::vector<Vec3>& points);

}  // namespace vbd
