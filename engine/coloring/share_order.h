#pragma once
// The order of the vertices inside each color, as the thread team (backend/thread_team.h) sees it: it
// gives thread p the p-th contiguous share of every color's list. The vertices of one color are
// independent, so the order changes no result, only which vertices' neighbours a thread reads from the
// other core's cache.
#include <vector>

#include "coloring/coloring.h"
#include "math/vec3.h"

namespace vbd {

// Fraction of the listed vertices that have a neighbour in the other half when every group is split
// into two halves at its middle (two threads' shares; a vertex's half is that of its own group).
double halfCutFraction(const Graph& g, const std::vector<std::vector<int>>& groups);

// Keeps each group in ascending index order, which streams the vertex arrays, unless a third or more of
// the vertices would then border the other thread's half; then orders the groups along a Morton curve of
// x (mesh/morton_order.h) if that cuts fewer. Measured (docs/peers.md, fifth session): the 3 x 30 x 3
// hanging bar, numbered x fastest and z slowest, splits into its two z-slabs (50 % cut) and gained
// 1.35x -> 1.61x on two threads from the Morton order; the beams and the cloth (3-18 % cut) lost 6-10 %
// per sweep with it, the traversal no longer following the arrays.
void orderGroupsForShares(const Graph& g, const std::vector<Vec3>& x, std::vector<std::vector<int>>& groups);

}  // namespace vbd
