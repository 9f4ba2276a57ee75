#include "coarse/tet_batch.h"

#include <algorithm>

#include "backend/parallel.h"
#include "backend/simd.h"
#include "energy/tet_energy.h"

namespace vbd::coarse {

namespace {

constexpr int kL = TetLaneBlock::kLanes;
// Lanes per pack: a native register of doubles, at most a block (AVX-512: 8, AVX2: 4, SSE2: 2).
constexpr int kW = simd::nativeLanes<double>(kL);
using P = simd::Pack<double, kW>;
using I = simd::Pack<int32_t, kW>;
// Tets per group of the energy change's sum: reduceSum's block over the tets.
constexpr size_t kSumBlocks = 1024 / size_t(kL);

// F (gather = x) or dF (gather = d) of the lanes from l0: Ds Dm^{-1}.
VBD_SIMD_INLINE Mat33T<P> lanesF(const TetLaneBlock& b, int l0, const double* pos) {
    return tetDeformationGradient(
        gatherLaneVec<double, kW>(pos, &b.x3[0][l0]), gatherLaneVec<double, kW>(pos, &b.x3[1][l0]),
        gatherLaneVec<double, kW>(pos, &b.x3[2][l0]), gatherLaneVec<double, kW>(pos, &b.x3[3][l0]),
        loadLaneMat<double, kW>(b.Dinv, l0));
}

// c9: the block's lanes of TetLanes::c9.
VBD_SIMD_INLINE Mat33T<P> lanesCprev(const int32_t* c9, int l0, const std::vector<Mat33d>& cprev,
                                     bool damped) {
    Mat33T<P> C;
    if (!damped) return C;
    const I o = simd::load<int32_t, kW>(c9 + l0);
    const double* base = &cprev[0].m[0][0];
    for (int k = 0; k < 9; ++k) C.m[k / 3][k % 3] = simd::gather<double, kW>(base + k, o);
    return C;
}

// One pack of the gradient pass: F, the stress, the four vertex gradients added to their vertices' sums;
// returns the lanes' largest |F - F_ref|^2. Damped (internal damping with some k_d > 0) is a template
// argument: the undamped variant then holds no damping terms (register pressure: 764 -> 480 instructions per
// pack, 106 -> 10 stack accesses), and equals the damped one with k_d = 0 on every lane, which skips them.
template <bool Damped>
[[gnu::flatten]] double gradientLanes(const TetLaneBlock& b, const TetLaneReference& ref, const int32_t* c9,
                                      int l0, const double* xs, const std::vector<Mat33d>& cprev, double h,
                                      double* gs) {
    const Mat33T<P> F = lanesF(b, l0, xs);
    // The watch first, so that F need not stay in registers through the stress and the scatter (fewer
    // spills).
    const P change = (F - loadLaneMat<double, kW>(ref.F, l0)).frobenius2();
    const Mat33T<P> S =
        tetStress(F, lanesCprev(c9, l0, cprev, Damped), loadLaneConstants<double, kW>(b, l0), P(h), Damped);
    const Mat33T<P> Dinv = loadLaneMat<double, kW>(b.Dinv, l0);
    for (int a = 0; a < 4; ++a)
        scatterAddLanes<double, kW>(S * tetVertexWeight(Dinv, a), &b.x3[a][l0], unsigned(b.gathered[a]) >> l0,
                                    gs);
    double most = 0;
    for (int l = 0; l < kW; ++l) most = std::max(most, change[l]);
    return most;
}

// One pack of the energy change: adds the lanes' tetEnergyDelta to s in lane order (Damped as above:
// 807 -> 537 instructions, 150 -> 59 stack accesses).
template <bool Damped>
[[gnu::flatten]] void deltaLanes(const TetLaneBlock& b, const int32_t* c9, int l0, const double* xs,
                                 const double* ds, const std::vector<Mat33d>& cprev, double h, P& s) {
    const P d = tetEnergyDelta(lanesF(b, l0, xs), lanesF(b, l0, ds), lanesCprev(c9, l0, cprev, Damped),
                               loadLaneConstants<double, kW>(b, l0), P(h), Damped);
    s += d;
}

}  // namespace

void TetBatch::build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& gathered) {
    lanes_.build(m, elems, gathered);
    change_.assign(lanes_.blocks.size(), 0.0);
    ref_.assign(lanes_.blocks.size(), TetLaneReference{});
}

double TetBatch::addGradient(const std::vector<Vec3d>& x, const std::vector<Mat33d>& cprev, double h,
                             bool internal, std::vector<Vec3d>& g) {
    if (lanes_.empty()) return 0;
    const bool damped = internal && lanes_.damped;
    lanes_.forEachBlock([&](size_t k) {
        double most = 0;
        for (int l0 = 0; l0 < kL; l0 += kW)
            most = std::max(most, damped ? gradientLanes<true>(lanes_.blocks[k], ref_[k], &lanes_.c9[k * kL],
                                                               l0, &x[0].x, cprev, h, &g[0].x)
                                         : gradientLanes<false>(lanes_.blocks[k], ref_[k], &lanes_.c9[k * kL],
                                                                l0, &x[0].x, cprev, h, &g[0].x));
        change_[k] = most;
    });
    return *std::max_element(change_.begin(), change_.end());
}

void TetBatch::markReference(const std::vector<Vec3d>& x) {
    parallelFor(lanes_.blocks.size(), [&](size_t k) {
        for (int l0 = 0; l0 < kL; l0 += kW) {
            const Mat33T<P> F = lanesF(lanes_.blocks[k], l0, &x[0].x);
            for (int q = 0; q < 9; ++q)
                for (int l = 0; l < kW; ++l) ref_[k].F[q][l0 + l] = float(F.m[q / 3][q % 3][l]);
        }
    });
}

double TetBatch::deltaEnergy(const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                             const std::vector<Mat33d>& cprev, double h, bool internal) const {
    const bool damped = internal && lanes_.damped;
    const std::vector<TetLaneBlock>& blocks = lanes_.blocks;
    const size_t groups = (blocks.size() + kSumBlocks - 1) / kSumBlocks;
    return reduceSum<double>(
        groups,
        [&](size_t g) {
            P s(0.0);
            const size_t end = std::min(blocks.size(), (g + 1) * kSumBlocks);
            for (size_t k = g * kSumBlocks; k < end; ++k)
                for (int l0 = 0; l0 < kL; l0 += kW) {
                    if (damped)
                        deltaLanes<true>(blocks[k], &lanes_.c9[k * kL], l0, &x[0].x, &d[0].x, cprev, h, s);
                    else
                        deltaLanes<false>(blocks[k], &lanes_.c9[k * kL], l0, &x[0].x, &d[0].x, cprev, h, s);
                }
            return simd::sum(s);
        },
        1);
}

}  // namespace vbd::coarse
