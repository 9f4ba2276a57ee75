#pragma once
// Contact records from a narrow-phase manifold, warm started from last step's contacts of the same pair and
// feature key (AVBD eq. 19), over raw arrays: RigidSolver::matchContacts runs it per touching pair on the
// CPU, and a device stage (gpu/rigid_stages.h RigidMatchStage) from the same source. One manifold writes its
// own slice of the new contact list and reads only last step's list: the manifolds are independent.
//
// The per-contact steps are [[gnu::always_inline]] on the host (VBD_HD_ALWAYS): inside RigidSolver they were
// one always-inlined sequence, and GCC with -march=native fuses multiply-adds differently when they are
// called out of line. The entry point, matchManifold, is compiled for the host once, in contact_match.cpp,
// not as an inline function of every unit that includes this header: a comdat copy per unit is compiled in
// each unit's inlining context (contactPoints, used all over rigid_solver.cpp, stayed out of line there and
// was inlined into the host executor's unit), and the linker keeps whichever copy comes first, so the CPU's
// results depended on which units a binary links (vbdlab's coupled scene soft_vs_rigid changed in its last
// bits when the device stage's unit was added). nvcc sees the body (device code and its host stubs).
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "math/hd.h"
#include "rigid/constraints.h"
#include "rigid/manifold.h"
#include "rigid/rigid_body.h"

#if defined(__CUDACC__)
#define VBD_HD_ALWAYS __host__ __device__ __forceinline__
#define VBD_MATCH_ENTRY __host__ __device__ __forceinline__
#else
#define VBD_HD_ALWAYS [[gnu::always_inline]] inline
#define VBD_MATCH_ENTRY  // contact_match.cpp: an ordinary function
#endif

namespace vbd {

// Contacts grouped by pair, in contact order: contacts[first, first + count) belong to (a, b); pair is the
// index of the pair in the step's candidate list (its manifold).
struct ManifoldRange {
    int a, b;
    size_t first, count;
    size_t pair;
};

// What the matching reads: the bodies at the start of the step, last step's contacts and their ranges
// (sorted by pairKey), and the solver's parameters.
struct MatchView {
    const RigidBodyState* state = nullptr;
    const BodyPose* pose = nullptr;  // the start-of-step poses (the contacts' anchors and gaps)
    const Collider* shape = nullptr;
    const double* mass = nullptr;
    const float* friction = nullptr;
    const char* fixed = nullptr;
    const Contact* oldContacts = nullptr;
    const ManifoldRange* oldManifolds = nullptr;
    size_t numOldManifolds = 0;
    Vec3 gravity;
    float groundFriction = 0.5f;
    double kStart = 1e4, kMax = 1e10, alpha = 0.99, gamma = 0.99;
};

// What every contact of one pair shares.
struct PairCoefficients {
    float kMin;       // penalty floor and warm-start floor
    float mu;         // friction coefficient
    bool flat;        // both features flat (box or ground): sticking anchors may carry
    double ag;        // alpha gamma, the warm-start factor of the tangential multipliers
    Vec3d n, t1, t2;  // the manifold's normal (A -> B) and tangents
};

namespace match_detail {

VBD_HD_ALWAYS void tangentBasis(const Vec3d& n, Vec3d& t1, Vec3d& t2) {
    t1 = normalized(std::fabs(n.x) < 0.6 ? cross(n, Vec3d(1, 0, 0)) : cross(n, Vec3d(0, 1, 0)));
    t2 = cross(n, t1);
}

// The order of the contact list: ground pairs by body, then body pairs by (min, max) (a fixed body is put on
// side A, which does not change the key). less(a, b, c, d): key(a, b) < key(c, d).
VBD_HD_ALWAYS void pairKey(int a, int b, int& k0, int& k1) {
    if (a < 0) {
        k0 = -1;
        k1 = b;
    } else {
        k0 = a < b ? a : b;
        k1 = a < b ? b : a;
    }
}

// Core anchor and radius of one side of a contact's normal row (Contact::cA says why): the material point
// itself on a box or the ground, the center of a sphere, the nearest point of a capsule's segment.
VBD_HD_ALWAYS void coreAnchor(const Collider* shape, const Vec3& material, Vec3& core, float& radius) {
    core = material;
    radius = 0;
    if (!shape) return;
    if (shape->type == ShapeType::Sphere) {
        core = Vec3(0.0f);
        radius = shape->radius;
    } else if (shape->type == ShapeType::Capsule) {
        core = Vec3(0, std::clamp(material.y, -shape->halfHeight, shape->halfHeight), 0);
        radius = shape->radius;
    }
}

VBD_HD_ALWAYS PairCoefficients pairCoefficients(const MatchView& v, int a, int b, float h) {
    const double h2 = double(h) * double(h);
    const bool aDyn = a >= 0 && !v.fixed[a];
    const double mEff = aDyn ? std::min(v.mass[a], v.mass[b]) : v.mass[b];
    PairCoefficients pc{};
    // Penalty floor: at least the effective inertia m/h^2 of the lighter body. The scene's k_start (1e4 by
    // default) is tuned for unit masses; for a 100 kg box (m/h^2 = 3.6e5) it would make every new contact a
    // soft spring that takes tens of steps of dual updates to hold the weight. Much stiffer floors (10
    // m/h^2) slow Gauss-Seidel across a stack until it does not converge in 10 iterations.
    pc.kMin = float(std::min(std::max(v.kStart, mEff / h2), v.kMax));
    pc.mu = a < 0 ? std::sqrt(v.groundFriction * v.friction[b]) : std::sqrt(v.friction[a] * v.friction[b]);
    pc.flat = v.shape[b].type == ShapeType::Box && (a < 0 || v.shape[a].type == ShapeType::Box);
    pc.ag = v.alpha * v.gamma;
    return pc;
}

// Last step's contacts of the pair (a, b), or nullptr: a binary search of the ranges, sorted by pairKey.
VBD_HD_ALWAYS const ManifoldRange* lastManifold(const MatchView& v, int a, int b) {
    int k0, k1;
    pairKey(a, b, k0, k1);
    size_t lo = 0, hi = v.numOldManifolds;  // the first range whose key is not below (k0, k1)
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        int r0, r1;
        pairKey(v.oldManifolds[mid].a, v.oldManifolds[mid].b, r0, r1);
        if (r0 < k0 || (r0 == k0 && r1 < k1))
            lo = mid + 1;
        else
            hi = mid;
    }
    const ManifoldRange* g = lo < v.numOldManifolds ? &v.oldManifolds[lo] : nullptr;
    return g && g->a == a && g->b == b ? g : nullptr;
}

// The point `world` in the frame of `body` at the start of the step (body < 0: the world point).
VBD_HD_ALWAYS Vec3 materialAnchor(const MatchView& v, int body, const Vec3& world) {
    if (body < 0) return world;
    const RigidBodyState& s = v.state[body];
    return rotateInv(s.rotation, world - s.position);
}

// A contact as the narrow phase found it: material anchors at the manifold's points, penalties at the floor.
VBD_HD_ALWAYS void freshContact(const MatchView& v, int a, int b, const Manifold& m, int p,
                                const PairCoefficients& pc, Contact& c) {
    c.a = a;
    c.b = b;
    c.key = m.pts[p].key;
    c.n = pc.n;
    c.t1 = pc.t1;
    c.t2 = pc.t2;
    c.mu = pc.mu;
    c.kMin = pc.kMin;
    c.rA = materialAnchor(v, a, m.pts[p].pA);
    c.rB = materialAnchor(v, b, m.pts[p].pB);
    for (float& kk : c.k) kk = pc.kMin;
    // A new contact starts with B's own weight shared over the manifold's points (when B rests on A:
    // n . g < 0) rather than zero: with lambda_n = 0 the friction cone has radius 0 in the first sweep, and
    // boxes of a freshly started pyramid slid 1-2 cm before their multipliers had built up.
    c.lambda[0] = -float(std::max(0.0, -dot(c.n, Vec3d(v.gravity))) * v.mass[b] / m.count);
}

// Warm start (AVBD eq. 19) from the matching contact `o` of last step: lambda <- alpha gamma lambda,
// k <- clamp(gamma k, kMin, kMax), except the normal multiplier, kept in full (contactDual says why). The
// tangential multiplier is re-expressed in the new tangent basis.
VBD_HD_ALWAYS void warmStartContact(const MatchView& v, const Contact& o, const PairCoefficients& pc,
                                    Contact& c) {
    c.lambda[0] = o.lambda[0];
    const Vec3d lt = (o.t1 * double(o.lambda[1]) + o.t2 * double(o.lambda[2])) * pc.ag;
    c.lambda[1] = float(dot(lt, c.t1));
    c.lambda[2] = float(dot(lt, c.t2));
    for (int r = 0; r < 3; ++r) c.k[r] = float(std::clamp(v.gamma * o.k[r], double(pc.kMin), v.kMax));
    // Static friction: a sticking contact keeps its old anchors, so the slip it has accumulated stays in d0
    // and keeps being resisted. Only between flat features: on a sphere or capsule a sticking contact rolls,
    // and the material point under it changes every step (a kept anchor would climb around a rolling ball
    // and the ball sank into the ground as it lost support).
    if (o.stick && pc.flat) {
        c.rA = o.rA;
        c.rB = o.rB;
        c.stick = 1;
    }
}

// d0 = pB - pA of the material anchors, the origin of the friction rows' slip. A stale sticking anchor that
// drifted too far (the bodies rolled or slid apart between frames) is replaced by the fresh narrow-phase
// points.
VBD_HD_ALWAYS void setSlipOrigin(const MatchView& v, const ManifoldPoint& pt, Contact& c) {
    Vec3d d0 = anchorWorld(v.pose, c.b, c.rB) - anchorWorld(v.pose, c.a, c.rA);
    if (c.stick && squaredNorm(d0 - c.n * dot(c.n, d0)) > 1e-4) {
        c.rA = materialAnchor(v, c.a, pt.pA);
        c.rB = materialAnchor(v, c.b, pt.pB);
        d0 = Vec3d(pt.pB - pt.pA);
        c.stick = 0;
    }
    c.d0 = Vec3(d0);
}

}  // namespace match_detail

// The contacts of the manifold m of pair (a, b) into out[0 .. m.count), each warm started from last step's
// contact of the same pair and key whose normal turned by less than ~25 degrees.
#if !defined(__CUDACC__) && !defined(VBD_CONTACT_MATCH_BODY)
void matchManifold(const MatchView& v, int a, int b, const Manifold& m, float h, Contact* out);
#else
VBD_MATCH_ENTRY void matchManifold(const MatchView& v, int a, int b, const Manifold& m, float h,
                                   Contact* out) {
    using namespace match_detail;
    PairCoefficients pc = pairCoefficients(v, a, b, h);
    // The manifold's normal frame, shared by its contacts (the SIMD rows broadcast it: sameManifold).
    pc.n = normalized(Vec3d(m.normal));
    tangentBasis(pc.n, pc.t1, pc.t2);
    const ManifoldRange* old = lastManifold(v, a, b);
    for (int p = 0; p < m.count; ++p) {
        Contact& c = out[p];
        c = Contact();
        freshContact(v, a, b, m, p, pc, c);
        const Contact* found = nullptr;
        if (old)
            for (size_t q = old->first; q < old->first + old->count && !found; ++q)
                if (v.oldContacts[q].key == c.key) found = &v.oldContacts[q];
        // A contact whose normal turned by more than ~25 degrees (a sphere buried in a box crossing to
        // another face's region) is a new contact: its old multiplier pushes in the wrong direction.
        if (found && dot(found->n, c.n) > 0.9) warmStartContact(v, *found, pc, c);
        setSlipOrigin(v, m.pts[p], c);
        // Core anchors and radii of the normal row, and its gap at the start of the step.
        coreAnchor(a >= 0 ? &v.shape[a] : nullptr, c.rA, c.cA, c.radA);
        coreAnchor(&v.shape[b], c.rB, c.cB, c.radB);
        const ContactPoints cp = contactPoints(c, v.pose);
        c.c0n = float(dot(c.n, cp.nB - cp.nA));
    }
}
#endif

}  // namespace vbd
