#pragma once
// AVBD constraint rows for rigid bodies (Giles, Diaz, Yuksel, "Augmented Vertex Block Descent",
// SIGGRAPH 2025). Every row has a scalar constraint C(x), a Jacobian J = dC/d(x, theta) per body
// (world frame; theta = left rotation increment), a penalty k and a multiplier lambda:
//
//   force        F = clamp(k C + lambda, fmin, fmax)                       (AVBD eq. 9-10)
//   energy grad  dE/dq = F J     ->  body force  -F J,  Hessian  k J J^T    (Gauss-Newton)
//   dual         lambda <- clamp(k C + lambda, fmin, fmax)                 (eq. 11)
//   penalty      k <- min(k + beta |C|, k_max), only while lambda is strictly inside its bounds
//   stabilized   C_used = C(x) - alpha C(x-)   (x- = pose at the start of the step), so that error
//                that already exists is removed by a fraction (1 - alpha) per step instead of
//                being corrected violently (eq. 18). For one-sided rows only existing
//                *violation* counts: C0 -> min(C0, 0), so a speculative gap is never kept open.
//                The stabilized C enters the force; a contact's normal multiplier is updated with
//                the unstabilized change C - min(C0, 0) instead (contactDual says why).
//
// Sign convention: a contact row's C is the gap n . (pB - pA) (negative = penetrating) with
// bounds (-inf, 0], so F <= 0 only pushes. For a row on body B with J_B = (dir, r_B x dir), the
// force on B is -F dir: along +n for a contact. The Hessian of a row whose force is clamped to 0
// (a separating contact, an inactive limit) is left out: its exact Hessian is zero.
//
// All evaluation is in double: for a 50,000:1 mass ratio and k ~ 1e10, H_aa = I/h^2 + k [r][r]^T
// carries I/h^2 ~ 1e-7 of its magnitude, below float resolution.
#include <cstdint>

#include "math/lanes.h"
#include "math/schur66.h"
#include "rigid/rigid_body.h"

namespace vbd {

// One contact point. GPU-friendly POD (200 bytes, see the static_assert).
struct Contact {
    int a = -1, b = 0;  // body indices; a = -1 is the ground plane (rA is then a world point)
    uint32_t key = 0;   // feature key from the narrow phase
    Vec3d n, t1, t2;    // normal (A -> B) and tangents, fixed for the step (double: read by
                        // every row evaluation, converting them cost 10% of a sweep)
    Vec3 rA, rB;        // material anchors in the bodies' frames (friction rows)
    // The normal row measures the gap between the shapes' cores: core anchors (the point itself
    // on a box, the center of a sphere, the nearest point of a capsule's segment) offset by the
    // radii along n. A material anchor on a rolling ball climbs by r (1 - cos(w h)) per step;
    // as a normal anchor that made the ball sink into the ground and gain speed.
    Vec3 cA, cB;
    float radA = 0, radB = 0;
    Vec3 d0;        // pB - pA (material anchors) at the start of the step
    float c0n = 0;  // normal gap at the start of the step
    float mu = 0.5f;
    float k[3] = {0, 0, 0};  // normal, tangent 1, tangent 2
    float lambda[3] = {0, 0, 0};
    float kMin = 0;  // warm-start floor for the penalties
    int stick = 0;   // friction force strictly inside the cone at the end of the last step
};

static_assert(sizeof(Contact) == 200, "Contact layout changed: update the size note");

// Rows of a joint live in fixed slots: 0-2 anchor coincidence (world axes), 3-5 relative rotation
// (fixed joint, rotation-vector error) or 3-4 axis alignment (hinge), 6-7 hinge limits.
constexpr int kJointRows = 8;

struct Joint {
    JointType type = JointType::Ball;
    int a = -1, b = 0;  // a = -1: world
    Vec3 rA, rB;        // anchor in A's frame (world if a < 0) and in B's frame
    Quat qRel;          // rest relative rotation: q_B = q_A qRel
    Vec3 axisA, axisB;  // hinge axis in each body's frame
    Vec3 refA, refB;    // a unit vector perpendicular to the axis, equal in world at rest
    int limit = 0;
    float lower = 0, upper = 0;
    float stiffness = 0;  // 0 = hard
    float k[kJointRows] = {}, lambda[kJointRows] = {}, c0[kJointRows] = {};
};

struct JointRow {
    Vec3d jlA, jaA, jlB, jaB;
    double C = 0;
    bool active = false, oneSided = false;  // one-sided rows have bounds (-inf, 0]
};

struct JointEval {
    JointRow rows[kJointRows];
    double armA = 0, armB = 0;  // anchor lever arms |r| (geometric stiffness of the ball rows)
};

VBD_HD Vec3d toD(const Vec3& v) { return Vec3d(v); }
VBD_HD const Vec3d& toD(const Vec3d& v) { return v; }
VBD_HD Quatd toD(const Quat& q) { return Quatd(q); }

// The solver's working pose of a body during a step, in double with its rotation matrix (the
// float RigidBodyState is rounded from it once per step). 128 bytes.
struct BodyPose {
    Vec3d x;
    Quatd q;
    Mat33d R;
};
static_assert(sizeof(BodyPose) == 128, "BodyPose layout changed: update the size note");
VBD_HD BodyPose makePose(const Vec3d& x, const Quatd& q) { return {x, q, toMatrix(q)}; }

// World point of a body-frame anchor; body < 0 is the world (anchor already world).
VBD_HD Vec3d anchorWorld(const BodyPose* s, int body, const Vec3& local) {
    if (body < 0) return toD(local);
    return s[body].x + s[body].R * toD(local);
}

VBD_HD Quatd bodyRotation(const BodyPose* s, int body) { return body < 0 ? Quatd::identity() : s[body].q; }

// Adds one row with Jacobian (jl, ja) for the solving body, force F and penalty k.
VBD_HD void addRow(Block66d& __restrict blk, const Vec3d& jl, const Vec3d& ja, double F, double k) {
    blk.flin -= jl * F;
    blk.fang -= ja * F;
    blk.hll += outer(jl, jl) * k;
    blk.hal += outer(ja, jl) * k;
    blk.haa += outer(ja, ja) * k;
}

// min(x, bound) for a bound that is not NaN: std::fmin's result (glibc: x where x <= bound, NaN x gives
// the bound, fmin(-0, +0) = -0) without its libm call, which GCC does not inline without
// -ffinite-math-only (the calls were ~1% of the pile's step).
template <typename S>
VBD_HD S minBound(const S& x, const S& bound) {
    return select(x <= bound, x, bound);
}

// ---- contacts ----

// World points of a contact: material anchors (pA, pB) and the normal row's core points.
struct ContactPoints {
    Vec3d pA, pB, nA, nB;
};

VBD_HD ContactPoints contactPoints(const Contact& c, const BodyPose* s) {
    ContactPoints p;
    p.pA = anchorWorld(s, c.a, c.rA);
    p.pB = anchorWorld(s, c.b, c.rB);
    const Vec3d n = toD(c.n);
    // A flat side (box, plane) has radius 0 and its core anchor is the material anchor.
    p.nA = c.radA == 0.0f ? p.pA : anchorWorld(s, c.a, c.cA) + n * double(c.radA);
    p.nB = c.radB == 0.0f ? p.pB : anchorWorld(s, c.b, c.cB) - n * double(c.radB);
    return p;
}

// ---- the contact rows, templated on the scalar ----
// S is double for one contact (the scalar path, and the CUDA kernels) or a SIMD pack of doubles holding
// several contacts of one body (rigid/contact_lanes.h, host only). A value branch of the scalar code is a
// select on a lane mask here and a branch taken while any lane needs it (math/lanes.h), so that every lane
// does what the scalar path does, operation for operation: a lane's results are the scalar ones to the bit
// (test_contact_lanes checks it), and the fused dual update (which reads C from the assembly) stays equal
// to the separate pass.

// Stabilized rows (normal, tangent 1, tangent 2) from the contact's world points: material anchors pA, pB
// and the normal row's core points nA, nB.
template <typename S>
VBD_HD void contactRows(const Vec3T<S>& n, const Vec3T<S>& t1, const Vec3T<S>& t2, const Vec3T<S>& pA,
                        const Vec3T<S>& pB, const Vec3T<S>& nA, const Vec3T<S>& nB, const Vec3T<S>& d0,
                        const S& c0n, const S& alpha, S C[3]) {
    C[0] = dot(n, nB - nA) - alpha * select(S(0.0) > c0n, c0n, S(0.0));
    // Tangential rows: slip since the anchors were made, of which the part that existed at the
    // start of the step is only corrected by (1 - alpha).
    const Vec3T<S> dt = (pB - pA) - d0 * alpha;
    C[1] = dot(t1, dt);
    C[2] = dot(t2, dt);
}

// Normal force clamped to push only; friction as a cone: the tangential pair is rescaled onto the
// disk of radius mu |lambda_n| (sliding) when it leaves it. slide = bound / |f_t| < 1 while sliding,
// 1 while sticking: the factor of the tangent rows' Hessian too (contactTerms).
//
// The cone radius is mu |lambda_n| with the multiplier of the last dual update (as the AVBD 2D demo
// bounds its friction rows), not the current normal force: within a sweep the friction force is then
// the gradient of a convex function of the slip alone (the projection of k C_t + lambda_t onto a fixed
// disk). Bounding by the current F_n couples the tangential force to the normal displacement through
// mu k_n, a non-symmetric term the block Hessian cannot carry, and a tipping box on a ramp diverged
// within one step.
template <typename S>
VBD_HD void contactForceRows(const S k[3], const S lambda[3], const S& mu, const S C[3], S F[3], S& slide) {
    const S fn = k[0] * C[0] + lambda[0];
    F[0] = select(S(0.0) > fn, fn, S(0.0));
    S f1 = k[1] * C[1] + lambda[1];
    S f2 = k[2] * C[2] + lambda[2];
    const S bound = mu * (-lambda[0]);
    const S t = sqrtOf(f1 * f1 + f2 * f2);
    S s(1.0);
    const auto out = t > bound;
    if (anyLane(out)) {
        // A lane inside the cone keeps s = 1 (f * 1 is exact); t = 0 with bound < 0 cannot occur for a
        // pushing multiplier, the divisors are guarded all the same.
        const auto pos = t > S(0.0);
        s = select(out, select(pos, bound / select(pos, t, S(1.0)), S(0.0)), S(1.0));
        f1 *= s;
        f2 *= s;
    }
    F[1] = f1;
    F[2] = f2;
    slide = s;
}

// Stabilized constraint values (normal, tangent 1, tangent 2) at the current poses.
VBD_HD void contactC(const Contact& c, const BodyPose* s, double alpha, ContactPoints& p, double C[3]) {
    p = contactPoints(c, s);
    contactRows(toD(c.n), toD(c.t1), toD(c.t2), p.pA, p.pB, p.nA, p.nB, toD(c.d0), double(c.c0n), alpha, C);
}

VBD_HD void contactForce(const Contact& c, const double C[3], double F[3], double* slide = nullptr) {
    const double k[3] = {double(c.k[0]), double(c.k[1]), double(c.k[2])};
    const double lambda[3] = {double(c.lambda[0]), double(c.lambda[1]), double(c.lambda[2])};
    double s;
    contactForceRows(k, lambda, double(c.mu), C, F, s);
    if (slide) *slide = s;
}

// Contribution of a contact to the block of body `self` (== c.a or c.b).
//
// Normal row: its Hessian k n n^T is added even when the force is clamped to zero (separated or
// at exactly zero gap), as the AVBD demos do. Leaving it out looks exact but breaks the dual
// update: a box resting at C = 0 with lambda = 0 then falls freely through its contacts in the
// first sweep, lambda <- k C charges every one of its 4 contacts with the whole weight, and the
// box was launched upwards at 0.16 m/s.
//
// Friction Hessian: the tangent rows with their penalties scaled by s = bound / |z| (slide; 1 while
// sticking), z = k C_t + lambda_t. Why s in both tangent directions: with the cone's radius b fixed
// within a sweep (the multiplier's, above) and equal tangent penalties k, the friction force proj_b(z) is
// the gradient in C_t of the Huber potential psi(z) = |z|^2 / 2k inside the cone, (b |z| - b^2 / 2) / k
// outside. Its quadratic majorizer at a sliding z0 (|z0| > b) has curvature s / k in z, i.e. k s in C, in
// every tangent direction: q(z) = psi(z0) + s (|z|^2 - |z0|^2) / 2k >= psi(z), since
// q - psi = (b / 2|z0|)(|z| - |z0|)^2 / k outside the cone and (|z0| - b)(b - |z|^2 / |z0|) / 2k inside.
// A block step on the majorizer lowers the body's energy whatever its length (for C linear in the pose):
// it cannot jump past the stick region into a costlier slide the other way. The exact derivative, k s
// across the slip and 0 along it, can: the Newton step then crosses from one rim of the cone to the
// other, and with the softer 0.1 k along the slip used before, a box coming to rest on a free plate
// flipped its friction multipliers' sign every sweep (a 2-cycle, residual 784 at any iteration count)
// and the pair lost 1.2 % of its momentum in that step
// (test_rigid_dynamics FrictionBringsABoxToRestOnAFreePlateKeepingMomentum). The full k along the
// slip (the AVBD demos) resists the motion the clamped force allows: a sliding box decelerated at
// half of mu g in our ramp test. Deep in the slide (|z| >> b) s is small and the step is nearly free
// along the slip, as the exact derivative would have it; near the rim it is nearly k, as sticking.
// The dual update ramps k_1 and k_2 apart (k_i += beta |C_i| while sticking); then proj_b(z) is no
// gradient (its Jacobian P diag(k) is not symmetric) and k_i s is the same form without the guarantee.
// One contact's terms of a body's block, before they are added: force and torque, the columns of
// K = sum_i k_i d_i d_i^T over the rows' directions (H_ll), the columns of [r]x K (H_al) and the rows of
// [r]x K [r]x^T (H_aa). Computed apart from the block and then added (addContactTerms), so that the lanes
// of a pack are added in the contact order of the scalar path.
template <typename S>
struct ContactTerms {
    Vec3T<S> f, tau;
    Vec3T<S> k0, k1, k2;  // columns of K
    Vec3T<S> m0, m1, m2;  // columns of [r]x K
    Vec3T<S> h0, h1, h2;  // rows of [r]x K [r]x^T
};

// The terms of a contact on the side with sign sg (+1: body B, -1: body A) and lever arm r (material point
// minus the body's centre); flat: the normal row acts at the material point (else the caller adds it as a
// row of its own at the core point).
template <typename S>
VBD_HD void contactTerms(const Vec3T<S>& n, const Vec3T<S>& t1, const Vec3T<S>& t2, const S& sg,
                         const Vec3T<S>& r, const S F[3], const S& slide, const S k[3], bool flat,
                         ContactTerms<S>& out) {
    // Rows at the material point in the seed's block form: H_ll = K, H_al = [r]x K, H_aa = [r]x K [r]x^T
    // (evaluate_rigid_contact_from_collision). Column j of [r]x K is r x K_j; row i of H_aa is
    // r x (row i of H_al). The normal row joins them when its core point is the material point
    // (flat sides); on a curved side it acts at the core point with its own lever arm.
    const Vec3T<S> ft = t1 * F[1] + t2 * F[2];
    // K is symmetric: accumulate its 6 entries (xx, xy, xz, yy, yz, zz).
    S K[6] = {S(0.0), S(0.0), S(0.0), S(0.0), S(0.0), S(0.0)};
    auto acc = [&K](const Vec3T<S>& d, const S& kk) {
        const S kx = kk * d.x, ky = kk * d.y, kz = kk * d.z;
        K[0] += kx * d.x;
        K[1] += kx * d.y;
        K[2] += kx * d.z;
        K[3] += ky * d.y;
        K[4] += ky * d.z;
        K[5] += kz * d.z;
    };
    Vec3T<S> f = ft * (-sg);
    if (flat) {
        f -= n * (F[0] * sg);
        acc(n, k[0]);
    }
    out.f = f;
    out.tau = cross(r, f);
    // Tangent rows: their penalties times slide (the majorizer, above; slide = 1 while sticking).
    acc(t1, k[1] * slide);
    acc(t2, k[2] * slide);
    out.k0 = Vec3T<S>(K[0], K[1], K[2]);
    out.k1 = Vec3T<S>(K[1], K[3], K[4]);
    out.k2 = Vec3T<S>(K[2], K[4], K[5]);
    out.m0 = cross(r, out.k0);
    out.m1 = cross(r, out.k1);
    out.m2 = cross(r, out.k2);
    // Row a of H_aa = r x (row a of H_al); H_aa is symmetric.
    out.h0 = cross(r, Vec3T<S>(out.m0.x, out.m1.x, out.m2.x));
    out.h1 = cross(r, Vec3T<S>(out.m0.y, out.m1.y, out.m2.y));
    out.h2 = cross(r, Vec3T<S>(out.m0.z, out.m1.z, out.m2.z));
}

VBD_HD void addContactTerms(Block66d& __restrict blk, const ContactTerms<double>& t) {
    blk.flin += t.f;
    blk.fang += t.tau;
    Mat33d& hll = blk.hll;
    Mat33d& hal = blk.hal;
    Mat33d& haa = blk.haa;
    const Vec3d h[3] = {t.h0, t.h1, t.h2};
    for (int a = 0; a < 3; ++a) {
        hll.m[a][0] += t.k0[a];
        hll.m[a][1] += t.k1[a];
        hll.m[a][2] += t.k2[a];
        hal.m[a][0] += t.m0[a];
        hal.m[a][1] += t.m1[a];
        hal.m[a][2] += t.m2[a];
        haa.m[a][0] += h[a].x;
        haa.m[a][1] += h[a].y;
        haa.m[a][2] += h[a].z;
    }
}

VBD_HD void addContact(Block66d& __restrict blk, const Contact& c, int self, const Vec3d& com,
                       const ContactPoints& p, const double F[3], double slide) {
    const bool sideB = self == c.b;
    const double sg = sideB ? 1.0 : -1.0;
    const Vec3d n = toD(c.n);
    const Vec3d r = (sideB ? p.pB : p.pA) - com;
    const bool flat = (sideB ? c.radB : c.radA) == 0.0f;
    if (!flat) {
        const Vec3d rn = (sideB ? p.nB : p.nA) - com;
        addRow(blk, n * sg, cross(rn, n) * sg, F[0], double(c.k[0]));
    }
    const double k[3] = {double(c.k[0]), double(c.k[1]), double(c.k[2])};
    ContactTerms<double> t;
    contactTerms(n, toD(c.t1), toD(c.t2), sg, r, F, slide, k, flat, t);
    addContactTerms(blk, t);
}

// Dual and penalty update of one contact after a sweep; C are the stabilized rows of contactC.
//
// The normal multiplier departs from AVBD's lambda <- min(k C_used + lambda, 0). With
// C_used = C - alpha C0 and an existing penetration C0 < 0 that the step does not remove (the
// sweeps have not converged through a deep stack, or the penetrations of a statically
// indeterminate stack are not all closable by rigid motions), every sweep adds k (1 - alpha)|C0|
// to the push, and lambda carries it into the next step: integral feedback on the penetration.
// Integral feedback lags the displacement by 90 degrees and does positive work on an
// oscillation: for a penetration x = A sin(w t) the push P = K int(x) = -K A cos(w t) / w and its
// power -P dx/dt = K A^2 cos^2(w t) >= 0. The AVBD demos bleed the integral by warm starting
// lambda <- alpha gamma lambda (2% a step); this solver used 0.998. Measured on the 20-row
// pyramid (210 boxes, 10 iterations): its out-of-plane rocking mode (period 2 s) grew by 0.4%
// a step from frame ~1,500 on and the pyramid collapsed near frame 5,100; keeping lambda in full
// it collapsed within 1,000 frames, with 0.99 it stood but sank 5 mm (0.98: 1 cm).
//
// Here the normal multiplier accumulates only the change of the gap during the step,
// C - min(C0, 0) = C_used - (1 - alpha) min(C0, 0): it is the force that stops the gap from
// closing further (the velocity-level constraint), with no term that grows while nothing moves.
// It is warm started in full (nothing leaks, nothing has to be re-created from new penetration),
// and the alpha stabilization acts through the penalty term k C_used of contactForce alone, a
// proportional push k (1 - alpha)|C0| that cannot wind up. Measured: the 10- and 20-row
// pyramids stand for 10,000 frames (top box within 2 mm of its start, speeds below 1e-4 m/s).
// The price: an existing penetration under load is no longer pushed out by an ever-growing
// multiplier. Start-up penetration of a stack stays where the first steps put it (0.1 mm per
// interface on the pyramid), and two boxes started half inside each other on frictional ground
// separate only until k (1 - alpha)|C0| no longer beats friction (3.5 cm of overlap left of
// 25 cm; AVBD's integral pushed through to 1 mm).
//
// Templated on the scalar as the rows are (the lanes: rigid/contact_lanes.h): from C and the contact's
// start gap, friction, penalties and multipliers, the new penalties and multipliers (rounded to the
// contact's floats by the caller) and whether the friction sticks.
template <typename S>
VBD_HD auto contactDualRows(const S C[3], const S& c0n, const S& mu, const S k[3], const S lambda[3],
                            double alpha, double beta, double kMax, S kOut[3], S lambdaOut[3]) {
    const S c0 = select(S(0.0) > c0n, c0n, S(0.0));
    const S cn = C[0] - S(1.0 - alpha) * c0;
    const S ln = minBound(k[0] * cn + lambda[0], S(0.0));
    kOut[0] = select(S(0.0) > ln, minBound(k[0] + S(beta) * absOf(cn), S(kMax)), k[0]);
    lambdaOut[0] = ln;
    const S f1 = k[1] * C[1] + lambda[1];
    const S f2 = k[2] * C[2] + lambda[2];
    const S bound = mu * (-ln), t = sqrtOf(f1 * f1 + f2 * f2);
    // Inside the cone: the multipliers take the force and the penalties grow; on its rim (sliding) the
    // force is scaled onto it and the penalties stay.
    const auto stick = bound > t;
    kOut[1] = select(stick, minBound(k[1] + S(beta) * absOf(C[1]), S(kMax)), k[1]);
    kOut[2] = select(stick, minBound(k[2] + S(beta) * absOf(C[2]), S(kMax)), k[2]);
    const auto pos = t > S(0.0);
    const S s = select(pos, bound / select(pos, t, S(1.0)), S(0.0));
    lambdaOut[1] = select(stick, f1, f1 * s);
    lambdaOut[2] = select(stick, f2, f2 * s);
    return stick;
}

VBD_HD void contactDual(Contact& c, const double C[3], double alpha, double beta, double kMax) {
    const double k[3] = {double(c.k[0]), double(c.k[1]), double(c.k[2])};
    const double lambda[3] = {double(c.lambda[0]), double(c.lambda[1]), double(c.lambda[2])};
    double kOut[3], lambdaOut[3];
    const bool stick =
        contactDualRows(C, double(c.c0n), double(c.mu), k, lambda, alpha, beta, kMax, kOut, lambdaOut);
    for (int r = 0; r < 3; ++r) {
        c.k[r] = float(kOut[r]);
        c.lambda[r] = float(lambdaOut[r]);
    }
    c.stick = stick ? 1 : 0;
}

// ---- joints ----

// Raw (unstabilized) rows of a joint at the current poses.
VBD_HD void jointEval(const Joint& j, const BodyPose* s, JointEval& e) {
    const Vec3d pA = anchorWorld(s, j.a, j.rA), pB = anchorWorld(s, j.b, j.rB);
    const Vec3d xA = j.a >= 0 ? s[j.a].x : pA, xB = s[j.b].x;
    const Vec3d rA = pA - xA, rB = pB - xB, d = pB - pA;
    e.armA = norm(rA);
    e.armB = norm(rB);
    for (int i = 0; i < kJointRows; ++i) e.rows[i].active = false;
    for (int i = 0; i < 3; ++i) {
        Vec3d ei(0.0);
        ei[i] = 1.0;
        JointRow& r = e.rows[i];
        r.C = d[i];
        r.jlB = ei;
        r.jaB = cross(rB, ei);
        r.jlA = -ei;
        r.jaA = -cross(rA, ei);
        r.active = true;
    }
    const Quatd qA = bodyRotation(s, j.a), qB = bodyRotation(s, j.b);
    if (j.type == JointType::Fixed) {
        // Rotation-vector error of q_B against its target q_A qRel, in world axes; its derivative
        // is ~ +I for a left rotation of B and ~ -I for one of A (exact at zero error).
        const Vec3d phi = toRotationVector(qB * conjugate(qA * toD(j.qRel)));
        for (int i = 0; i < 3; ++i) {
            Vec3d ei(0.0);
            ei[i] = 1.0;
            JointRow& r = e.rows[3 + i];
            r.C = phi[i];
            r.jlA = r.jlB = Vec3d(0.0);
            r.jaB = ei;
            r.jaA = -ei;
            r.active = true;
        }
    } else if (j.type == JointType::Hinge) {
        // Axis alignment: C = t_i . (a_A x a_B) for two tangents t_i of a_A. A left rotation
        // dtheta of B changes a_A x a_B by a_A x (dtheta x a_B) ~ (I - a a^T) dtheta, so
        // J_B = t_i and J_A = -t_i at alignment.
        const Vec3d aA = rotate(qA, toD(j.axisA)), aB = rotate(qB, toD(j.axisB));
        const Vec3d c = cross(aA, aB);
        const Vec3d t1 =
            normalized(std::fabs(aA.x) < 0.6 ? cross(aA, Vec3d(1, 0, 0)) : cross(aA, Vec3d(0, 1, 0)));
        const Vec3d t2 = cross(aA, t1);
        const Vec3d ts[2] = {t1, t2};
        for (int i = 0; i < 2; ++i) {
            JointRow& r = e.rows[3 + i];
            r.C = dot(ts[i], c);
            r.jlA = r.jlB = Vec3d(0.0);
            r.jaB = ts[i];
            r.jaA = -ts[i];
            r.active = true;
        }
        if (j.limit) {
            // Hinge angle from the reference vectors; d(angle)/d(theta_B) = a, /d(theta_A) = -a.
            const Vec3d uA = rotate(qA, toD(j.refA)), uB = rotate(qB, toD(j.refB));
            const double ang = std::atan2(dot(aA, cross(uA, uB)), dot(uA, uB));
            JointRow& lo = e.rows[6];
            lo.C = ang - double(j.lower);
            lo.jlA = lo.jlB = Vec3d(0.0);
            lo.jaB = aA;
            lo.jaA = -aA;
            lo.active = lo.oneSided = true;
            JointRow& hi = e.rows[7];
            hi.C = double(j.upper) - ang;
            hi.jlA = hi.jlB = Vec3d(0.0);
            hi.jaB = -aA;
            hi.jaA = aA;
            hi.active = hi.oneSided = true;
        }
    }
}

// Stabilized value of row i.
VBD_HD double jointCUsed(const Joint& j, const JointRow& r, int i, double alpha) {
    if (j.stiffness > 0) return r.C;  // a spring keeps its full error (it has no hard target)
    const double c0 = double(j.c0[i]);
    return r.C - alpha * (r.oneSided ? (c0 < 0 ? c0 : 0.0) : c0);
}

VBD_HD double jointForce(const Joint& j, const JointRow& r, int i, double C) {
    double f = double(j.k[i]) * C + double(j.lambda[i]);
    if (r.oneSided && f > 0) f = 0;
    return f;
}

VBD_HD void addJoint(Block66d& blk, const Joint& j, int self, const BodyPose* s, double alpha) {
    JointEval e;
    jointEval(j, s, e);
    const bool sideB = self == j.b;
    Vec3d fLin(0.0);
    for (int i = 0; i < kJointRows; ++i) {
        const JointRow& r = e.rows[i];
        if (!r.active) continue;
        const double F = jointForce(j, r, i, jointCUsed(j, r, i, alpha));
        if (r.oneSided && F == 0.0) continue;
        addRow(blk, sideB ? r.jlB : r.jlA, sideB ? r.jaB : r.jaA, F, double(j.k[i]));
        if (i < 3) fLin[i] = F;
    }
    // Diagonal geometric stiffness of the anchor rows (AVBD demos): d^2(F . R r)/dtheta^2 is
    // bounded by |F| |r|; adding that to H_aa keeps the block SPD when the anchor force is large.
    blk.haa += Mat33d::diag(norm(fLin) * (sideB ? e.armB : e.armA));
}

VBD_HD void jointDual(Joint& j, const BodyPose* s, double alpha, double beta, double kMax) {
    if (j.stiffness > 0) return;  // springs: k = stiffness, lambda = 0
    JointEval e;
    jointEval(j, s, e);
    for (int i = 0; i < kJointRows; ++i) {
        const JointRow& r = e.rows[i];
        if (!r.active) continue;
        // A row whose penalty has reached k_max keeps its multiplier. At k_max = 1e10 the penalty
        // alone holds a 5e4 N load to 5 um, while lambda <- k C taken from a Gauss-Seidel sweep
        // that has not converged along a 50-link chain injects k times the sweep's position error
        // (1e10 x 1e-5 m) every iteration: the heavy-chain multipliers grew to 1000 times the
        // load and the chain jittered at 0.4 m/s. Frozen, it hangs still.
        if (double(j.k[i]) >= kMax) continue;
        const double C = jointCUsed(j, r, i, alpha);
        const double f = jointForce(j, r, i, C);
        j.lambda[i] = float(f);
        if (!r.oneSided || f < 0) j.k[i] = float(minBound(double(j.k[i]) + beta * std::fabs(C), kMax));
    }
}

}  // namespace vbd
