#include "mesh/tet_mesh.h"

#include <cmath>

#include "math/error.h"

namespace vbd {

Csr vertexTetAdjacency(int numVertices, const std::vector<std::array<int, 4>>& tets) {
    Csr a;
    a.offsets.assign(size_t(numVertices) + 1, 0);
    for (const auto& t : tets)
        for (int v : t) a.offsets[size_t(v) + 1]++;
    for (int i = 0; i < numVertices; ++i) a.offsets[size_t(i) + 1] += a.offsets[size_t(i)];
    a.items.resize(size_t(a.offsets.back()));
    std::vector<int> fill(a.offsets.begin(), a.offsets.end() - 1);
    // Ascending tet order inside each row: deterministic accumulation order for every vertex.
    for (size_t e = 0; e < tets.size(); ++e)
        for (int l = 0; l < 4; ++l) a.items[size_t(fill[size_t(tets[e][l])]++)] = int(4 * e) + l;
    return a;
}

std::vector<TetRest> computeTetRest(const TetMesh& mesh, const std::string& file, double relTol) {
    std::vector<TetRest> rest(mesh.tets.size());
    const int n = int(mesh.X.size());
    for (size_t e = 0; e < mesh.tets.size(); ++e) {
        const auto& t = mesh.tets[e];
        for (int v : t)
            if (v < 0 || v >= n)
                throw InputError(
                    file, "tets[" + std::to_string(e) + "]",
                    "vertex index " + std::to_string(v) + " out of range [0, " + std::to_string(n) + ")");
        Mat33d Dm = Mat33d::fromCols(Vec3d(mesh.X[t[1]] - mesh.X[t[0]]), Vec3d(mesh.X[t[2]] - mesh.X[t[0]]),
                                     Vec3d(mesh.X[t[3]] - mesh.X[t[0]]));
        double edge = (norm(Dm.col(0)) + norm(Dm.col(1)) + norm(Dm.col(2))) / 3.0;
        double det = Dm.det();
        if (!(std::fabs(det) > relTol * edge * edge * edge) || !std::isfinite(det))
            throw InputError(file, "tets[" + std::to_string(e) + "]",
                             "degenerate rest tetrahedron (volume " + std::to_string(det / 6.0) + ")");
        if (det < 0)
            throw InputError(file, "tets[" + std::to_string(e) + "]",
                             "inverted rest tetrahedron (negative volume); reorder its vertices");
        rest[e].DmInv = Mat33(inverse(Dm));
        rest[e].volume = float(det / 6.0);
    }
    return rest;
}

}  // namespace vbd
