#pragma once
// The CPU sweep's cloth terms of one vertex evaluated W incidences at a time: the same math as
// vertexClothTerms (vertex_kernel.h: membraneVertex, membraneDampingVertex, dihedralGradient, bendingVertex,
// bendingDampingVertex on SIMD packs instead of scalars; their value branches are lane selects,
// math/lanes.h), read from SoftModel::clothBlocks. The membranes and then the hinges are summed per lane and
// the lanes added pairwise (simd::sum), so the result agrees with the scalar kernel's one-by-one sum to the
// rounding of the sum's order (tests/scene/test_cloth_simd.cpp bounds it), and is the same for any thread
// count.
//
// Damping: the internal (door-hinge / strain-rate) damping is evaluated in the packs; the naive damping reads
// the vertex's own motion with each element's block and stays on the scalar path (vertex_blocks.h).
//
// CPU only (backend/simd.h); CUDA runs the scalar kernel.
#include "soft/tet_blocks.h"

namespace vbd {

// Lanes per pack of the cloth terms in scalar T (a native register, at most a block's 8 lanes).
template <typename T>
constexpr int kClothLanes = simd::nativeLanes<T>(TriBlock::kLanes);

// W lanes of tri block b from lane l0: membrane (clamped block) plus, when Damped, its strain-rate damping,
// added to the per-lane sums f and H.
template <typename T, int W, bool Damped, bool Inc>
VBD_SIMD_INLINE void triBlockTerms(const SoftViewT<T>& s, const TriBlock& b, int l0,
                                   Vec3T<simd::Pack<T, W>>& f, Sym33T<simd::Pack<T, W>>& H) {
    using P = simd::Pack<T, W>;
    using I = simd::Pack<int32_t, W>;
    Vec3T<P> p[3];
    blockPositions<T, W, 3, Inc>(s, b.x3, l0, p);
    const P d[4] = {simd::load<T, W>(&b.d[0][l0]), simd::load<T, W>(&b.d[1][l0]),
                    simd::load<T, W>(&b.d[2][l0]), simd::load<T, W>(&b.d[3][l0])};
    Vec3T<P> f0, f1;
    triDeformationGradient(p[0], p[1], p[2], d, f0, f1);
    const simd::Mask<W> item = simd::load<int32_t, W>(&b.item[l0]).v;
    P m0, m1;
    triVertexWeight(d, item & 3, m0, m1);
    const P V = simd::load<T, W>(b.volume + l0), mu = simd::load<T, W>(b.mu + l0),
            lam = simd::load<T, W>(b.lambda + l0);
    Vec3T<P> fe;
    Mat33T<P> He;
    membraneVertex(f0, f1, m0, m1, V, mu, lam, fe, He);
    f += fe;
    H.add(He);
    if constexpr (Damped) {
        const simd::Mask<W> o = (item >> 2) * 3;  // triCprev[tri] is 3 consecutive T
        const T* base = s.triCprev[0].data();
        const P Cprev[3] = {simd::gather<T, W>(base, I::fromVec(o)),
                            simd::gather<T, W>(base, I::fromVec(o + 1)),
                            simd::gather<T, W>(base, I::fromVec(o + 2))};
        Vec3T<P> fd;
        Mat33T<P> Hd;
        membraneDampingVertex(f0, f1, Cprev, m0, m1, V, mu, lam, simd::load<T, W>(b.kd + l0), P(T(s.h)), fd,
                              Hd);
        f += fd;
        H.add(Hd);
    }
}

// W lanes of hinge block b from lane l0: dihedral spring plus, when Damped, its door-hinge damping.
// Degenerate stencils (and padding lanes) have g = 0: exact zeros, as the scalar kernel's early return.
template <typename T, int W, bool Damped, bool Inc>
VBD_SIMD_INLINE void hingeBlockTerms(const SoftViewT<T>& s, const HingeBlock& b, int l0,
                                     Vec3T<simd::Pack<T, W>>& f, Sym33T<simd::Pack<T, W>>& H) {
    using P = simd::Pack<T, W>;
    using I = simd::Pack<int32_t, W>;
    Vec3T<P> p[4], g[4];
    blockPositions<T, W, 4, Inc>(s, b.x3, l0, p);
    P theta;
    dihedralGradient(p[0], p[1], p[2], p[3], theta, g);
    const simd::Mask<W> item = simd::load<int32_t, W>(&b.item[l0]).v, a = item & 3;
    const Vec3T<P> ga = select(a == 0, g[0], select(a == 1, g[1], select(a == 2, g[2], g[3])));
    const P kL = simd::load<T, W>(b.kL + l0);
    Vec3T<P> fe;
    Mat33T<P> He;
    bendingVertex(theta, ga, P(simd::load<T, W>(b.theta0 + l0)), kL, fe, He);
    f += fe;
    H.add(He);
    if constexpr (Damped) {
        const P thetaPrev = simd::gather<T, W>(s.hingeThetaPrev, I::fromVec(item >> 2));
        Vec3T<P> fd;
        Mat33T<P> Hd;
        bendingDampingVertex(theta, thetaPrev, ga, kL, simd::load<T, W>(b.kd + l0), P(T(s.h)), fd, Hd);
        f += fd;
        H.add(Hd);
    }
}

// The membrane and hinge terms of vertex i from its blocks, added to f and H. Flattened: GCC would keep the
// pack instantiations of the element math (membraneVertex, dihedralGradient, ...) out of line, passing
// 8-lane packs through memory; inlined they stay in registers.
template <typename T, bool Damped, bool Inc>
[[gnu::flatten]] inline void clothBlocksSum(const SoftViewT<T>& s, const ClothBlocks& cb, int i, Vec3T<T>& f,
                                            Mat33T<T>& H) {
    constexpr int W = kClothLanes<T>;
    constexpr int L = TriBlock::kLanes;
    static_assert(HingeBlock::kLanes == L, "one lane count for both block kinds");
    using P = simd::Pack<T, W>;
    const int nt = cb.triCount[size_t(i)], nh = cb.hingeCount[size_t(i)];
    if (nt + nh == 0) return;
    Vec3T<P> fs(P(T(0)));
    Sym33T<P> Hs;
    const TriBlock* tb = cb.tris.data() + (nt > 0 ? cb.triFirst[size_t(i)] : 0);
    for (int k = 0; k < nt; k += L, ++tb)
        for (int l0 = 0; l0 < L && k + l0 < nt; l0 += W) triBlockTerms<T, W, Damped, Inc>(s, *tb, l0, fs, Hs);
    const HingeBlock* hb = cb.hinges.data() + (nh > 0 ? cb.hingeFirst[size_t(i)] : 0);
    for (int k = 0; k < nh; k += L, ++hb)
        for (int l0 = 0; l0 < L && k + l0 < nh; l0 += W)
            hingeBlockTerms<T, W, Damped, Inc>(s, *hb, l0, fs, Hs);
    addLaneSums(fs, Hs, f, H);
}

// The cloth terms of vertex i: from the blocks (internal or no damping), or the scalar kernel's (naive
// damping, or a model without cloth blocks).
template <typename T, bool Inc>
VBD_SIMD_INLINE void clothTermsOf(const SoftViewT<T>& s, const ClothBlocks& cb, int i, Vec3T<T>& f,
                                  Mat33T<T>& H) {
    if (cb.empty() || s.damping == DampingModel::Naive)
        vertexClothTerms(s, i, f, H);
    else if (s.damping == DampingModel::Internal && cb.damped)
        clothBlocksSum<T, true, Inc>(s, cb, i, f, H);
    else
        clothBlocksSum<T, false, Inc>(s, cb, i, f, H);
}

}  // namespace vbd
