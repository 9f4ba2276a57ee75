// SoftModel::tetBlocks from the per-tet arrays (soft_model.h describes the layout).
#include <cmath>

#include "soft/lane_blocks.h"
#include "soft/soft_model.h"

namespace vbd {

namespace {

// Lane l of block b holds incidence item (4 * tet + a) of vertex i; item < 0 pads the lane.
void fillLane(const SoftModel& m, TetBlock& b, int l, int i, int item) {
    if (item < 0) {
        for (int k = 0; k < 4; ++k) b.x3[k][l] = 3 * i;
        b.item[l] = 0;  // tet 0, a = 0: a valid C_prev address; volume 0 makes the term zero
        for (int k = 0; k < 9; ++k) b.DmInv[k][l] = 0.f;
        b.volume[l] = 0.f;
        b.mu[l] = 1.f;
        b.lambda[l] = 1.f;
        b.kd[l] = 0.f;
        return;
    }
    const size_t e = size_t(item >> 2);
    for (int k = 0; k < 4; ++k) b.x3[k][l] = 3 * m.tets[e][size_t(k)];
    b.item[l] = item;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) b.DmInv[3 * r + c][l] = m.DmInv[e](r, c);
    b.volume[l] = m.volume[e];
    b.mu[l] = m.mu[e];
    b.lambda[l] = m.lambda[e];
    b.kd[l] = m.kd[e];
}

}  // namespace

void buildTetBlocks(SoftModel& m) {
    TetBlocks& tb = m.tetBlocks;
    tb = TetBlocks{};
    for (float kd : m.kd) tb.damped = tb.damped || kd > 0.f;
    buildLaneBlocks(m, m.vertexTets, tb.blocks, tb.first, tb.count, fillLane);
}

}  // namespace vbd
