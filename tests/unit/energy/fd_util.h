#pragma once
// Shared helpers for finite-difference tests of per-vertex energies (double precision).
#include <array>
#include <random>

#include "math/mat33.h"

namespace vbdtest {

using vbd::Mat33d;
using vbd::Vec3d;

inline Vec3d randomVec(std::mt19937& rng, double s = 1.0) {
    std::uniform_real_distribution<double> u(-s, s);
    return {u(rng), u(rng), u(rng)};
}

// A random, reasonably shaped rest tet (det > 0) and its Dm^{-1} and volume.
struct RestTet {
    std::array<Vec3d, 4> X;
    Mat33d DmInv;
    double volume;
};

inline RestTet randomRestTet(std::mt19937& rng) {
    for (;;) {
        RestTet t;
        t.X[0] = Vec3d(0, 0, 0);
        t.X[1] = Vec3d(1, 0, 0) + randomVec(rng, 0.3);
        t.X[2] = Vec3d(0, 1, 0) + randomVec(rng, 0.3);
        t.X[3] = Vec3d(0, 0, 1) + randomVec(rng, 0.3);
        Mat33d Dm = Mat33d::fromCols(t.X[1] - t.X[0], t.X[2] - t.X[0], t.X[3] - t.X[0]);
        double d = Dm.det();
        if (d < 0.2) continue;
        t.DmInv = vbd::inverse(Dm);
        t.volume = d / 6.0;
        return t;
    }
}

// Central-difference Jacobian of a vertex force, the block -d f / d x_a that the analytic Hessian block
// must match: column c = -(force(x + h e_ac) - force(x - h e_ac)) / (2 h), x the stencil's positions
// (an array of Vec3d), force(y) the vertex force at positions y. Error O(h^2) plus roundoff ~eps f / h.
template <typename Positions, typename Force>
Mat33d fdForceJacobian(const Positions& x, int a, double h, const Force& force) {
    Mat33d J;
    for (int c = 0; c < 3; ++c) {
        Positions xp = x, xm = x;
        xp[size_t(a)][c] += h;
        xm[size_t(a)][c] -= h;
        const Vec3d fp = force(xp), fm = force(xm);
        for (int r = 0; r < 3; ++r) J(r, c) = -(fp[r] - fm[r]) / (2 * h);
    }
    return J;
}

// Smallest eigenvalue of a symmetric 3x3 (closed form, trigonometric).
inline double minEigenSym(const Mat33d& A) {
    const double p1 = A(0, 1) * A(0, 1) + A(0, 2) * A(0, 2) + A(1, 2) * A(1, 2);
    const double q = A.trace() / 3.0;
    if (p1 == 0) return std::min(A(0, 0), std::min(A(1, 1), A(2, 2)));
    const double p2 = (A(0, 0) - q) * (A(0, 0) - q) + (A(1, 1) - q) * (A(1, 1) - q) +
                      (A(2, 2) - q) * (A(2, 2) - q) + 2 * p1;
    const double p = std::sqrt(p2 / 6.0);
    Mat33d B = (A - Mat33d::diag(q)) * (1.0 / p);
    double r = B.det() / 2.0;
    r = std::max(-1.0, std::min(1.0, r));
    const double phi = std::acos(r) / 3.0;
    const double e1 = q + 2 * p * std::cos(phi);
    const double e3 = q + 2 * p * std::cos(phi + 2.0 * M_PI / 3.0);
    (void)e1;
    return e3;
}

inline double maxAbs(const Mat33d& A) {
    double m = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m = std::max(m, std::fabs(A(i, j)));
    return m;
}

}  // namespace vbdtest
