// The order inside each color (coloring/share_order.h, mesh/morton_order.h): a permutation of the color,
// ascending where the index halves are compact, Morton where the numbering would split a thin bar along
// its thin axis.
#include <gtest/gtest.h>

#include <algorithm>

#include "coloring/share_order.h"
#include "mesh/box_grid.h"
#include "mesh/morton_order.h"

using namespace vbd;

namespace {

struct Grid {
    TetMesh mesh;
    Graph g;
    std::vector<std::vector<int>> groups;
};

Grid grid(const Vec3& max, std::array<int, 3> cells) {
    Grid r;
    r.mesh = makeBoxGrid(Vec3(0, 0, 0), max, cells);
    r.g = vertexGraphFromTets(int(r.mesh.X.size()), r.mesh.tets);
    r.groups = colorGroups(colorGraph(r.g, ColoringMethod::Mcs));
    return r;
}

}  // namespace

TEST(MortonOrder, KeysFollowTheLongAxisFirst) {
    // Points on a 1 m x 0.1 m bar along y: the first half in Morton order is the lower half of the bar.
    std::vector<Vec3> p;
    for (int j = 0; j < 40; ++j)
        for (int i = 0; i < 4; ++i) p.emplace_back(0.03f * float(i), 0.025f * float(j), 0.f);
    std::vector<int> items(p.size());
    for (size_t k = 0; k < items.size(); ++k) items[k] = int(k);
    std::reverse(items.begin(), items.end());
    sortMorton(items, p);
    float lowHalfMax = 0, highHalfMin = 1e9f;
    for (size_t k = 0; k < items.size(); ++k) {
        const float y = p[size_t(items[k])].y;
        if (k < items.size() / 2)
            lowHalfMax = std::max(lowHalfMax, y);
        else
            highHalfMin = std::min(highHalfMin, y);
    }
    EXPECT_LT(lowHalfMax, highHalfMin);
}

TEST(ShareOrder, ThinBarNumberedAcrossItsLengthGoesMorton) {
    // The hanging bar's grid: 3 x 30 x 3 cells along y, numbered x fastest and z slowest, so the index
    // halves of each color are the two z-slabs of two vertex planes each: the two middle planes of four
    // border the other half, half of the vertices.
    Grid b = grid(Vec3(0.1f, 1.f, 0.1f), {3, 30, 3});
    const double ascending = halfCutFraction(b.g, b.groups);
    EXPECT_NEAR(ascending, 0.5, 0.02);
    std::vector<std::vector<int>> ordered = b.groups;
    orderGroupsForShares(b.g, b.mesh.X, ordered);
    // Cut across the length: the vertices within one cell layer of the middle, 2 of 31 layers (~6.5 %),
    // plus the layer where two colors' middles differ.
    EXPECT_LT(halfCutFraction(b.g, ordered), 0.15);
    for (size_t c = 0; c < ordered.size(); ++c) {
        std::vector<int> a = ordered[c], s = b.groups[c];
        std::sort(a.begin(), a.end());
        EXPECT_EQ(a, s) << "color " << c << " is not a permutation of itself";
    }
}

TEST(ShareOrder, CompactIndexHalvesStayAscending) {
    // A cube: the index halves are two slabs of 9 x 9 x 4.5 vertices, about a fifth of the vertices on
    // the shared face: kept ascending.
    Grid c = grid(Vec3(1, 1, 1), {8, 8, 8});
    EXPECT_LT(halfCutFraction(c.g, c.groups), 1.0 / 3.0);
    std::vector<std::vector<int>> ordered = c.groups;
    orderGroupsForShares(c.g, c.mesh.X, ordered);
    EXPECT_EQ(ordered, c.groups);
}
