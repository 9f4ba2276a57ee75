#pragma once
// Vertex graph coloring for the parallel Gauss-Seidel sweep: vertices of one color share no element,
// so their local solves are independent.
#include <string>
#include <vector>

#include "mesh/tet_mesh.h"

namespace vbd {

// Undirected graph in CSR form, no self loops, each row sorted ascending.
using Graph = Csr;

// Graph whose edges join every pair of vertices sharing an element (elements of any size).
Graph graphFromElements(int numVertices, const std::vector<std::vector<int>>& elements);
template <size_t K>
Graph graphFromElements(int numVertices, const std::vector<std::array<int, K>>& elements) {
    std::vector<std::vector<int>> e;
    e.reserve(elements.size());
    for (const auto& a : elements) e.emplace_back(a.begin(), a.end());
    return graphFromElements(numVertices, e);
}

// The vertex graph of a tet mesh: every tet contributes its 6 edges. Same result as graphFromElements
// on the tets, without the per-vertex temporary lists.
Graph vertexGraphFromTets(int numVertices, const std::vector<std::array<int, 4>>& tets);

// All three color vertices greedily (smallest color not used by a colored neighbour); they differ in
// the order. GreedyDegree: largest degree first (Welsh-Powell). Mcs: maximum cardinality search
// order, optimal on chordal graphs. SmallestLast: reverse degeneracy order, at most degeneracy + 1
// colors.
enum class ColoringMethod { GreedyDegree, Mcs, SmallestLast };

// Returns color[v] in [0, numColors). Deterministic.
std::vector<int> colorGraph(const Graph& g, ColoringMethod method = ColoringMethod::GreedyDegree);

// Moves vertices from large to small colors (keeping validity, never adding a color) until
// max/min color size <= ratio or no move helps. Returns the ratio reached, which may stay above the
// target: a graph whose vertices are all constrained (e.g. a single tet, four colors of one vertex
// each, is already balanced; a star is not balanceable) reports what it got. Deterministic.
double balanceColors(const Graph& g, std::vector<int>& color, double ratio = 1.1);

// True if every vertex has a color and no edge joins two vertices of the same color; otherwise why
// names the offending vertex or edge.
bool validateColoring(const Graph& g, const std::vector<int>& color, std::string* why = nullptr);

struct ColoringStats {
    int numColors = 0;
    int minSize = 0, maxSize = 0;  // vertices in the smallest / largest color
    double ratio = 1;              // maxSize / minSize (1 when there are no colors)
};
ColoringStats coloringStats(const std::vector<int>& color);

// Vertices grouped by color, ascending inside each group.
std::vector<std::vector<int>> colorGroups(const std::vector<int>& color);

}  // namespace vbd
