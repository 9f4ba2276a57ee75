#pragma once
// The boxes of many particle ranges in a fixed number of launches (SoftStepper::setFrameBounds): a tree of
// min / max per range, built on the host once per set of ranges. Level 0 boxes chunks of at most fanIn
// consecutive particles of one range; each level above boxes groups of at most fanIn boxes of one range from
// the level below, until every range has one box. A range's chunks, and its boxes at every level, are
// consecutive, so each item reads a span [begin, end) and writes one box, and the items of one level read
// only boxes of the levels below: one launch per level with no dependence inside it.
//
// Why: one two-pass reduction per range is two launches each; a scene of 100 soft bodies would issue 200 a
// step (so the World bounded at most 64 ranges on the device and fetched the state for more). The tree
// issues ceil(log_fanIn(longest range)) + 1 launches for any number of ranges: 4 + 1 for the paper's 149k
// particles in one range with fanIn 32, where the reduction took 2. min and max do not depend on the order,
// so the boxes equal the host's loop over the published positions bit for bit.
#include <array>
#include <vector>

namespace vbd {

struct BoundsItem {
    int begin = 0, end = 0;  // particles (level 0) or boxes (levels above) [begin, end)
    int out = 0;             // the box written
};

struct BoundsPlan {
    std::vector<BoundsItem> items;  // level by level
    std::vector<int> levelStart;    // level l's items: [levelStart[l], levelStart[l + 1])
    std::vector<int> rangeBox;      // per range: its box, -1 for an empty range
    int numBoxes = 0;
    int levels() const { return int(levelStart.size()) - 1; }
};

// ranges: [begin, end) of particles, any number, may overlap or be empty (begin <= end, not checked here);
// fanIn >= 2.
BoundsPlan planRangeBounds(const std::vector<std::array<int, 2>>& ranges, int fanIn);

}  // namespace vbd
