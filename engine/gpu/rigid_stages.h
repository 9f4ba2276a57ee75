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
#include <utility>
#include <vector>

#include "gpu/tile_sum.h"
#include "rigid/body_block.h"
#include "rigid/contact_match.h"
#include "rigid/narrow_phase.h"

namespace vbd {

// A candidate pair of the narrow phase: b a body, a a body or -1 for the ground plane.
struct BodyPair {
    int a, b;
};

// The CPU's candidate pairs (RigidSolver::candidatePairList) as the stages read them.
inline void toBodyPairs(const std::vector<std::pair<int, int>>& pairs, std::vector<BodyPair>& out) {
    out.resize(pairs.size());
    for (size_t k = 0; k < pairs.size(); ++k) out[k] = {pairs[k].first, pairs[k].second};
}

// Rotation matrices of the bodies' rotations, once per body: the narrow phase's box-box pairs read each
// body's ~8 times on a pile (RigidSolver::speculativeBounds computes the same rot_ for its narrow phase).
struct RigidRotationStage {
    const RigidBodyState* state;
    Mat33* rot;
    VBD_HD void operator()(int i) const { rot[i] = toMatrix(state[i].rotation); }
};

// One candidate pair's manifold and point count (collidePair: the code of RigidSolver::narrowPhase). Each
// index writes its own manifold and count only.
struct RigidNarrowStage {
    const BodyPair* pairs;
    const RigidBodyState* state;
    const Mat33* rot;
    const Collider* shape;
    const float* margin;
    float groundHeight;
    Manifold* manifolds;
    int* count;
    VBD_HD void operator()(int k) const {
        count[k] = collidePair(pairs[k].a, pairs[k].b, state, rot, shape, margin, groundHeight, manifolds[k]);
    }
};

// The contacts of one touching pair (matchManifold: the code of RigidSolver::matchContacts), warm started
// from last step's contacts of the view. Each index writes its pair's own slice out[first, first + count).
struct RigidMatchStage {
    MatchView v;
    const ManifoldRange* touching;
    const Manifold* manifolds;
    float h;
    Contact* out;
    VBD_HD void operator()(int i) const {
        const ManifoldRange& r = touching[i];
        matchManifold(v, r.a, r.b, manifolds[r.pair], h, out + r.first);
    }
};

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

// The sweep with a tile of kLanes lanes per body (the soft sweep's layout, gpu/step_stages.h SweepTileStage):
// the tile's lanes split the body's contact list, each adding its share of the contact rows (the one
// addRigidContactRows) into its own block; a shuffle reduction adds the 33 entries into the tile's first
// lane, which starts from the inertial block, adds the sums, the joints, the external block and the picking
// spring, and solves (solveAssembledRigidBody). Index t = kLanes k + lane; launched over threadsFor(count)
// threads (whole warps: the shuffles' full mask), tiles past the color's count add zeros and solve nothing.
// On the host the tile's first lane adds every lane's share in turn and sums the shares in the shuffle's
// order (tileSumOfLanes), then goes on as the device does; the others return. So the host tests check the
// device's split of the contacts, its order of the sums and the assembly from the pieces of assembleRigidBody
// (up to the device's contractions; the CPU's own assembly adds the contacts in SIMD packs). Why: a color of
// the 10,000-box pile is 2,500 bodies, 10 blocks of one thread per body on a card of 132 multiprocessors,
// each thread adding ~11 contacts' rows in a chain.
template <int kLanes>
struct RigidSweepTileStage {
    static_assert(kLanes >= 2 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0, "a power-of-two tile");
    RigidView v;
    const int* bodies;  // the color's bodies
    int count;
    float h;
    int dual;
    static long long threadsFor(int count) { return ((long long)count * kLanes + 31) & ~31LL; }
    VBD_HD void operator()(int t) const {
        const int lane = t % kLanes, k = t / kLanes;
        const bool active = k < count;
        const int body = active ? bodies[k] : 0;
        const int first = active ? v.contactOffsets[body] : 0, end = active ? v.contactOffsets[body + 1] : 0;
        Block66d part;
#ifdef __CUDA_ARCH__
        part.clear();
        addRigidContactRows(v, body, first + lane, end, kLanes, dual != 0, part);
        tileSumBlock(part);
        if (lane != 0 || !active) return;
#else
        if (lane != 0 || !active) return;
        Block66d parts[kLanes];
        for (int l = 0; l < kLanes; ++l) {
            parts[l].clear();
            addRigidContactRows(v, body, first + l, end, kLanes, dual != 0, parts[l]);
        }
        tileSumOfLanes<kLanes>(parts, [](Block66d& x, const Block66d& y) { addBlock(x, y); });
        part = parts[0];
#endif
        Block66d blk;
        rigidInertialBlock(v, body, h, blk);
        addBlock(blk, part);
        addRigidOtherRows(v, body, blk);
        solveAssembledRigidBody(v, body, blk);
    }

  private:
    VBD_HD static void addBlock(Block66d& x, const Block66d& y) {
        x.hll += y.hll;
        x.hal += y.hal;
        x.haa += y.haa;
        x.flin += y.flin;
        x.fang += y.fang;
    }
#ifdef __CUDA_ARCH__
    // Every entry of the block summed over the tile into its first lane (tileSum).
    __device__ static void tileSumBlock(Block66d& b) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                b.hll.m[r][c] = tileSum<kLanes>(b.hll.m[r][c]);
                b.hal.m[r][c] = tileSum<kLanes>(b.hal.m[r][c]);
                b.haa.m[r][c] = tileSum<kLanes>(b.haa.m[r][c]);
            }
        for (int r = 0; r < 3; ++r) {
            b.flin[r] = tileSum<kLanes>(b.flin[r]);
            b.fang[r] = tileSum<kLanes>(b.fang[r]);
        }
    }
#endif
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
