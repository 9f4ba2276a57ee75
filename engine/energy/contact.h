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

// Signed distance and outward normal at p.
VBD_HD float colliderDistance(const ParticleCollider& c, const Vec3& p, Vec3& n) {
    if (c.type == ParticleColliderType::Plane) {
        n = c.normal;
        return dot(p - c.center, c.normal);
    }
    if (c.type == ParticleColliderType::Sphere) {
        Vec3 d = p - c.center;
        float r = norm(d);
        n = r > 1e-12f ? d / r : Vec3(0, 1, 0);
        return r - c.halfExtents.x;
    }
    // Oriented box: distance in the local frame; inside, the normal of the closest face.
    Vec3 lp = rotateInv(c.rotation, p - c.center);
    Vec3 q{std::fabs(lp.x) - c.halfExtents.x, std::fabs(lp.y) - c.halfExtents.y,
           std::fabs(lp.z) - c.halfExtents.z};
    Vec3 ln;
    float dist;
    if (q.x > 0 || q.y > 0 || q.z > 0) {
        Vec3 o{q.x > 0 ? q.x : 0.f, q.y > 0 ? q.y : 0.f, q.z > 0 ? q.z : 0.f};
        dist = norm(o);
        ln = Vec3{lp.x < 0 ? -o.x : o.x, lp.y < 0 ? -o.y : o.y, lp.z < 0 ? -o.z : o.z} / dist;
    } else {
        int ax = (q.x > q.y && q.x > q.z) ? 0 : (q.y > q.z ? 1 : 2);
        dist = q[ax];
        ln = Vec3(0.f);
        ln[ax] = lp[ax] < 0 ? -1.f : 1.f;
    }
    n = rotate(c.rotation, ln);
    return dist;
}

struct ContactParams {
    float dampingTime = 0.01f;  // c (s)
    float frictionEps = 1e-3f;  // eps_v (m/s)
};

// Adds the contact force and block of particle position x (previous step x_prev) against collider c.
// Returns true if in contact.
VBD_HD bool colliderContact(const ParticleCollider& c, const ContactParams& p, const Vec3& x,
                            const Vec3& xPrev, float h, Vec3& force, Mat33& hessian) {
    Vec3 n;
    const float g = colliderDistance(c, x, n);
    if (!(g < 0.f)) return false;
    const float k = c.stiffness, d = -g;
    const Mat33 nn = outer(n, n);
    force += n * (k * d);
    hessian += nn * k;
    const float gdot = dot(n, x - xPrev) / h;
    if (gdot < 0.f && p.dampingTime > 0.f) {
        force += n * (-p.dampingTime * k * gdot);
        hessian += nn * (p.dampingTime * k / h);
    }
    if (c.friction > 0.f) {
        const Vec3 dx = x - xPrev;
        const Vec3 u = dx - n * dot(n, dx);
        const float un = norm(u), e = p.frictionEps * h;
        const float f1OverY = un < e ? (2.f / e - un / (e * e)) : 1.f / un;
        const float lambda = k * d;
        const float s = c.friction * lambda * f1OverY;
        force -= u * s;
        hessian += (Mat33::identity() - nn) * s;
    }
    return true;
}

// Potential of the normal penalty (friction and damping are dissipative and have no potential here).
VBD_HD float colliderEnergy(const ParticleCollider& c, const Vec3& x) {
    Vec3 n;
    const float g = colliderDistance(c, x, n);
    return g < 0.f ? 0.5f * c.stiffness * g * g : 0.f;
}

}  // namespace vbd
