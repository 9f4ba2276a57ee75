#pragma once
// The per-body 6x6 Newton system of AVBD (seed, "Solving via Schur Complement"):
//
//   [ H_ll  H_al^T ] [dx]   [f_lin]
//   [ H_al  H_aa   ] [dw] = [f_ang]
//
// with H_ll = dF/dx (3x3, linear-linear), H_al = d(tau)/dx (angular-linear) and H_aa the angular
// block, all in world frame. Eliminating dx from the top row, dx = H_ll^{-1}(f_lin - H_al^T dw), and
// substituting into the bottom row gives the Schur complement system
//
//   S dw = f_ang - H_al H_ll^{-1} f_lin,   S = H_aa - H_al H_ll^{-1} H_al^T,
//
// two successive 3x3 SPD solves with the LDL^T factors of ldl33.h. Before factorizing, H_aa is
// regularized by 1e-9 (tr(H_aa)/3 + 1) on its diagonal, as the seed's solve_rigid_body does, so that
// a body whose angular block is (numerically) singular still gets a finite step.
#include "math/ldl33.h"

namespace vbd {

template <typename T>
struct Block66T {
    Mat33T<T> hll, hal, haa;  // H_ll, H_al (angular rows, linear columns), H_aa
    Vec3T<T> flin, fang;      // right-hand side: force and torque (minus the energy gradient)

    VBD_HD void clear() {
        hll = Mat33T<T>();
        hal = Mat33T<T>();
        haa = Mat33T<T>();
        flin = Vec3T<T>(T(0));
        fang = Vec3T<T>(T(0));
    }
};

// Solves the block system. Returns false (dx = dw = 0) when H_ll or the Schur complement is not
// numerically positive definite; a body then keeps its pose this sweep.
template <typename T>
VBD_HD bool schurSolve66(Block66T<T> b, Vec3T<T>& dx, Vec3T<T>& dw) {
    dx = Vec3T<T>(T(0));
    dw = Vec3T<T>(T(0));
    const T eps = T(1e-9) * (b.haa.trace() / T(3) + T(1));
    b.haa.m[0][0] += eps;
    b.haa.m[1][1] += eps;
    b.haa.m[2][2] += eps;
    const Ldl33T<T> lm = ldl33(b.hll);
    if (!lm.ok) return false;
    // X = H_ll^{-1} H_al^T column by column: column c of H_al^T is row c of H_al.
    Mat33T<T> minvCt = Mat33T<T>::fromCols(ldl33Solve(lm, b.hal.row(0)), ldl33Solve(lm, b.hal.row(1)),
                                           ldl33Solve(lm, b.hal.row(2)));
    Mat33T<T> s = b.haa - b.hal * minvCt;
    // S is symmetric in exact arithmetic; symmetrize so ldl33 (which reads the lower triangle)
    // sees the average of both rounding errors.
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < r; ++c) s.m[r][c] = s.m[c][r] = T(0.5) * (s.m[r][c] + s.m[c][r]);
    const Ldl33T<T> ls = ldl33(s);
    if (!ls.ok) return false;
    Vec3T<T> w = ldl33Solve(ls, b.fang - b.hal * ldl33Solve(lm, b.flin));
    Vec3T<T> x = ldl33Solve(lm, b.flin - b.hal.transposed() * w);
    if (!isFinite(w) || !isFinite(x)) return false;
    dw = w;
    dx = x;
    return true;
}

using Block66 = Block66T<float>;
using Block66d = Block66T<double>;

}  // namespace vbd
