#include "coarse/element_matrix.h"

#include "energy/tet_energy.h"

namespace vbd::coarse {

namespace {

Mat9d toEigen(const Mat9T<double>& H) {
    return Eigen::Map<const Eigen::Matrix<double, 9, 9, Eigen::RowMajor>>(H.data());
}

Mat9T<double> fromEigen(const Mat9d& H) {
    Mat9T<double> r;
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j) r.m[i][j] = H(i, j);
    return r;
}

Mat12d symmetricPart(const Mat12T<double>& A) {
    const Mat12d E = Eigen::Map<const Eigen::Matrix<double, 12, 12, Eigen::RowMajor>>(A.data());
    return 0.5 * (E + E.transpose());
}

}  // namespace

Mat9d projectPsd(const Mat9d& H, int* clipped) {
    Mat9d Hs = 0.5 * (H + H.transpose());
    // A successful Cholesky of Hs + delta I proves every eigenvalue of Hs above -delta, where the projection
    // changes Hs by at most delta: a 9x9 LLT^T is ~10x cheaper than the eigen solve, which then only runs for
    // indefinite blocks. delta = 1e-12 x the largest diagonal entry is the round-off threshold used below, so
    // semidefinite blocks (stress-free tets: rotations are zero modes) also skip the eigen solve.
    const double delta = 1e-12 * Hs.diagonal().cwiseAbs().maxCoeff();
    if (Eigen::LLT<Mat9d>(Hs + delta * Mat9d::Identity()).info() == Eigen::Success) return Hs;
    Eigen::SelfAdjointEigenSolver<Mat9d> es(Hs);
    Eigen::Matrix<double, 9, 1> w = es.eigenvalues();
    const double big = w.cwiseAbs().maxCoeff();
    int n = 0;
    for (int i = 0; i < 9; ++i)
        if (w(i) < 0) {
            if (w(i) < -1e-12 * big) ++n;
            w(i) = 0;
        }
    if (clipped) *clipped += n;
    if (n == 0) return Hs;
    return es.eigenvectors() * w.asDiagonal() * es.eigenvectors().transpose();
}

Mat33d deformationGradient(const SoftModel& m, int e, const std::vector<Vec3d>& x) {
    const auto& t = m.tets[size_t(e)];
    return tetDeformationGradient(x[size_t(t[0])], x[size_t(t[1])], x[size_t(t[2])], x[size_t(t[3])],
                                  Mat33d(m.DmInv[size_t(e)]));
}

Mat9d elementHessianF(const SoftModel& m, int e, const Mat33d& F, ElementMatrixKind kind,
                      DampingModel damping, double h, int* clipped) {
    const size_t k = size_t(e);
    const double mu = m.mu[k], lam = m.lambda[k], kd = m.kd[k];
    const Mat9d He = toEigen(neoHookeanHessian9(F, mu, lam));
    // At F = I the stable Neo-Hookean Hessian is PSD (mu (I - d2J) + lambda g g^T): no projection.
    Mat9d H = kind == ElementMatrixKind::Rest ? He : projectPsd(He, clipped);
    if (damping == DampingModel::Internal && kd > 0) H += toEigen(internalDampingHessian9(F, mu, lam, kd, h));
    return H;
}

Mat12d elementMatrix(const SoftModel& m, int e, ElementMatrixKind kind, DampingModel damping, double h,
                     const std::vector<Vec3d>& x, int* clipped) {
    const size_t k = size_t(e);
    const Mat33d F = kind == ElementMatrixKind::Rest ? Mat33d::identity() : deformationGradient(m, e, x);
    const Mat9d H = elementHessianF(m, e, F, kind, damping, h, clipped);
    // Naive damping is a vertex potential of the coarse G (TetEnergyCache::setNaiveDamping): its block comes
    // with the vertex terms, not here.
    return symmetricPart(tetElementMatrix(fromEigen(H), Mat33d(m.DmInv[k]), double(m.volume[k])));
}

Mat12d restStiffness(const SoftModel& m, int e) {
    const size_t k = size_t(e);
    const Mat9T<double> H = neoHookeanHessian9(Mat33d::identity(), double(m.mu[k]), double(m.lambda[k]));
    return symmetricPart(tetElementMatrix(H, Mat33d(m.DmInv[k]), double(m.volume[k])));
}

}  // namespace vbd::coarse
