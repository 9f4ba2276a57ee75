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

enum class ColoringMethod { GreedyDegree, Mcs };

// Returns color[v] in [0, numColors). Deterministic.
std::vector<int> colorGraph(const Graph& g, ColoringMethod method = ColoringMethod::GreedyDegree);

// Moves vertices from large to small colors (keeping validity) until max/min color size <= ratio or
// no move helps. Returns the final ratio.
double balanceColors(const Graph& g, std::vector<int>& color, double ratio = 1.1);

// True if no edge joins two vertices of the same color; otherwise why names the offending edge.
bool validateColoring(const Graph& g, const std::vector<int>& color, std::string* why = nullptr);

// Vertices grouped by color, ascending inside each group.
std::vector<std::vector<int>> colorGroups(const std::vector<int>& color);

}  // namespace vbd
