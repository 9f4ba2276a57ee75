#include "coarse/energy_cache.h"

#include "backend/parallel.h"
#include "energy/damping.h"
#include "energy/tet_energy.h"
#include "soft/vertex_kernel.h"

namespace vbd::coarse {

namespace {

TetConstants<double> constantsOf(const SoftModel& m, size_t e) {
    return {double(m.volume[e]), double(m.mu[e]), double(m.lambda[e]), double(m.kd[e])};
}

Mat33d edgeMatrix(const std::array<int, 4>& t, const std::vector<Vec3d>& x) {
    return Mat33d::fromCols(x[size_t(t[1])] - x[size_t(t[0])], x[size_t(t[2])] - x[size_t(t[0])],
                            x[size_t(t[3])] - x[size_t(t[0])]);
}

}  // namespace

void TetEnergyCache::build(const SoftModel& m) {
    const size_t n = m.tets.size();
    Dinv_.resize(n);
    w_.resize(n);
    Cp_.assign(n, Mat33d::identity());
    F_.assign(n, Mat33d::identity());
    grad_.resize(n);
    y_.assign(size_t(m.numVertices()), Vec3d(0, 0, 0));
    for (size_t e = 0; e < n; ++e) {
        Dinv_[e] = Mat33d(m.DmInv[e]);
        for (int a = 0; a < 4; ++a) w_[e][size_t(a)] = tetVertexWeight(Dinv_[e], a);
    }
    tets_ = int(n);
    verts_ = m.numVertices();
}

void TetEnergyCache::beginStep(const SoftModel& m, const std::vector<Vec3d>& xPrev,
                               const std::vector<Vec3d>& y) {
    y_ = y;
    xPrev_ = xPrev;
    naiveStale_ = true;
    lagged_.clear();
    lagOffsets_.assign(size_t(m.numVertices()) + 1, 0);
    parallelFor(m.tets.size(), [&](size_t e) {
        const Mat33d Fp = edgeMatrix(m.tets[e], xPrev) * Dinv_[e];
        Cp_[e] = Fp.transposed() * Fp;
    });
}

double TetEnergyCache::tetEnergyAt(const SoftModel& m, const std::vector<Vec3d>& x, size_t e, double h,
                                   bool internal, bool forces) const {
    const Mat33d F = edgeMatrix(m.tets[e], x) * Dinv_[e];
    const TetConstants<double> c = constantsOf(m, e);
    if (forces) {
        const Mat33d P = tetStress(F, Cp_[e], c, h, internal);
        for (int a = 0; a < 4; ++a) grad_[e][size_t(a)] = P * w_[e][size_t(a)];
        F_[e] = F;
    }
    return tetEnergy(F, Cp_[e], c, h, internal);
}

double TetEnergyCache::eval(const SoftModel& m, const std::vector<Vec3d>& x, double h, DampingModel damping,
                            std::vector<Vec3d>* grad) const {
    const bool internal = damping == DampingModel::Internal;
    const double elastic = reduceSum<double>(
        m.tets.size(), [&](size_t e) { return tetEnergyAt(m, x, e, h, internal, grad != nullptr); });
    const double inertia = reduceSum<double>(x.size(), [&](size_t i) {
        if (m.fixed[i]) return 0.0;
        return 0.5 * double(m.mass[i]) / (h * h) * squaredNorm(x[i] - y_[i]) +
               vertexPotential(m, i, x[i], nullptr, nullptr);
    });
    if (grad) {
        grad->resize(x.size());
        parallelFor(x.size(), [&](size_t i) { (*grad)[i] = vertexGradient(m, x, i, h, nullptr); });
    }
    return elastic + inertia;
}

void TetEnergyCache::gradientElements(const SoftModel& m, const std::vector<Vec3d>& x,
                                      const std::vector<int>* elems, double h, DampingModel damping) const {
    const bool internal = damping == DampingModel::Internal;
    auto one = [&](size_t e) {
        const Mat33d F = edgeMatrix(m.tets[e], x) * Dinv_[e];
        const Mat33d P = tetStress(F, Cp_[e], constantsOf(m, e), h, internal);
        for (int a = 0; a < 4; ++a) grad_[e][size_t(a)] = P * w_[e][size_t(a)];
        F_[e] = F;
    };
    if (elems)
        parallelFor(elems->size(), [&](size_t k) { one(size_t((*elems)[k])); });
    else
        parallelFor(m.tets.size(), one);
}

double TetEnergyCache::evalElements(const SoftModel& m, const std::vector<Vec3d>& x,
                                    const std::vector<int>& elems, double h, DampingModel damping,
                                    bool forces) const {
    const bool internal = damping == DampingModel::Internal;
    return reduceSum<double>(
        elems.size(), [&](size_t k) { return tetEnergyAt(m, x, size_t(elems[k]), h, internal, forces); });
}

double TetEnergyCache::deltaEnergy(const SoftModel& m, const std::vector<Vec3d>& x,
                                   const std::vector<Vec3d>& d, const std::vector<int>& elems,
                                   const std::vector<int>& verts, double h, DampingModel damping,
                                   bool reuseF) const {
    const bool internal = damping == DampingModel::Internal;
    const double elastic = reduceSum<double>(elems.size(), [&](size_t k) {
        const size_t e = size_t(elems[k]);
        const Mat33d F = reuseF ? F_[e] : edgeMatrix(m.tets[e], x) * Dinv_[e];
        const Mat33d dF = edgeMatrix(m.tets[e], d) * Dinv_[e];
        return tetEnergyDelta(F, dF, Cp_[e], constantsOf(m, e), h, internal);
    });
    return elastic + vertexDeltaEnergy(m, x, d, verts, h);
}

double TetEnergyCache::vertexDeltaEnergy(const SoftModel& m, const std::vector<Vec3d>& x,
                                         const std::vector<Vec3d>& d, const std::vector<int>& verts,
                                         double h) const {
    return reduceSum<double>(verts.size(), [&](size_t k) {
        const size_t i = size_t(verts[k]);
        return vertexDelta(m, x, i, d[i], h);
    });
}

double TetEnergyCache::vertexPenaltyDelta(const SoftModel& m, size_t i, const Vec3d& xi,
                                          const Vec3d& di) const {
    return penalties(m, i, xi + di, nullptr, nullptr) - penalties(m, i, xi, nullptr, nullptr);
}

void TetEnergyCache::lagContacts(const SoftModel& m, const std::vector<Vec3d>& x, double h,
                                 const ContactParams& p) {
    lagH_ = h;
    lagDamping_ = p.dampingTime;
    lagEps_ = double(p.frictionEps) * h;
    lagged_.clear();
    if (m.colliders.empty()) {  // nothing to lag (laggedPotentials then reads no offsets)
        lagOffsets_.clear();
        return;
    }
    lagOffsets_.assign(x.size() + 1, 0);
    for (size_t i = 0; i < x.size(); ++i) {
        lagOffsets_[i] = int(lagged_.size());
        if (m.fixed[i]) continue;
        const float off = m.numCloths > 0 && i < m.colliderOffset.size() ? m.colliderOffset[i] : 0.f;
        for (const ParticleCollider& c0 : m.colliders) {
            const ParticleCollider c = off > 0.f ? offsetCollider(c0, off) : c0;
            Vec3d n;
            const double gap = colliderDistance(c, x[i], n);
            if (!(gap < 0)) continue;
            const double k = c.stiffness;
            lagged_.push_back({n, -k * gap, k, double(c.friction)});
        }
    }
    lagOffsets_[x.size()] = int(lagged_.size());
}

double TetEnergyCache::laggedPotentials(size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const {
    if (lagOffsets_.size() <= i + 1 || i >= xPrev_.size()) return 0;
    double E = 0;
    const Vec3d d = x - xPrev_[i];
    for (int q = lagOffsets_[i]; q < lagOffsets_[i + 1]; ++q) {
        const LaggedContact& c = lagged_[size_t(q)];
        const double gdot = dot(c.n, d) / lagH_;
        if (gdot < 0 && lagDamping_ > 0) {
            const double ck = lagDamping_ * c.k;
            E += 0.5 * ck * lagH_ * gdot * gdot;
            if (g) *g += c.n * (ck * gdot);
            if (H) *H += outer(c.n, c.n) * (ck / lagH_);
        }
        if (c.mu > 0 && c.lambda > 0) {
            const Vec3d u = d - c.n * dot(c.n, d);
            const double y = norm(u), e = lagEps_, ml = c.mu * c.lambda;
            const double F0 = y < e ? y * y / e - y * y * y / (3 * e * e) : y - e / 3;
            const double f1OverY = y < e ? 2 / e - y / (e * e) : 1 / y;
            E += ml * F0;
            if (g) *g += u * (ml * f1OverY);
            if (H) *H += (Mat33d::identity() - outer(c.n, c.n)) * (ml * f1OverY);
        }
    }
    return E;
}

double TetEnergyCache::penalties(const SoftModel& m, size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const {
    double E = laggedPotentials(i, x, g, H);
    const float off = m.numCloths > 0 && i < m.colliderOffset.size() ? m.colliderOffset[i] : 0.f;
    for (const ParticleCollider& c : m.colliders)
        E += colliderPenalty(off > 0.f ? offsetCollider(c, off) : c, x, g, H);
    return E;
}

void TetEnergyCache::setNaiveDamping(const SoftModel& m, bool on, double h) {
    if (!on) {
        naive_.clear();
        return;
    }
    if (!naiveStale_ && naiveH_ == h && naive_.size() == size_t(m.numVertices())) return;
    // Serial over the tets: each vertex's sum in the tets' order (deterministic); once per step.
    naive_.assign(size_t(m.numVertices()), Mat33d());
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const double kd = double(m.kd[e]);
        if (!(kd > 0)) continue;
        for (int a = 0; a < 4; ++a) {
            Vec3d f;
            Mat33d K;
            neoHookeanVertex(Mat33d::identity(), w_[e][size_t(a)], double(m.volume[e]), double(m.mu[e]),
                             double(m.lambda[e]), f, K);
            naive_[size_t(m.tets[e][size_t(a)])] += K * (kd / h);
        }
    }
    naiveH_ = h;
    naiveStale_ = false;
}

double TetEnergyCache::vertexPotential(const SoftModel& m, size_t i, const Vec3d& x, Vec3d* g,
                                       Mat33d* H) const {
    double E = m.colliders.empty() ? 0.0 : penalties(m, i, x, g, H);
    if (!naive_.empty()) {  // D_v (energy/damping.h), the force's potential for N_v held
        E += naiveDampingPotential(naive_[i], x, xPrev_[i]);
        if (g) *g += naive_[i] * (x - xPrev_[i]);
        if (H) *H += naive_[i];
    }
    if (int(i) == drag_.vertex && drag_.stiffness > 0) {
        const double k = drag_.stiffness;
        const Vec3d r = x - Vec3d(drag_.target);
        E += 0.5 * k * squaredNorm(r);
        if (g) *g += r * k;
        if (H) *H += Mat33d::diag(k);
    }
    return E;
}

void TetEnergyCache::gatherGradient(const SoftModel& m, const std::vector<Vec3d>& x,
                                    const std::vector<int>& verts, const std::vector<char>& use, double h,
                                    std::vector<Vec3d>& grad) const {
    grad.resize(x.size());
    parallelFor(verts.size(), [&](size_t k) {
        const size_t i = size_t(verts[k]);
        grad[i] = vertexGradient(m, x, i, h, &use);
    });
}

Vec3d TetEnergyCache::vertexGradient(const SoftModel& m, const std::vector<Vec3d>& x, size_t i, double h,
                                     const std::vector<char>* use) const {
    if (m.fixed[i]) return Vec3d(0, 0, 0);
    Vec3d g = vertexOwnGradient(m, x, i, h);
    for (int q = m.vertexTets.begin(int(i)); q < m.vertexTets.end(int(i)); ++q) {
        const int item = m.vertexTets.items[size_t(q)];
        if (!use || (*use)[size_t(item >> 2)]) g += grad_[size_t(item >> 2)][size_t(item & 3)];
    }
    return g;
}

Vec3d TetEnergyCache::vertexOwnGradient(const SoftModel& m, const std::vector<Vec3d>& x, size_t i,
                                        double h) const {
    Vec3d g = (x[i] - y_[i]) * (double(m.mass[i]) / (h * h));
    vertexPotential(m, i, x[i], &g, nullptr);
    return g;
}

double potentialAndGradient(const SoftModel& m, const std::vector<Vec3d>& x, double h, DampingModel damping,
                            std::vector<Vec3d>* grad) {
    TetEnergyCache cache;
    cache.build(m);
    cache.beginStep(m, std::vector<Vec3d>(m.xPrev.begin(), m.xPrev.end()),
                    std::vector<Vec3d>(m.y.begin(), m.y.end()));
    cache.setNaiveDamping(m, damping == DampingModel::Naive, h);
    return cache.eval(m, x, h, damping, grad);
}

}  // namespace vbd::coarse
