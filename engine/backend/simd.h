#pragma once
// SIMD packs for the CPU kernels: Pack<T, W> is W lanes of T (float, double or int32) with the arithmetic the
// VBD_HD math uses (+ - * /, broadcasts from scalars), so a kernel templated on its scalar runs on packs as
// it is -- one source for the scalar path, the CUDA kernels and the SIMD sweep. Built on GCC/Clang vector
// extensions: the compiler lowers a pack to the widest registers the target ISA has (SSE2, AVX2, AVX-512),
// and to several registers or scalars where it has none, so the same code is also the portable fallback.
// Gathers use intrinsics where the ISA has them (AVX2, AVX-512), a lane loop otherwise.
//
// CPU only: never included by a file nvcc compiles.
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include <cmath>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define VBD_SIMD_INLINE inline __attribute__((always_inline))

namespace vbd::simd {

// Width of the target's widest vector register (bytes) and its name (the build's ISA, VBD_NATIVE).
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
constexpr const char* kIsa = "avx512";
#elif defined(__AVX2__)
constexpr int kVectorBytes = 32;
constexpr const char* kIsa = "avx2";
#elif defined(__SSE2__)
constexpr int kVectorBytes = 16;
constexpr const char* kIsa = "sse2";
#else
constexpr int kVectorBytes = 8;
constexpr const char* kIsa = "scalar";
#endif

// Lanes of T in one native register, at most maxLanes.
template <typename T>
constexpr int nativeLanes(int maxLanes) {
    const int n = kVectorBytes / int(sizeof(T));
    return n < 1 ? 1 : (n > maxLanes ? maxLanes : n);
}

template <typename T, int W>
struct Pack {
    typedef T Vec __attribute__((vector_size(W * sizeof(T))));
    Vec v;

    Pack() = default;
    VBD_SIMD_INLINE Pack(T s) : v(Vec{} + s) {}  // NOLINT(google-explicit-constructor): broadcast, as T(0)
    VBD_SIMD_INLINE static Pack fromVec(Vec x) {
        Pack p;
        p.v = x;
        return p;
    }
    VBD_SIMD_INLINE T operator[](int l) const { return v[l]; }

    VBD_SIMD_INLINE Pack operator+(const Pack& b) const { return fromVec(v + b.v); }
    VBD_SIMD_INLINE Pack operator-(const Pack& b) const { return fromVec(v - b.v); }
    VBD_SIMD_INLINE Pack operator*(const Pack& b) const { return fromVec(v * b.v); }
    VBD_SIMD_INLINE Pack operator/(const Pack& b) const { return fromVec(v / b.v); }
    VBD_SIMD_INLINE Pack operator-() const { return fromVec(-v); }
    VBD_SIMD_INLINE Pack& operator+=(const Pack& b) {
        v += b.v;
        return *this;
    }
    VBD_SIMD_INLINE Pack& operator-=(const Pack& b) {
        v -= b.v;
        return *this;
    }
    VBD_SIMD_INLINE Pack& operator*=(const Pack& b) {
        v *= b.v;
        return *this;
    }
};

// Scalar on the left (T(2) * p, as the math writes it).
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> operator*(T s, const Pack<T, W>& p) {
    return Pack<T, W>(s) * p;
}
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> operator+(T s, const Pack<T, W>& p) {
    return Pack<T, W>(s) + p;
}
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> operator-(T s, const Pack<T, W>& p) {
    return Pack<T, W>(s) - p;
}

namespace detail {
template <typename T, int W, class Get, std::size_t... L>
VBD_SIMD_INLINE Pack<T, W> lanesOf(const Get& get, std::index_sequence<L...>) {
    return Pack<T, W>::fromVec(typename Pack<T, W>::Vec{get(int(L))...});
}
}  // namespace detail

// The pack whose lane l is get(l), built from scalars in registers (a lane loop through memory would stall
// on store forwarding when the pack is read back).
template <typename T, int W, class Get>
VBD_SIMD_INLINE Pack<T, W> lanesOf(const Get& get) {
    return detail::lanesOf<T, W>(get, std::make_index_sequence<size_t(W)>());
}

// Whether any lane is > 0 (a branch the math takes per scalar, e.g. "damping on", taken for all lanes when
// one needs it: lanes with 0 then add exact zeros).
template <typename T, int W>
VBD_SIMD_INLINE bool anyPositive(const Pack<T, W>& p) {
    for (int l = 0; l < W; ++l)
        if (p.v[l] > T(0)) return true;
    return false;
}

// Int32 lanes of a comparison (-1 true, 0 false), e.g. idx.v == 0.
template <int W>
using Mask = typename Pack<int32_t, W>::Vec;

// Lane-wise c ? a : b.
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> select(const Mask<W>& c, const Pack<T, W>& a, const Pack<T, W>& b) {
    typedef typename Pack<T, W>::Vec V;
    // The mask widened to T's lane size: -1 / 0 in an integer of sizeof(T) bytes.
    typedef std::conditional_t<sizeof(T) == 8, int64_t, int32_t> I;
    typedef I IV __attribute__((vector_size(W * sizeof(T))));
    const IV m = __builtin_convertvector(c, IV);
    IV ai, bi;
    std::memcpy(&ai, &a.v, sizeof(V));
    std::memcpy(&bi, &b.v, sizeof(V));
    const IV r = (ai & m) | (bi & ~m);
    V out;
    std::memcpy(&out, &r, sizeof(V));
    return Pack<T, W>::fromVec(out);
}

// Lane-wise comparisons as masks (the overloads of the scalar comparisons in the math: math/lanes.h). The
// vector comparison gives lanes of T's size; the mask narrows them to int32 (select widens them back).
#define VBD_SIMD_COMPARE(op)                                                        \
    template <typename T, int W>                                                    \
    VBD_SIMD_INLINE Mask<W> operator op(const Pack<T, W>& a, const Pack<T, W>& b) { \
        return __builtin_convertvector(a.v op b.v, Mask<W>);                        \
    }
VBD_SIMD_COMPARE(>)
VBD_SIMD_COMPARE(<=)
VBD_SIMD_COMPARE(!=)
#undef VBD_SIMD_COMPARE

// The pack forms of math/lanes.h (anyLane of a mask is there: a mask is a builtin vector type).
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> maxZero(const Pack<T, W>& p) {
    return select(p > Pack<T, W>(T(0)), p, Pack<T, W>(T(0)));
}

// |p| per lane, as std::fabs: the sign bit cleared (-0 gives +0, NaN stays NaN).
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> absOf(const Pack<T, W>& p) {
    typedef std::conditional_t<sizeof(T) == 8, int64_t, int32_t> I;
    typedef I IV __attribute__((vector_size(W * sizeof(T))));
    IV bits;
    std::memcpy(&bits, &p.v, sizeof(IV));
    bits &= IV{} + std::numeric_limits<I>::max();
    Pack<T, W> r;
    std::memcpy(&r.v, &bits, sizeof(IV));
    return r;
}

// Correctly rounded per lane (IEEE sqrt, like std::sqrt): the same bits as the scalar path.
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> sqrtOf(const Pack<T, W>& p) {
    Pack<T, W> r;
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, double> && W == 8) {
        __m512d x;
        std::memcpy(&x, &p.v, sizeof(x));
        x = _mm512_maskz_sqrt_pd(__mmask8(0xFF), x);  // the zero-masked form: GCC PR 105593, as gather
        std::memcpy(&r.v, &x, sizeof(x));
        return r;
    }
#endif
#if defined(__AVX__)
    if constexpr (std::is_same_v<T, double> && W == 4) {
        __m256d x;
        std::memcpy(&x, &p.v, sizeof(x));
        x = _mm256_sqrt_pd(x);
        std::memcpy(&r.v, &x, sizeof(x));
        return r;
    }
    if constexpr (std::is_same_v<T, float> && W == 8) {
        __m256 x;
        std::memcpy(&x, &p.v, sizeof(x));
        x = _mm256_sqrt_ps(x);
        std::memcpy(&r.v, &x, sizeof(x));
        return r;
    }
#endif
#if defined(__SSE2__)
    if constexpr (std::is_same_v<T, double> && W == 2) {
        __m128d x;
        std::memcpy(&x, &p.v, sizeof(x));
        x = _mm_sqrt_pd(x);
        std::memcpy(&r.v, &x, sizeof(x));
        return r;
    }
    if constexpr (std::is_same_v<T, float> && W == 4) {
        __m128 x;
        std::memcpy(&x, &p.v, sizeof(x));
        x = _mm_sqrt_ps(x);
        std::memcpy(&r.v, &x, sizeof(x));
        return r;
    }
#endif
    for (int l = 0; l < W; ++l) r.v[l] = std::sqrt(p.v[l]);
    return r;
}

// std::atan2 per lane (no vector atan2 in the toolchain; a few lanes per hinge).
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> atan2Of(const Pack<T, W>& y, const Pack<T, W>& x) {
    Pack<T, W> r;
    for (int l = 0; l < W; ++l) r.v[l] = std::atan2(y.v[l], x.v[l]);
    return r;
}

// W consecutive values (no alignment required) converted to T: float storage read into float or double lanes.
template <typename T, int W, typename S>
VBD_SIMD_INLINE Pack<T, W> load(const S* p) {
    typedef S SV __attribute__((vector_size(W * sizeof(S))));
    SV s;
    std::memcpy(&s, p, sizeof(SV));
    if constexpr (std::is_same_v<S, T>) {
        return Pack<T, W>::fromVec(s);
    }
#if defined(__AVX512F__)
    else if constexpr (std::is_same_v<S, float> && std::is_same_v<T, double> && W == 8) {
        // One vcvtps2pd zmm: GCC 12, tuning for 256-bit vectors, splits __builtin_convertvector into two
        // halves and an insert (13 such loads per tet pack in the sweep).
        __m256 f;
        std::memcpy(&f, &s, sizeof(f));
        const __m512d d = _mm512_maskz_cvtps_pd(__mmask8(0xFF), f);
        Pack<T, W> r;
        std::memcpy(&r.v, &d, sizeof(d));
        return r;
    }
#endif
#if defined(__AVX__)
    else if constexpr (std::is_same_v<S, float> && std::is_same_v<T, double> && W == 4) {
        // One vcvtps2pd ymm from memory: GCC 12 moved the four floats through the stack in two halves first
        // (13 such loads per 4-double tet pack in the sweep).
        const __m256d d = _mm256_cvtps_pd(_mm_loadu_ps(p));
        Pack<T, W> r;
        std::memcpy(&r.v, &d, sizeof(d));
        return r;
    }
#endif
    else
        return Pack<T, W>::fromVec(__builtin_convertvector(s, typename Pack<T, W>::Vec));
}

// Lane l = base[idx[l]].
template <typename T, int W>
VBD_SIMD_INLINE Pack<T, W> gather(const T* base, const Pack<int32_t, W>& idx) {
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, double> && W == 8) {
        __m256i i;
        std::memcpy(&i, &idx.v, sizeof(i));
        // The masked form with a zero source: GCC 12's unmasked one reads an undefined register (a false
        // -Wmaybe-uninitialized, GCC PR 105593).
        const __m512d r = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), __mmask8(0xFF), i, base, 8);
        Pack<T, W> p;
        std::memcpy(&p.v, &r, sizeof(r));
        return p;
    }
#endif
#if defined(__AVX2__)
    if constexpr (std::is_same_v<T, double> && W == 4) {
        __m128i i;
        std::memcpy(&i, &idx.v, sizeof(i));
        // Masked with a zero source and all lanes on, as above (GCC PR 105593; -Wuninitialized where
        // inlined).
        const __m256d r = _mm256_mask_i32gather_pd(_mm256_setzero_pd(), base, i,
                                                   _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8);
        Pack<T, W> p;
        std::memcpy(&p.v, &r, sizeof(r));
        return p;
    }
    if constexpr (std::is_same_v<T, float> && W == 8) {
        __m256i i;
        std::memcpy(&i, &idx.v, sizeof(i));
        const __m256 r = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, i,
                                                  _mm256_castsi256_ps(_mm256_set1_epi32(-1)), 4);
        Pack<T, W> p;
        std::memcpy(&p.v, &r, sizeof(r));
        return p;
    }
#endif
    Pack<T, W> p;
    for (int l = 0; l < W; ++l) p.v[l] = base[idx.v[l]];
    return p;
}

// Sum of the lanes, pairwise (lane l + lane l + W/2, recursively): a fixed order for a given W.
template <typename T, int W>
VBD_SIMD_INLINE T sum(const Pack<T, W>& p) {
    if constexpr (W == 1) {
        return p.v[0];
    } else if constexpr (W == 2) {
        return p.v[0] + p.v[1];
    } else {
        Pack<T, W / 2> lo, hi;
        std::memcpy(&lo.v, &p.v, sizeof(lo.v));
        std::memcpy(&hi.v, reinterpret_cast<const char*>(&p.v) + sizeof(lo.v), sizeof(hi.v));
        return sum(lo + hi);
    }
}

}  // namespace vbd::simd
