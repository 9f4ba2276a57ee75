#pragma once
#include <array>

#include "mesh/tet_mesh.h"

namespace vbd {

// Axis-aligned box [min, max] split into cells[0] x cells[1] x cells[2] cubes, each cut into 5 tets (one
// central tet and four corners, alternating with cell parity so faces match: no preferred diagonal) or 6
// (Kuhn/Freudenthal: one tet per axis permutation, conforming across cells with no parity rule, every cell
// cut along the same (1,1,1) diagonal).
// Vertex (i, j, k) has index i + (cells[0]+1) * (j + (cells[1]+1) * k).
TetMesh makeBoxGrid(const Vec3& min, const Vec3& max, const std::array<int, 3>& cells, int tetsPerCell = 5);

}  // namespace vbd
