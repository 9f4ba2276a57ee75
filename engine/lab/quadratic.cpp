#include "lab/quadratic.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vbd::lab {

double Quadratic::relativeErrorA(const Eigen::VectorXd& x) const {
    const Eigen::VectorXd e0 = x0 - xStar;
    const double n0 = std::sqrt(std::max(0.0, e0.dot(A * e0)));
    const Eigen::VectorXd e = x - xStar;
    const double n = std::sqrt(std::max(0.0, e.dot(A * e)));
    return n0 > 0 ? n / n0 : n;
}

Quadratic makeEllipse2d(double kappa, double angleDeg) {
    const double th = angleDeg * M_PI / 180.0;
    const double c = std::cos(th), s = std::sin(th);
    Quadratic q;
    q.A.resize(2, 2);
    q.A << c * c + kappa * s * s, (1.0 - kappa) * s * c, (1.0 - kappa) * s * c, s * s + kappa * c * c;
    q.b = Eigen::Vector2d::Zero();
    q.xStar = Eigen::Vector2d::Zero();
    const Eigen::Vector2d u1(c, s), u2(-s, c);
    q.x0 = 2.0 * u1 + (2.0 / std::sqrt(kappa)) * u2;
    q.blockSize = 1;
    return q;
}

double conditionNumber(const Eigen::MatrixXd& A) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A, Eigen::EigenvaluesOnly);
    const Eigen::VectorXd& l = es.eigenvalues();
    return l(l.size() - 1) / l(0);
}

namespace {

// splitmix64 -> uniform double in [0, 1) from the top 53 bits: the same stream on every platform.
struct Rng {
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    double gaussian() {  // Box-Muller; 1 - u keeps the log argument in (0, 1]
        const double u1 = 1.0 - uniform(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }
};

Eigen::MatrixXd randomRotation(int n, Rng& rng) {
    Eigen::MatrixXd g(n, n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) g(i, j) = rng.gaussian();
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
    Eigen::MatrixXd Q = qr.householderQ();
    // Fix the sign ambiguity of QR (diag(R) > 0) so Q is Haar-distributed, then make det = +1.
    const Eigen::MatrixXd R = qr.matrixQR().triangularView<Eigen::Upper>();
    for (int j = 0; j < n; ++j)
        if (R(j, j) < 0) Q.col(j) *= -1.0;
    if (Q.determinant() < 0) Q.col(0) *= -1.0;
    return Q;
}

}  // namespace

BlockSystem makeBlockSystem(const BlockSystemParams& p) {
    if (p.blocks < 2) throw std::invalid_argument("need at least 2 blocks");
    if (p.blockSize < 1) throw std::invalid_argument("block size must be >= 1");
    if (!(p.coupling >= 0.0 && p.coupling < 1.0)) throw std::invalid_argument("coupling must be in [0, 1)");
    if (!(p.kappa >= 1.0) || !std::isfinite(p.kappa)) throw std::invalid_argument("kappa must be >= 1");
    const int nb = p.blocks, bs = p.blockSize, n = nb * bs;
    Rng rng{p.seed};

    // Block graph: chain (connected, so -S is irreducible) plus each other pair with probability ~3/nb.
    Eigen::MatrixXd N = Eigen::MatrixXd::Zero(n, n);  // N = -S >= 0
    const double pEdge = std::min(1.0, 3.0 / nb);
    for (int i = 0; i < nb; ++i)
        for (int j = i + 1; j < nb; ++j) {
            const bool coupled = (j == i + 1) || rng.uniform() < pEdge;
            if (!coupled) continue;
            for (int r = 0; r < bs; ++r)
                for (int c = 0; c < bs; ++c) {
                    const double v = 1.0 - rng.uniform();  // (0, 1]: every entry of a coupled block nonzero
                    N(i * bs + r, j * bs + c) = v;
                    N(j * bs + c, i * bs + r) = v;
                }
        }
    // Perron root of the symmetric nonnegative N = its largest eigenvalue.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> esN(N, Eigen::EigenvaluesOnly);
    N /= esN.eigenvalues()(n - 1);
    const Eigen::MatrixXd At = Eigen::MatrixXd::Identity(n, n) - p.coupling * N;

    std::vector<Eigen::MatrixXd> Q;
    Q.reserve(size_t(nb));
    for (int i = 0; i < nb; ++i) Q.push_back(randomRotation(bs, rng));
    Eigen::VectorXd u(n);
    for (int k = 0; k < n; ++k) u(k) = rng.uniform();
    if (n > 1) u = (u.array() - u.minCoeff()) / std::max(1e-300, u.maxCoeff() - u.minCoeff());

    auto build = [&](double pe) {
        Eigen::MatrixXd G = Eigen::MatrixXd::Zero(n, n);
        for (int i = 0; i < nb; ++i)
            G.block(i * bs, i * bs, bs, bs) =
                (pe * u.segment(i * bs, bs)).array().exp().matrix().asDiagonal() * Q[size_t(i)];
        Eigen::MatrixXd A = G.transpose() * At * G;
        return Eigen::MatrixXd(0.5 * (A + A.transpose()));  // exactly symmetric
    };

    BlockSystem out;
    out.kappaUnscaled = conditionNumber(At);
    const double target = p.kappa;
    if (target < out.kappaUnscaled * (1.0 - 1e-12))
        throw std::invalid_argument(
            "kappa " + std::to_string(target) +
            " is below kappa(I + tS) = " + std::to_string(out.kappaUnscaled) +
            ", the smallest reachable at this coupling; raise kappa or lower the coupling");
    // kappa(G^T A~ G) >= kappa(G)^2 / kappa(A~) = exp(2p) / kappa(A~) (u spans [0, 1]), so this p_hi
    // brackets the target; bisection on the continuous kappa(p) then converges to it.
    double lo = 0, hi = 0.5 * std::log(target * out.kappaUnscaled) + 1.0;
    Eigen::MatrixXd A = build(0.0);
    if (target > out.kappaUnscaled * (1.0 + 1e-12)) {
        for (int it = 0; it < 200; ++it) {
            const double mid = 0.5 * (lo + hi);
            A = build(mid);
            const double k = conditionNumber(A);
            if (std::abs(k - target) <= 1e-10 * target) {
                lo = hi = mid;
                break;
            }
            (k < target ? lo : hi) = mid;
        }
        out.scaleExponent = 0.5 * (lo + hi);
        A = build(out.scaleExponent);
    }

    Quadratic& q = out.q;
    q.A = A;
    q.blockSize = bs;
    Eigen::VectorXd xs(n);
    for (int k = 0; k < n; ++k) xs(k) = 2.0 * rng.uniform() - 1.0;
    q.b = A * xs;
    q.xStar = A.llt().solve(q.b);
    q.x0 = Eigen::VectorXd::Zero(n);
    return out;
}

}  // namespace vbd::lab
