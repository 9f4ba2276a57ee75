// SoftModel::clothBlocks from the triangle and hinge arrays (soft_model.h describes the layout).
#include "soft/lane_blocks.h"
#include "soft/soft_model.h"

namespace vbd {

namespace {

// Lane l of tri block b holds incidence item (4 * tri + a) of vertex i; item < 0 pads the lane.
void fillTriLane(const SoftModel& m, TriBlock& b, int l, int i, int item) {
    if (item < 0) {
        for (int k = 0; k < 3; ++k) b.x3[k][l] = 3 * i;
        b.item[l] = 0;  // tri 0, a = 0: a valid C_prev address; volume 0 makes the term zero
        for (int k = 0; k < 4; ++k) b.d[k][l] = 0.f;
        b.volume[l] = 0.f;
        b.mu[l] = 1.f;
        b.lambda[l] = 1.f;
        b.kd[l] = 0.f;
        return;
    }
    const size_t e = size_t(item >> 2);
    for (int k = 0; k < 3; ++k) b.x3[k][l] = 3 * m.tris[e][size_t(k)];
    b.item[l] = item;
    for (int k = 0; k < 4; ++k) b.d[k][l] = m.triRest[e].d[k];
    b.volume[l] = m.triVolume[e];
    b.mu[l] = m.triMu[e];
    b.lambda[l] = m.triLambda[e];
    b.kd[l] = m.triKd[e];
}

// Lane l of hinge block b; item < 0 pads the lane (a collapsed edge: dihedralGradient gives g = 0).
void fillHingeLane(const SoftModel& m, HingeBlock& b, int l, int i, int item) {
    if (item < 0) {
        for (int k = 0; k < 4; ++k) b.x3[k][l] = 3 * i;
        b.item[l] = 0;  // hinge 0, a = 0: a valid theta_prev address
        b.theta0[l] = 0.f;
        b.kL[l] = 0.f;
        b.kd[l] = 0.f;
        return;
    }
    const size_t e = size_t(item >> 2);
    for (int k = 0; k < 4; ++k) b.x3[k][l] = 3 * m.hinges[e][size_t(k)];
    b.item[l] = item;
    b.theta0[l] = m.hingeTheta0[e];
    b.kL[l] = m.hingeKL[e];
    b.kd[l] = m.hingeKd[e];
}

}  // namespace

void buildClothBlocks(SoftModel& m) {
    ClothBlocks& cb = m.clothBlocks;
    cb = ClothBlocks{};
    buildLaneBlocks(m, m.vertexTris, cb.tris, cb.triFirst, cb.triCount, fillTriLane);
    buildLaneBlocks(m, m.vertexHinges, cb.hinges, cb.hingeFirst, cb.hingeCount, fillHingeLane);
    for (float kd : m.triKd) cb.damped = cb.damped || kd > 0.f;
    for (float kd : m.hingeKd) cb.damped = cb.damped || kd > 0.f;
}

}  // namespace vbd
