#pragma once
// The uniform grid of the rigid broad phase, one source for the CPU's search (rigid/collision.cpp) and the
// device's (gpu/broad_stages.h): a box's cells, a cell's key, and the one cell that reports a pair (the cell
// of the min corner of the two boxes' overlap). Cell size: twice the median box extent (broadGridFor), so a
// typical box touches at most 8 cells.
#include <cmath>
#include <cstdint>

#include "math/hd.h"
#include "math/vec3.h"

namespace vbd {

struct Aabb {
    Vec3 lo, hi;
};

// Closed boxes: touching faces overlap (the broad phase's predicate).
VBD_HD bool boxesOverlap(const Aabb& a, const Aabb& b) {
    return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
           b.lo.z <= a.hi.z;
}

// A box touching more cells than this is "big": tested against every other box instead of rasterized.
constexpr int kMaxBroadCells = 64;

struct BroadGrid {
    float inv = 1;  // 1 / cell size
    // Clamped to +-2^30 before the conversion, which is then defined for any corner: a box of huge or
    // infinite extent spans 2^31 cells, so it is big and meets every other box through the all-pairs test
    // (unclamped, x86 turned both of its ends into INT_MIN: one cell, its pairs lost). A NaN corner is cell
    // 0.
    VBD_HD int cellOf(float v) const {
        const float c = floorf(v * inv);
        if (c >= 1073741824.0f) return 1 << 30;
        if (c <= -1073741824.0f) return -(1 << 30);
        return c == c ? int(c) : 0;
    }
    // 21 bits per axis (cells -2^20 .. 2^20 - 1; beyond, keys alias, which costs only extra overlap tests).
    VBD_HD static uint64_t key(int x, int y, int z) {
        return (uint64_t(uint32_t(x + (1 << 20)) & 0x1FFFFF) << 42) |
               (uint64_t(uint32_t(y + (1 << 20)) & 0x1FFFFF) << 21) |
               uint64_t(uint32_t(z + (1 << 20)) & 0x1FFFFF);
    }
    // The cell holding the min corner of the overlap of a and b: the one cell that reports the pair.
    VBD_HD uint64_t overlapKey(const Aabb& a, const Aabb& b) const {
        // std::max's choice (the first unless it is less), spelled for the device
        return key(cellOf(a.lo.x < b.lo.x ? b.lo.x : a.lo.x), cellOf(a.lo.y < b.lo.y ? b.lo.y : a.lo.y),
                   cellOf(a.lo.z < b.lo.z ? b.lo.z : a.lo.z));
    }
    // The cells a box touches, as [lo, hi] per axis.
    VBD_HD void range(const Aabb& b, int lo[3], int hi[3]) const {
        lo[0] = cellOf(b.lo.x);
        lo[1] = cellOf(b.lo.y);
        lo[2] = cellOf(b.lo.z);
        hi[0] = cellOf(b.hi.x);
        hi[1] = cellOf(b.hi.y);
        hi[2] = cellOf(b.hi.z);
    }
    // How many cells the box touches, or -1 for a big box (more than kMaxBroadCells).
    VBD_HD int cellCount(const Aabb& b) const {
        int lo[3], hi[3];
        range(b, lo, hi);
        // In 64 bits: a huge box spans up to 2^31 + 1 cells per axis.
        auto span = [&](int a) { return double(static_cast<long long>(hi[a]) - lo[a] + 1); };
        const double cells = span(0) * span(1) * span(2);
        return cells > kMaxBroadCells ? -1 : int(cells);
    }
};

}  // namespace vbd
