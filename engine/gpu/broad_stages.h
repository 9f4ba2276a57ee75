#pragma once
// The device broad phase's stages (gpu/broad_pipeline.h): the CPU's grid search (rigid/collision.cpp) as
// per-index functors over the executor's arrays, on the grid of rigid/broad_grid.h. The result is the CPU's
// list (every pair of overlapping boxes, sorted, unique), so the solver's steps do not change.
//
// CPU                                    device
// cell counts, prefix sum                BroadCountStage, exclusiveScan
// (cell key, box) entries                BroadEntriesStage
// counting sort by a hash of the key     radix sort by the key (sortByKey: stable, so a cell's boxes ascend)
// pairs of a bucket's entries that share BroadRunPairsStage: each entry with the later entries of its cell,
//   a key, reported by the cell of the     by the same rule (counted, scanned, written)
//   overlap's min corner
// big boxes against all others           BroadBigPairsStage over (big box, box)
// sort, unique                           sortKeys on (a << 32 | b), BroadUniqueFlagStage, scan,
//                                          BroadCompactStage
#include <cstdint>

#include "math/hd.h"
#include "rigid/broad_grid.h"

namespace vbd {

VBD_HD uint64_t broadPairKey(int a, int b) {
    const int lo = a < b ? a : b, hi = a < b ? b : a;
    return (uint64_t(uint32_t(lo)) << 32) | uint64_t(uint32_t(hi));
}

// Per box i < n: its cell count (0 for a big box) and whether it is big; index n writes the zeros the scans'
// totals need.
struct BroadCountStage {
    const Aabb* boxes;
    BroadGrid grid;
    int n;
    int* cells;  // n + 1
    int* big;    // n + 1
    VBD_HD void operator()(int i) const {
        if (i == n) {
            cells[n] = 0;
            big[n] = 0;
            return;
        }
        const int c = grid.cellCount(boxes[i]);
        cells[i] = c < 0 ? 0 : c;
        big[i] = c < 0 ? 1 : 0;
    }
};

// Per box: its (cell key, box) entries from its offset, in the CPU's x, y, z order; a big box's index into
// the list of big boxes.
struct BroadEntriesStage {
    const Aabb* boxes;
    BroadGrid grid;
    const int* cellStart;  // exclusive scan of the cell counts
    const int* big;
    const int* bigStart;  // exclusive scan of big
    uint64_t* keys;
    int* boxOf;
    int* bigList;
    VBD_HD void operator()(int i) const {
        if (big[i]) {
            bigList[bigStart[i]] = i;
            return;
        }
        int lo[3], hi[3];
        grid.range(boxes[i], lo, hi);
        int out = cellStart[i];
        for (int x = lo[0]; x <= hi[0]; ++x)
            for (int y = lo[1]; y <= hi[1]; ++y)
                for (int z = lo[2]; z <= hi[2]; ++z) {
                    keys[out] = BroadGrid::key(x, y, z);
                    boxOf[out] = i;
                    ++out;
                }
    }
};

// Per sorted entry u < m: the pairs it reports with the later entries of its cell, the CPU's pairsInBucket
// rule (the boxes overlap and the cell holds the min corner of their overlap). Counting (out null: count[u])
// or writing (out[start[u] ...]). Index m writes count[m] = 0.
struct BroadRunPairsStage {
    const uint64_t* keys;  // sorted
    const int* boxOf;
    int m;
    const Aabb* boxes;
    BroadGrid grid;
    int* count;        // m + 1 (counting)
    const int* start;  // exclusive scan of count (writing)
    uint64_t* out;     // null: count
    VBD_HD void operator()(int u) const {
        if (u == m) {
            if (!out) count[m] = 0;
            return;
        }
        const uint64_t k = keys[u];
        const int i = boxOf[u];
        int c = 0;
        for (int v = u + 1; v < m && keys[v] == k; ++v) {
            const int j = boxOf[v];
            const Aabb &a = boxes[i], &b = boxes[j];
            if (!boxesOverlap(a, b) || grid.overlapKey(a, b) != k) continue;
            if (out) out[start[u] + c] = broadPairKey(i, j);
            ++c;
        }
        if (!out) count[u] = c;
    }
};

// Per (big box q, box j), index q * n + j: the CPU's pairsWithBig rule (two big boxes once, from the smaller
// index). Counting (flag[idx]) or writing (out[start[idx]]); index nbig * n writes flag = 0.
struct BroadBigPairsStage {
    const int* bigList;
    const int* big;  // per box
    int nbig, n;
    const Aabb* boxes;
    int* flag;
    const int* start;
    uint64_t* out;
    VBD_HD void operator()(int idx) const {
        if (idx == nbig * n) {
            if (!out) flag[idx] = 0;
            return;
        }
        const int i = bigList[idx / n], j = idx % n;
        const bool hit = i != j && !(big[j] && j < i) && boxesOverlap(boxes[i], boxes[j]);
        if (!out)
            flag[idx] = hit ? 1 : 0;
        else if (hit)
            out[start[idx]] = broadPairKey(i, j);
    }
};

// Per sorted pair key k < m: 1 where it differs from the one before (the first of its run); index m: 0.
struct BroadUniqueFlagStage {
    const uint64_t* keys;
    int m;
    int* flag;
    VBD_HD void operator()(int k) const { flag[k] = k < m && (k == 0 || keys[k] != keys[k - 1]) ? 1 : 0; }
};

struct BroadCompactStage {
    const uint64_t* keys;
    const int* flag;
    const int* at;
    uint64_t* out;
    VBD_HD void operator()(int k) const {
        if (flag[k]) out[at[k]] = keys[k];
    }
};

}  // namespace vbd
