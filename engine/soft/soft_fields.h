#pragma once
// Per-vertex fields of the published state for the heat maps and metrics, and the inspected vertex's local
// system. Read-only functions of the model: they never touch the solver's iterate.
#include <vector>

#include "soft/soft_model.h"

namespace vbd {

// Mean det F of the tets incident to each vertex (1 where there are none).
void volumeRatioField(const SoftModel& m, std::vector<float>& out);
// Min det F over all tets (1 where there are none): the metrics' min_volume_ratio.
double minVolumeRatio(const SoftModel& m);

// Block diagonal dominance of the elastic + inertia Hessian row of each vertex (soft/vertex_block.h):
//   r_i = ||D_i|| / max_j ||H_ij||   (Frobenius norms, H_ij summed over shared tets; sumRatio: / sum_j).
// Low values mean one neighbour's coupling rivals the vertex's own block: the seed's interface quantity.
void diagonalDominanceField(const SoftModel& m, float h, std::vector<float>& out,
                            std::vector<float>* sumRatio = nullptr);

// The inspected vertex: its 3x3 block D_i (inertia + elastic, the matrix of its local solve at rest of
// damping and contact) and the two dominance ratios of diagonalDominanceField.
void vertexBlockInfo(const SoftModel& m, float h, int vertex, Mat33& block, float& maxRatio, float& sumRatio);

}  // namespace vbd
