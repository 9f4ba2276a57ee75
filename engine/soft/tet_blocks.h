#pragma once
// The CPU sweep's per-vertex force and block with the tet terms evaluated W incidences at a time: the same
// math as vertexForceHessian (vertex_kernel.h: tetIncidenceTerms on SIMD packs instead of scalars), read from
// SoftModel::tetBlocks (one contiguous, lane-major record per 8 incidences) instead of the per-tet arrays.
//
// Order of the sums: inertia, then the tets summed per lane (lane l holds incidences l, l + W, ...) and the
// lanes added pairwise, then the cloth terms and vertexContactTerms (soft/vertex_blocks.h). The scalar kernel
// adds the tets one by one, so the two agree to rounding of the tet sum's order
// (tests/scene/test_soft_simd.cpp bounds it), and each is the same for any thread count: a vertex's sums
// never depend on the partition.
//
// CPU only (backend/simd.h); CUDA runs the scalar kernel.
#include "backend/simd.h"
#include "soft/tet_lanes.h"
#include "soft/vertex_kernel.h"

namespace vbd {

// The positions an element's terms read (elementPositions of vertex_kernel.h) for W lanes of a block from
// lane l0: x3[k][l] = 3 * index of element vertex k in lane l, N vertices. Inc: the increment form, relative
// to vertex 0 (p_0 = 0).
template <typename T, int W, int N, bool Inc, int L>
VBD_SIMD_INLINE void blockPositions(const SoftViewT<T>& s, const int32_t (*x3)[L], int l0,
                                    Vec3T<simd::Pack<T, W>>* p) {
    using P = simd::Pack<T, W>;
    auto gathered = [&](const Vec3T<T>* a, const int32_t* idx) { return gatherLaneVec<T, W>(&a[0].x, idx); };
    if constexpr (Inc) {
        const Vec3T<P> xp0 = gathered(s.xPrev, &x3[0][l0]), dx0 = gathered(s.dx, &x3[0][l0]);
        p[0] = Vec3T<P>(P(T(0)));
        for (int k = 1; k < N; ++k)
            p[k] = (gathered(s.xPrev, &x3[k][l0]) - xp0) + (gathered(s.dx, &x3[k][l0]) - dx0);
    } else {
        for (int k = 0; k < N; ++k) p[k] = gathered(s.x, &x3[k][l0]);
    }
}

// The lane sums of a vertex's packs added to its scalar f and H (lanes pairwise, simd::sum: a fixed order).
template <typename T, int W>
VBD_SIMD_INLINE void addLaneSums(const Vec3T<simd::Pack<T, W>>& fs, const Sym33T<simd::Pack<T, W>>& Hs,
                                 Vec3T<T>& f, Mat33T<T>& H) {
    f += Vec3T<T>(simd::sum(fs.x), simd::sum(fs.y), simd::sum(fs.z));
    Sym33T<T> S = Sym33T<T>::upperOf(H);
    S.xx += simd::sum(Hs.xx);
    S.yy += simd::sum(Hs.yy);
    S.zz += simd::sum(Hs.zz);
    S.xy += simd::sum(Hs.xy);
    S.xz += simd::sum(Hs.xz);
    S.yz += simd::sum(Hs.yz);
    H = S.full();
}

// Lanes per pack of the tet terms in scalar T: a native register of T of at most 32 bytes, at most a block's
// 8 lanes (AVX2 and AVX-512: 8 floats or 4 doubles; SSE2: 4 or 2). Not 8 doubles in a 512-bit register: a
// pack's terms are one long dependency chain (positions, F, cof F, J, the force and block) of ~470
// instructions in 8-double form, more than the core's reorder window, so the sweep ran at the chain's
// latency; two 4-double packs per block are two chains half as wide, and the 10k beam's double sweep went
// from 71 to 81 M evaluations/s on one Zen 4 core (bench_soft BM_Sweep, alternating runs). GCC's own
// default for these targets is 256-bit vectors for the same reason.
template <typename T>
constexpr int kTetLanes = std::min(simd::nativeLanes<T>(TetBlock::kLanes), 32 / int(sizeof(T)));

// W lanes of block b from lane l0: their tet terms added to the per-lane sums f and H. cprev: the block's
// C_prev entries (SoftState::CprevLanes); xi, xPrevI: the block's vertex (the naive damping's own position,
// the same for every lane); h, 1/h as packs. Inc: the state is in the increment form (elementPositions of
// vertex_kernel.h).
template <typename T, int W, int Damped, bool Inc>
VBD_SIMD_INLINE void tetBlockTerms(const SoftViewT<T>& s, const TetBlock& b, const T* cprev, int l0,
                                   const Vec3T<simd::Pack<T, W>>& xi, const Vec3T<simd::Pack<T, W>>& xPrevI,
                                   const simd::Pack<T, W>& h, const simd::Pack<T, W>& invH,
                                   Vec3T<simd::Pack<T, W>>& f, Sym33T<simd::Pack<T, W>>& H) {
    using P = simd::Pack<T, W>;
    constexpr int L = TetBlock::kLanes;
    Vec3T<P> p[4];
    blockPositions<T, W, 4, Inc>(s, b.x3, l0, p);
    Mat33T<P> Dinv;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Dinv.m[r][c] = simd::load<T, W>(&b.DmInv[3 * r + c][l0]);
    const Mat33T<P> F = tetDeformationGradient(p[0], p[1], p[2], p[3], Dinv);
    // m = tetVertexWeight(Dinv, a) per lane: -(row 0 + row 1 + row 2) for a = 0, row a-1 otherwise.
    const simd::Mask<W> a = simd::load<int32_t, W>(&b.item[l0]).v & 3;
    const Vec3T<P> m0 = -(Dinv.row(0) + Dinv.row(1) + Dinv.row(2));
    Vec3T<P> m;
    for (int c = 0; c < 3; ++c)
        m[c] = simd::select(
            a == 0, m0[c],
            simd::select(a == 1, Dinv.m[0][c], simd::select(a == 2, Dinv.m[1][c], Dinv.m[2][c])));
    Mat33T<P> Cprev;  // the upper triangle: all the fused term reads
    if (Damped == kDamped) {
        Cprev.m[0][0] = simd::load<T, W>(cprev + 0 * L + l0);
        Cprev.m[0][1] = simd::load<T, W>(cprev + 1 * L + l0);
        Cprev.m[0][2] = simd::load<T, W>(cprev + 2 * L + l0);
        Cprev.m[1][1] = simd::load<T, W>(cprev + 3 * L + l0);
        Cprev.m[1][2] = simd::load<T, W>(cprev + 4 * L + l0);
        Cprev.m[2][2] = simd::load<T, W>(cprev + 5 * L + l0);
    }
    tetIncidenceTerms<P, Damped>(F, m, simd::load<T, W>(b.volume + l0), simd::load<T, W>(b.mu + l0),
                                 simd::load<T, W>(b.lambda + l0), simd::load<T, W>(b.kd + l0), Cprev, h, invH,
                                 s.damping, xi, xPrevI, f, H);
}

// The tet terms of vertex i from its blocks, added to f and H (Damped: whether the internal damping terms are
// evaluated, decided per model by the caller).
template <typename T, int Damped, bool Inc>
VBD_SIMD_INLINE void tetBlocksSum(const SoftViewT<T>& s, const TetBlocks& tb, const T* cprevLanes, int i,
                                  Vec3T<T>& f, Mat33T<T>& H) {
    constexpr int W = kTetLanes<T>;
    using P = simd::Pack<T, W>;
    const int count = tb.count[size_t(i)];
    if (count == 0) return;
    Vec3T<P> fs(P(T(0)));
    Sym33T<P> Hs;
    Vec3T<T> xOwn, xPrevOwn;
    ownMotionPair(s, i, xOwn, xPrevOwn);
    const Vec3T<P> xi(xOwn), xPrevI(xPrevOwn);
    const P h(T(s.h)), invH(T(1) / T(s.h));  // once per vertex (a division in the loop was not hoisted)
    const size_t first = size_t(tb.first[size_t(i)]);
    const TetBlock* b = tb.blocks.data() + first;
    const T* cp = cprevLanes + first * size_t(TetBlocks::kCprevPerBlock);
    for (int k = 0; k < count; k += TetBlock::kLanes, ++b, cp += TetBlocks::kCprevPerBlock)
        for (int l0 = 0; l0 < TetBlock::kLanes && k + l0 < count; l0 += W)
            tetBlockTerms<T, W, Damped, Inc>(s, *b, cp, l0, xi, xPrevI, h, invH, fs, Hs);
    addLaneSums(fs, Hs, f, H);
}

// The tet terms of vertex i from its blocks, the damping variant chosen per model (vertex i must have blocks
// or no tets); cprevLanes: SoftState::CprevLanes.
template <typename T, bool Inc>
VBD_SIMD_INLINE void tetBlocksSumOf(const SoftViewT<T>& s, const TetBlocks& tb, const T* cprevLanes, int i,
                                    Vec3T<T>& f, Mat33T<T>& H) {
    if (s.damping == DampingModel::Internal && tb.damped)
        tetBlocksSum<T, kDamped, Inc>(s, tb, cprevLanes, i, f, H);
    else if (s.damping == DampingModel::Naive)
        tetBlocksSum<T, kRuntime, Inc>(s, tb, cprevLanes, i, f, H);
    else
        tetBlocksSum<T, kUndamped, Inc>(s, tb, cprevLanes, i, f, H);
}

}  // namespace vbd
