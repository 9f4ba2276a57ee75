#include "coarse/tet_batch.h"

#include <algorithm>
#include <cstring>

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

VBD_SIMD_INLINE Mat33T<P> loadMat(const float (&a)[9][kL], int l0) {
    Mat33T<P> M;
    for (int k = 0; k < 9; ++k) M.m[k / 3][k % 3] = simd::load<double, kW>(&a[k][l0]);
    return M;
}

// Lane l: the Vec3d at base + idx[l] (idx holds 3 x vertex index).
VBD_SIMD_INLINE Vec3T<P> gatherVec(const double* base, const int32_t* idx) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    if constexpr (kW == 8) {
        // Eight 3-double loads transposed in registers: three 8-lane gathers cost about twice as much (each
        // lane a separate load through the gather unit; measured on Zen 4 in bench_coarse).
        auto two = [&](int l) {  // [v_l (x y z 0) | v_{l+4} (x y z 0)]
            // Masked forms throughout: GCC 12's unmasked insert/shuffle read an undefined register (GCC PR
            // 105593, as in simd::gather); masked-off elements are not read, so the last vertex is safe.
            const __m512d lo = _mm512_maskz_loadu_pd(__mmask8(7), base + idx[l]);
            const __m256d hi = _mm256_maskz_loadu_pd(__mmask8(7), base + idx[l + 4]);
            return _mm512_mask_broadcast_f64x4(lo, __mmask8(0xF0), hi);
        };
        const __m512d r0 = two(0), r1 = two(1), r2 = two(2), r3 = two(3);
        const __mmask8 all = 0xFF;
        const __m512d t0 = _mm512_maskz_unpacklo_pd(all, r0, r1), t1 = _mm512_maskz_unpackhi_pd(all, r0, r1);
        const __m512d t2 = _mm512_maskz_unpacklo_pd(all, r2, r3), t3 = _mm512_maskz_unpackhi_pd(all, r2, r3);
        const __m512i even = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
        const __m512i odd = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
        const __m512d c[3] = {_mm512_maskz_permutex2var_pd(all, t0, even, t2),
                              _mm512_maskz_permutex2var_pd(all, t1, even, t3),
                              _mm512_maskz_permutex2var_pd(all, t0, odd, t2)};
        Vec3T<P> v;
        for (int k = 0; k < 3; ++k) std::memcpy(&v[k].v, &c[k], sizeof(c[k]));
        return v;
    }
#endif
    const I o = simd::load<int32_t, kW>(idx);
    return {simd::gather<double, kW>(base, o), simd::gather<double, kW>(base + 1, o),
            simd::gather<double, kW>(base + 2, o)};
}

// F (gather = x) or dF (gather = d) of the lanes from l0: Ds Dm^{-1}.
VBD_SIMD_INLINE Mat33T<P> lanesF(const TetLaneBlock& b, int l0, const double* pos) {
    return tetDeformationGradient(gatherVec(pos, &b.x3[0][l0]), gatherVec(pos, &b.x3[1][l0]),
                                  gatherVec(pos, &b.x3[2][l0]), gatherVec(pos, &b.x3[3][l0]),
                                  loadMat(b.Dinv, l0));
}

VBD_SIMD_INLINE Mat33T<P> lanesCprev(const TetLaneBlock& b, int l0, const std::vector<Mat33d>& cprev,
                                     bool damped) {
    Mat33T<P> C;
    if (!damped) return C;
    const I o = simd::load<int32_t, kW>(&b.c9[l0]);
    const double* base = &cprev[0].m[0][0];
    for (int k = 0; k < 9; ++k) C.m[k / 3][k % 3] = simd::gather<double, kW>(base + k, o);
    return C;
}

VBD_SIMD_INLINE TetConstants<P> lanesConstants(const TetLaneBlock& b, int l0) {
    return {simd::load<double, kW>(&b.V[l0]), simd::load<double, kW>(&b.mu[l0]),
            simd::load<double, kW>(&b.lambda[l0]), simd::load<double, kW>(&b.kd[l0])};
}

// One pack of the gradient pass: F, the stress, the four vertex gradients to their slots; returns the lanes'
// largest |F - F_ref|^2.
[[gnu::flatten]] double gradientLanes(TetLaneBlock& b, int l0, const double* xs,
                                      const std::vector<Mat33d>& cprev, bool damped, double h, bool internal,
                                      Vec3d* slots) {
    const Mat33T<P> F = lanesF(b, l0, xs);
    const Mat33T<P> S = tetStress(F, lanesCprev(b, l0, cprev, damped), lanesConstants(b, l0), P(h), internal);
    const Mat33T<P> Dinv = loadMat(b.Dinv, l0);
    for (int a = 0; a < 4; ++a) {
        const Vec3T<P> g = S * tetVertexWeight(Dinv, a);
        for (int l = 0; l < kW; ++l) slots[b.slot[a][l0 + l]] = Vec3d(g.x[l], g.y[l], g.z[l]);
    }
    const P change = (F - loadMat(b.Fref, l0)).frobenius2();
    double most = 0;
    for (int l = 0; l < kW; ++l) most = std::max(most, change[l]);
    return most;
}

// One pack of the energy change: adds the lanes' tetEnergyDelta to s in lane order.
[[gnu::flatten]] void deltaLanes(const TetLaneBlock& b, int l0, const double* xs, const double* ds,
                                 const std::vector<Mat33d>& cprev, bool damped, double h, bool internal,
                                 double& s) {
    const P d = tetEnergyDelta(lanesF(b, l0, xs), lanesF(b, l0, ds), lanesCprev(b, l0, cprev, damped),
                               lanesConstants(b, l0), P(h), internal);
    for (int l = 0; l < kW; ++l) s += d[l];
}

// Lane l of b is tet e (e < 0: padding, slots to `discard`).
void fillLane(const SoftModel& m, TetLaneBlock& b, int l, int e, int discard) {
    for (int a = 0; a < 4; ++a) {
        b.x3[a][l] = e >= 0 ? 3 * m.tets[size_t(e)][size_t(a)] : 0;
        b.slot[a][l] = discard;
    }
    b.c9[l] = 9 * std::max(e, 0);
    for (int k = 0; k < 9; ++k) {
        b.Dinv[k][l] = e >= 0 ? m.DmInv[size_t(e)](k / 3, k % 3) : 0.f;
        b.Fref[k][l] = 0.f;
    }
    b.V[l] = e >= 0 ? m.volume[size_t(e)] : 0.f;
    b.mu[l] = e >= 0 ? m.mu[size_t(e)] : 1.f;
    b.lambda[l] = e >= 0 ? m.lambda[size_t(e)] : 1.f;
    b.kd[l] = e >= 0 ? m.kd[size_t(e)] : 0.f;
}

}  // namespace

void TetBatch::build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& verts) {
    tets_ = int(elems.size());
    std::vector<int> lane(m.tets.size(), -1);  // tet -> position in the batch
    for (size_t k = 0; k < elems.size(); ++k) lane[size_t(elems[k])] = int(k);
    // Slots: per gathered vertex, its incidences among the batch's tets in vertexTets order.
    slotOffsets_.assign(verts.size() + 1, 0);
    std::vector<int> slotOf(4 * elems.size(), -1);
    int next = 0;
    for (size_t k = 0; k < verts.size(); ++k) {
        slotOffsets_[k] = next;
        const int v = verts[k];
        for (int q = m.vertexTets.begin(v); q < m.vertexTets.end(v); ++q) {
            const int item = m.vertexTets.items[size_t(q)];
            const int p = lane[size_t(item >> 2)];
            if (p >= 0) slotOf[4 * size_t(p) + size_t(item & 3)] = next++;
        }
    }
    slotOffsets_[verts.size()] = next;
    slots_.assign(size_t(next) + 1, Vec3d(0, 0, 0));
    blocks_.assign((elems.size() + kL - 1) / kL, TetLaneBlock{});
    damped_ = false;
    for (size_t p = 0; p < blocks_.size() * kL; ++p) {
        TetLaneBlock& b = blocks_[p / kL];
        const int l = int(p % kL);
        const int e = p < elems.size() ? elems[p] : -1;
        fillLane(m, b, l, e, next);
        if (e < 0) continue;
        damped_ = damped_ || m.kd[size_t(e)] > 0.f;
        for (int a = 0; a < 4; ++a)
            if (slotOf[4 * p + size_t(a)] >= 0) b.slot[a][l] = slotOf[4 * p + size_t(a)];
    }
}

double TetBatch::gradient(const std::vector<Vec3d>& x, const std::vector<Mat33d>& cprev, double h,
                          bool internal) {
    if (blocks_.empty()) return 0;
    const bool damped = internal && damped_;
    std::vector<double> change(blocks_.size(), 0.0);
    parallelFor(blocks_.size(), [&](size_t k) {
        for (int l0 = 0; l0 < kL; l0 += kW)
            change[k] = std::max(change[k], gradientLanes(blocks_[k], l0, &x[0].x, cprev, damped, h, internal,
                                                          slots_.data()));
    });
    return *std::max_element(change.begin(), change.end());
}

void TetBatch::markReference(const std::vector<Vec3d>& x) {
    parallelFor(blocks_.size(), [&](size_t k) {
        TetLaneBlock& b = blocks_[k];
        for (int l0 = 0; l0 < kL; l0 += kW) {
            const Mat33T<P> F = lanesF(b, l0, &x[0].x);
            for (int q = 0; q < 9; ++q)
                for (int l = 0; l < kW; ++l) b.Fref[q][l0 + l] = float(F.m[q / 3][q % 3][l]);
        }
    });
}

double TetBatch::deltaEnergy(const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                             const std::vector<Mat33d>& cprev, double h, bool internal) const {
    const bool damped = internal && damped_;
    const size_t groups = (blocks_.size() + kSumBlocks - 1) / kSumBlocks;
    return reduceSum<double>(
        groups,
        [&](size_t g) {
            double s = 0;
            const size_t end = std::min(blocks_.size(), (g + 1) * kSumBlocks);
            for (size_t k = g * kSumBlocks; k < end; ++k)
                for (int l0 = 0; l0 < kL; l0 += kW) deltaLanes(blocks_[k], l0, &x[0].x, &d[0].x, cprev, damped, h, internal, s);
            return s;
        },
        1);
}

}  // namespace vbd::coarse
