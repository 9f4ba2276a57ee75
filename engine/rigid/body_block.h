#pragma once
// The per-body and per-row work of one AVBD step as VBD_HD functions over plain arrays (RigidView): the
// forward step of a body, the assembly of its 6x6 block (inertial term, contact rows, joint rows, external
// block, picking spring), the block solve and pose update, the dual / penalty update of a contact or a
// joint, the BDF1 velocities, and the terms of G for the diagnostics. RigidSolver (rigid_solver.cpp) calls
// them over its std::vectors, the device step (gpu/rigid_stages.h) over device or host copies: one source.
//
// Bit identity. GCC's contraction of a * b + c into an FMA (-ffp-contract=fast, with -march=native) depends
// on what is inlined into what. The entry points a stage calls once per index (predictRigidBody,
// solveRigidBody, contactDualUpdate, jointDualUpdate, finalizeRigidBody, rigidBodyDiagnostics) are kept out
// of line on the host (VBD_HD_NOINLINE): each is then compiled once, from memory to memory, whatever calls
// it, so the CPU solver and the host executor (test_gpu_rigid_host) run the same instructions. Inside, the
// assembly and the 6x6 solve stay separate calls, as they were in RigidSolver before this file existed (the
// solver's results are unchanged to the bit: scripts/compare_states.sh). Under nvcc every function here is
// inlined, on the host side too: an out-of-line copy from a .cu file (compiled without the C++ flags'
// -march=native) could otherwise be the one the linker keeps for the CPU's calls. On the device nvcc
// contracts as it likes (test_gpu_cuda_rigid says how far that may move a body, and why).
//
// On the CPU the contact rows of an assembly and the contacts' dual updates run on SIMD packs, four contacts
// at a time (rigid/contact_lanes.h: the same templated row math of rigid/constraints.h); the device and the
// scalar loop below (nvcc) take one contact at a time. The host executor calls these same functions, so it
// stays bit-identical to RigidSolver.
#include "math/hd.h"
#include "rigid/constraints.h"
#if !defined(__CUDACC__)
#include "rigid/contact_lanes.h"
#endif
#include "rigid/gyroscopic.h"
#include "rigid/rigid_body.h"

namespace vbd {

// A spring of stiffness k pulling the body point `local` towards `target` (picking); body < 0: none.
struct RigidDrag {
    int body = -1;
    Vec3 local, target;
    float k = 0;
};

// Everything the per-body and per-row functions read and write, as raw pointers of one memory space.
struct RigidView {
    // Per body.
    RigidBodyState* state = nullptr;  // float state: x-, v- read by the forward step, written by finalize
    BodyPose* pose = nullptr;         // working poses of the step (double)
    Vec3* prevPos = nullptr;          // x-
    Quat* prevRot = nullptr;          // R-
    Vec3* prevVel = nullptr;          // v at the start of the previous step (adaptive guess)
    Vec3d* targetPos = nullptr;       // x*
    Quatd* targetRot = nullptr;       // R*
    double* force2 = nullptr;         // |f|^2 + |tau|^2 of the last assembly
    const double* mass = nullptr;
    const Vec3d* inertia = nullptr;  // principal moments
    const char* fixed = nullptr;
    // Rows, and per body the CSR lists of the rows its block reads.
    Contact* contacts = nullptr;
    Joint* joints = nullptr;
    const int* contactOffsets = nullptr;
    const int* contactItems = nullptr;
    const int* jointOffsets = nullptr;
    const int* jointItems = nullptr;
    const int* dualOwner = nullptr;      // per contact: the body that applies its fused dual update
    const Block66d* external = nullptr;  // per body, numExternal of them (coupling), or nullptr
    int numExternal = 0;
    RigidDrag drag;
    Vec3d gravity;
    double alpha = 0.99, beta = 1e5, kMax = 1e10;
    bool adaptiveInit = true;
};

// ---- forward step ----

// The seed's integrate_rigid_body except for the rotation: the body-frame angular velocity takes the
// implicit midpoint step of Euler's equations (rigid/gyroscopic.h), R* turns by the new angular velocity.
// Initial guess: VBD's adaptive guess (sec. 3.7, as the AVBD demos) x = x- + h v + h^2 g a~, a~ in [0, 1]
// the fraction of gravity the body felt last step (0 at rest, 1 in free fall); the rotation starts at R*.
// The seed starts at the inertial target (solver.initial_guess = "inertial"): for resting contact that
// drops a stack by g h^2 every step, and our 10-box stack bounced at 0.15 m/s.
VBD_HD_NOINLINE void predictRigidBody(const RigidView& v, int i, double hd) {
    const RigidBodyState& s = v.state[i];
    v.prevPos[i] = s.position;
    v.prevRot[i] = s.rotation;
    if (v.fixed[i]) {
        v.targetPos[i] = Vec3d(s.position);
        v.targetRot[i] = Quatd(s.rotation);
        return;
    }
    const Vec3d& g = v.gravity;
    const Vec3d vel = Vec3d(s.velocity) + g * hd;
    const Vec3d xs = Vec3d(s.position) + vel * hd;
    const Quatd q0(s.rotation);
    const Vec3d I = v.inertia[i];
    const Vec3d wb = rotateInv(q0, Vec3d(s.angularVelocity));
    const Vec3d w1 = rotate(q0, gyroscopicMidpointStep(I, wb, hd));
    const Quatd qs = integrateWorld(q0, w1, hd);
    v.targetPos[i] = xs;
    v.targetRot[i] = qs;
    const double g2 = dot(g, g);
    double wgt = 1.0;
    if (!v.adaptiveInit) {
        v.pose[i] = makePose(xs, qs);
        return;
    }
    if (g2 > 0) {
        const Vec3d acc = (Vec3d(s.velocity) - Vec3d(v.prevVel[i])) / hd;
        const double a = dot(acc, g) / g2;
        wgt = a < 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a);
    }
    v.prevVel[i] = s.velocity;
    v.pose[i] = makePose(Vec3d(s.position) + Vec3d(s.velocity) * hd + g * (wgt * hd * hd), v.targetRot[i]);
}

// ---- the per-body block (seed, solve_rigid_body) ----

VBD_HD Vec3d mulDiag(const Vec3d& d, const Vec3d& a) { return {d.x * a.x, d.y * a.y, d.z * a.z}; }

// contactDual for the fused update inside a sweep, kept out of line. Inlined into the assembly, GCC 12 at
// -O2/-O3 produced results that differ in the last bits from the same code at -O0 (and from the separate
// dual pass of the diagnostics path); -fno-tree-slp-vectorize or this call boundary restore them.
// Measured: identical states over 300 steps of the 20-row pyramid.
VBD_HD_NOINLINE void contactDualFused(Contact& c, const double C[3], double alpha, double beta, double kMax) {
    contactDual(c, C, alpha, beta, kMax);
}

// One contact's rows added to the block of `self` (centre com), one contact at a time: the device's loop,
// and the CPU's for a curved contact (rigid/contact_lanes.h). applyDual: first the previous sweep's dual
// update of this contact, by the first of its bodies to be solved in this sweep (RigidSolver::iterate): both
// bodies still stand where that sweep left them.
VBD_HD void addContactRow(Contact& c, int self, const Vec3d& com, const BodyPose* pose, bool applyDual,
                          double alpha, double beta, double kMax, Block66d& blk) {
    ContactPoints cp;
    double C[3], F[3], slide;
    contactC(c, pose, alpha, cp, C);
    if (applyDual) contactDualFused(c, C, alpha, beta, kMax);
    contactForce(c, C, F, &slide);
    addContact(blk, c, self, com, cp, F, slide);
}

// The inertial springs to the frozen targets: the block assembleRigidBody starts from (cleared first).
VBD_HD void rigidInertialBlock(const RigidView& v, int i, float h, Block66d& blk) {
    const double ih2 = 1.0 / (double(h) * double(h));
    const Vec3d x = v.pose[i].x;
    const Quatd q = v.pose[i].q;
    const double mh = v.mass[i] * ih2;
    blk.clear();
    blk.hll = Mat33d::diag(mh);
    blk.flin = (v.targetPos[i] - x) * mh;
    // Angular spring: theta = rotation vector from the current orientation to R* (body frame, as Newton
    // computes it), torque I_world theta_world / h^2.
    const Vec3d thetaB = toRotationVector(conjugate(q) * v.targetRot[i]);
    blk.fang = rotate(q, mulDiag(v.inertia[i], thetaB) * ih2);
    const Mat33d& R = v.pose[i].R;
    const Vec3d& In = v.inertia[i];
    // I_world = R diag(I) R^T; the rows of diag(I) R^T are I_k times the columns of R.
    // Entry by entry, the operations of R * fromRows(R.col(k) * I_k) * ih2 in their order: as one matrix
    // expression GCC built it in a stack temporary with 16-byte stores and copied it into the block with
    // 32-byte loads, which cannot take their data from those stores (a store-forwarding stall: a third of
    // this function's samples on the pile). Same bits (26 scenes). bench_rigid, 4 alternating runs: the
    // pile's solve 53.5-54.5 -> 52.6-54.0 ms on 1 thread, 27.0-27.4 -> 26.7-26.9 ms on 2.
    const double Ik[3] = {In.x, In.y, In.z};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            blk.haa.m[r][c] = (R.m[r][0] * (R.m[c][0] * Ik[0]) + R.m[r][1] * (R.m[c][1] * Ik[1]) +
                               R.m[r][2] * (R.m[c][2] * Ik[2])) *
                              ih2;
}

// The body's contact rows k = first, first + stride, ... < end of its list, one at a time (the device's loop;
// the CPU's packs are in assembleRigidBody). dual: see assembleRigidBody.
VBD_HD void addRigidContactRows(const RigidView& v, int body, int first, int end, int stride, bool dual,
                                Block66d& blk) {
    const Vec3d x = v.pose[body].x;
    for (int k = first; k < end; k += stride) {
        const int ci = v.contactItems[k];
        addContactRow(v.contacts[ci], body, x, v.pose, dual && v.dualOwner[ci] == body, v.alpha, v.beta,
                      v.kMax, blk);
    }
}

// The joint rows, the external block and the picking spring: what assembleRigidBody adds after the contacts.
VBD_HD void addRigidOtherRows(const RigidView& v, int body, Block66d& blk) {
    const int i = body;
    const Vec3d x = v.pose[i].x;
    const double alpha = v.alpha;
    for (int k = v.jointOffsets[i]; k < v.jointOffsets[i + 1]; ++k)
        addJoint(blk, v.joints[v.jointItems[k]], body, v.pose, alpha);
    if (v.external && i < v.numExternal) {
        const Block66d& e = v.external[i];
        blk.flin += e.flin;
        blk.fang += e.fang;
        blk.hll += e.hll;
        blk.hal += e.hal;
        blk.haa += e.haa;
    }
    if (v.drag.body == body) {
        // Picking spring 1/2 k |p - target|^2 at the body point p: J = (I, [r]x).
        const Vec3d p = anchorWorld(v.pose, body, v.drag.local), r = p - x;
        const Vec3d d = p - Vec3d(v.drag.target);
        for (int a = 0; a < 3; ++a) {
            Vec3d e(0.0);
            e[a] = 1.0;
            addRow(blk, e, cross(r, e), double(v.drag.k) * d[a], double(v.drag.k));
        }
    }
}

// Inertial springs to the frozen targets plus every adjacent contact and joint row, the external block and
// the picking spring. dual: first apply the previous sweep's dual update to the contacts this body owns.
// next: the body solved after this one on this thread (-1: none), whose contacts the CPU prefetches.
VBD_HD_NOINLINE void assembleRigidBody(const RigidView& v, int body, float h, Block66d& blk, bool dual,
                                       int next = -1) {
    const int i = body;
    rigidInertialBlock(v, i, h, blk);
#if !defined(__CUDACC__)
    const double alpha = v.alpha;
    // On the CPU the contacts go through SIMD packs (rigid/contact_lanes.h).
    const int aheadBegin = next >= 0 ? v.contactOffsets[next] : 0;
    const int aheadEnd = next >= 0 ? v.contactOffsets[next + 1] : 0;
    addContactRowsLanes(v.contacts, v.contactItems, v.contactOffsets[i], v.contactOffsets[i + 1], v.pose,
                        body, v.dualOwner, dual, alpha, v.beta, v.kMax, blk, v.contactItems + aheadBegin,
                        aheadEnd - aheadBegin);
#else
    (void)next;
    addRigidContactRows(v, body, v.contactOffsets[i], v.contactOffsets[i + 1], 1, dual, blk);
#endif
    addRigidOtherRows(v, body, blk);
}

// schurSolve66 behind a call boundary (see the top of the file).
VBD_HD_NOINLINE bool solveRigidBlock(const Block66d& blk, Vec3d& dx, Vec3d& dw) {
    return schurSolve66(blk, dx, dw);
}

// The solve of a body whose block is assembled: records |f|^2 + |tau|^2 and moves the body (solveRigidBody's
// second half; the device's tile sweep assembles the block across lanes first).
VBD_HD void solveAssembledRigidBody(const RigidView& v, int body, const Block66d& blk) {
    v.force2[body] = squaredNorm(blk.flin) + squaredNorm(blk.fang);
    Vec3d dx, dw;
    if (!solveRigidBlock(blk, dx, dw)) return;
    BodyPose& p = v.pose[body];
    // Small-angle pose update: dq = normalize(dw/2, 1), applied on the left (world frame). One normalization
    // of the product instead of one of dq and one of the product: the same direction, and the pile's step has
    // one square root and one division less on each body's chain (100,000 per step).
    p = makePose(p.x + dx, normalized(Quatd(dw * 0.5, 1.0) * p.q));
}

// Assembles and solves the body's block. Bodies of one color share no contact or joint
// (RigidSolver::colorBodies), so a color's bodies run concurrently: each reads only poses of other colors and
// writes its own pose and the contacts it owns. next: see assembleRigidBody.
VBD_HD_NOINLINE void solveRigidBody(const RigidView& v, int body, float h, bool dual, int next = -1) {
    Block66d blk;
    assembleRigidBody(v, body, h, blk, dual, next);
    solveAssembledRigidBody(v, body, blk);
}

// ---- dual and penalty updates after a sweep ----

// As the sweep's fused update does it: on the CPU through the lanes' instructions (rigid/contact_lanes.h).
VBD_HD_NOINLINE void contactDualUpdate(const RigidView& v, int k) {
#if !defined(__CUDACC__)
    contactDualLanes(v.contacts, k, k + 1, v.pose, v.alpha, v.beta, v.kMax);
#else
    double C[3];
    ContactPoints cp;
    contactC(v.contacts[k], v.pose, v.alpha, cp, C);
    contactDual(v.contacts[k], C, v.alpha, v.beta, v.kMax);
#endif
}

VBD_HD_NOINLINE void jointDualUpdate(const RigidView& v, int j) {
    jointDual(v.joints[j], v.pose, v.alpha, v.beta, v.kMax);
}

// ---- velocities ----

// BDF1 velocities. The angular velocity inverts the forward map exactly: the step rotates by
// dq = normalize(h w / 2, 1) (integrateWorld and the small-angle update both have this form), so
// w = 2 dq_v / (h dq_w). Taking the rotation-vector log instead would shrink |w| by (w h)^2 / 12 every
// step for a free spinning body. The pose is rounded to float once, here; velocities come from the double
// iterate.
VBD_HD_NOINLINE void finalizeRigidBody(const RigidView& v, int i, double ih) {
    RigidBodyState& s = v.state[i];
    if (v.fixed[i]) {
        s.velocity = s.angularVelocity = Vec3(0.0f);
        return;
    }
    const BodyPose& p = v.pose[i];
    s.position = Vec3(p.x);
    s.rotation = Quat(normalized(p.q));
    s.velocity = Vec3((p.x - Vec3d(v.prevPos[i])) * ih);
    Quatd dq = p.q * conjugate(Quatd(v.prevRot[i]));
    if (dq.w < 0) dq = dq * -1.0;
    const Vec3d w = dq.w > 0.3 ? dq.vec() * (2.0 * ih / dq.w) : toRotationVector(dq) * ih;
    s.angularVelocity = Vec3(w);
}

// ---- diagnostics: the exact residual and G at the current iterate ----

// A read-only assembly of a dynamic body: writes force2 (0 for a fixed body) and returns the body's
// inertial energy 1/2 h^-2 (m |x - x*|^2 + theta^T I theta).
VBD_HD_NOINLINE double rigidBodyDiagnostics(const RigidView& v, int i, float h) {
    if (v.fixed[i]) {
        v.force2[i] = 0;
        return 0.0;
    }
    const double ih2 = 1.0 / (double(h) * double(h));
    Block66d blk;
    assembleRigidBody(v, i, h, blk, false);
    v.force2[i] = squaredNorm(blk.flin) + squaredNorm(blk.fang);
    const Vec3d dxp = v.pose[i].x - v.targetPos[i];
    const Vec3d th = toRotationVector(conjugate(v.pose[i].q) * v.targetRot[i]);
    return 0.5 * ih2 * (v.mass[i] * squaredNorm(dxp) + dot(th, mulDiag(v.inertia[i], th)));
}

// g += 1/2 k C^2 + lambda C of each row of a contact that is pushing.
VBD_HD void addContactEnergy(const Contact& c, const BodyPose* pose, double alpha, double& g) {
    ContactPoints cp;
    double C[3], F[3];
    contactC(c, pose, alpha, cp, C);
    contactForce(c, C, F);
    if (F[0] == 0.0) return;
    for (int k = 0; k < 3; ++k) g += 0.5 * c.k[k] * C[k] * C[k] + c.lambda[k] * C[k];
}

// g += 1/2 k C^2 + lambda C of each active row of a joint (one-sided rows only while they push).
VBD_HD void addJointEnergy(const Joint& j, const BodyPose* pose, double alpha, double& g) {
    JointEval ev;
    jointEval(j, pose, ev);
    for (int k = 0; k < kJointRows; ++k) {
        if (!ev.rows[k].active) continue;
        const double C = jointCUsed(j, ev.rows[k], k, alpha);
        if (ev.rows[k].oneSided && jointForce(j, ev.rows[k], k, C) == 0.0) continue;
        g += 0.5 * j.k[k] * C * C + j.lambda[k] * C;
    }
}

}  // namespace vbd
