#pragma once
// Tetrahedral and triangle meshes, rest-shape data and vertex -> element adjacency.
#include <array>
#include <string>
#include <vector>

#include "math/mat33.h"

namespace vbd {

struct TetMesh {
    std::vector<Vec3> X;                   // rest positions
    std::vector<std::array<int, 4>> tets;  // positively oriented: det(Dm) > 0
};

struct TriMesh {
    std::vector<Vec3> X;
    std::vector<std::array<int, 3>> tris;  // counter-clockwise seen from outside
};

// Compressed sparse rows: items of row i are items[offsets[i] .. offsets[i+1]).
struct Csr {
    std::vector<int> offsets{0};
    std::vector<int> items;
    int rows() const { return static_cast<int>(offsets.size()) - 1; }
    int begin(int i) const { return offsets[i]; }
    int end(int i) const { return offsets[i + 1]; }
};

// Rest data of one tet: Dm^{-1} with Dm = [X1-X0, X2-X0, X3-X0], and rest volume det(Dm)/6.
struct TetRest {
    Mat33 DmInv;
    float volume = 0;
};

// Vertex -> incident tets, each item encoded as 4*tet + local vertex index (0..3).
Csr vertexTetAdjacency(int numVertices, const std::vector<std::array<int, 4>>& tets);

// Rest data for every tet. Throws InputError(file, "tets[i]", ...) for a degenerate or inverted tet
// (|det Dm| below relTol times the cube of the mean edge length).
std::vector<TetRest> computeTetRest(const TetMesh& mesh, const std::string& file = "", double relTol = 1e-9);

}  // namespace vbd
