#include "soft/tet_residual.h"

#include "soft/tet_blocks.h"

namespace vbd {

namespace {

constexpr int kL = TetLaneBlock::kLanes;

// W lanes of block b from lane l0. Inc: the increment form; Damped: the internal damping's terms (some tet
// has k_d > 0; lanes with k_d = 0 add exact zeros).
template <typename T, int W, bool Inc, bool Damped>
[[gnu::flatten]] void tetLaneForces(const TetLaneBlock& b, const int32_t* c9, int l0, const SoftViewT<T>& s,
                                    T* fs, T* trace) {
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
    if constexpr (Damped) {
        const simd::Pack<int32_t, W> o = simd::load<int32_t, W>(c9 + l0);
        const T* base = &s.Cprev[0].m[0][0];
        for (int k = 0; k < 9; ++k) C.m[k / 3][k % 3] = simd::gather<T, W>(base + k, o);
    }
    const TetConstants<P> c = loadLaneConstants<T, W>(b, l0);
    const P h(T(s.h));
    const Mat33T<P> S = tetStress(F, C, c, h, Damped);
    const Mat33T<P> cof = cofactor(F);
    for (int a = 0; a < 4; ++a) {
        const Vec3T<P> m = tetVertexWeight(Dinv, a);
        const unsigned lanes = unsigned(b.gathered[a]) >> l0;
        scatterAddLanes<T, W>(-(S * m), &b.x3[a][l0], lanes, fs);
        const P t = tetVertexBlockTrace(F, cof, m, c, h, Damped);
        for (int l = 0; l < W; ++l)
            if (lanes >> l & 1u) trace[b.x3[a][l0 + l] / 3] += t[l];
    }
}

template <typename T, bool Inc, bool Damped>
void tetForcesOf(const TetLanes& tl, const SoftViewT<T>& s, Vec3T<T>* f, T* trace, size_t grain) {
    constexpr int W = kTetLaneWidth<T>;
    tl.forEachBlock([&](size_t k) {
        for (int l0 = 0; l0 < kL; l0 += W)
            tetLaneForces<T, W, Inc, Damped>(tl.blocks[k], &tl.c9[k * kL], l0, s, &f[0].x, trace);
    }, grain);
}

}  // namespace

template <typename T>
void addTetForces(const TetLanes& tl, const SoftViewT<T>& s, Vec3T<T>* f, T* trace, size_t grain) {
    if (tl.empty()) return;
    const bool damped = s.damping == DampingModel::Internal && tl.damped;
    if constexpr (sizeof(T) == sizeof(float)) {
        if (incrementForm(s)) {
            if (damped)
                tetForcesOf<T, true, true>(tl, s, f, trace, grain);
            else
                tetForcesOf<T, true, false>(tl, s, f, trace, grain);
            return;
        }
    }
    if (damped)
        tetForcesOf<T, false, true>(tl, s, f, trace, grain);
    else
        tetForcesOf<T, false, false>(tl, s, f, trace, grain);
}

template void addTetForces<float>(const TetLanes&, const SoftViewT<float>&, Vec3T<float>*, float*, size_t);
template void addTetForces<double>(const TetLanes&, const SoftViewT<double>&, Vec3T<double>*, double*,
                                    size_t);

}  // namespace vbd
