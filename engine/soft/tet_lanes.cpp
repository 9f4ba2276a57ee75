// TetLanes::build: the coloring of the tets and their lane blocks (tet_lanes.h describes the layout).
#include "soft/tet_lanes.h"

#include <algorithm>

namespace vbd {

namespace {

constexpr int kL = TetLaneBlock::kLanes;

// Lane l of b is tet e (e < 0: padding); `gathered` per vertex.
void fillLane(const SoftModel& m, TetLaneBlock& b, int l, int e, const std::vector<char>& gathered) {
    for (int a = 0; a < 4; ++a) {
        const int v = e >= 0 ? m.tets[size_t(e)][size_t(a)] : 0;
        b.x3[a][l] = 3 * v;
        if (l == 0) b.gathered[a] = 0;
        if (e >= 0 && gathered[size_t(v)]) b.gathered[a] = uint8_t(b.gathered[a] | (1u << l));
    }
    for (int k = 0; k < 9; ++k) b.Dinv[k][l] = e >= 0 ? m.DmInv[size_t(e)](k / 3, k % 3) : 0.f;
    b.V[l] = e >= 0 ? m.volume[size_t(e)] : 0.f;
    b.mu[l] = e >= 0 ? m.mu[size_t(e)] : 1.f;
    b.lambda[l] = e >= 0 ? m.lambda[size_t(e)] : 1.f;
    b.kd[l] = e >= 0 ? m.kd[size_t(e)] : 0.f;
}

// Greedy coloring in the order of elems: each tet takes the first color none of its vertices has.
std::vector<std::vector<int>> colorTets(const SoftModel& m, const std::vector<int>& elems) {
    std::vector<std::vector<int>> colors;
    std::vector<std::vector<char>> used;  // per color, per vertex
    for (int e : elems) {
        size_t c = 0;
        auto taken = [&](size_t k) {
            for (int v : m.tets[size_t(e)])
                if (used[k][size_t(v)]) return true;
            return false;
        };
        while (c < colors.size() && taken(c)) ++c;
        if (c == colors.size()) {
            colors.emplace_back();
            used.emplace_back(size_t(m.numVertices()), 0);
        }
        colors[c].push_back(e);
        for (int v : m.tets[size_t(e)]) used[c][size_t(v)] = 1;
    }
    return colors;
}

}  // namespace

void TetLanes::build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& gathered) {
    tets = int(elems.size());
    std::vector<char> isGathered(size_t(m.numVertices()), 0);
    for (int v : gathered) isGathered[size_t(v)] = !m.fixed[size_t(v)];
    blocks.clear();
    c9.clear();
    colorStart.assign(1, 0);
    damped = false;
    for (const std::vector<int>& color : colorTets(m, elems)) {
        const size_t first = blocks.size();
        blocks.resize(first + (color.size() + kL - 1) / kL);
        for (size_t p = 0; p < (blocks.size() - first) * kL; ++p) {
            const int e = p < color.size() ? color[p] : -1;
            fillLane(m, blocks[first + p / kL], int(p % kL), e, isGathered);
            c9.push_back(9 * std::max(e, 0));
            damped = damped || (e >= 0 && m.kd[size_t(e)] > 0.f);
        }
        colorStart.push_back(blocks.size());
    }
}

}  // namespace vbd
