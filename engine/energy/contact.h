#pragma once
// Particle contact with static colliders (ground plane, boxes, spheres): penalty normal force, gap-rate
// damping while closing, and IPC-style lagged, smoothed Coulomb friction.
//
// Normal: gap g(x) = signed distance to the collider, penetration d = -g > 0, E = k/2 d^2,
//   f = k d n,  H = k n n^T.
// Damping: the internal variable is the gap; with barycentric weights (+1 on the particle, -1 on the static
// collider point) that sum to zero, gdot = n . (v_particle - v_collider) = n . (x - x_prev)/h for a static
// collider, so a rigidly translating pair is undamped. While closing (gdot < 0):
//   f += -c k gdot n,  H += (c k / h) n n^T     (c = damping time, s)
// Friction (IPC, VBD paper sec. 3.7): tangential step u = T^T (x - x_prev), normal force lambda = k d of the
// current iterate, f = -mu lambda f1(|u|)/|u| u with the C1 mollifier f1(y) = 2y/e - y^2/e^2 for y < e
// (e = eps_v h), 1 beyond; H = mu lambda f1(|u|)/|u| T T^T (the PSD part the VBD paper keeps).
#include "math/quat.h"

namespace vbd {

enum class ParticleColliderType : int { Plane = 0, Box = 1, Sphere = 2 };

// 64 bytes; a flat array of these lives on the device too.
struct ParticleCollider {
    ParticleColliderType type = ParticleColliderType::Plane;
    float friction = 0.5f;
    float stiffness = 1e5f;
    float pad = 0;
    Vec3 center;           // plane: a point on it; box/sphere: center
    Vec3 normal{0, 1, 0};  // plane normal
    Vec3 halfExtents;      // box; sphere radius in x
    Quat rotation;         // box orientation
};

// Signed distance and outward normal at p, in the position's scalar T (colliders are stored in float and
// widened; for T = float the conversions are the identity).
template <typename T>
VBD_HD T colliderDistance(const ParticleCollider& c, const Vec3T<T>& p, Vec3T<T>& n) {
    const Vec3T<T> center(c.center);
    if (c.type == ParticleColliderType::Plane) {
        n = Vec3T<T>(c.normal);
        return dot(p - center, n);
    }
    if (c.type == ParticleColliderType::Sphere) {
        Vec3T<T> d = p - center;
        T r = norm(d);
        n = r > T(1e-12f) ? d / r : Vec3T<T>(T(0), T(1), T(0));
        return r - T(c.halfExtents.x);
    }
    // Oriented box: distance in the local frame; inside, the normal of the closest face.
    const QuatT<T> rot(c.rotation);
    const Vec3T<T> he(c.halfExtents);
    Vec3T<T> lp = rotateInv(rot, p - center);
    Vec3T<T> q{std::fabs(lp.x) - he.x, std::fabs(lp.y) - he.y, std::fabs(lp.z) - he.z};
    Vec3T<T> ln;
    T dist;
    if (q.x > 0 || q.y > 0 || q.z > 0) {
        Vec3T<T> o{q.x > 0 ? q.x : T(0), q.y > 0 ? q.y : T(0), q.z > 0 ? q.z : T(0)};
        dist = norm(o);
        ln = Vec3T<T>{lp.x < 0 ? -o.x : o.x, lp.y < 0 ? -o.y : o.y, lp.z < 0 ? -o.z : o.z} / dist;
    } else {
        int ax = (q.x > q.y && q.x > q.z) ? 0 : (q.y > q.z ? 1 : 2);
        dist = q[ax];
        ln = Vec3T<T>(T(0));
        ln[ax] = lp[ax] < 0 ? T(-1) : T(1);
    }
    n = rotate(rot, ln);
    return dist;
}

struct ContactParams {
    float dampingTime = 0.01f;  // c (s)
    float frictionEps = 1e-3f;  // eps_v (m/s)
};

// Adds the contact force and block of particle position x (previous step x_prev) against collider c, in the
// position's scalar T. Returns true if in contact.
template <typename T>
VBD_HD bool colliderContact(const ParticleCollider& c, const ContactParams& p, const Vec3T<T>& x,
                            const Vec3T<T>& xPrev, T h, Vec3T<T>& force, Mat33T<T>& hessian) {
    Vec3T<T> n;
    const T g = colliderDistance(c, x, n);
    if (!(g < T(0))) return false;
    const T k = T(c.stiffness), d = -g;
    const Mat33T<T> nn = outer(n, n);
    force += n * (k * d);
    hessian += nn * k;
    const T gdot = dot(n, x - xPrev) / h;
    const T cd = T(p.dampingTime);
    if (gdot < T(0) && cd > T(0)) {
        force += n * (-cd * k * gdot);
        hessian += nn * (cd * k / h);
    }
    if (c.friction > 0.f) {
        const Vec3T<T> dx = x - xPrev;
        const Vec3T<T> u = dx - n * dot(n, dx);
        const T un = norm(u), e = T(p.frictionEps) * h;
        const T f1OverY = un < e ? (T(2) / e - un / (e * e)) : T(1) / un;
        const T lambda = k * d;
        const T s = T(c.friction) * lambda * f1OverY;
        force -= u * s;
        hessian += (Mat33T<T>::identity() - nn) * s;
    }
    return true;
}

// Potential of the normal penalty, k/2 g^2 for g < 0 (friction and damping are dissipative and have no
// potential here); its gradient k g n and Gauss-Newton block k n n^T are added to grad and H when given.
template <typename T>
VBD_HD T colliderPenalty(const ParticleCollider& c, const Vec3T<T>& x, Vec3T<T>* grad, Mat33T<T>* H) {
    Vec3T<T> n;
    const T g = colliderDistance(c, x, n);
    if (!(g < T(0))) return T(0);
    const T k = T(c.stiffness);
    if (grad) *grad += n * (k * g);
    if (H) *H += outer(n, n) * k;
    return T(0.5f) * k * g * g;
}

template <typename T>
VBD_HD T colliderEnergy(const ParticleCollider& c, const Vec3T<T>& x) {
    return colliderPenalty<T>(c, x, nullptr, nullptr);
}

}  // namespace vbd
