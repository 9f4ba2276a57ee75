#pragma once
// Contact between a particle (soft-body or cloth vertex) and a moving rigid body: one force law evaluated by
// both sides of the two-way coupling (world/coupling.h), so that the particle and the body feel equal and
// opposite forces at one point. Each (vertex, body) pair is an AVBD contact row (Giles et al. 2025, as the
// rigid contacts of rigid/constraints.h) with its own penalty k and multiplier lambda >= 0.
//
// Geometry. The body (box, sphere or capsule) stands at its current iterate (c, R); the particle at x with
// contact thickness r_p (a cloth vertex's collision radius, 0 for a tet vertex). Signed distance g(x) to the
// shape, outward normal n, penetration d = r_p - g (the row's C = -d, one-sided).
// Normal force (AVBD eq. 9-10): F = max(0, k d + lambda); on the particle f = F n, block H = k n n^T
// (Gauss-Newton; the curvature of a sphere or an edge is dropped). The dual update after the body sweep
// (world/coupling.cpp) is lambda <- max(0, k d + lambda), k <- min(k + beta |d|, k_max) while lambda > 0.
// Why a row and not a plain penalty: with a penalty stiff enough to hold a box, each side of the Gauss-Seidel
// split removes the whole overlap by itself (k >> m/h^2 on both sides), the split converges at a rate near 1
// and the unconverged force pair creates momentum (measured: a soft ball thrown at a box at 4 m/s left the
// pair's centre of mass at 3.97 m/s instead of 2.23). Starting k at the effective inertia m_eff/h^2, each
// side removes about half of it, and lambda carries the force that holds (warm started across steps).
// Relative motion. The body point under the particle is the material point l = R^T (x - c); at the start of
// the step it stood at p- = c- + R- l. The relative displacement of the pair over the step is
//   u = (x - x_prev) - (x - p-) = p- - x_prev,
// zero when particle and body move together (a vertex riding on a flying box is not rubbed).
// Friction (IPC-style lagged, as energy/contact.h, with the row's normal force F): tangential slip
// u_t = (I - n n^T) u, f -= mu F f1(|u_t|)/|u_t| u_t, H += mu F f1/|u_t| (I - n n^T).
// Body side: the body point under the particle has the same relative coordinate with the opposite sign, so
// the body gets -f at the particle's position x (the same line of action: linear and angular momentum are
// exchanged exactly for one evaluation), and with p = c + theta x (x - c) its 6x6 block gains
//   H_ll = H,  H_al = [r]x H,  H_aa = [r]x H [r]x^T,   r = x - c   (world/coupling.cpp).
#include "math/quat.h"

namespace vbd {

enum class BodyShapeType : int { Box = 0, Sphere = 1, Capsule = 2 };

// A dynamic rigid body as the particles see it in one sweep. Poses in double (the rigid iterate).
struct BodyCollider {
    BodyShapeType type = BodyShapeType::Box;
    float friction = 0.5f;
    float radius = 0;      // sphere / capsule
    float halfHeight = 0;  // capsule core half length along local y
    Vec3 half;             // box half extents
    Vec3d x, xPrev;        // centre of mass now (iterate) and at the start of the step
    Quatd q, qPrev;
};

// The AVBD state of one (vertex, body) pair; 16 bytes, a flat array of these is the kernel's per-vertex list.
struct BodyContactRow {
    int collider = 0;  // index into the step's BodyCollider array
    float k = 0, lambda = 0;
    int vertex = 0;
};

// Signed distance of local point lp to the shape and the outward local normal.
template <typename T>
VBD_HD T bodyShapeDistance(const BodyCollider& b, const Vec3T<T>& lp, Vec3T<T>& ln) {
    if (b.type != BodyShapeType::Box) {
        Vec3T<T> core(T(0));
        if (b.type == BodyShapeType::Capsule) {
            const T hh = T(b.halfHeight);
            core.y = lp.y < -hh ? -hh : (lp.y > hh ? hh : lp.y);
        }
        const Vec3T<T> d = lp - core;
        const T r = norm(d);
        ln = r > T(1e-12) ? d / r : Vec3T<T>(T(0), T(1), T(0));
        return r - T(b.radius);
    }
    const Vec3T<T> he(b.half);
    const Vec3T<T> q{std::fabs(lp.x) - he.x, std::fabs(lp.y) - he.y, std::fabs(lp.z) - he.z};
    if (q.x > T(0) || q.y > T(0) || q.z > T(0)) {
        const Vec3T<T> o{q.x > T(0) ? q.x : T(0), q.y > T(0) ? q.y : T(0), q.z > T(0) ? q.z : T(0)};
        const T dist = norm(o);
        ln = Vec3T<T>{lp.x < T(0) ? -o.x : o.x, lp.y < T(0) ? -o.y : o.y, lp.z < T(0) ? -o.z : o.z} / dist;
        return dist;
    }
    // Inside: the nearest face.
    const int ax = (q.x > q.y && q.x > q.z) ? 0 : (q.y > q.z ? 1 : 2);
    ln = Vec3T<T>(T(0));
    ln[ax] = lp[ax] < T(0) ? T(-1) : T(1);
    return q[ax];
}

// Penetration d = r_p - g and outward world normal n of particle position x against body b.
template <typename T>
VBD_HD T bodyPenetration(const BodyCollider& b, const Vec3T<T>& x, T rp, Vec3T<T>& n, Vec3T<T>& lp) {
    const QuatT<T> q(b.q);
    lp = rotateInv(q, x - Vec3T<T>(b.x));
    Vec3T<T> ln;
    const T g = bodyShapeDistance(b, lp, ln);
    n = rotate(q, ln);
    return rp - g;
}

// Force on the particle and its 3x3 block (added to f and H) for particle position x (x_prev at the start of
// the step) with contact thickness rp against body b, row state `row`. Returns true when the row pushes.
template <typename T>
VBD_HD bool bodyParticleContact(const BodyCollider& b, const BodyContactRow& row, float frictionEps,
                                const Vec3T<T>& x, const Vec3T<T>& xPrev, T rp, T h, Vec3T<T>& f,
                                Mat33T<T>& H) {
    Vec3T<T> n, lp;
    const T d = bodyPenetration(b, x, rp, n, lp);
    const T k = T(row.k);
    const T F = k * d + T(row.lambda);
    if (!(F > T(0))) return false;
    const Mat33T<T> nn = outer(n, n);
    f += n * F;
    H += nn * k;
    if (b.friction > 0.f) {
        const Vec3T<T> u = (Vec3T<T>(b.xPrev) + rotate(QuatT<T>(b.qPrev), lp)) - xPrev;
        const Vec3T<T> ut = u - n * dot(n, u);
        const T un = norm(ut), e = T(frictionEps) * h;
        const T f1OverY = un < e ? (T(2) / e - un / (e * e)) : T(1) / un;
        const T s = T(b.friction) * F * f1OverY;
        f -= ut * s;
        H += (Mat33T<T>::identity() - nn) * s;
    }
    return true;
}

// Augmented energy k/2 d^2 + lambda d of one pushing row (friction is dissipative).
template <typename T>
VBD_HD T bodyParticleEnergy(const BodyCollider& b, const BodyContactRow& row, const Vec3T<T>& x, T rp) {
    Vec3T<T> n, lp;
    const T d = bodyPenetration(b, x, rp, n, lp);
    if (!(T(row.k) * d + T(row.lambda) > T(0))) return T(0);
    return T(0.5) * T(row.k) * d * d + T(row.lambda) * d;
}

// G's part of one vertex's rows (rows [begin, end) of SoftModel::bodyRows) at x, summed in double: one source
// for SoftSolver::bodyContactEnergy and the device step's EnergyBodyTerm.
template <typename T>
VBD_HD double bodyRowsEnergy(const BodyCollider* colliders, const BodyContactRow* rows, int begin, int end,
                             const Vec3T<T>& x, T rp) {
    double e = 0;
    for (int k = begin; k < end; ++k)
        e += double(bodyParticleEnergy(colliders[rows[k].collider], rows[k], x, rp));
    return e;
}

}  // namespace vbd
