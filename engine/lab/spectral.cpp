#include "lab/spectral.h"

#include <algorithm>
#include <cmath>

namespace vbd::lab {

Eigen::MatrixXd gaussSeidelMatrix(const Eigen::MatrixXd& A, int bs) {
    const int n = int(A.rows()), nb = n / bs;
    Eigen::MatrixXd DL = Eigen::MatrixXd::Zero(n, n), U = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < nb; ++i)
        for (int j = 0; j < nb; ++j)
            (j <= i ? DL : U).block(i * bs, j * bs, bs, bs) = A.block(i * bs, j * bs, bs, bs);
    // U = L^T for symmetric A. D + L is block lower triangular with SPD diagonal blocks: invertible.
    return -DL.partialPivLu().solve(U);
}

double spectralRadius(const Eigen::MatrixXd& M) {
    Eigen::EigenSolver<Eigen::MatrixXd> es(M, false);
    return es.eigenvalues().cwiseAbs().maxCoeff();
}

double cgFactor(double kappa) {
    const double s = std::sqrt(kappa);
    return (s - 1.0) / (s + 1.0);
}

namespace {

double norm2(const Eigen::MatrixXd& B) {
    if (B.size() == 1) return std::abs(B(0, 0));
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(B);
    return svd.singularValues()(0);
}

}  // namespace

BlockDominance blockDominance(const Eigen::MatrixXd& A, int bs) {
    const int nb = int(A.rows()) / bs;
    std::vector<Eigen::MatrixXd> isq(static_cast<size_t>(nb));  // D_i^{-1/2}
    std::vector<double> dinv(static_cast<size_t>(nb));          // ||D_i^{-1}||_2 = 1 / lambda_min(D_i)
    for (int i = 0; i < nb; ++i) {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A.block(i * bs, i * bs, bs, bs));
        isq[size_t(i)] = es.operatorInverseSqrt();
        dinv[size_t(i)] = 1.0 / es.eigenvalues()(0);
    }
    BlockDominance out;
    out.whitened.assign(size_t(nb), 0.0);
    out.fv.assign(size_t(nb), 0.0);
    for (int i = 0; i < nb; ++i) {
        double sw = 0, sa = 0;
        for (int j = 0; j < nb; ++j) {
            if (j == i) continue;
            const Eigen::MatrixXd Aij = A.block(i * bs, j * bs, bs, bs);
            if (Aij.cwiseAbs().maxCoeff() == 0.0) continue;
            sw += norm2(isq[size_t(i)] * Aij * isq[size_t(j)]);
            sa += norm2(Aij);
        }
        out.whitened[size_t(i)] = sw;
        out.fv[size_t(i)] = dinv[size_t(i)] * sa;
        out.maxWhitened = std::max(out.maxWhitened, sw);
        out.maxFv = std::max(out.maxFv, out.fv[size_t(i)]);
    }
    return out;
}

int predictedSweeps(double rate, double tol) {
    if (rate <= 0.0) return 1;
    if (rate >= 1.0) return -1;
    return std::max(1, int(std::ceil(std::log(tol) / std::log(rate))));
}

int predictedCgIterations(double kappa, double tol, int n) {
    const double q = cgFactor(kappa);
    if (q <= 0.0) return 1;
    const int k = int(std::ceil(std::log(tol / 2.0) / std::log(q)));
    return std::max(1, std::min(n, k));
}

}  // namespace vbd::lab
