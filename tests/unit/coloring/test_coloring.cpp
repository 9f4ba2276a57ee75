// Vertex graph coloring: validity, color-count bounds, balancing, determinism, validator messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>

#include "coloring/coloring.h"
#include "mesh/box_grid.h"
#include "mesh/mesh_import.h"

namespace vbd {
namespace {

const std::string kAssets = std::string(VBD_SOURCE_DIR) + "/assets/meshes/";

int maxDegree(const Graph& g) {
    int d = 0;
    for (int v = 0; v < g.rows(); ++v) d = std::max(d, g.end(v) - g.begin(v));
    return d;
}

// Degeneracy by naive peeling (independent of the library's bucket version): the largest minimum
// degree met while repeatedly deleting a vertex of minimum remaining degree.
int degeneracy(const Graph& g) {
    const int n = g.rows();
    std::vector<int> deg(static_cast<size_t>(n));
    std::vector<char> gone(static_cast<size_t>(n), 0);
    for (int v = 0; v < n; ++v) deg[size_t(v)] = g.end(v) - g.begin(v);
    int k = 0;
    for (int it = 0; it < n; ++it) {
        int best = -1;
        for (int v = 0; v < n; ++v)
            if (!gone[size_t(v)] && (best < 0 || deg[size_t(v)] < deg[size_t(best)])) best = v;
        k = std::max(k, deg[size_t(best)]);
        gone[size_t(best)] = 1;
        for (int j = g.begin(best); j < g.end(best); ++j) deg[size_t(g.items[size_t(j)])]--;
    }
    return k;
}

const char* methodName(ColoringMethod m) {
    return m == ColoringMethod::Mcs ? "mcs" : m == ColoringMethod::SmallestLast ? "sl" : "greedy";
}

constexpr ColoringMethod kMethods[] = {ColoringMethod::GreedyDegree, ColoringMethod::Mcs,
                                       ColoringMethod::SmallestLast};

struct MeshCase {
    const char* name;
    TetMesh mesh;
};

std::vector<MeshCase> meshes() {
    return {{"grid6_8x8x8", makeBoxGrid({0, 0, 0}, {1, 1, 1}, {8, 8, 8}, 6)},
            {"grid5_8x8x8", makeBoxGrid({0, 0, 0}, {1, 1, 1}, {8, 8, 8}, 5)},
            {"bar6_16x4x4", makeBoxGrid({0, 1, 0}, {4, 2, 1}, {16, 4, 4}, 6)},
            {"icosphere", loadTetMesh(kAssets + "icosphere.obj")},
            {"torus", loadTetMesh(kAssets + "torus.ply")}};
}

TEST(Coloring, VertexGraphFromTetsMatchesGraphFromElements) {
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {3, 2, 2}, 5);
    const Graph a = vertexGraphFromTets(int(m.X.size()), m.tets);
    const Graph b = graphFromElements(int(m.X.size()), m.tets);
    EXPECT_EQ(a.offsets, b.offsets);
    EXPECT_EQ(a.items, b.items);
    // Symmetric, sorted, no self loops.
    for (int v = 0; v < a.rows(); ++v)
        for (int k = a.begin(v); k < a.end(v); ++k) {
            const int u = a.items[size_t(k)];
            EXPECT_NE(u, v);
            if (k > a.begin(v)) {
                EXPECT_LT(a.items[size_t(k - 1)], u);
            }
            EXPECT_TRUE(std::binary_search(a.items.begin() + a.begin(u), a.items.begin() + a.end(u), v));
        }
}

TEST(Coloring, BothMethodsValidWithinBoundsAndBalanced) {
    for (const auto& mc : meshes()) {
        const Graph g = vertexGraphFromTets(int(mc.mesh.X.size()), mc.mesh.tets);
        const int k = degeneracy(g);
        const bool grid = std::string(mc.name).find("grid") == 0 || std::string(mc.name).find("bar") == 0;
        for (auto method : kMethods) {
            const char* mname = methodName(method);
            SCOPED_TRACE(std::string(mc.name) + " " + mname);
            std::vector<int> color = colorGraph(g, method);
            std::string why;
            ASSERT_TRUE(validateColoring(g, color, &why)) << why;
            const ColoringStats before = coloringStats(color);
            // Every tet is a 4-clique of the vertex graph, so at least 4 colors; greedy coloring in any
            // order never needs more than maxDegree + 1.
            EXPECT_GE(before.numColors, 4);
            EXPECT_LE(before.numColors, maxDegree(g) + 1);
            if (method == ColoringMethod::SmallestLast) {
                EXPECT_LE(before.numColors, k + 1);
            }
            // The VBD paper reports 6-9 vertex colors on tet meshes. Largest-first greedy is the
            // weakest order (measured 8-10 here), so it gets 12; the other two must stay within 8.
            EXPECT_LE(before.numColors, method == ColoringMethod::GreedyDegree ? 12 : 8);
            // On the box grids MCS finds the optimum 4 (measured; optimal by the clique bound).
            if (grid && method == ColoringMethod::Mcs) {
                EXPECT_EQ(before.numColors, 4);
            }
            const double r = balanceColors(g, color, 1.1);
            ASSERT_TRUE(validateColoring(g, color, &why)) << why;
            const ColoringStats after = coloringStats(color);
            EXPECT_EQ(after.numColors, before.numColors);  // balancing never adds a color
            EXPECT_DOUBLE_EQ(r, after.ratio);              // the returned ratio is the real one
            // Reached everywhere but one measured case: smallest-last colors the 6-tet grid (4-colorable)
            // with 5 colors, and every vertex of its largest color touches all four others while the
            // Kempe components are too large to swap; the balancer stops at 1.24 and says so.
            const bool hard = method == ColoringMethod::SmallestLast && std::string(mc.name) == "grid6_8x8x8";
            EXPECT_LE(r, hard ? 1.25 : 1.1);
            EXPECT_LE(r, before.ratio);
            std::printf(
                "[ measured ] %-12s %-6s V=%zu T=%zu maxdeg=%d degeneracy=%d colors=%d ratio %.2f -> %.3f "
                "(sizes %d..%d)\n",
                mc.name, mname, mc.mesh.X.size(), mc.mesh.tets.size(), maxDegree(g), k, before.numColors,
                before.ratio, after.ratio, after.minSize, after.maxSize);
        }
    }
}

TEST(Coloring, KuhnGridIsFourColorableAndFourIsOptimal) {
    // In the 6-tet (Kuhn) grid vertex (i,j,k) is joined to (i,j,k) + d with d a nonzero 0/1 vector
    // or its negative, so i+j+k changes by 1, 2 or 3: (i+j+k) mod 4 is a proper 4-coloring, and the
    // tet cliques make 4 the chromatic number.
    const int n = 5;
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {n, n, n}, 6);
    const Graph g = vertexGraphFromTets(int(m.X.size()), m.tets);
    std::vector<int> color(m.X.size());
    for (int k = 0; k <= n; ++k)
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) color[size_t(i + (n + 1) * (j + (n + 1) * k))] = (i + j + k) % 4;
    std::string why;
    EXPECT_TRUE(validateColoring(g, color, &why)) << why;
    EXPECT_EQ(maxDegree(g), 14);
}

TEST(Coloring, McsIsOptimalOnChordalStackedTets) {
    // Stacking each new vertex onto a face of an earlier tet builds a 3-tree (chordal, clique number
    // 4). Greedy coloring in maximum-cardinality-search order is optimal on chordal graphs (the
    // reverse MCS order is a perfect elimination order), so MCS must use exactly 4 colors.
    std::vector<std::array<int, 4>> tets{{0, 1, 2, 3}};
    unsigned s = 12345;
    for (int v = 4; v < 400; ++v) {
        s = s * 1103515245u + 12345u;
        const auto& t = tets[(s >> 8) % tets.size()];
        const int drop = int((s >> 4) % 4);
        std::array<int, 4> nt{};
        int q = 0;
        for (int k = 0; k < 4; ++k)
            if (k != drop) nt[size_t(q++)] = t[size_t(k)];
        nt[3] = v;
        tets.push_back(nt);
    }
    const Graph g = vertexGraphFromTets(400, tets);
    const auto color = colorGraph(g, ColoringMethod::Mcs);
    EXPECT_TRUE(validateColoring(g, color));
    EXPECT_EQ(coloringStats(color).numColors, 4);
}

TEST(Coloring, DeterministicAndIndependentOfTetOrder) {
    TetMesh m = loadTetMesh(kAssets + "torus.ply");
    const Graph g = vertexGraphFromTets(int(m.X.size()), m.tets);
    for (auto method : kMethods) {
        auto a = colorGraph(g, method), b = colorGraph(g, method);
        EXPECT_EQ(a, b);
        // The graph (hence the coloring) depends only on which vertices share tets.
        auto tets = m.tets;
        std::reverse(tets.begin(), tets.end());
        for (auto& t : tets) std::rotate(t.begin(), t.begin() + 1, t.end());
        auto c = colorGraph(vertexGraphFromTets(int(m.X.size()), tets), method);
        EXPECT_EQ(a, c);
        balanceColors(g, a);
        balanceColors(g, b);
        EXPECT_EQ(a, b);
    }
}

// GreedyDegree is Welsh-Powell: vertices by decreasing degree, ties by index, each given its smallest free
// color. The library orders them by a counting sort on the degree; the reference here by std::stable_sort.
// Random graphs with many equal degrees (the ties decide the order), and the tet mesh.
TEST(Coloring, GreedyDegreeIsWelshPowellInIndexOrderOfTies) {
    auto reference = [](const Graph& g) {
        std::vector<int> order(size_t(g.rows()));
        for (int v = 0; v < g.rows(); ++v) order[size_t(v)] = v;
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return g.end(a) - g.begin(a) > g.end(b) - g.begin(b); });
        std::vector<int> color(size_t(g.rows()), -1);
        for (int v : order) {
            std::vector<char> used(size_t(g.rows()) + 1, 0);
            for (int j = g.begin(v); j < g.end(v); ++j)
                if (color[size_t(g.items[size_t(j)])] >= 0)
                    used[size_t(color[size_t(g.items[size_t(j)])])] = 1;
            int c = 0;
            while (used[size_t(c)]) ++c;
            color[size_t(v)] = c;
        }
        return color;
    };
    unsigned state = 12345;
    auto next = [&state] { return state = state * 1664525u + 1013904223u; };
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 50 + int(next() % 300);
        std::vector<std::array<int, 2>> edges;
        for (int e = 0; e < 2 * n; ++e) {
            const int a = int(next() % unsigned(n)), b = int(next() % unsigned(n));
            if (a != b) edges.push_back({a, b});
        }
        const Graph g = graphFromElements(n, edges);
        EXPECT_EQ(colorGraph(g, ColoringMethod::GreedyDegree), reference(g)) << "trial " << trial;
    }
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {6, 4, 3}, 5);
    const Graph g = vertexGraphFromTets(int(m.X.size()), m.tets);
    EXPECT_EQ(colorGraph(g, ColoringMethod::GreedyDegree), reference(g));
}

TEST(Coloring, BalancingReportsHonestlyWhenTheTargetIsUnreachable) {
    // A star: the centre touches every leaf, so it is alone in its color whatever happens; with two
    // colors the sizes stay 1 and n-1.
    const int leaves = 20;
    std::vector<std::array<int, 2>> edges;
    for (int i = 1; i <= leaves; ++i) edges.push_back({0, i});
    const Graph g = graphFromElements(leaves + 1, edges);
    auto color = colorGraph(g);
    EXPECT_EQ(coloringStats(color).numColors, 2);
    const double r = balanceColors(g, color, 1.1);
    EXPECT_DOUBLE_EQ(r, double(leaves));
    EXPECT_TRUE(validateColoring(g, color));
}

TEST(Coloring, KempeInterchangeBalancesWhereSingleMovesCannot) {
    // Ten disjoint stars K_{1,3}: greedy gives the centres one color (10) and the leaves another (30).
    // No single vertex can change color (each touches the other color), but swapping the two colors
    // inside 5 stars moves 2 vertices each: 20 / 20.
    std::vector<std::array<int, 2>> edges;
    for (int s = 0; s < 10; ++s)
        for (int l = 1; l <= 3; ++l) edges.push_back({4 * s, 4 * s + l});
    const Graph g = graphFromElements(40, edges);
    auto color = colorGraph(g);
    const ColoringStats before = coloringStats(color);
    EXPECT_EQ(before.numColors, 2);
    EXPECT_DOUBLE_EQ(before.ratio, 3.0);
    EXPECT_DOUBLE_EQ(balanceColors(g, color, 1.1), 1.0);
    EXPECT_TRUE(validateColoring(g, color));
}

TEST(Coloring, BalancingDropsEmptyColorsAndKeepsValidity) {
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {4, 4, 4}, 6);
    const Graph g = vertexGraphFromTets(int(m.X.size()), m.tets);
    auto color = colorGraph(g);
    const int nc = coloringStats(color).numColors;
    for (int& c : color) c = c * 2;  // colors 1, 3, ... empty
    const double r = balanceColors(g, color);
    EXPECT_EQ(coloringStats(color).numColors, nc);
    EXPECT_DOUBLE_EQ(r, coloringStats(color).ratio);
    EXPECT_TRUE(validateColoring(g, color));
}

TEST(Coloring, ValidatorNamesAPlantedConflictEdge) {
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {3, 3, 3}, 5);
    const Graph g = vertexGraphFromTets(int(m.X.size()), m.tets);
    auto color = colorGraph(g, ColoringMethod::Mcs);
    ASSERT_TRUE(validateColoring(g, color));
    const int v = 21, u = g.items[size_t(g.begin(v))];  // u < v: rows are sorted, 21 is interior
    color[size_t(v)] = color[size_t(u)];
    std::string why;
    EXPECT_FALSE(validateColoring(g, color, &why));
    EXPECT_NE(
        why.find("edge (" + std::to_string(std::min(u, v)) + ", " + std::to_string(std::max(u, v)) + ")"),
        std::string::npos)
        << why;
    color[size_t(v)] = -1;
    EXPECT_FALSE(validateColoring(g, color, &why));
    EXPECT_NE(why.find("vertex 21 has no color"), std::string::npos) << why;
    color.pop_back();
    EXPECT_FALSE(validateColoring(g, color, &why));
    EXPECT_NE(why.find("entries for"), std::string::npos) << why;
}

TEST(Coloring, GroupsPartitionTheVertices) {
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {3, 2, 2}, 6);
    const Graph g = vertexGraphFromTets(int(m.X.size()), m.tets);
    const auto color = colorGraph(g, ColoringMethod::Mcs);
    const auto groups = colorGroups(color);
    size_t total = 0;
    for (size_t c = 0; c < groups.size(); ++c) {
        EXPECT_TRUE(std::is_sorted(groups[c].begin(), groups[c].end()));
        for (int v : groups[c]) EXPECT_EQ(color[size_t(v)], int(c));
        total += groups[c].size();
    }
    EXPECT_EQ(total, m.X.size());
}

}  // namespace
}  // namespace vbd
