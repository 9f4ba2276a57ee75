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
#include "math/chol33.h"
#include "soft/cloth_contact.h"
#include "soft/soft_model.h"

namespace vbd {

// Tet e, local vertex a, in the state's scalar T. The float parameters (DmInv, V, mu, lambda, kd, h) are
// widened to T as they are read; for T = float every conversion is the identity, so the float kernel is
// the same code as before the precision template.
template <typename T>
VBD_HD void tetVertexTerms(const SoftViewT<T>& s, int e, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const std::array<int, 4>& t = s.tets[e];
    const Mat33T<T> Dinv(s.DmInv[e]);
    const Mat33T<T> F = tetDeformationGradient(s.x[t[0]], s.x[t[1]], s.x[t[2]], s.x[t[3]], Dinv);
    const Vec3T<T> m = tetVertexWeight(Dinv, a);
    const T kd = T(s.kd[e]), V = T(s.volume[e]), mu = T(s.mu[e]), lam = T(s.lambda[e]), h = T(s.h);
    if (s.damping != DampingModel::Naive) {
        // Elastic + internal damping fused (tet_fused.h; same math as neoHookeanVertex +
        // internalDampingVertexC).
        const T kdi = s.damping == DampingModel::Internal ? kd : T(0);
        tetVertexFused(F, m, V, mu, lam, s.Cprev[e], kdi, h, f, H);
        return;
    }
    Vec3T<T> fe;
    Mat33T<T> He;
    neoHookeanVertex(F, m, V, mu, lam, fe, He);
    f += fe;
    H += He;
    if (kd > T(0)) {
        Vec3T<T> fd;
        Mat33T<T> Hd;
        naiveDampingVertex(He, s.x[t[a]], s.xPrev[t[a]], kd, h, fd, Hd);
        f += fd;
        H += Hd;
    }
}

// Membrane triangle e, local vertex a: stable Neo-Hookean (clamped block) plus its damping.
template <typename T>
VBD_HD void triVertexTerms(const SoftViewT<T>& s, int e, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const std::array<int, 3>& t = s.tris[e];
    const T d[4] = {T(s.triRest[e].d[0]), T(s.triRest[e].d[1]), T(s.triRest[e].d[2]), T(s.triRest[e].d[3])};
    Vec3T<T> f0, f1;
    triDeformationGradient(s.x[t[0]], s.x[t[1]], s.x[t[2]], d, f0, f1);
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
        naiveDampingVertex(He, s.x[t[a]], s.xPrev[t[a]], kd, h, fd, Hd);
    f += fd;
    H += Hd;
}

// Bending hinge e, local vertex a: dihedral spring plus door-hinge (or naive) damping.
template <typename T>
VBD_HD void hingeVertexTerms(const SoftViewT<T>& s, int e, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const std::array<int, 4>& q = s.hinges[e];
    T theta;
    Vec3T<T> g[4];
    if (!dihedralGradient(s.x[q[0]], s.x[q[1]], s.x[q[2]], s.x[q[3]], theta, g)) return;
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
        naiveDampingVertex(He, s.x[q[a]], s.xPrev[q[a]], kd, h, fd, Hd);
    f += fd;
    H += Hd;
}

template <typename T>
VBD_HD bool selfContactTerms(const SoftViewT<T>& s, int c, int a, Vec3T<T>& f, Mat33T<T>& H) {
    const SelfContact& sc = s.contacts[c];
    Vec3T<T> x[4], xp[4];
    for (int j = 0; j < 4; ++j) {
        x[j] = s.x[sc.v[j]];
        xp[j] = s.xPrev[sc.v[j]];
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

// Full local force and block of vertex i in scalar T: inertia, tets, membranes, hinges, colliders (grown by a
// cloth vertex's contact thickness), self contacts and the picking spring. Returns whether vertex i touches a
// collider or a contact partner.
template <typename T>
VBD_HD bool vertexForceHessian(const SoftViewT<T>& s, int i, Vec3T<T>& f, Mat33T<T>& H) {
    const T h = T(s.h);
    const T mh2 = T(s.mass[i]) / (h * h);
    f = (s.y[i] - s.x[i]) * mh2;
    H = Mat33T<T>::diag(mh2);
    for (int k = s.vtOffsets[i]; k < s.vtOffsets[i + 1]; ++k) {
        const int item = s.vtItems[k];
        tetVertexTerms(s, item >> 2, item & 3, f, H);
    }
    for (int k = s.vtriOffsets[i]; k < s.vtriOffsets[i + 1]; ++k) {
        const int item = s.vtriItems[k];
        triVertexTerms(s, item >> 2, item & 3, f, H);
    }
    for (int k = s.vhOffsets[i]; k < s.vhOffsets[i + 1]; ++k) {
        const int item = s.vhItems[k];
        hingeVertexTerms(s, item >> 2, item & 3, f, H);
    }
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
    if (i == s.dragVertex) {
        const T k = T(s.dragStiffness);
        f += (Vec3T<T>(s.dragTarget) - s.x[i]) * k;
        H += Mat33T<T>::diag(k);
    }
    return contact;
}

}  // namespace vbd
