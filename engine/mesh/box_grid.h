#pragma once
#include <array>

#include "mesh/tet_mesh.h"

namespace vbd {

// Axis-aligned box [min, max] split into cells[0] x cells[1] x cells[2] cubes, each cut into 6 tets
// (Kuhn/Freudenthal: one tet per axis permutation, conforming across cells with no parity rule) or 5
// (one central tet and four corners, alternating with cell parity so faces match).
// Vertex (i, j, k) has index i + (cells[0]+1) * (j + (cells[1]+1) * k).
TetMesh makeBoxGrid(const Vec3& min, const Vec3& max, const std::array<int, 3>& cells, int tetsPerCell = 6);

}  // namespace vbd
