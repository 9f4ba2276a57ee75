#pragma once
// The lane-major incidence blocks of the SIMD vertex path (soft_model.h: TetBlock, TriBlock, HingeBlock),
// built from one vertex -> incidence list: per vertex ceil(count / kLanes) blocks, vertices in sweep order
// (color after color) so that a color's pass streams its blocks, padding lanes filled by fill(..., -1).
// Shared by tet_blocks.cpp and cloth_blocks.cpp; the lane contents are each element kind's own.
#include <vector>

#include "soft/soft_model.h"

namespace vbd {

// fill(m, block, lane, vertex, item): lane `lane` of `block` holds incidence `item` of `vertex` (< 0: pad).
template <typename Block, typename Fill>
void buildLaneBlocks(const SoftModel& m, const Csr& adj, std::vector<Block>& blocks, std::vector<int>& first,
                     std::vector<int>& count, Fill fill) {
    constexpr int L = Block::kLanes;
    const int n = m.numVertices();
    first.assign(size_t(n), -1);
    count.assign(size_t(n), 0);
    blocks.clear();
    if (adj.offsets.size() != size_t(n) + 1) return;
    size_t total = 0;
    for (const auto& group : m.colorGroups)
        for (int i : group) total += size_t((adj.end(i) - adj.begin(i) + L - 1) / L);
    blocks.resize(total);
    int next = 0;
    for (const auto& group : m.colorGroups) {
        for (int i : group) {
            const int begin = adj.begin(i), cnt = adj.end(i) - begin;
            if (cnt == 0) continue;
            first[size_t(i)] = next;
            count[size_t(i)] = cnt;
            for (int k = 0; k < cnt; k += L) {
                Block& b = blocks[size_t(next++)];
                for (int l = 0; l < L; ++l) {
                    const int item = begin + k + l;  // index into adj.items (int, like its offsets)
                    fill(m, b, l, i, k + l < cnt ? adj.items[size_t(item)] : -1);
                }
            }
        }
    }
}

}  // namespace vbd
