// SoftModel::clothBlocks from the triangle and hinge arrays (soft_model.h describes the layout).
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

// The blocks of one incidence list (vertex -> items) in sweep order.
template <typename Block, typename Fill>
void buildBlocks(const SoftModel& m, const Csr& adj, std::vector<Block>& blocks, std::vector<int>& first,
                 std::vector<int>& count, Fill fill) {
    constexpr int L = Block::kLanes;
    const int n = m.numVertices();
    first.assign(size_t(n), -1);
    count.assign(size_t(n), 0);
    if (adj.offsets.size() != size_t(n) + 1) return;
    size_t total = 0;
    for (const auto& group : m.colorGroups)
        for (int i : group) total += size_t((adj.end(i) - adj.begin(i) + L - 1) / L);
    blocks.resize(total);
    int next = 0;
    for (const auto& group : m.colorGroups) {
        for (int i : group) {
            const int begin = adj.begin(i), cnt = adj.end(i) - begin;
            if (cnt == 0) continue;
            first[size_t(i)] = next;
            count[size_t(i)] = cnt;
            for (int k = 0; k < cnt; k += L) {
                Block& b = blocks[size_t(next++)];
                for (int l = 0; l < L; ++l) {
                    const int item = begin + k + l;  // index into adj.items (int, like its offsets)
                    fill(m, b, l, i, k + l < cnt ? adj.items[size_t(item)] : -1);
                }
            }
        }
    }
}

}  // namespace

void buildClothBlocks(SoftModel& m) {
    ClothBlocks& cb = m.clothBlocks;
    cb = ClothBlocks{};
    buildBlocks(m, m.vertexTris, cb.tris, cb.triFirst, cb.triCount, fillTriLane);
    buildBlocks(m, m.vertexHinges, cb.hinges, cb.hingeFirst, cb.hingeCount, fillHingeLane);
    for (float kd : m.triKd) cb.damped = cb.damped || kd > 0.f;
    for (float kd : m.hingeKd) cb.damped = cb.damped || kd > 0.f;
}

}  // namespace vbd
