#pragma once
// The device stages of one AVBD rigid step (gpu/rigid_pipeline.h) as per-index functors with VBD_HD call
// operators over a RigidView of the executor's memory. Each calls one function of rigid/body_block.h, the
// code RigidSolver runs on the CPU: nothing of the solver's math is restated here.
//
// Races: a sweep functor over the bodies of one color writes the pose and force2 of its own body and the
// contacts whose fused dual update it owns (RigidView::dualOwner: the contact's other body has another
// color), and reads poses of bodies of other colors only: bodies of one color share no contact or joint
// (RigidSolver::colorBodies colors by both). The dual stages write their own contact or joint; the others
// their own body.
#include "rigid/body_block.h"

namespace vbd {

// Forward step: x*, R*, x-, R- and the initial guess (predictRigidBody).
struct RigidPredictStage {
    RigidView v;
    double h;
    VBD_HD void operator()(int i) const { predictRigidBody(v, i, h); }
};

// One body of a color: assembly, 6x6 solve, pose update (solveRigidBody); dual != 0 also applies the last
// sweep's dual update of the contacts the body owns.
struct RigidSweepStage {
    RigidView v;
    const int* bodies;  // the color's bodies
    float h;
    int dual;
    VBD_HD void operator()(int k) const { solveRigidBody(v, bodies[k], h, dual != 0); }
};

struct RigidContactDualStage {
    RigidView v;
    VBD_HD void operator()(int k) const { contactDualUpdate(v, k); }
};

struct RigidJointDualStage {
    RigidView v;
    VBD_HD void operator()(int j) const { jointDualUpdate(v, j); }
};

// BDF1 velocities and the float state (finalizeRigidBody).
struct RigidFinalizeStage {
    RigidView v;
    double ih;
    VBD_HD void operator()(int i) const { finalizeRigidBody(v, i, ih); }
};

// Diagnostics: force2 and the inertial energy of every body at the current iterate.
struct RigidDiagnosticsStage {
    RigidView v;
    float h;
    double* energy;
    VBD_HD void operator()(int i) const { energy[i] = rigidBodyDiagnostics(v, i, h); }
};

// What a step changes in a contact (the dual update's multipliers and penalties, the sticking flag): the
// download carries these 28 bytes per contact instead of the whole 200-byte record, which the step reads
// only.
struct ContactDualState {
    float k[3], lambda[3];
    int stick;
};
struct RigidPackContactsStage {
    const Contact* contacts;
    ContactDualState* out;
    VBD_HD void operator()(int i) const {
        const Contact& c = contacts[i];
        ContactDualState& d = out[i];
        for (int r = 0; r < 3; ++r) {
            d.k[r] = c.k[r];
            d.lambda[r] = c.lambda[r];
        }
        d.stick = c.stick;
    }
};

// Reduction terms: |f|^2 + |tau|^2 of a dynamic body; a body's inertial energy; a contact's and a joint's
// 1/2 k C^2 + lambda C.
struct RigidForceTerm {
    RigidView v;
    VBD_HD double operator()(int i) const { return v.fixed[i] ? 0.0 : v.force2[i]; }
};
struct RigidArrayTerm {
    const double* e;
    VBD_HD double operator()(int i) const { return e[i]; }
};
struct RigidContactEnergyTerm {
    RigidView v;
    VBD_HD double operator()(int k) const {
        double g = 0;
        addContactEnergy(v.contacts[k], v.pose, v.alpha, g);
        return g;
    }
};
struct RigidJointEnergyTerm {
    RigidView v;
    VBD_HD double operator()(int j) const {
        double g = 0;
        addJointEnergy(v.joints[j], v.pose, v.alpha, g);
        return g;
    }
};

}  // namespace vbd
