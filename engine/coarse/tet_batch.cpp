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

// The Vec3d at gs + x3[l] += (gx, gy, gz) of lane l, for the lanes whose bit is set in `lanes` (distinct
// vertices: one color).
VBD_SIMD_INLINE void scatterAdd(const Vec3T<P>& ga, const int32_t* x3, unsigned lanes, double* gs) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    if constexpr (kW == 8) {
        // The transpose of gatherVec: lanes (x y z 0) two per register, then a 3-double load-add-store per
        // lane (extracting 24 scalars went through the stack).
        const __mmask8 all = 0xFF;
        const __m512d zero = _mm512_setzero_pd();
        __m512d c[3];
        std::memcpy(&c[0], &ga.x.v, sizeof(c[0]));
        std::memcpy(&c[1], &ga.y.v, sizeof(c[1]));
        std::memcpy(&c[2], &ga.z.v, sizeof(c[2]));
        const __m512d t0 = _mm512_maskz_unpacklo_pd(all, c[0], c[1]),
                      t1 = _mm512_maskz_unpackhi_pd(all, c[0], c[1]);
        const __m512d t2 = _mm512_maskz_unpacklo_pd(all, c[2], zero),
                      t3 = _mm512_maskz_unpackhi_pd(all, c[2], zero);
        const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
        const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
        // u[0]: lanes 0, 2; u[1]: 1, 3; u[2]: 4, 6; u[3]: 5, 7.
        const __m512d u[4] = {
            _mm512_maskz_permutex2var_pd(all, t0, lo, t2), _mm512_maskz_permutex2var_pd(all, t1, lo, t3),
            _mm512_maskz_permutex2var_pd(all, t0, hi, t2), _mm512_maskz_permutex2var_pd(all, t1, hi, t3)};
        for (int l = 0; l < 8; ++l) {
            if (!(lanes >> l & 1u)) continue;
            const __m512d& w = u[(l & 1) + 2 * (l >> 2)];
            const __m256d add = (l & 2) ? _mm512_maskz_extractf64x4_pd(__mmask8(0xF), w, 1)
                                        : _mm512_maskz_extractf64x4_pd(__mmask8(0xF), w, 0);
            double* p = gs + x3[l];
            _mm256_mask_storeu_pd(p, __mmask8(7), _mm256_add_pd(_mm256_maskz_loadu_pd(__mmask8(7), p), add));
        }
        return;
    }
#endif
    for (int l = 0; l < kW; ++l)
        if (lanes >> l & 1u) {
            gs[x3[l]] += ga.x[l];
            gs[x3[l] + 1] += ga.y[l];
            gs[x3[l] + 2] += ga.z[l];
        }
}

// F (gather = x) or dF (gather = d) of the lanes from l0: Ds Dm^{-1}.
VBD_SIMD_INLINE Mat33T<P> lanesF(const TetLaneBlock& b, int l0, const double* pos) {
    return tetDeformationGradient(gatherVec(pos, &b.x3[0][l0]), gatherVec(pos, &b.x3[1][l0]),
                                  gatherVec(pos, &b.x3[2][l0]), gatherVec(pos, &b.x3[3][l0]),
                                  loadMat(b.Dinv, l0));
}

// c9: the block's lanes of TetBatch::c9_.
VBD_SIMD_INLINE Mat33T<P> lanesCprev(const int32_t* c9, int l0, const std::vector<Mat33d>& cprev,
                                     bool damped) {
    Mat33T<P> C;
    if (!damped) return C;
    const I o = simd::load<int32_t, kW>(c9 + l0);
    const double* base = &cprev[0].m[0][0];
    for (int k = 0; k < 9; ++k) C.m[k / 3][k % 3] = simd::gather<double, kW>(base + k, o);
    return C;
}

VBD_SIMD_INLINE TetConstants<P> lanesConstants(const TetLaneBlock& b, int l0) {
    return {simd::load<double, kW>(&b.V[l0]), simd::load<double, kW>(&b.mu[l0]),
            simd::load<double, kW>(&b.lambda[l0]), simd::load<double, kW>(&b.kd[l0])};
}

// One pack of the gradient pass: F, the stress, the four vertex gradients added to their vertices' sums;
// returns the lanes' largest |F - F_ref|^2. Damped (internal damping with some k_d > 0) is a template
// argument: the undamped variant then holds no damping terms (register pressure: fewer spills), and equals
// the damped one with k_d = 0 on every lane, which skips them.
template <bool Damped>
[[gnu::flatten]] double gradientLanes(const TetLaneBlock& b, const TetLaneReference& ref, const int32_t* c9,
                                      int l0, const double* xs, const std::vector<Mat33d>& cprev, double h,
                                      double* gs) {
    const Mat33T<P> F = lanesF(b, l0, xs);
    // The watch first, so that F need not stay in registers through the stress and the scatter (fewer
    // spills).
    const P change = (F - loadMat(ref.F, l0)).frobenius2();
    const Mat33T<P> S = tetStress(F, lanesCprev(c9, l0, cprev, Damped), lanesConstants(b, l0), P(h), Damped);
    const Mat33T<P> Dinv = loadMat(b.Dinv, l0);
    for (int a = 0; a < 4; ++a)
        scatterAdd(S * tetVertexWeight(Dinv, a), &b.x3[a][l0], unsigned(b.gathered[a]) >> l0, gs);
    double most = 0;
    for (int l = 0; l < kW; ++l) most = std::max(most, change[l]);
    return most;
}

// One pack of the energy change: adds the lanes' tetEnergyDelta to s in lane order (Damped as above).
template <bool Damped>
[[gnu::flatten]] void deltaLanes(const TetLaneBlock& b, const int32_t* c9, int l0, const double* xs,
                                 const double* ds, const std::vector<Mat33d>& cprev, double h, P& s) {
    const P d = tetEnergyDelta(lanesF(b, l0, xs), lanesF(b, l0, ds), lanesCprev(c9, l0, cprev, Damped),
                               lanesConstants(b, l0), P(h), Damped);
    s += d;
}

// Lane l of b is tet e (e < 0: padding); `gathered` per vertex.
void fillLane(const SoftModel& m, TetLaneBlock& b, int l, int e, const std::vector<char>& gathered) {
    for (int a = 0; a < 4; ++a) {
        const int v = e >= 0 ? m.tets[size_t(e)][size_t(a)] : 0;
        b.x3[a][l] = 3 * v;
        if (l == 0) b.gathered[a] = 0;
        if (e >= 0 && gathered[size_t(v)]) b.gathered[a] = uint8_t(b.gathered[a] | (1u << l));
    }
    for (int k = 0; k < 9; ++k) b.Dinv[k][l] = e >= 0 ? m.DmInv[size_t(e)](k / 3, k % 3) : 0.f;
    b.V[l] = e >= 0 ? m.volume[size_t(e)] : 0.f;
    b.mu[l] = e >= 0 ? m.mu[size_t(e)] : 1.f;
    b.lambda[l] = e >= 0 ? m.lambda[size_t(e)] : 1.f;
    b.kd[l] = e >= 0 ? m.kd[size_t(e)] : 0.f;
}

// Greedy coloring in the order of elems: each tet takes the first color none of its vertices has.
std::vector<std::vector<int>> colorTets(const SoftModel& m, const std::vector<int>& elems) {
    std::vector<std::vector<int>> colors;
    std::vector<std::vector<char>> used;  // per color, per vertex
    for (int e : elems) {
        size_t c = 0;
        auto taken = [&](size_t k) {
            for (int v : m.tets[size_t(e)])
                if (used[k][size_t(v)]) return true;
            return false;
        };
        while (c < colors.size() && taken(c)) ++c;
        if (c == colors.size()) {
            colors.emplace_back();
            used.emplace_back(size_t(m.numVertices()), 0);
        }
        colors[c].push_back(e);
        for (int v : m.tets[size_t(e)]) used[c][size_t(v)] = 1;
    }
    return colors;
}

}  // namespace

void TetBatch::build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& gathered) {
    tets_ = int(elems.size());
    std::vector<char> isGathered(size_t(m.numVertices()), 0);
    for (int v : gathered) isGathered[size_t(v)] = !m.fixed[size_t(v)];
    blocks_.clear();
    c9_.clear();
    colorStart_.assign(1, 0);
    damped_ = false;
    for (const std::vector<int>& color : colorTets(m, elems)) {
        const size_t first = blocks_.size();
        blocks_.resize(first + (color.size() + kL - 1) / kL);
        for (size_t p = 0; p < (blocks_.size() - first) * kL; ++p) {
            const int e = p < color.size() ? color[p] : -1;
            fillLane(m, blocks_[first + p / kL], int(p % kL), e, isGathered);
            c9_.push_back(9 * std::max(e, 0));
            damped_ = damped_ || (e >= 0 && m.kd[size_t(e)] > 0.f);
        }
        colorStart_.push_back(blocks_.size());
    }
    change_.assign(blocks_.size(), 0.0);
    ref_.assign(blocks_.size(), TetLaneReference{});
}

double TetBatch::addGradient(const std::vector<Vec3d>& x, const std::vector<Mat33d>& cprev, double h,
                             bool internal, std::vector<Vec3d>& g) {
    if (blocks_.empty()) return 0;
    const bool damped = internal && damped_;
    for (size_t c = 0; c + 1 < colorStart_.size(); ++c) {
        const size_t b0 = colorStart_[c];
        parallelFor(colorStart_[c + 1] - b0, [&](size_t k) {
            const size_t bk = b0 + k;
            double most = 0;
            for (int l0 = 0; l0 < kL; l0 += kW)
                most = std::max(most, damped ? gradientLanes<true>(blocks_[bk], ref_[bk], &c9_[bk * kL], l0,
                                                                   &x[0].x, cprev, h, &g[0].x)
                                             : gradientLanes<false>(blocks_[bk], ref_[bk], &c9_[bk * kL], l0,
                                                                    &x[0].x, cprev, h, &g[0].x));
            change_[bk] = most;
        });
    }
    return *std::max_element(change_.begin(), change_.end());
}

void TetBatch::markReference(const std::vector<Vec3d>& x) {
    parallelFor(blocks_.size(), [&](size_t k) {
        for (int l0 = 0; l0 < kL; l0 += kW) {
            const Mat33T<P> F = lanesF(blocks_[k], l0, &x[0].x);
            for (int q = 0; q < 9; ++q)
                for (int l = 0; l < kW; ++l) ref_[k].F[q][l0 + l] = float(F.m[q / 3][q % 3][l]);
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
            P s(0.0);
            const size_t end = std::min(blocks_.size(), (g + 1) * kSumBlocks);
            for (size_t k = g * kSumBlocks; k < end; ++k)
                for (int l0 = 0; l0 < kL; l0 += kW) {
                    if (damped)
                        deltaLanes<true>(blocks_[k], &c9_[k * kL], l0, &x[0].x, &d[0].x, cprev, h, s);
                    else
                        deltaLanes<false>(blocks_[k], &c9_[k * kL], l0, &x[0].x, &d[0].x, cprev, h, s);
                }
            return simd::sum(s);
        },
        1);
}

}  // namespace vbd::coarse
