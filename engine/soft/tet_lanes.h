#pragma once
// Tets evaluated once per tet, kLanes at a time on SIMD packs (backend/simd.h), their vertex terms added
// straight into per-vertex sums: the one layout and scatter for every per-tet pass (the coarse correction's
// gradient and energy change, coarse/tet_batch.h; the solver's residual, soft/tet_residual.h). The sweep
// itself needs each vertex's terms alone and reads its per-incidence TetBlocks instead (soft_model.h).
//
// Layout (TetLanes, soft_model.h): blocks of kLanes tets as structure of arrays, a lane per tet (the model's
// single-precision rest data, read into lanes of the caller's scalar as it is used: a block is under 1 KB,
// and a pass streams the blocks, so their size is its memory traffic). The tets are colored so that no two of
// one color share a vertex, and ordered by color, each color padded to whole blocks (padding lanes have
// volume 0 and write nothing). A pass adds each tet's four vertex terms straight into the per-vertex sums,
// color after color: within a color no two lanes or blocks touch one vertex, so blocks run in parallel
// without atomics, and each vertex receives its terms in color order, the same for any thread count. (Writing
// the 4 x 24 bytes of every tet to per-incidence slots and gathering them per vertex streamed twice the
// batch's size through memory.)
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/parallel.h"
#include "backend/simd.h"
#include "energy/tet_energy.h"
#include "soft/soft_model.h"

namespace vbd {

// Lanes per pack in scalar T: a native register of T, at most a block.
template <typename T>
constexpr int kTetLaneWidth = simd::nativeLanes<T>(TetLaneBlock::kLanes);

template <typename T, int W>
VBD_SIMD_INLINE Mat33T<simd::Pack<T, W>> loadLaneMat(const float (&a)[9][TetLaneBlock::kLanes], int l0) {
    Mat33T<simd::Pack<T, W>> M;
    for (int k = 0; k < 9; ++k) M.m[k / 3][k % 3] = simd::load<T, W>(&a[k][l0]);
    return M;
}

template <typename T, int W>
VBD_SIMD_INLINE TetConstants<simd::Pack<T, W>> loadLaneConstants(const TetLaneBlock& b, int l0) {
    return {simd::load<T, W>(&b.V[l0]), simd::load<T, W>(&b.mu[l0]), simd::load<T, W>(&b.lambda[l0]),
            simd::load<T, W>(&b.kd[l0])};
}

// The three registers of a transposed load (x, y and z of every lane) as a Vec3T of packs.
template <typename T, int W, typename R>
VBD_SIMD_INLINE Vec3T<simd::Pack<T, W>> columnsOf(const R (&c)[3]) {
    static_assert(sizeof(R) == sizeof(simd::Pack<T, W>), "one register per pack");
    Vec3T<simd::Pack<T, W>> v;
    for (int k = 0; k < 3; ++k) std::memcpy(&v[k].v, &c[k], sizeof(c[k]));
    return v;
}

// Lane l: the Vec3T<T> at base + idx[l] (idx holds 3 x vertex index). Reads exactly the 3 W values
// (masked loads: the last vertex of an array may end at its page); tests/scene/test_lane_gather.cpp.
template <typename T, int W>
VBD_SIMD_INLINE Vec3T<simd::Pack<T, W>> gatherLaneVec(const T* base, const int32_t* idx) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    if constexpr (std::is_same_v<T, double> && W == 8) {
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
        return columnsOf<T, W>(c);
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same_v<T, double> && W == 4) {
        // The sweep's 4-double packs (soft/tet_blocks.h kTetLanes): (x y z 0) per lane, a 4 x 4 transpose.
        auto row = [&](int l) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
            return _mm256_maskz_loadu_pd(__mmask8(7), base + idx[l]);
#else
            return _mm256_maskload_pd(base + idx[l], _mm256_setr_epi64x(-1, -1, -1, 0));
#endif
        };
        const __m256d r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
        const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        const __m256d c[3] = {_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                              _mm256_permute2f128_pd(t0, t2, 0x31)};
        return columnsOf<T, W>(c);
    }
    if constexpr (std::is_same_v<T, float> && W == 8) {
        // The same transpose for eight floats: (x y z 0) of v_l and v_{l+4} in the two halves of a register,
        // then a 4 x 4 transpose within each half. With three 8-lane gathers per vertex instead, the float
        // sweep (increment form: two arrays per vertex) took 1.45x as long (bench_soft BM_Sweep, 10k beam,
        // Zen 4).
        auto two = [&](int l) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
            const __m128 lo = _mm_maskz_loadu_ps(__mmask8(7), base + idx[l]);
            const __m128 hi = _mm_maskz_loadu_ps(__mmask8(7), base + idx[l + 4]);
#else
            const __m128i m3 = _mm_setr_epi32(-1, -1, -1, 0);
            const __m128 lo = _mm_maskload_ps(base + idx[l], m3), hi = _mm_maskload_ps(base + idx[l + 4], m3);
#endif
            return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
        };
        const __m256 r0 = two(0), r1 = two(1), r2 = two(2), r3 = two(3);
        const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        const __m256 c[3] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xEE),
                             _mm256_shuffle_ps(t1, t3, 0x44)};
        return columnsOf<T, W>(c);
    }
#endif
    const simd::Pack<int32_t, W> o = simd::load<int32_t, W>(idx);
    return {simd::gather<T, W>(base, o), simd::gather<T, W>(base + 1, o), simd::gather<T, W>(base + 2, o)};
}

// Four = false: the Vec3T<T> at gs + x3[l] += (gx, gy, gz) of lane l; Four = true: the T[4] at gs + 4 v +=
// (gx, gy, gz, w) of lane l, v = x3[l] / 3 (a per-vertex sum and one more quantity in one 32-byte record).
// For the lanes whose bit is set in `lanes` (distinct vertices: one color).
template <typename T, int W, bool Four>
VBD_SIMD_INLINE void scatterAddLanesOf(const Vec3T<simd::Pack<T, W>>& ga, const simd::Pack<T, W>& w,
                                       const int32_t* x3, unsigned lanes, T* gs) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    if constexpr (std::is_same_v<T, double> && W == 8) {
        // The transpose of gatherLaneVec: lanes (x y z w) two per register (w = 0 for three), then a 3- or
        // 4-double load-add-store per lane (extracting 24 scalars went through the stack).
        const __mmask8 all = 0xFF, keep = Four ? 0xF : 7;
        __m512d c[4];
        std::memcpy(&c[0], &ga.x.v, sizeof(c[0]));
        std::memcpy(&c[1], &ga.y.v, sizeof(c[1]));
        std::memcpy(&c[2], &ga.z.v, sizeof(c[2]));
        if constexpr (Four)
            std::memcpy(&c[3], &w.v, sizeof(c[3]));
        else
            c[3] = _mm512_setzero_pd();
        const __m512d t0 = _mm512_maskz_unpacklo_pd(all, c[0], c[1]),
                      t1 = _mm512_maskz_unpackhi_pd(all, c[0], c[1]);
        const __m512d t2 = _mm512_maskz_unpacklo_pd(all, c[2], c[3]),
                      t3 = _mm512_maskz_unpackhi_pd(all, c[2], c[3]);
        const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
        const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
        // u[0]: lanes 0, 2; u[1]: 1, 3; u[2]: 4, 6; u[3]: 5, 7.
        const __m512d u[4] = {
            _mm512_maskz_permutex2var_pd(all, t0, lo, t2), _mm512_maskz_permutex2var_pd(all, t1, lo, t3),
            _mm512_maskz_permutex2var_pd(all, t0, hi, t2), _mm512_maskz_permutex2var_pd(all, t1, hi, t3)};
        for (int l = 0; l < 8; ++l) {
            if (!(lanes >> l & 1u)) continue;
            const __m512d& v = u[(l & 1) + 2 * (l >> 2)];
            const __m256d add = (l & 2) ? _mm512_maskz_extractf64x4_pd(__mmask8(0xF), v, 1)
                                        : _mm512_maskz_extractf64x4_pd(__mmask8(0xF), v, 0);
            double* p = gs + (Four ? x3[l] / 3 * 4 : x3[l]);
            _mm256_mask_storeu_pd(p, keep, _mm256_add_pd(_mm256_maskz_loadu_pd(keep, p), add));
        }
        return;
    }
#endif
    for (int l = 0; l < W; ++l)
        if (lanes >> l & 1u) {
            T* p = gs + (Four ? x3[l] / 3 * 4 : x3[l]);
            p[0] += ga.x[l];
            p[1] += ga.y[l];
            p[2] += ga.z[l];
            if constexpr (Four) p[3] += w[l];
        }
}

template <typename T, int W>
VBD_SIMD_INLINE void scatterAddLanes(const Vec3T<simd::Pack<T, W>>& ga, const int32_t* x3, unsigned lanes,
                                     T* gs) {
    scatterAddLanesOf<T, W, false>(ga, simd::Pack<T, W>(T(0)), x3, lanes, gs);
}

}  // namespace vbd
