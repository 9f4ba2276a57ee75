#include "soft/tet_residual.h"

#include <algorithm>

#include "soft/tet_blocks.h"
#include "soft/tet_lanes.h"

namespace vbd {

namespace {

constexpr int kL = TetLaneBlock::kLanes;

// The symmetric C_prev of W lanes from l0, from the block's upper triangle (cprevUpperBlock's layout).
template <typename T, int W>
VBD_SIMD_INLINE Mat33T<simd::Pack<T, W>> laneCprev(const T* cprev, int l0) {
    Mat33T<simd::Pack<T, W>> C;
    C.m[0][0] = simd::load<T, W>(cprev + 0 * kL + l0);
    C.m[0][1] = C.m[1][0] = simd::load<T, W>(cprev + 1 * kL + l0);
    C.m[0][2] = C.m[2][0] = simd::load<T, W>(cprev + 2 * kL + l0);
    C.m[1][1] = simd::load<T, W>(cprev + 3 * kL + l0);
    C.m[1][2] = C.m[2][1] = simd::load<T, W>(cprev + 4 * kL + l0);
    C.m[2][2] = simd::load<T, W>(cprev + 5 * kL + l0);
    return C;
}

// W lanes of block b from lane l0. Inc: the increment form; Damped: the internal damping's terms (some tet
// has k_d > 0; lanes with k_d = 0 add exact zeros).
template <typename T, int W, bool Inc, bool Damped>
[[gnu::flatten]] void tetLaneForces(const TetLaneBlock& b, const T* cprev, int l0, const SoftViewT<T>& s,
                                    T* sums) {
    using P = simd::Pack<T, W>;
    Vec3T<P> p[4];
    if constexpr (Inc) {
        blockPositions<T, W, 4, true>(s, b.x3, l0, p);
    } else {
        for (int k = 0; k < 4; ++k) p[k] = gatherLaneVec<T, W>(&s.x[0].x, &b.x3[k][l0]);
    }
    const Mat33T<P> Dinv = loadLaneMat<T, W>(b.Dinv, l0);
    const Mat33T<P> F = tetDeformationGradient(p[0], p[1], p[2], p[3], Dinv);
    Mat33T<P> C;
    if constexpr (Damped) C = laneCprev<T, W>(cprev, l0);
    const TetConstants<P> c = loadLaneConstants<T, W>(b, l0);
    const Mat33T<P> S = tetStress(F, C, c, P(T(s.h)), Damped);
    const Mat33T<P> M = tetBlockTraceForm(F, c, P(T(1) / T(s.h)), Damped);
    for (int a = 0; a < 4; ++a) {
        const Vec3T<P> m = tetVertexWeight(Dinv, a);
        scatterAddLanesOf<T, W, true>(-(S * m), dot(m, M * m), &b.x3[a][l0], unsigned(b.gathered[a]) >> l0,
                                      sums);
    }
}

template <typename T, bool Inc, bool Damped>
void tetForcesOf(const TetLanes& tl, const SoftViewT<T>& s, const T* cprevLanes, T* sums, size_t stride,
                 int parts, size_t grain) {
    constexpr int W = kTetLaneWidth<T>;
    auto block = [&](size_t k, T* out) {
        const T* cp = Damped ? cprevLanes + k * TetLanes::kCprevPerBlock : nullptr;
        for (int l0 = 0; l0 < kL; l0 += W) tetLaneForces<T, W, Inc, Damped>(tl.blocks[k], cp, l0, s, out);
    };
    if (parts <= 1) {
        tl.forEachBlock([&](size_t k) { block(k, sums); }, grain);
        return;
    }
    // Part p: blocks [nb p / parts, nb (p + 1) / parts) in order into its own sums, which it zeroes (each
    // part's buffer then sits in the cache of the thread that adds into it).
    const size_t nb = tl.blocks.size(), P = size_t(parts);
    parallelFor(
        P,
        [&](size_t p) {
            T* out = sums + p * stride;
            std::fill(out, out + stride, T(0));
            for (size_t k = nb * p / P; k < nb * (p + 1) / P; ++k) block(k, out);
        },
        1);
}

// W lanes of block b from lane l0: their E_e (Damped as in tetLaneForces).
template <int W, bool Damped>
[[gnu::flatten]] simd::Pack<double, W> tetLaneEnergies(const TetLaneBlock& b, const double* cprev, int l0,
                                                       const SoftViewT<double>& s) {
    using P = simd::Pack<double, W>;
    Vec3T<P> p[4];
    for (int k = 0; k < 4; ++k) p[k] = gatherLaneVec<double, W>(&s.x[0].x, &b.x3[k][l0]);
    const Mat33T<P> F = tetDeformationGradient(p[0], p[1], p[2], p[3], loadLaneMat<double, W>(b.Dinv, l0));
    Mat33T<P> C;
    if constexpr (Damped) C = laneCprev<double, W>(cprev, l0);
    return tetEnergy(F, C, loadLaneConstants<double, W>(b, l0), P(s.h), Damped);
}

// Blocks per group of the energy sum (reduceSum's block over the blocks).
constexpr size_t kEnergyGroup = 128;

template <bool Damped>
double tetEnergySumOf(const TetLanes& tl, const SoftViewT<double>& s, const double* cprevLanes) {
    constexpr int W = kTetLaneWidth<double>;
    const size_t nb = tl.blocks.size(), groups = (nb + kEnergyGroup - 1) / kEnergyGroup;
    return reduceSum<double>(
        groups,
        [&](size_t g) {
            simd::Pack<double, W> sum(0.0);
            for (size_t k = g * kEnergyGroup; k < std::min(nb, (g + 1) * kEnergyGroup); ++k) {
                const double* cp = Damped ? cprevLanes + k * TetLanes::kCprevPerBlock : nullptr;
                for (int l0 = 0; l0 < kL; l0 += W) sum += tetLaneEnergies<W, Damped>(tl.blocks[k], cp, l0, s);
            }
            return simd::sum(sum);
        },
        1);
}

}  // namespace

double tetEnergySum(const TetLanes& tl, const SoftViewT<double>& s, const double* cprevLanes, bool damping) {
    if (tl.empty()) return 0.0;
    return damping && tl.damped ? tetEnergySumOf<true>(tl, s, cprevLanes)
                                : tetEnergySumOf<false>(tl, s, cprevLanes);
}

int tetResidualParts(const TetLanes& tl) {
    size_t largest = 0;
    for (size_t c = 0; c + 1 < tl.colorStart.size(); ++c)
        largest = std::max(largest, tl.colorStart[c + 1] - tl.colorStart[c]);
    return largest < 2 * kResidualColorGrain ? kResidualParts : 1;
}

template <typename T>
void addTetForces(const TetLanes& tl, const SoftViewT<T>& s, const T* cprevLanes, T* sums, size_t stride,
                  int parts, size_t grain) {
    if (tl.empty()) return;
    const bool damped = s.damping == DampingModel::Internal && tl.damped;
    if constexpr (sizeof(T) == sizeof(float)) {
        if (incrementForm(s)) {
            if (damped)
                tetForcesOf<T, true, true>(tl, s, cprevLanes, sums, stride, parts, grain);
            else
                tetForcesOf<T, true, false>(tl, s, cprevLanes, sums, stride, parts, grain);
            return;
        }
    }
    if (damped)
        tetForcesOf<T, false, true>(tl, s, cprevLanes, sums, stride, parts, grain);
    else
        tetForcesOf<T, false, false>(tl, s, cprevLanes, sums, stride, parts, grain);
}

template void addTetForces<float>(const TetLanes&, const SoftViewT<float>&, const float*, float*, size_t, int,
                                  size_t);
template void addTetForces<double>(const TetLanes&, const SoftViewT<double>&, const double*, double*, size_t,
                                   int, size_t);

}  // namespace vbd
