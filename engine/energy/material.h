#pragma once
// Material constants. Users give Young's modulus E and Poisson ratio nu; the stable Neo-Hookean energy
// needs its own parameters. Matching the small-strain limit of
//   psi(F) = mu/2 (|F|^2 - 3) + lambda/2 (J - alpha)^2,  alpha = 1 + mu/lambda
// to linear elasticity: at F = I the Hessian is mu(d_ik d_jl) + lambda cof(I)(x)cof(I) + s d2J/dF2 with
// s = lambda(1 - alpha) = -mu and d2J/dF2|_I = d_ij d_kl - d_il d_jk, i.e.
//   mu (d_ik d_jl + d_il d_jk) + (lambda - mu) d_ij d_kl,
// which equals the linear tensor mu_L (d_ik d_jl + d_il d_jk) + lambda_L d_ij d_kl iff mu = mu_L and
// lambda = lambda_L + mu_L (the seed's lambda_NH = lambda_Lame + mu_Lame).
#include <cmath>

#include "math/hd.h"

namespace vbd {

struct Lame {
    double mu = 0, lambda = 0;
};

inline Lame lameFromYoungPoisson(double E, double nu) {
    return {E / (2.0 * (1.0 + nu)), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))};
}

// Neo-Hookean (mu, lambda) from textbook Lame constants, lambda guarded away from 0 (seed, sanity check 1:
// alpha = 1 + mu/lambda needs lambda != 0): |lambda| >= 1e-6 mu keeps alpha finite.
inline Lame neoHookeanFromLame(const Lame& l) {
    double lam = l.lambda + l.mu;
    const double eps = 1e-6 * (l.mu > 0 ? l.mu : 1.0);
    if (std::fabs(lam) < eps) lam = lam < 0 ? -eps : eps;
    return {l.mu, lam};
}

}  // namespace vbd
