#include "coarse/rigid_coarse.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "backend/parallel.h"

namespace vbd::coarse {

namespace {

Eigen::Matrix<double, 9, 1> vecOf(const Mat33d& A) {
    Eigen::Matrix<double, 9, 1> v;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v(3 * i + j) = A(i, j);
    return v;
}

Eigen::Matrix3d toEigen(const Mat33d& A) {
    Eigen::Matrix3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r(i, j) = A(i, j);
    return r;
}

Eigen::Vector3d toEigen(const Vec3d& v) { return {v.x, v.y, v.z}; }

Vec3d segment3(const Eigen::VectorXd& z, int i) { return {z(i), z(i + 1), z(i + 2)}; }

// U_v = [I, -[r / L]_x]: the displacement of a vertex at r from the centre per unit (t, theta).
Eigen::Matrix<double, 3, 6> rigidJacobian(const Vec3d& r, double L) {
    Eigen::Matrix<double, 3, 6> U;
    U << Eigen::Matrix3d::Identity(), -toEigen(skew(r / L));
    return U;
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

void componentCenters(const Basis& b, const std::vector<Vec3d>& x, std::vector<Vec3d>& c) {
    c.resize(b.components.size());
    for (size_t q = 0; q < b.components.size(); ++q) {
        Vec3d s(0, 0, 0);
        for (int v : b.components[q].vertices) s += x[size_t(v)];
        c[q] = s / double(b.components[q].vertices.size());
    }
}

Eigen::VectorXd projectOnRigidModes(const Basis& b, const std::vector<Vec3d>& centers,
                                    const std::vector<Vec3d>& x, const std::vector<Vec3d>& g) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(Eigen::Index(b.columns.size()));
    for (size_t q = 0; q < b.components.size(); ++q) {
        const StiffComponent& sc = b.components[q];
        Vec3d t(0, 0, 0), w(0, 0, 0);
        for (int v : sc.vertices) {
            t += g[size_t(v)];
            w += cross(x[size_t(v)] - centers[q], g[size_t(v)]);
        }
        r.segment<3>(sc.firstColumn) = toEigen(t);
        r.segment<3>(sc.firstColumn + 3) = toEigen(w / sc.radius);
    }
    return r;
}

Eigen::SparseMatrix<double> rotationCurvature(const Basis& b, const std::vector<Vec3d>& centers,
                                              const std::vector<Vec3d>& x, const std::vector<Vec3d>& g,
                                              bool psdOnly) {
    const Eigen::Index n = Eigen::Index(b.columns.size());
    std::vector<Eigen::Triplet<double>> t;
    for (size_t q = 0; q < b.components.size(); ++q) {
        const StiffComponent& sc = b.components[q];
        if (!sc.curvature) continue;
        Mat33d k;
        for (int v : sc.vertices) {
            const Vec3d r = x[size_t(v)] - centers[q], gv = g[size_t(v)];
            k += (outer(r, gv) + outer(gv, r)) * 0.5 - Mat33d::diag(dot(gv, r));
        }
        Eigen::Matrix3d K = toEigen(k) / (sc.radius * sc.radius);
        if (psdOnly) {
            Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(K);
            K = es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).asDiagonal() *
                es.eigenvectors().transpose();
        }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                t.emplace_back(sc.firstColumn + 3 + i, sc.firstColumn + 3 + j, K(i, j));
    }
    Eigen::SparseMatrix<double> K(n, n);
    K.setFromTriplets(t.begin(), t.end());
    return K;
}

void rigidMotions(const Basis& b, const Eigen::VectorXd& z, double alpha, RigidMotions& M) {
    const size_t nc = b.components.size();
    M.t.resize(nc);
    M.k.resize(nc);
    M.s1.resize(nc);
    M.s2.resize(nc);
    for (size_t q = 0; q < nc; ++q) {
        const StiffComponent& sc = b.components[q];
        M.t[q] = segment3(z, sc.firstColumn) * alpha;
        const Vec3d th = segment3(z, sc.firstColumn + 3) * (alpha / sc.radius);
        const double a = norm(th);
        M.k[q] = a > 0 ? th / a : Vec3d(0, 0, 0);
        M.s1[q] = std::sin(a);
        M.s2[q] = 2 * std::sin(0.5 * a) * std::sin(0.5 * a);
    }
}

namespace {

// f(v, d) for every support vertex v with its displacement d under alpha z.
template <typename F>
void forEachRigidDisplacement(const Basis& b, const RigidLayout& L, const std::vector<Vec3d>& centers,
                              const Eigen::VectorXd& z, double alpha, const std::vector<Vec3d>& x,
                              const F& f) {
    RigidMotions M;
    rigidMotions(b, z, alpha, M);
    parallelFor(L.support.size(), [&](size_t j) {
        const size_t v = size_t(L.support[j]);
        f(v, rigidDisplacementAt(L, M, centers, x, v));
    });
}

}  // namespace

void rigidRetract(const Basis& b, const RigidLayout& L, const std::vector<Vec3d>& centers,
                  const Eigen::VectorXd& z, double alpha, const std::vector<Vec3d>& x,
                  std::vector<Vec3d>& out, std::vector<Vec3d>* disp) {
    forEachRigidDisplacement(b, L, centers, z, alpha, x, [&](size_t v, const Vec3d& d) {
        out[v] = x[v] + d;
        if (disp) (*disp)[v] = d;
    });
}

void rigidDisplacement(const Basis& b, const RigidLayout& L, const std::vector<Vec3d>& centers,
                       const Eigen::VectorXd& z, double alpha, const std::vector<Vec3d>& x,
                       std::vector<Vec3d>& disp) {
    forEachRigidDisplacement(b, L, centers, z, alpha, x, [&](size_t v, const Vec3d& d) { disp[v] = d; });
}

namespace {

using Block66 = Eigen::Matrix<double, 6, 6>;
using BlockMap = std::map<std::pair<size_t, size_t>, Block66>;

Block66& blockAt(BlockMap& blocks, size_t qi, size_t qj) {
    auto it = blocks.find({qi, qj});
    if (it == blocks.end()) it = blocks.emplace(std::make_pair(qi, qj), Block66::Zero()).first;
    return it->second;
}

// The components touching tet e and, per component, dF/dz: translation k has dF = e_k s^T and rotation k
// dF = [e_k / L]_x S, with s = sum m_a and S = sum (x_a - c) m_a^T over the tet's vertices in the component.
int tetComponentJacobian(const SoftModel& m, const Basis& b, const RigidLayout& L,
                         const TetEnergyCache& cache, const std::vector<Vec3d>& x,
                         const std::vector<Vec3d>& centers, size_t e, int comp[16],
                         Eigen::Matrix<double, 9, Eigen::Dynamic>& dF) {
    const auto& t = m.tets[e];
    int nq = 0;
    for (int v : t)
        for (int i = L.compOffsets[size_t(v)]; i < L.compOffsets[size_t(v) + 1]; ++i) {
            const int q = L.compItems[size_t(i)];
            if (std::find(comp, comp + nq, q) == comp + nq && nq < 16) comp[nq++] = q;
        }
    dF.resize(9, 6 * nq);
    for (int j = 0; j < nq; ++j) {
        const StiffComponent& sc = b.components[size_t(comp[j])];
        Vec3d s(0, 0, 0);
        Mat33d S;
        for (int a = 0; a < 4; ++a) {
            const size_t v = size_t(t[size_t(a)]);
            if (!std::binary_search(sc.vertices.begin(), sc.vertices.end(), int(v))) continue;
            const Vec3d& w = cache.weight(int(e), a);
            s += w;
            S += outer(x[v] - centers[size_t(comp[j])], w);
        }
        for (int r = 0; r < 3; ++r) {
            Vec3d er(0, 0, 0);
            er[r] = 1;
            dF.col(6 * j + r) = vecOf(outer(er, s));
            dF.col(6 * j + 3 + r) = vecOf(skew(er / sc.radius) * S);
        }
    }
    return nq;
}

}  // namespace

Eigen::SparseMatrix<double> assembleRigid(const SoftModel& m, const Basis& b, const RigidLayout& L,
                                          const TetEnergyCache& cache, const std::vector<Vec3d>& x,
                                          ElementMatrixKind kind, DampingModel damping, double h,
                                          int* clipped) {
    const Eigen::Index ncol = Eigen::Index(b.columns.size());
    BlockMap blocks;  // 6 x 6 blocks between components sharing a tet or a vertex: sparse along adjacency
    std::vector<Vec3d> centers;
    componentCenters(b, x, centers);
    // F-space element Hessians H9 (in parallel: they are the cost), then a serial, ordered accumulation.
    const size_t ne = L.elements.size();
    std::vector<Mat9d> H(ne);
    std::vector<int> clips(ne, 0);
    parallelFor(ne, [&](size_t k) {
        const int e = L.elements[k];
        const Mat33d F =
            kind == ElementMatrixKind::ProjectedHessian ? deformationGradient(m, e, x) : Mat33d::identity();
        H[k] = elementHessianF(m, e, F, kind, damping, h, &clips[k]);
    });
    if (clipped)
        for (int c : clips) *clipped += c;
    Eigen::Matrix<double, 9, Eigen::Dynamic> dF;
    for (size_t k = 0; k < ne; ++k) {
        const size_t e = size_t(L.elements[k]);
        int comp[16];
        const int nq = tetComponentJacobian(m, b, L, cache, x, centers, e, comp, dF);
        const Eigen::MatrixXd Ce = double(m.volume[e]) * (dF.transpose() * (H[k] * dF));
        for (int j = 0; j < nq; ++j)
            for (int l = 0; l < nq; ++l)
                blockAt(blocks, size_t(comp[j]), size_t(comp[l])) += Ce.block<6, 6>(6 * j, 6 * l);
    }
    // Inertia and vertex potentials (collider penalties, drag): U_v^T (m/h^2 I + H_v) U_v per pair of the
    // vertex's components.
    for (int v : L.support) {
        Mat33d Hv = Mat33d::diag(double(m.mass[size_t(v)]) / (h * h));
        cache.vertexPotential(m, size_t(v), x[size_t(v)], nullptr, &Hv);
        const Eigen::Matrix3d He = toEigen(Hv);
        const int i0 = L.compOffsets[size_t(v)], i1 = L.compOffsets[size_t(v) + 1];
        for (int i = i0; i < i1; ++i)
            for (int j = i0; j < i1; ++j) {
                const size_t qi = size_t(L.compItems[size_t(i)]), qj = size_t(L.compItems[size_t(j)]);
                const auto Ui = rigidJacobian(x[size_t(v)] - centers[qi], b.components[qi].radius);
                const auto Uj = rigidJacobian(x[size_t(v)] - centers[qj], b.components[qj].radius);
                blockAt(blocks, qi, qj) += Ui.transpose() * He * Uj;
            }
    }
    // Symmetrized; every entry of a present block is stored (explicit zeros too), so the pattern is fixed per
    // factorization and the per-sweep curvature K (inside the diagonal blocks) does not change it.
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(blocks.size() * 36);
    for (const auto& [key, B] : blocks) {
        const auto it = blocks.find({key.second, key.first});
        Block66 S = B;
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
