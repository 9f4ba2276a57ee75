#include "coarse/rigid_coarse.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "backend/parallel.h"

namespace vbd::coarse {

namespace {

Eigen::Matrix3d skewOf(const Eigen::Vector3d& w) {
    Eigen::Matrix3d W;
    W << 0, -w(2), w(1), w(2), 0, -w(0), -w(1), w(0), 0;
    return W;
}

Vec9 vecOf(const Eigen::Matrix3d& A) {
    Vec9 v;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v(3 * i + j) = A(i, j);
    return v;
}

}  // namespace

RigidLayout buildRigidLayout(const SoftModel& m, const Basis& b) {
    RigidLayout L;
    const size_t n = size_t(m.numVertices());
    std::vector<std::vector<int>> comps(n);
    for (size_t q = 0; q < b.components.size(); ++q)
        for (int v : b.components[q].vertices) comps[size_t(v)].push_back(int(q));
    L.compOffsets.assign(n + 1, 0);
    for (size_t v = 0; v < n; ++v) {
        L.compOffsets[v + 1] = L.compOffsets[v] + int(comps[v].size());
        L.compItems.insert(L.compItems.end(), comps[v].begin(), comps[v].end());
        if (!comps[v].empty()) L.support.push_back(int(v));
    }
    L.evaluated.assign(m.tets.size(), 0);
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const int q = b.componentOfElement.empty() ? -1 : b.componentOfElement[e];
        bool touches = false, interior = q >= 0;
        for (int v : m.tets[e]) {
            const std::vector<int>& c = comps[size_t(v)];
            touches |= !c.empty();
            interior &= c.size() == 1 && c[0] == q;
        }
        if (interior) {
            ++L.interior;
        } else if (touches) {
            L.evaluated[e] = 1;
            L.elements.push_back(int(e));
        }
    }
    return L;
}

void componentCenters(const Basis& b, const std::vector<Eigen::Vector3d>& x,
                      std::vector<Eigen::Vector3d>& c) {
    c.resize(b.components.size());
    for (size_t q = 0; q < b.components.size(); ++q) {
        Eigen::Vector3d s = Eigen::Vector3d::Zero();
        for (int v : b.components[q].vertices) s += x[size_t(v)];
        c[q] = s / double(b.components[q].vertices.size());
    }
}

Eigen::VectorXd projectOnRigidModes(const Basis& b, const std::vector<Eigen::Vector3d>& centers,
                                    const std::vector<Eigen::Vector3d>& x,
                                    const std::vector<Eigen::Vector3d>& g) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(Eigen::Index(b.columns.size()));
    for (size_t q = 0; q < b.components.size(); ++q) {
        const StiffComponent& sc = b.components[q];
        Eigen::Vector3d t = Eigen::Vector3d::Zero(), w = Eigen::Vector3d::Zero();
        for (int v : sc.vertices) {
            t += g[size_t(v)];
            w += (x[size_t(v)] - centers[q]).cross(g[size_t(v)]);
        }
        r.segment<3>(sc.firstColumn) = t;
        r.segment<3>(sc.firstColumn + 3) = w / sc.radius;
    }
    return r;
}

Eigen::SparseMatrix<double> rotationCurvature(const Basis& b, const std::vector<Eigen::Vector3d>& centers,
                                              const std::vector<Eigen::Vector3d>& x,
                                              const std::vector<Eigen::Vector3d>& g, bool psdOnly) {
    const Eigen::Index n = Eigen::Index(b.columns.size());
    std::vector<Eigen::Triplet<double>> t;
    for (size_t q = 0; q < b.components.size(); ++q) {
        const StiffComponent& sc = b.components[q];
        Eigen::Matrix3d k = Eigen::Matrix3d::Zero();
        for (int v : sc.vertices) {
            const Eigen::Vector3d r = x[size_t(v)] - centers[q], gv = g[size_t(v)];
            k += 0.5 * (r * gv.transpose() + gv * r.transpose()) - gv.dot(r) * Eigen::Matrix3d::Identity();
        }
        k /= sc.radius * sc.radius;
        if (psdOnly) {
            Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(k);
            k = es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() *
                es.eigenvectors().transpose();
        }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                t.emplace_back(sc.firstColumn + 3 + i, sc.firstColumn + 3 + j, k(i, j));
    }
    Eigen::SparseMatrix<double> K(n, n);
    K.setFromTriplets(t.begin(), t.end());
    return K;
}

void rigidRetract(const Basis& b, const RigidLayout& L, const std::vector<Eigen::Vector3d>& centers,
                  const Eigen::VectorXd& z, double alpha, const std::vector<Eigen::Vector3d>& x,
                  std::vector<Eigen::Vector3d>& out, std::vector<Eigen::Vector3d>* disp) {
    // (R - I) r = sin(a) k x r + 2 sin^2(a/2) k x (k x r): no I + O(a) - I cancellation, so the displacement
    // is accurate relative to itself even for the 1e-10 rad rotations of late corrections.
    const size_t nc = b.components.size();
    std::vector<Eigen::Vector3d> t(nc), k(nc);
    std::vector<double> s1(nc), s2(nc);
    for (size_t q = 0; q < nc; ++q) {
        const StiffComponent& sc = b.components[q];
        t[q] = alpha * z.segment<3>(sc.firstColumn);
        const Eigen::Vector3d th = alpha * z.segment<3>(sc.firstColumn + 3) / sc.radius;
        const double a = th.norm();
        k[q] = a > 0 ? Eigen::Vector3d(th / a) : Eigen::Vector3d::Zero();
        s1[q] = std::sin(a);
        s2[q] = 2 * std::sin(0.5 * a) * std::sin(0.5 * a);
    }
    parallelFor(L.support.size(), [&](size_t j) {
        const size_t v = size_t(L.support[j]);
        Eigen::Vector3d d = Eigen::Vector3d::Zero();
        for (int i = L.compOffsets[v]; i < L.compOffsets[v + 1]; ++i) {
            const size_t q = size_t(L.compItems[size_t(i)]);
            const Eigen::Vector3d r = x[v] - centers[q], kr = k[q].cross(r);
            d += t[q] + s1[q] * kr + s2[q] * k[q].cross(kr);
        }
        out[v] = x[v] + d;
        if (disp) (*disp)[v] = d;
    });
}

Eigen::SparseMatrix<double> assembleRigid(const SoftModel& m, const Basis& b, const RigidLayout& L,
                                          const TetEnergyCache& cache, const std::vector<Eigen::Vector3d>& x,
                                          ElementMatrixKind kind, DampingModel damping, double h,
                                          int* clipped) {
    const Eigen::Index ncol = Eigen::Index(b.columns.size());
    // 6 x 6 blocks between components that share a tet or a vertex: sparse along component adjacency.
    std::map<std::pair<size_t, size_t>, Eigen::Matrix<double, 6, 6>> blocks;
    auto block = [&](size_t qi, size_t qj) -> Eigen::Matrix<double, 6, 6>& {
        auto it = blocks.find({qi, qj});
        if (it == blocks.end())
            it = blocks.emplace(std::make_pair(qi, qj), Eigen::Matrix<double, 6, 6>::Zero()).first;
        return it->second;
    };
    std::vector<Eigen::Vector3d> centers;
    componentCenters(b, x, centers);
    // F-space element Hessians H9 (in parallel: they are the cost), then a serial, ordered accumulation.
    const size_t ne = L.elements.size();
    std::vector<Mat9> H(ne);
    std::vector<int> clips(ne, 0);
    parallelFor(ne, [&](size_t k) {
        const size_t e = size_t(L.elements[k]);
        const auto& t = m.tets[e];
        Eigen::Matrix3d F = Eigen::Matrix3d::Identity();
        if (kind == ElementMatrixKind::ProjectedHessian) {
            F = edgeMatrix(t, x) * cache.restInverse(int(e));
        }
        const double mu = m.mu[e], lam = m.lambda[e], kd = m.kd[e];
        // At F = I the stable Neo-Hookean Hessian is PSD (mu (I - d2J) + lambda g g^T): no projection.
        H[k] = kind == ElementMatrixKind::Rest ? neoHookeanHessianF(F, mu, lam)
                                               : projectPsd(neoHookeanHessianF(F, mu, lam), &clips[k]);
        if (damping == DampingModel::Internal && kd > 0) H[k] += internalDampingHessianF(F, mu, lam, kd, h);
    });
    if (clipped)
        for (int c : clips) *clipped += c;
    for (size_t k = 0; k < ne; ++k) {
        const size_t e = size_t(L.elements[k]);
        const auto& t = m.tets[e];
        const Eigen::Matrix<double, 3, 4>& w = cache.weights(int(e));
        // Components touching the tet and, per component, s = sum m_a and S = sum (x_a - c) m_a^T over its
        // vertices in it: translation k has dF = e_k s^T, rotation k has dF = [e_k / L]_x S.
        int comp[16], nq = 0;
        for (int v : t)
            for (int i = L.compOffsets[size_t(v)]; i < L.compOffsets[size_t(v) + 1]; ++i) {
                const int q = L.compItems[size_t(i)];
                if (std::find(comp, comp + nq, q) == comp + nq && nq < 16) comp[nq++] = q;
            }
        Eigen::Matrix<double, 9, Eigen::Dynamic> dF(9, 6 * nq);
        for (int j = 0; j < nq; ++j) {
            const StiffComponent& sc = b.components[size_t(comp[j])];
            Eigen::Vector3d s = Eigen::Vector3d::Zero();
            Eigen::Matrix3d S = Eigen::Matrix3d::Zero();
            for (int a = 0; a < 4; ++a) {
                const size_t v = size_t(t[size_t(a)]);
                if (!std::binary_search(sc.vertices.begin(), sc.vertices.end(), int(v))) continue;
                s += w.col(a);
                S += (x[v] - centers[size_t(comp[j])]) * w.col(a).transpose();
            }
            for (int r = 0; r < 3; ++r) {
                dF.col(6 * j + r) = vecOf(Eigen::Vector3d::Unit(r) * s.transpose());
                dF.col(6 * j + 3 + r) = vecOf(skewOf(Eigen::Vector3d::Unit(r) / sc.radius) * S);
            }
        }
        const Eigen::MatrixXd Ce = double(m.volume[e]) * (dF.transpose() * (H[k] * dF));
        for (int j = 0; j < nq; ++j)
            for (int l = 0; l < nq; ++l)
                block(size_t(comp[j]), size_t(comp[l])) += Ce.block<6, 6>(6 * j, 6 * l);
    }
    // Inertia and vertex potentials (collider penalties, drag): U_v^T (m/h^2 I + H_v) U_v with
    // U_v = [I, -[(x_v - c)/L]_x] per component of v.
    for (int v : L.support) {
        Eigen::Matrix3d Hv = Eigen::Matrix3d::Identity() * (double(m.mass[size_t(v)]) / (h * h));
        Eigen::Vector3d unused = Eigen::Vector3d::Zero();
        cache.vertexPotential(m, size_t(v), x[size_t(v)], &unused, &Hv);
        const int i0 = L.compOffsets[size_t(v)], i1 = L.compOffsets[size_t(v) + 1];
        for (int i = i0; i < i1; ++i)
            for (int j = i0; j < i1; ++j) {
                const size_t qi = size_t(L.compItems[size_t(i)]), qj = size_t(L.compItems[size_t(j)]);
                Eigen::Matrix<double, 3, 6> Ui, Uj;
                Ui << Eigen::Matrix3d::Identity(),
                    -skewOf((x[size_t(v)] - centers[qi]) / b.components[qi].radius);
                Uj << Eigen::Matrix3d::Identity(),
                    -skewOf((x[size_t(v)] - centers[qj]) / b.components[qj].radius);
                block(qi, qj) += Ui.transpose() * Hv * Uj;
            }
    }
    // Symmetrized; every entry of a present block is stored (explicit zeros too), so the pattern is fixed
    // per factorization and the per-sweep curvature K (inside the diagonal blocks) does not change it.
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(blocks.size() * 36);
    for (const auto& [key, B] : blocks) {
        const auto it = blocks.find({key.second, key.first});
        Eigen::Matrix<double, 6, 6> S = B;
        if (it != blocks.end()) S = 0.5 * (B + it->second.transpose());
        const int r0 = b.components[key.first].firstColumn, c0 = b.components[key.second].firstColumn;
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) t.emplace_back(r0 + i, c0 + j, S(i, j));
    }
    Eigen::SparseMatrix<double> C(ncol, ncol);
    C.setFromTriplets(t.begin(), t.end());
    return C;
}

}  // namespace vbd::coarse
