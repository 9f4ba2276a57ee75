#pragma once
// Small dense R x C matrix on host and device (row-major, m[r][c]), for the 9x9 Hessians with respect to
// vec(F) and the 12x12 tet element matrices. Only what those need: zero, identity, element access, a
// symmetric rank-1 update and B^T H B with the tet's sparse B (energy/tet_energy.h). Host code that needs
// factorizations maps the storage into Eigen (row-major, contiguous: sizeof = R*C*sizeof(T)).
#include "math/hd.h"

namespace vbd {

template <typename T, int R, int C>
struct MatNT {
    T m[R][C];

    VBD_HD static MatNT zero() {
        MatNT a;
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) a.m[r][c] = T(0);
        return a;
    }
    VBD_HD static MatNT identity(T s = T(1)) {
        MatNT a = zero();
        for (int r = 0; r < (R < C ? R : C); ++r) a.m[r][r] = s;
        return a;
    }
    VBD_HD T& operator()(int r, int c) { return m[r][c]; }
    VBD_HD T operator()(int r, int c) const { return m[r][c]; }
    VBD_HD const T* data() const { return &m[0][0]; }
    VBD_HD MatNT& operator+=(const MatNT& b) {
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) m[r][c] += b.m[r][c];
        return *this;
    }
    VBD_HD MatNT& operator*=(T s) {
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) m[r][c] *= s;
        return *this;
    }
};

template <typename T>
using Mat9T = MatNT<T, 9, 9>;
template <typename T>
using Mat12T = MatNT<T, 12, 12>;

}  // namespace vbd
