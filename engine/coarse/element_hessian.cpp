#include "coarse/element_hessian.h"

#include <cmath>

#include "energy/damping.h"
#include "soft/vertex_kernel.h"

namespace vbd::coarse {

namespace {

Eigen::Matrix3d toEigen(const Mat33& a) {
    Eigen::Matrix3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r(i, j) = double(a(i, j));
    return r;
}

Eigen::Matrix3d cofactorOf(const Eigen::Matrix3d& F) {
    Eigen::Matrix3d c;
    c.col(0) = F.col(1).cross(F.col(2));
    c.col(1) = F.col(2).cross(F.col(0));
    c.col(2) = F.col(0).cross(F.col(1));
    return c;
}

double levi(int i, int j, int k) { return double((i - j) * (j - k) * (k - i)) / 2.0; }

Vec9 vecOf(const Eigen::Matrix3d& A) {
    Vec9 v;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v(3 * i + j) = A(i, j);
    return v;
}

// Vertex weights m^a as the columns of a 3x4 matrix.
Eigen::Matrix<double, 3, 4> weights(const Mat33& DmInv) {
    const Eigen::Matrix3d D = toEigen(DmInv);
    Eigen::Matrix<double, 3, 4> m;
    for (int a = 1; a < 4; ++a) m.col(a) = D.row(a - 1).transpose();
    m.col(0) = -(m.col(1) + m.col(2) + m.col(3));
    return m;
}

}  // namespace

Mat9 neoHookeanHessianF(const Eigen::Matrix3d& F, double mu, double lambda) {
    const double J = F.determinant();
    const double s = lambda * (J - (1.0 + mu / lambda));
    const Vec9 g = vecOf(cofactorOf(F));
    Mat9 H = Mat9::Identity() * mu + lambda * g * g.transpose();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                for (int l = 0; l < 3; ++l) {
                    if (i == k || j == l) continue;  // eps_ikp eps_jlq vanish
                    const int p = 3 - i - k, q = 3 - j - l;
                    H(3 * i + j, 3 * k + l) += s * levi(i, k, p) * levi(j, l, q) * F(p, q);
                }
    return H;
}

Mat9 internalDampingHessianF(const Eigen::Matrix3d& F, double mu, double lambdaNH, double kd, double h) {
    const double lambdaL = lambdaNH - mu;
    Eigen::Matrix3d S[9];
    double tr[9];
    for (int k = 0; k < 9; ++k) {
        Eigen::Matrix3d E = Eigen::Matrix3d::Zero();
        E(k / 3, k % 3) = 1;
        const Eigen::Matrix3d M = F.transpose() * E;
        S[k] = 0.5 * (M + M.transpose());
        tr[k] = M.trace();
    }
    Mat9 H;
    for (int k = 0; k < 9; ++k)
        for (int l = 0; l < 9; ++l)
            H(k, l) = 2 * mu * (S[k].cwiseProduct(S[l])).sum() + lambdaL * tr[k] * tr[l];
    return H * (kd / h);
}

Mat9 projectPsd(const Mat9& H, int* clipped) {
    const Mat9 Hs = 0.5 * (H + H.transpose());
    // A successful Cholesky of Hs + delta I proves every eigenvalue of Hs above -delta, where the projection
    // changes Hs by at most delta: a 9x9 LLT^T is ~10x cheaper than the eigen solve, which then only runs for
    // indefinite blocks. delta = 1e-12 x the largest diagonal entry is the round-off threshold used below, so
    // semidefinite blocks (stress-free tets: rotations are zero modes) also skip the eigen solve.
    const double delta = 1e-12 * Hs.diagonal().cwiseAbs().maxCoeff();
    if (Eigen::LLT<Mat9>(Hs + delta * Mat9::Identity()).info() == Eigen::Success) return Hs;
    Eigen::SelfAdjointEigenSolver<Mat9> es(Hs);
    Vec9 w = es.eigenvalues();
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

Mat9x12 deformationJacobian(const Mat33& DmInv) {
    const Eigen::Matrix<double, 3, 4> m = weights(DmInv);
    Mat9x12 B = Mat9x12::Zero();
    for (int a = 0; a < 4; ++a)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) B(3 * i + j, 3 * a + i) = m(j, a);
    return B;
}

Eigen::Matrix3d cofactorMatrix(const Eigen::Matrix3d& F) { return cofactorOf(F); }

Eigen::Matrix3d edgeMatrix(const std::array<int, 4>& t, const std::vector<Eigen::Vector3d>& x) {
    Eigen::Matrix3d Ds;
    for (int c = 0; c < 3; ++c) Ds.col(c) = x[size_t(t[size_t(c + 1)])] - x[size_t(t[0])];
    return Ds;
}

Eigen::Matrix3d deformationGradient(const SoftModel& m, int e, const Vec3* x) {
    const auto& t = m.tets[size_t(e)];
    Eigen::Matrix3d Ds;
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 3; ++i) Ds(i, c) = double(x[t[size_t(c + 1)]][i]) - double(x[t[0]][i]);
    return Ds * toEigen(m.DmInv[size_t(e)]);
}

Mat12 elementMatrix(const SoftModel& m, int e, ElementMatrixKind kind, DampingModel damping, double h,
                    int* clipped, const std::vector<Eigen::Vector3d>* x) {
    const size_t k = size_t(e);
    Eigen::Matrix3d F = Eigen::Matrix3d::Identity();
    if (kind != ElementMatrixKind::Rest && !x) F = deformationGradient(m, e, m.x.data());
    if (kind != ElementMatrixKind::Rest && x) {
        const auto& t = m.tets[k];
        F = edgeMatrix(t, *x) * toEigen(m.DmInv[k]);
    }
    const double mu = m.mu[k], lam = m.lambda[k], kd = m.kd[k];
    Mat9 H = projectPsd(neoHookeanHessianF(F, mu, lam), clipped);
    if (damping == DampingModel::Internal && kd > 0) H += internalDampingHessianF(F, mu, lam, kd, h);
    const Mat9x12 B = deformationJacobian(m.DmInv[k]);
    Mat12 A = double(m.volume[k]) * (B.transpose() * H * B);
    if (damping == DampingModel::Naive && kd > 0) {
        // Jacobian of f_a = (k_d/h) K_aa (x_prev - x): block diagonal.
        for (int a = 0; a < 4; ++a) A.block<3, 3>(3 * a, 3 * a) *= 1.0 + kd / h;
    }
    return 0.5 * (A + A.transpose());
}

Mat12 restStiffness(const SoftModel& m, int e) {
    const size_t k = size_t(e);
    const Mat9 H = neoHookeanHessianF(Eigen::Matrix3d::Identity(), m.mu[k], m.lambda[k]);
    const Mat9x12 B = deformationJacobian(m.DmInv[k]);
    const Mat12 A = double(m.volume[k]) * (B.transpose() * H * B);
    return 0.5 * (A + A.transpose());
}

double potentialAndGradient(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, double h,
                            DampingModel damping, std::vector<Eigen::Vector3d>* grad) {
    const size_t n = x.size();
    if (grad) grad->assign(n, Eigen::Vector3d::Zero());
    double G = 0;
    TetEnergyCache penalties;  // collider penalties only (no drag): vertexPotential needs no cache data
    for (size_t i = 0; i < n; ++i) {
        if (m.fixed[i]) continue;
        const Eigen::Vector3d d = x[i] - Eigen::Vector3d(m.y[i].x, m.y[i].y, m.y[i].z);
        const double mh2 = double(m.mass[i]) / (h * h);
        G += 0.5 * mh2 * d.squaredNorm();
        if (grad) (*grad)[i] += mh2 * d;
        G += penalties.vertexPotential(m, i, x[i], grad ? &(*grad)[i] : nullptr, nullptr);
    }
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const auto& t = m.tets[e];
        Eigen::Matrix3d Ds, Dp;
        for (int c = 0; c < 3; ++c) {
            Ds.col(c) = x[size_t(t[size_t(c + 1)])] - x[size_t(t[0])];
            for (int i = 0; i < 3; ++i)
                Dp(i, c) = double(m.xPrev[size_t(t[size_t(c + 1)])][i]) - double(m.xPrev[size_t(t[0])][i]);
        }
        const Eigen::Matrix3d Dinv = toEigen(m.DmInv[e]);
        const Eigen::Matrix3d F = Ds * Dinv, Fp = Dp * Dinv;
        const double mu = m.mu[e], lam = m.lambda[e], V = m.volume[e], kd = m.kd[e];
        const double J = F.determinant(), alpha = 1.0 + mu / lam;
        G += V *
             (0.5 * mu * (F.squaredNorm() - 3) + 0.5 * lam * (J - alpha) * (J - alpha) - 0.5 * mu * mu / lam);
        Eigen::Matrix3d P = mu * F + lam * (J - alpha) * cofactorOf(F);
        if (damping == DampingModel::Internal && kd > 0) {
            const Eigen::Matrix3d Ed = (F.transpose() * F - Fp.transpose() * Fp) * (0.5 / h);
            const double tr = Ed.trace(), lamL = lam - mu;
            G += h * V * kd * (mu * Ed.squaredNorm() + 0.5 * lamL * tr * tr);
            const Eigen::Matrix3d Sd = kd * (2 * mu * Ed + lamL * tr * Eigen::Matrix3d::Identity());
            P += F * Sd;
        }
        if (!grad) continue;
        const Eigen::Matrix<double, 3, 4> w = weights(m.DmInv[e]);
        for (int a = 0; a < 4; ++a)
            if (!m.fixed[size_t(t[size_t(a)])]) (*grad)[size_t(t[size_t(a)])] += V * P * w.col(a);
    }
    return G;
}

}  // namespace vbd::coarse

#include "backend/parallel.h"

namespace vbd::coarse {

void TetEnergyCache::build(const SoftModel& m) {
    const size_t n = m.tets.size();
    Dinv_.resize(n);
    w_.resize(n);
    Cp_.assign(n, Eigen::Matrix3d::Identity());
    F_.assign(n, Eigen::Matrix3d::Identity());
    force_.resize(n);
    y_.assign(size_t(m.numVertices()), Eigen::Vector3d::Zero());
    for (size_t e = 0; e < n; ++e) {
        Dinv_[e] = toEigen(m.DmInv[e]);
        w_[e] = coarse::weights(m.DmInv[e]);
    }
    tets_ = int(n);
    verts_ = m.numVertices();
}

void TetEnergyCache::beginStep(const SoftModel& m, const std::vector<Eigen::Vector3d>& xPrev,
                               const std::vector<Eigen::Vector3d>& y) {
    y_ = y;
    parallelFor(m.tets.size(), [&](size_t e) {
        const auto& t = m.tets[e];
        const Eigen::Matrix3d Fp = edgeMatrix(t, xPrev) * Dinv_[e];
        Cp_[e] = Fp.transpose() * Fp;
    });
}

double TetEnergyCache::tetEnergy(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, size_t e,
                                 double h, bool internal, bool forces) const {
    const auto& t = m.tets[e];
    const Eigen::Matrix3d F = edgeMatrix(t, x) * Dinv_[e];
    const double mu = m.mu[e], lam = m.lambda[e], V = m.volume[e], kd = m.kd[e];
    const Eigen::Matrix3d cof = cofactorOf(F);
    const double J = F.col(0).dot(cof.col(0)), alpha = 1.0 + mu / lam;
    double G =
        V * (0.5 * mu * (F.squaredNorm() - 3) + 0.5 * lam * (J - alpha) * (J - alpha) - 0.5 * mu * mu / lam);
    Eigen::Matrix3d P = Eigen::Matrix3d::Zero();
    if (forces) P = mu * F + lam * (J - alpha) * cof;
    if (internal && kd > 0) {
        const Eigen::Matrix3d Ed = (F.transpose() * F - Cp_[e]) * (0.5 / h);
        const double tr = Ed.trace(), lamL = lam - mu;
        G += h * V * kd * (mu * Ed.squaredNorm() + 0.5 * lamL * tr * tr);
        if (forces) P += F * (kd * (2 * mu * Ed + lamL * tr * Eigen::Matrix3d::Identity()));
    }
    if (forces) {
        force_[e] = V * P * w_[e];
        F_[e] = F;
    }
    return G;
}

double TetEnergyCache::eval(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, double h,
                            DampingModel damping, std::vector<Eigen::Vector3d>* grad) const {
    const bool internal = damping == DampingModel::Internal;
    const double elastic = reduceSum<double>(
        m.tets.size(), [&](size_t e) { return tetEnergy(m, x, e, h, internal, grad != nullptr); });
    const double inertia = reduceSum<double>(x.size(), [&](size_t i) {
        if (m.fixed[i]) return 0.0;
        return 0.5 * double(m.mass[i]) / (h * h) * (x[i] - y_[i]).squaredNorm() +
               vertexPotential(m, i, x[i], nullptr, nullptr);
    });
    if (grad) {
        grad->resize(x.size());
        parallelFor(x.size(), [&](size_t i) { (*grad)[i] = vertexGradient(m, x, i, h, nullptr); });
    }
    return elastic + inertia;
}

double TetEnergyCache::evalElements(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                                    const std::vector<int>& elems, double h, DampingModel damping,
                                    bool forces) const {
    const bool internal = damping == DampingModel::Internal;
    return reduceSum<double>(
        elems.size(), [&](size_t k) { return tetEnergy(m, x, size_t(elems[k]), h, internal, forces); });
}

double TetEnergyCache::deltaEnergy(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                                   const std::vector<Eigen::Vector3d>& d, const std::vector<int>& elems,
                                   const std::vector<int>& verts, double h, DampingModel damping) const {
    const bool internal = damping == DampingModel::Internal;
    const double elastic = reduceSum<double>(elems.size(), [&](size_t k) {
        const size_t e = size_t(elems[k]);
        const auto& t = m.tets[e];
        const Eigen::Matrix3d F = edgeMatrix(t, x) * Dinv_[e], dF = edgeMatrix(t, d) * Dinv_[e];
        const double mu = m.mu[e], lam = m.lambda[e], V = m.volume[e], kd = m.kd[e];
        const double J = F.determinant(), alpha = 1.0 + mu / lam;
        const double dJ =
            cofactorOf(F).cwiseProduct(dF).sum() + F.cwiseProduct(cofactorOf(dF)).sum() + dF.determinant();
        double dG = V * (mu * (F.cwiseProduct(dF).sum() + 0.5 * dF.squaredNorm()) +
                         lam * dJ * (J - alpha + 0.5 * dJ));
        if (internal && kd > 0) {
            const Eigen::Matrix3d E = (F.transpose() * F - Cp_[e]) * (0.5 / h);
            const Eigen::Matrix3d dE =
                (F.transpose() * dF + dF.transpose() * F + dF.transpose() * dF) * (0.5 / h);
            const double lamL = lam - mu, tr = E.trace(), dtr = dE.trace();
            dG += h * V * kd * (mu * dE.cwiseProduct(2 * E + dE).sum() + lamL * dtr * (tr + 0.5 * dtr));
        }
        return dG;
    });
    const double inertia = reduceSum<double>(verts.size(), [&](size_t k) {
        const size_t i = size_t(verts[k]);
        if (m.fixed[i]) return 0.0;
        double dG = double(m.mass[i]) / (h * h) * (d[i].dot(x[i] - y_[i]) + 0.5 * d[i].squaredNorm());
        if (int(i) == dragVertex_ && dragK_ > 0)
            dG += dragK_ * (d[i].dot(x[i] - dragTarget_) + 0.5 * d[i].squaredNorm());
        // Penalties: a direct difference; they are small against the terms above (k/2 g^2 with g ~ mm).
        if (!m.colliders.empty()) {
            const Eigen::Vector3d xn = x[i] + d[i];
            dG += penalty(m, i, xn) - penalty(m, i, x[i]);
        }
        return dG;
    });
    return elastic + inertia;
}

double TetEnergyCache::penalty(const SoftModel& m, size_t i, const Eigen::Vector3d& x, Eigen::Vector3d* g,
                               Eigen::Matrix3d* H) const {
    double E = 0;
    const float off = m.numCloths > 0 && i < m.colliderOffset.size() ? m.colliderOffset[i] : 0.f;
    const Vec3d p(x.x(), x.y(), x.z());
    for (const ParticleCollider& c0 : m.colliders) {
        const ParticleCollider c = off > 0.f ? offsetCollider(c0, off) : c0;
        Vec3d n;
        const double gap = colliderDistance(c, p, n);
        if (!(gap < 0)) continue;
        const double k = double(c.stiffness);
        const Eigen::Vector3d ne(n.x, n.y, n.z);
        E += 0.5 * k * gap * gap;
        if (g) *g += k * gap * ne;
        if (H) *H += k * ne * ne.transpose();
    }
    return E;
}

double TetEnergyCache::vertexPotential(const SoftModel& m, size_t i, const Eigen::Vector3d& x,
                                       Eigen::Vector3d* g, Eigen::Matrix3d* H) const {
    double E = m.colliders.empty() ? 0.0 : penalty(m, i, x, g, H);
    if (int(i) == dragVertex_ && dragK_ > 0) {
        const Eigen::Vector3d r = x - dragTarget_;
        E += 0.5 * dragK_ * r.squaredNorm();
        if (g) *g += dragK_ * r;
        if (H) *H += dragK_ * Eigen::Matrix3d::Identity();
    }
    return E;
}

void TetEnergyCache::gatherGradient(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                                    const std::vector<int>& verts, const std::vector<char>& use, double h,
                                    std::vector<Eigen::Vector3d>& grad) const {
    grad.resize(x.size());
    parallelFor(verts.size(), [&](size_t k) {
        const size_t i = size_t(verts[k]);
        grad[i] = vertexGradient(m, x, i, h, &use);
    });
}

Eigen::Vector3d TetEnergyCache::vertexGradient(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                                               size_t i, double h, const std::vector<char>* use) const {
    Eigen::Vector3d g = Eigen::Vector3d::Zero();
    if (m.fixed[i]) return g;
    g = double(m.mass[i]) / (h * h) * (x[i] - y_[i]);
    vertexPotential(m, i, x[i], &g, nullptr);
    for (int q = m.vertexTets.begin(int(i)); q < m.vertexTets.end(int(i)); ++q) {
        const int item = m.vertexTets.items[size_t(q)];
        if (!use || (*use)[size_t(item >> 2)]) g += force_[size_t(item >> 2)].col(item & 3);
    }
    return g;
}

}  // namespace vbd::coarse
