#include "coloring/share_order.h"

#include <algorithm>

#include "mesh/morton_order.h"

namespace vbd {

double halfCutFraction(const Graph& g, const std::vector<std::vector<int>>& groups) {
    const int n = int(g.offsets.empty() ? 0 : g.offsets.size() - 1);
    std::vector<signed char> half(size_t(n), -1);
    size_t listed = 0;
    for (const auto& group : groups) {
        for (size_t k = 0; k < group.size(); ++k) half[size_t(group[k])] = k < group.size() / 2 ? 0 : 1;
        listed += group.size();
    }
    if (listed == 0) return 0;
    size_t cut = 0;
    for (int v = 0; v < n; ++v) {
        if (half[size_t(v)] < 0) continue;
        for (int e = g.begin(v); e < g.end(v); ++e) {
            const signed char h = half[size_t(g.items[size_t(e)])];
            if (h >= 0 && h != half[size_t(v)]) {
                ++cut;
                break;
            }
        }
    }
    return double(cut) / double(listed);
}

void orderGroupsForShares(const Graph& g, const std::vector<Vec3>& x, std::vector<std::vector<int>>& groups) {
    for (auto& group : groups) std::sort(group.begin(), group.end());
    const double ascending = halfCutFraction(g, groups);
    if (ascending < 1.0 / 3.0) return;
    std::vector<std::vector<int>> morton = groups;
    for (auto& group : morton) sortMorton(group, x);
    if (halfCutFraction(g, morton) < ascending) groups.swap(morton);
}

}  // namespace vbd
