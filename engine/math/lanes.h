#pragma once
// Branch-free forms of the value branches in the element math templated on its scalar (energy/membrane.h,
// energy/bending.h), so that the same source also runs on SIMD packs, one element per lane. For a scalar a
// comparison is a bool and these are the plain operations; backend/simd.h overloads them lane-wise for packs
// (a comparison of packs is a lane mask, select picks per lane). Like anyPositive (math/any_positive.h), a
// call in the math finds the pack overload by argument-dependent lookup.
//
// A branch rewritten as select(c, a, b) evaluates both sides: the side not taken must be finite (guard its
// divisor, e.g. a / select(c, d, 1)), so that a lane that does not take it still yields an exact value.
#include <cmath>
#include <utility>

#include "math/vec3.h"

namespace vbd {

VBD_HD float select(bool c, float a, float b) { return c ? a : b; }
VBD_HD double select(bool c, double a, double b) { return c ? a : b; }
template <typename C, typename T>
VBD_HD Vec3T<T> select(const C& c, const Vec3T<T>& a, const Vec3T<T>& b) {
    return {select(c, a.x, b.x), select(c, a.y, b.y), select(c, a.z, b.z)};
}

// Whether the condition holds in any lane (for a scalar: whether it holds). A branch the scalar code takes on
// a value stays a branch, taken by a pack when one of its lanes needs it; inside it the lanes that do not add
// exact zeros (a select). Keeping the branch keeps the scalar code's instructions, and with them the FMA
// contractions GCC chooses, so the scalar kernel's results stay bit-identical.
VBD_HD bool anyLane(bool c) { return c; }
// The form for a SIMD lane mask (backend/simd.h, simd::Mask: int32 lanes). Declared here, before the math
// that calls it, because a mask is a builtin vector type, which argument-dependent lookup associates with no
// namespace; only types with lanes (c[0]) take it.
template <typename M, typename = decltype(std::declval<const M&>()[0])>
inline bool anyLane(const M& c) {
    for (int l = 0; l < int(sizeof(M) / sizeof(c[0])); ++l)
        if (c[l] != 0) return true;
    return false;
}

// max(x, 0), with x > 0 ? x : 0 (a NaN gives 0).
VBD_HD float maxZero(float x) { return x > 0.f ? x : 0.f; }
VBD_HD double maxZero(double x) { return x > 0.0 ? x : 0.0; }

VBD_HD float absOf(float x) { return std::fabs(x); }
VBD_HD double absOf(double x) { return std::fabs(x); }

VBD_HD float sqrtOf(float x) { return std::sqrt(x); }
VBD_HD double sqrtOf(double x) { return std::sqrt(x); }

VBD_HD float atan2Of(float y, float x) { return std::atan2(y, x); }
VBD_HD double atan2Of(double y, double x) { return std::atan2(y, x); }

}  // namespace vbd
