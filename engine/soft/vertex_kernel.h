#pragma once
// The VBD per-vertex local system (one source for CPU and CUDA): the force f_i = -dG/dx_i and the 3x3
// block H_i = d2G/dx_i^2 of the incremental potential
//   G(x) = 1/(2h^2) |x - y|_M^2 + E(x)   (+ damping potential, contact penalties)
// gathered from every force element touching vertex i. The VBD update is x_i += H_i^{-1} f_i.

#include "energy/bending.h"
#include "energy/damping.h"
#include "energy/membrane.h"
#include "energy/neo_hookean.h"
#include "energy/tet_fused.h"
#include "math/ldl33.h"
#include "soft/cloth_contact.h"
#include "soft/soft_model.h"

namespace vbd {

// The tet term of one (tet, vertex) incidence from its gathered inputs: F, the vertex's weight m (a row of
// Dm^-1, or minus their sum), the tet's constants, C_prev, h and 1/h, and the vertex's own x and x_prev
// (naive damping). V is the state's scalar T (the scalar kernel below, CUDA) or a SIMD pack of T (the CPU
// sweep evaluates several incidences of one vertex at once, soft/tet_blocks.h): the one source of the tet
// term.
// Damped (tet_fused.h): kRuntime, or the caller's knowledge that the internal damping is on (kDamped) or
// off (kUndamped) for every incidence it passes.
template <typename V, int Damped = kRuntime>
VBD_FUSED_INLINE void tetIncidenceTerms(const Mat33T<V>& F, const Vec3T<V>& m, V vol, V mu, V lam, V kd,
                                        const Mat33T<V>& Cprev, V h, V invH, DampingModel damping,
                                        const Vec3T<V>& xa, const Vec3T<V>& xPrevA, Vec3T<V>& f,
                                        Sym33T<V>& H) {
    if (damping != DampingModel::Naive) {
        // Elastic + internal damping fused (tet_fused.h; same math as neoHookeanVertex +
        // internalDampingVertexC).
        const V kdi = damping == DampingModel::Internal ? kd : V(0);
        tetVertexFused<V, Damped>(F, m, vol, mu, lam, Cprev, kdi, invH, f, H);
        return;
    }
    Vec3T<V> fe;
    Mat33T<V> He;
    neoHookeanVertex(F, m, vol, mu, lam, fe, He);
    f += fe;
    H.add(He);
    if (anyPositive(kd)) {
        Vec3T<V> fd;
        Mat33T<V> Hd;
        naiveDampingVertex(He, xa, xPrevA, kd, h, fd, Hd);
        f += fd;
        H.add(Hd);
    }
}

// Whether the view's state is in the increment form (soft/state_update.h; float states only).
template <typename T>
VBD_HD bool incrementForm(const SoftViewT<T>& s) {
    if constexpr (sizeof(T) == sizeof(float)) {
        return s.dx != nullptr;
    } else {
        (void)s;
        return false;
    }
}

// The positions an element's terms read for its vertices v[0..count). Absolute form: x. Increment form:
// relative to the first vertex, p_0 = 0 and p_k = (x_prev,k - x_prev,0) + (dx_k - dx_0) -- every term of an
// element (F of a tet or triangle, a dihedral angle) depends on differences of its positions only, and each
// edge vector is then rounded once at its own size instead of at |x| (the digits of dx that an absolute
// float x rounds away stay).
template <typename T>
VBD_HD void elementPositions(const SoftViewT<T>& s, const int* v, int count, Vec3T<T>* p) {
    if (incrementForm(s)) {
        p[0] = Vec3T<T>(T(0));
        for (int k = 1; k < count; ++k) p[k] = (s.xPrev[v[k]] - s.xPrev[v[0]]) + (s.dx[v[k]] - s.dx[v[0]]);
    } else {
        for (int k = 0; k < count; ++k) p[k] = s.x[v[k]];
    }
}

// A vertex's (x, x_prev) as the naive damping reads them (it uses x - x_prev only): (dx, 0) in the increment
// form.
template <typename T>
VBD_HD void ownMotionPair(const SoftViewT<T>& s, int i, Vec3T<T>& x, Vec3T<T>& xPrev) {
    if (incrementForm(s)) {
        x = s.dx[i];
        xPrev = Vec3T<T>(T(0));
    } else {
        x = s.x[i];
        xPrev = s.xPrev[i];
    }
}
// The naive damping of vertex i with the element block He (energy/damping.h).
template <typename T>
VBD_HD void naiveDampingOf(const SoftViewT<T>& s, int i, const Mat33T<T>& He, T kd, T h, Vec3T<T>& fd,
                           Mat33T<T>& Hd) {
    Vec3T<T> xi, xPrevI;
    ownMotionPair(s, i, xi, xPrevI);
    naiveDampingVertex(He, xi, xPrevI, kd, h, fd, Hd);
}

// Tet e, local vertex a, in the state's scalar T, from the tet's vertex indices t, constants and C_prev as
// the caller read them (the view's per-tet arrays below, or the device sweep's records of them,
// gpu/tet_records.h: the same values, so the same result bit for bit). The float parameters (DmInv, V, mu,
// lambda, kd, h) are widened to T as they are read; for T = float every conversion is the identity.
template <typename T>
VBD_HD void tetVertexTermsOf(const SoftViewT<T>& s, const int* t, const Mat33& DmInv, float vol, float mu,
                             float lam, float kd, const Mat33T<T>& Cprev, int a, Vec3T<T>& f, Sym33T<T>& H) {
    const Mat33T<T> Dinv(DmInv);
    Vec3T<T> p[4], xa, xPrevA;
    elementPositions(s, t, 4, p);
    ownMotionPair(s, t[a], xa, xPrevA);
    const Mat33T<T> F = tetDeformationGradient(p[0], p[1], p[2], p[3], Dinv);
    tetIncidenceTerms(F, tetVertexWeight(Dinv, a), T(vol), T(mu), T(lam), T(kd), Cprev, T(s.h), T(1) / T(s.h),
                      s.damping, xa, xPrevA, f, H);
}
// The same with C_prev = F_prev^T F_prev computed here from the tet's x_prev, only where the terms read it
// (internal damping, k_d > 0; a zero they do not read elsewhere): the device's record sweeps, which stream no
// stored C_prev (gpu/tet_records.h). tetCprev is the function the C_prev pass stores it with, of the same
// values, so the result is the stored C_prev's bit for bit on the host (where tetCprev is out of line). (The
// call is tetVertexTermsOf's own: GCC contracts a * b + c into FMAs per inlined copy, and a reshaped copy of
// the terms rounded float states differently.)
template <typename T>
VBD_HD void tetVertexTermsAtPrev(const SoftViewT<T>& s, const int* t, const Mat33& DmInv, float vol, float mu,
                                 float lam, float kd, int a, Vec3T<T>& f, Sym33T<T>& H) {
    Mat33T<T> Cprev;  // zero, unread without internal damping
    if (s.damping == DampingModel::Internal && kd > 0.f)
        Cprev = tetCprev(s.xPrev[t[0]], s.xPrev[t[1]], s.xPrev[t[2]], s.xPrev[t[3]], Mat33T<T>(DmInv));
    tetVertexTermsOf(s, t, DmInv, vol, mu, lam, kd, Cprev, a, f, H);
}
template <typename T>
VBD_HD void tetVertexTerms(const SoftViewT<T>& s, int e, int a, Vec3T<T>& f, Sym33T<T>& H) {
    tetVertexTermsOf(s, s.tets[e].data(), s.DmInv[e], s.volume[e], s.mu[e], s.lambda[e], s.kd[e], s.Cprev[e],
                     a, f, H);
}

// Membrane triangle e, local vertex a: stable Neo-Hookean (clamped block) plus its damping.
// The cloth terms below are not inlined on the host: GCC contracts a * b + c into FMAs per inlined copy
// (-march=native), and the CPU's scalar kernel and the device step's host executor must round them alike
// (test_gpu_host_pipeline, cloth in double). On the device they are inlined.
template <typename T>
VBD_HD_NOINLINE void triVertexTerms(const SoftViewT<T>& s, int e, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const std::array<int, 3>& t = s.tris[e];
    const T d[4] = {T(s.triRest[e].d[0]), T(s.triRest[e].d[1]), T(s.triRest[e].d[2]), T(s.triRest[e].d[3])};
    Vec3T<T> p[3], f0, f1;
    elementPositions(s, t.data(), 3, p);
    triDeformationGradient(p[0], p[1], p[2], d, f0, f1);
    T m0, m1;
    triVertexWeight(d, a, m0, m1);
    const T V = T(s.triVolume[e]), mu = T(s.triMu[e]), lam = T(s.triLambda[e]), kd = T(s.triKd[e]),
            h = T(s.h);
    Vec3T<T> fe;
    Mat33T<T> He;
    membraneVertex(f0, f1, m0, m1, V, mu, lam, fe, He);
    f += fe;
    H += He;
    if (!(kd > T(0)) || s.damping == DampingModel::None) return;
    Vec3T<T> fd;
    Mat33T<T> Hd;
    if (s.damping == DampingModel::Internal)
        membraneDampingVertex(f0, f1, s.triCprev[e].data(), m0, m1, V, mu, lam, kd, h, fd, Hd);
    else
        naiveDampingOf(s, t[a], He, kd, h, fd, Hd);
    f += fd;
    H += Hd;
}

// Bending hinge e, local vertex a: dihedral spring plus door-hinge (or naive) damping.
template <typename T>
VBD_HD_NOINLINE void hingeVertexTerms(const SoftViewT<T>& s, int e, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const std::array<int, 4>& q = s.hinges[e];
    T theta;
    Vec3T<T> p[4], g[4];
    elementPositions(s, q.data(), 4, p);
    if (!dihedralGradient(p[0], p[1], p[2], p[3], theta, g)) return;
    const T kL = T(s.hingeKL[e]), kd = T(s.hingeKd[e]), h = T(s.h);
    Vec3T<T> fe;
    Mat33T<T> He;
    bendingVertex(theta, g[a], T(s.hingeTheta0[e]), kL, fe, He);
    f += fe;
    H += He;
    if (!(kd > T(0)) || s.damping == DampingModel::None) return;
    Vec3T<T> fd;
    Mat33T<T> Hd;
    if (s.damping == DampingModel::Internal)
        bendingDampingVertex(theta, s.hingeThetaPrev[e], g[a], kL, kd, h, fd, Hd);
    else
        naiveDampingOf(s, q[a], He, kd, h, fd, Hd);
    f += fd;
    H += Hd;
}

template <typename T>
VBD_HD bool selfContactTerms(const SoftViewT<T>& s, int c, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const SelfContact& sc = s.contacts[c];
    Vec3T<T> x[4], xp[4];
    for (int j = 0; j < 4; ++j) {
        if (incrementForm(s)) {
            // Both relative to x_prev of the first vertex: the contact reads differences of x and x - x_prev.
            xp[j] = s.xPrev[sc.v[j]] - s.xPrev[sc.v[0]];
            x[j] = xp[j] + s.dx[sc.v[j]];
        } else {
            x[j] = s.x[sc.v[j]];
            xp[j] = s.xPrev[sc.v[j]];
        }
    }
    return selfContactVertex(sc, x, xp, a, s.contact, T(s.h), f, H);
}

// A collider grown by the contact thickness r of a cloth vertex (so a sheet rests at distance r).
VBD_HD ParticleCollider offsetCollider(ParticleCollider c, float r) {
    if (c.type == ParticleColliderType::Plane)
        c.center += c.normal * r;
    else if (c.type == ParticleColliderType::Sphere)
        c.halfExtents.x += r;
    else
        c.halfExtents += Vec3(r);
    return c;
}

// Energy terms of one particle, in double: one source for G (SoftSolver::incrementalPotentialT, the device
// step's EnergyVertexTerm) and the stored energy (SoftSolver::energyParts).
// The inertia 1/2 m/h^2 |x - y|^2 of a free vertex.
template <typename T>
VBD_HD double inertiaEnergyAt(float mass, double h2, const Vec3T<T>& x, const Vec3T<T>& y) {
    const Vec3d d = Vec3d(x) - Vec3d(y);
    return 0.5 * double(mass) / h2 * squaredNorm(d);
}
// `start` plus the collider penalties k/2 g^2 at x, each collider grown by the contact thickness `off`
// (cloth; 0 for tets), added in the colliders' order.
template <typename T>
VBD_HD double colliderPenaltiesAt(const ParticleCollider* colliders, int count, float off, const Vec3T<T>& x,
                                  double start = 0) {
    double e = start;
    for (int c = 0; c < count; ++c)
        e += double(colliderEnergy(off > 0.f ? offsetCollider(colliders[c], off) : colliders[c], x));
    return e;
}

// The inertia term of vertex i: f = M/h^2 (y - x), H = M/h^2 I (the start of every vertex's sums).
template <typename T>
VBD_HD void vertexInertia(const SoftViewT<T>& s, int i, Vec3T<T>& f, Mat33T<T>& H) {
    const T h = T(s.h);
    const T mh2 = T(s.mass[i]) / (h * h);
    f = (incrementForm(s) ? s.dy[i] - s.dx[i] : s.y[i] - s.x[i]) * mh2;
    // Entry by entry, not H = diag(mh2): the temporary's copy was a 64-byte load of stores of other widths,
    // which cannot be forwarded and waited for every older store of the sweep to reach the cache.
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) H.m[r][c] = r == c ? mh2 : T(0);
}

// The cloth terms of vertex i, one incidence at a time: its membranes, then its hinges. (The CPU sweep
// evaluates them in SIMD packs instead, soft/cloth_blocks.h.)
template <typename T>
VBD_HD void vertexClothTerms(const SoftViewT<T>& s, int i, Vec3T<T>& f, Mat33T<T>& H) {
    for (int k = s.vtriOffsets[i]; k < s.vtriOffsets[i + 1]; ++k) {
        const int item = s.vtriItems[k];
        triVertexTerms(s, item >> 2, item & 3, f, H);
    }
    for (int k = s.vhOffsets[i]; k < s.vhOffsets[i + 1]; ++k) {
        const int item = s.vhItems[k];
        hingeVertexTerms(s, item >> 2, item & 3, f, H);
    }
}

// The terms of vertex i after its elements: colliders (grown by a cloth vertex's contact thickness), self
// contacts, moving rigid bodies and the picking spring. Returns whether vertex i touches a collider or a
// contact partner.
template <typename T>
VBD_HD bool vertexContactTerms(const SoftViewT<T>& s, int i, Vec3T<T>& f, Mat33T<T>& H) {
    const T h = T(s.h);
    bool contact = false;
    const float off = s.colliderOffset ? s.colliderOffset[i] : 0.f;
    for (int c = 0; c < s.numColliders; ++c) {
        const ParticleCollider col = off > 0.f ? offsetCollider(s.colliders[c], off) : s.colliders[c];
        contact |= colliderContact(col, s.contact, s.x[i], s.xPrev[i], h, f, H);
    }
    if (s.vcOffsets) {
        for (int k = s.vcOffsets[i]; k < s.vcOffsets[i + 1]; ++k) {
            const int item = s.vcItems[k];
            contact |= selfContactTerms(s, item >> 2, item & 3, f, H);
        }
    }
    if (s.vbOffsets) {
        // Moving rigid bodies at their current iterate (energy/body_contact.h; the body side is
        // world/coupling.cpp), with the vertex's contact thickness.
        for (int k = s.vbOffsets[i]; k < s.vbOffsets[i + 1]; ++k) {
            const BodyContactRow& row = s.bodyRows[k];
            contact |= bodyParticleContact(s.bodyColliders[row.collider], row, s.contact.frictionEps, s.x[i],
                                           s.xPrev[i], T(off), h, f, H);
        }
    }
    if (i == s.dragVertex) {
        const T k = T(s.dragStiffness);
        f += (Vec3T<T>(s.dragTarget) - s.x[i]) * k;
        H += Mat33T<T>::diag(k);
    }
    return contact;
}

// Every term of vertex i after inertia and tets: the cloth terms, then the contact terms. Returns whether
// vertex i touches a collider or a contact partner.
template <typename T>
VBD_HD bool vertexOtherTerms(const SoftViewT<T>& s, int i, Vec3T<T>& f, Mat33T<T>& H) {
    vertexClothTerms(s, i, f, H);
    return vertexContactTerms(s, i, f, H);
}

// Full local force and block of vertex i in scalar T: inertia, tets (one incidence at a time, in the order of
// the vertex's tet list), then vertexOtherTerms. Returns whether vertex i touches a collider or a contact
// partner. The CPU sweep computes the same sums with the tets and the cloth in SIMD packs
// (soft/vertex_blocks.h).
template <typename T>
VBD_HD bool vertexForceHessian(const SoftViewT<T>& s, int i, Vec3T<T>& f, Mat33T<T>& H) {
    vertexInertia(s, i, f, H);
    Sym33T<T> S = Sym33T<T>::upperOf(H);
    for (int k = s.vtOffsets[i]; k < s.vtOffsets[i + 1]; ++k) {
        const int item = s.vtItems[k];
        tetVertexTerms(s, item >> 2, item & 3, f, S);
    }
    H = S.full();
    return vertexOtherTerms(s, i, f, H);
}

// The residual heat map's value at vertex i: |f_i| = |grad_i G| in the state's scalar T, stored as float.
// SoftSolver::vertexResidual holds it (soft_potential.cpp) and the device step writes the same
// (gpu/step_stages.h ResidualTerm), so the map reads alike on both backends.
template <typename T>
VBD_HD float residualFieldValue(const Vec3T<T>& f) {
    return float(norm(f));
}

// The VBD update dx = H^-1 f of one vertex by the LDL^T of math/ldl33.h: three divisions and no square root
// (this solve follows every vertex's force sum, so its latency is on the sweep's critical path). Returns
// false and dx = 0 when H is not numerically positive definite (the vertex keeps its position this sweep,
// which never increases the energy) or dx is not finite.
template <typename T>
VBD_HD bool solveVertexSystem(const Mat33T<T>& H, const Vec3T<T>& f, Vec3T<T>& dx) {
    dx = Vec3T<T>(T(0));
    const Ldl33T<T> c = ldl33(H);
    if (!c.ok) return false;
    const Vec3T<T> r = ldl33Solve(c, f);
    if (!isFinite(r)) return false;
    dx = r;
    return true;
}

}  // namespace vbd
