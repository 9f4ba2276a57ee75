// The solver's diagnostics of its iterate (DESIGN principle 7): the incremental potential
//   G(x) = 1/(2h^2) |x - y|_M^2 + E(x)   (+ damping potential, contact penalties, picking spring)
// and its gradient over free DOFs, |grad G| = |f| with f the same per-vertex forces the sweep solves with.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/parallel.h"
#include "energy/tet_energy.h"
#include "soft/cloth_build.h"
#include "soft/soft_solver.h"
#include "soft/state_update.h"
#include "soft/tet_residual.h"
#include "soft/vertex_blocks.h"
#include "soft/vertex_kernel.h"

namespace vbd {

// f = -grad G per vertex (zero for fixed vertices) into st.force, and each vertex's share of the residual's
// rounding floor into floor2_: a position stored in T is known to u |x| per coordinate (u = unit round-off of
// T), and the force of vertex i moves by about |H_i| u |x_i| under that perturbation (H_i its 3x3 block,
// which holds the stiffest coupling of i). The floor reported is sqrt(sum_i (|H_i|_F u l_i)^2), l_i =
// |x_i|_inf (or, for a float state in the increment form, max(|dx_i|_inf, longest rest edge):
// soft/state_update.h floorLength): an order of magnitude below which |grad G| of this state cannot be
// resolved.
//
// With the SIMD kernel and internal or no damping the tet terms come once per tet (soft/tet_residual.h) and
// every other term from the sweep's kernel with its tets left out, in the kernel's order. That pass forms no
// tet blocks: H_i is then the other terms' block plus the isotropic block of the tets' trace, (tr H_T / 3) I.
// H_T, the tets' sum, is positive semidefinite, so |(tr H_T / 3) I|_F = tr H_T / sqrt(3) lies between
// |H_T|_F / sqrt(3) and |H_T|_F, equal when H_T is isotropic (many tets around a vertex nearly are): the
// floor keeps its order of magnitude (the tets' part at most sqrt(3) low; 0.9999 of the full block's on the
// test beam, tests/scene/test_soft_residual.cpp).
template <typename T>
void SoftSolver::computeForces(SoftState<T>& st) {
    const SoftViewT<T> s = viewT(st);
    const int n = m_.numVertices();
    constexpr double u = 0.5 * double(std::numeric_limits<T>::epsilon());
    st.force.assign(size_t(n), Vec3T<T>(T(0)));
    floor2_.assign(size_t(n), 0.0);
    const bool blocks = sweepOptions_.simd && !(m_.tetBlocks.empty() && m_.clothBlocks.empty());
    auto floorOf = [&](int i, const Mat33T<T>& H) {
        const double scale = floorLength(st.x.data(), s.dx, i, double(m_.restEdgeMax));
        return double(H.frobenius2()) * (u * scale) * (u * scale);
    };
    if (blocks && sweepOptions_.tetResidual && !m_.tetLanes.empty() &&
        params_.damping != DampingModel::Naive) {
        const int parts =
            sweepOptions_.residualParts > 0 ? sweepOptions_.residualParts : tetResidualParts(m_.tetLanes);
        const size_t stride = 4 * size_t(n);
        if (parts <= 1)
            st.tetSums.assign(stride, T(0));
        else
            st.tetSums.resize(stride * size_t(parts));  // each part zeroes its own sums
        // The sweep's task size when a test sets it (every color split between threads).
        const size_t grain = sweepOptions_.grain > 0 ? sweepOptions_.grain : kResidualColorGrain;
        addTetForces(m_.tetLanes, s, st.CprevTetLanes.data(), st.tetSums.data(), stride, parts, grain);
        parallelFor(size_t(n), [&](size_t i) {
            if (m_.fixed[i]) return;
            const T* t = &st.tetSums[4 * i];
            T sum[4] = {t[0], t[1], t[2], t[3]};
            for (int p = 1; p < parts; ++p)  // the parts in order
                for (int k = 0; k < 4; ++k) sum[k] += t[size_t(p) * stride + size_t(k)];
            Mat33T<T> H;
            vertexForceBlocksTetsGiven(s, m_.clothBlocks, int(i), Vec3T<T>(sum[0], sum[1], sum[2]),
                                       st.force[i], H);
            floor2_[i] = floorOf(int(i), H + Mat33T<T>::diag(sum[3] / T(3)));
        });
        return;
    }
    parallelFor(size_t(n), [&](size_t i) {
        if (m_.fixed[i]) return;
        Mat33T<T> H;
        // The sweep's own kernel, so that the residual is the gradient the sweep solves with.
        if (blocks)
            vertexForceHessianBlocks(s, {m_.tetBlocks, st.CprevLanes.data(), m_.clothBlocks}, int(i),
                                     st.force[i], H);
        else
            vertexForceHessian(s, int(i), st.force[i], H);
        floor2_[i] = floorOf(int(i), H);
    });
}

template <typename T>
double SoftSolver::residualNormT(SoftState<T>& st) {
    computeForces(st);
    const std::vector<Vec3T<T>>& f = st.force;
    residual_.resize(f.size());
    for (size_t i = 0; i < f.size(); ++i) residual_[i] = residualFieldValue(f[i]);
    residualFloor_ = std::sqrt(reduceSum<double>(f.size(), [&](size_t i) { return floor2_[i]; }));
    return std::sqrt(reduceSum<double>(f.size(), [&](size_t i) { return double(squaredNorm(f[i])); }));
}

// Energy of the rows against the moving rigid bodies of this step (energy/body_contact.h); 0 without them.
template <typename T>
double SoftSolver::bodyContactEnergy(const SoftState<T>& st) const {
    const std::vector<int>& off = m_.bodyRowOffsets;
    if (m_.bodyRows.empty() || off.size() != m_.x.size() + 1) return 0.0;
    return reduceSum<double>(m_.x.size(), [&](size_t i) {
        const T rp = T(m_.numCloths > 0 ? m_.colliderOffset[i] : 0.f);
        return bodyRowsEnergy(m_.bodyColliders.data(), m_.bodyRows.data(), off[i], off[i + 1], st.x[i], rp);
    });
}

// The tets' energy on the tet lanes (soft/tet_residual.h tetEnergySum; with the internal damping potential
// when `damping`) into `out`, where they apply: a double state, the SIMD path, and when damped the step's
// C_prev in lane order (SoftState::CprevTetLanes, filled by beginStep). False: the caller's scalar loop.
template <typename T>
bool SoftSolver::laneTetEnergy(const SoftState<T>& st, bool damping, double& out) const {
    if constexpr (std::is_same_v<T, double>) {
        const TetLanes& tl = m_.tetLanes;
        const bool damped = damping && tl.damped;
        if (!sweepOptions_.simd || !sweepOptions_.tetResidual || tl.empty() ||
            (damped && st.CprevTetLanes.size() != tl.cprevSize()))
            return false;
        out = tetEnergySum(tl, viewT(st), st.CprevTetLanes.data(), damped);
        return true;
    } else {
        (void)st, (void)damping, (void)out;
        return false;
    }
}

// G summed in double for either state; the collider penalties are evaluated in the state's scalar.
template <typename T>
double SoftSolver::incrementalPotentialT(const SoftState<T>& st) const {
    const double h2 = double(h_) * double(h_);
    const int n = m_.numVertices();
    const double inertia =
        reduceSum<double>(size_t(n),
                          [&](size_t i) {
                              if (m_.fixed[i]) return 0.0;
                              const float off = m_.numCloths > 0 ? m_.colliderOffset[i] : 0.f;
                              return colliderPenaltiesAt(m_.colliders.data(), int(m_.colliders.size()), off,
                                                         st.x[i],
                                                         inertiaEnergyAt(m_.mass[i], h2, st.x[i], st.y[i]));
                          }) +
        bodyContactEnergy(st);
    // Tets: E_e of energy/tet_energy.h in double, with C_prev from x_prev (not the state's C_prev, which in
    // float is rounded). A double state's C_prev is that one: there the tet lanes sum it (laneTetEnergy).
    const bool internal = params_.damping == DampingModel::Internal;
    double lanes = 0;
    const double elastic =
        laneTetEnergy(st, internal, lanes) ? lanes : reduceSum<double>(m_.tets.size(), [&](size_t e) {
            const auto& t = m_.tets[e];
            const Mat33d Dinv(m_.DmInv[e]);
            const Mat33d F = tetDeformationGradient(Vec3d(st.x[t[0]]), Vec3d(st.x[t[1]]), Vec3d(st.x[t[2]]),
                                                    Vec3d(st.x[t[3]]), Dinv);
            const TetConstants<double> c{double(m_.volume[e]), double(m_.mu[e]), double(m_.lambda[e]),
                                         double(m_.kd[e])};
            Mat33d Cp;
            if (internal && c.kd > 0) {
                const Mat33d Fp = tetDeformationGradient(Vec3d(st.xPrev[t[0]]), Vec3d(st.xPrev[t[1]]),
                                                         Vec3d(st.xPrev[t[2]]), Vec3d(st.xPrev[t[3]]), Dinv);
                Cp = Fp.transposed() * Fp;
            }
            return tetEnergy(F, Cp, c, double(h_), internal);
        });
    double drag = 0;
    if (drag_.vertex >= 0 && drag_.vertex < n)
        drag = 0.5 * drag_.stiffness * squaredNorm(Vec3d(st.x[size_t(drag_.vertex)]) - Vec3d(drag_.target));
    // Without cloth the only terms of clothPotential are the soft-soft contact penalties.
    const double cloth = !m_.tris.empty() ? clothPotential(m_, st, double(h_), params_.damping)
                         : !m_.collision.contacts.empty() ? clothContactEnergy(m_, st)
                                                          : 0.0;
    return inertia + elastic + drag + cloth;
}

// Stored mechanical energy: 1/2 m v^2, V psi (tets), membrane and bending energy, -m g . x, and the collider
// and self-contact penalties. Kinematic vertices are included (their prescribed motion does work).
template <typename T>
EnergyParts SoftSolver::energyParts(const SoftState<T>& st, const Vec3& gravity) const {
    EnergyParts e;
    const Vec3d g(gravity);
    const size_t n = size_t(m_.numVertices());
    e.kinetic = reduceSum<double>(
        n, [&](size_t i) { return 0.5 * double(m_.mass[i]) * squaredNorm(Vec3d(st.v[i])); });
    e.gravitational =
        reduceSum<double>(n, [&](size_t i) { return -double(m_.mass[i]) * dot(g, Vec3d(st.x[i])); });
    e.contact = reduceSum<double>(n, [&](size_t i) {
        const float off = m_.numCloths > 0 ? m_.colliderOffset[i] : 0.f;
        return colliderPenaltiesAt(m_.colliders.data(), int(m_.colliders.size()), off, st.x[i]);
    });
    e.contact += bodyContactEnergy(st);
    double lanes = 0;
    e.elastic = laneTetEnergy(st, false, lanes) ? lanes : reduceSum<double>(m_.tets.size(), [&](size_t k) {
        const auto& t = m_.tets[k];
        const Mat33d F = tetDeformationGradient(Vec3d(st.x[t[0]]), Vec3d(st.x[t[1]]), Vec3d(st.x[t[2]]),
                                                Vec3d(st.x[t[3]]), Mat33d(m_.DmInv[k]));
        return double(m_.volume[k]) * neoHookeanPsi(F, double(m_.mu[k]), double(m_.lambda[k]));
    });
    if (!m_.tris.empty()) {
        // clothPotential without damping is exactly membrane + bending + self-contact energy.
        const double cloth = clothPotential(m_, st, double(h_), DampingModel::None);
        const double self = clothContactEnergy(m_, st);
        e.elastic += cloth - self;
        e.contact += self;
    } else if (!m_.collision.contacts.empty()) {
        e.contact += clothContactEnergy(m_, st);  // soft-soft contacts
    }
    return e;
}

EnergyParts SoftSolver::mechanicalEnergy(const Vec3& gravity) {
    syncState();
    return withState([&](auto& st) { return energyParts(st, gravity); });
}

double SoftSolver::incrementalPotential() {
    syncState();
    return withState([&](auto& st) { return incrementalPotentialT(st); });
}

void SoftSolver::forces(std::vector<Vec3d>& f) {
    syncState();
    withState([&](auto& st) {
        computeForces(st);
        convertInto(f, st.force);
    });
}

double SoftSolver::residualNorm() {
    syncState();
    return withState([&](auto& st) { return residualNormT(st); });
}

// Used by the step (soft_solver.cpp).
template double SoftSolver::residualNormT<float>(SoftState<float>&);
template double SoftSolver::residualNormT<double>(SoftState<double>&);
template double SoftSolver::incrementalPotentialT<float>(const SoftState<float>&) const;
template double SoftSolver::incrementalPotentialT<double>(const SoftState<double>&) const;

}  // namespace vbd
