#pragma once
// The per-vertex sums of the SIMD sweep against the scalar kernel's: two floating-point orders of a sum of n
// terms differ by at most 2 gamma_n sum_k |term_k| (gamma_n = n u / (1 - n u), Higham, Accuracy and
// Stability, eq. 4.4). AbsTermSums collects sum_k |term_k| per component of f and H and counts the terms.
#include <cmath>

#include "math/mat33.h"
#include "math/vec3.h"

namespace vbdtest {

template <typename T>
struct AbsTermSums {
    vbd::Vec3d f{0, 0, 0};
    vbd::Mat33d H;  // zero
    int terms = 0;
    void add(const vbd::Vec3T<T>& fk, const vbd::Mat33T<T>& Hk) {
        for (int c = 0; c < 3; ++c) f[c] += std::fabs(double(fk[c]));
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) H.m[r][c] += std::fabs(double(Hk.m[r][c]));
        ++terms;
    }
    // 2 gamma_n with n = terms + 2 (the final additions of the lane sums).
    double gamma(double u) const {
        const double n = terms + 2;
        return 2.0 * n * u / (1.0 - n * u);
    }
};

}  // namespace vbdtest
