#include "gpu/render_vertices.h"

#include <stdexcept>
#include <string>

#include "gpu/host_exec.h"

namespace vbd {

SurfaceAdjacency buildSurfaceAdjacency(int numVertices, const std::vector<std::array<int, 3>>& tris) {
    SurfaceAdjacency a;
    a.tris = tris;
    a.offsets.assign(size_t(numVertices) + 1, 0);
    for (const auto& t : tris)
        for (int v : t) {
            if (v < 0 || v >= numVertices)
                throw std::invalid_argument("surface triangle vertex " + std::to_string(v) + " outside [0, " +
                                            std::to_string(numVertices) + ")");
            ++a.offsets[size_t(v) + 1];
        }
    for (size_t i = 0; i < size_t(numVertices); ++i) a.offsets[i + 1] += a.offsets[i];
    // Counting sort by vertex, triangles visited in draw order: each vertex's range lists its triangles in
    // draw order (a vertex appears at most once per triangle of a valid mesh; a repeated one is listed twice,
    // as the scatter adds twice).
    a.incident.assign(size_t(a.offsets.back()), 0);
    std::vector<int> next(a.offsets.begin(), a.offsets.end() - 1);
    for (size_t t = 0; t < tris.size(); ++t)
        for (int v : tris[t]) a.incident[size_t(next[size_t(v)]++)] = int(t);
    return a;
}

void fillVertexRecords(const Vec3* x, int n, const SurfaceAdjacency& adj, const float* scalar, int numScalars,
                       const VertexLayout& layout, float* out) {
    if (size_t(n) + 1 > adj.offsets.size())
        throw std::invalid_argument("fillVertexRecords: more vertices than the adjacency was built for");
    VertexRecordStage stage;
    stage.x = x;
    stage.adj = {adj.offsets.data(), adj.incident.data(), adj.tris.data()};
    stage.scalar = scalar;
    stage.numScalars = numScalars;
    stage.out = out;
    stage.layout = layout;
    HostExec().forEach(n, stage);
}

}  // namespace vbd
