#pragma once
// The contact rows of one body's block, several contacts at a time: the rows' math of rigid/constraints.h
// (contactRows, contactForceRows, contactTerms) run on SIMD packs of doubles, one contact per lane. Host
// only (backend/simd.h); rigid/body_block.h calls it in place of its per-contact loop.
//
// Why. A box in the 10,000-box pile or the pyramid reads 7-15 contacts per block, and the per-contact
// arithmetic (two anchor transforms, the cone's square root, K, [r]x K and [r]x K [r]x^T: ~250 flops) and
// the dual update fused into the sweep (a square root and a stick/slip branch the predictor misses) were
// three quarters of the solve, all of it scalar double. bench_rigid, 1 thread: the pile's solve 86 -> 63 ms
// and the pyramid's 1.36 -> 1.11 ms per step (the rows in packs 86 -> 77, the prefetch 77 -> 70, the dual
// in packs 70 -> 63). The rest of the per-contact time mostly waits for the contact records (200 bytes,
// read through the body's list); while a body's packs run, the next body's records are prefetched
// (addContactRowsLanes: `ahead`).
//
// Which bits. A lane computes what the scalar path computes for its contact, operation for operation, but
// GCC contracts a * b + c into FMAs differently in a pack than in the scalar code (C's tangent rows differ
// in the last bit), so the lanes are not the scalar path's bits. What must agree to the bit is a contact's
// dual update wherever it runs: inside the sweep (fused, assembleRigidBody) and in the separate pass
// (contactDualUpdate, after the last sweep or with diagnostics on), or the step would depend on the
// diagnostics switch. Both therefore compute a flat contact's C and its update with the same functions on
// packs (contactLanesC, contactLanesDual), whichever lane the contact sits in; a curved contact (sphere,
// capsule: its normal row acts at the core point) takes the scalar contactC and contactDual in both places.
// The two pack functions are inlined into both callers (always_inline). They were out of line, so that each
// ran one compiled copy; but the sweep then passed their ~30 packs of geometry and results through memory on
// every pack's critical path (bench_rigid, 2 threads, 3 alternating runs: the pile's solve 33.3-36.1 ->
// 31.2-31.9 ms, the pyramid 0.76-0.85 -> 0.69-0.72 ms). Inlined, GCC contracts their expression trees alike
// in both callers. test_rigid_stacks (DeterministicAcrossThreadCounts: a 400-box pile run with diagnostics
// on against off, compared to the bit) holds that in the -O3 build and in the sanitizers' -O1 build: it
// fails when the separate pass's alpha moves by 1e-12. test_contact_lanes
// (FusedDualUpdateEqualsTheSeparatePass) compares the float records after one update, which round such a
// difference away. scripts/compare_states.sh found every built-in scene byte-identical to the out-of-line
// build.
//
// Packs. A pack holds up to four contacts of one manifold (sameManifold), so the other body's pose, the
// normal frame and mu are broadcast instead of gathered lane by lane; on the 10,000-box pile 90% of the
// manifolds have four points and the rest two, so cutting along manifolds costs 4% more packs than cutting
// the body's list in fours. bench_rigid, 2 threads, alternating runs: the pyramid 0.75 -> 0.72-0.73 ms, the
// pile unchanged (its solve is not bound by the gathers).
//
// Sums. Each lane sums the terms of its contacts, the lanes are then added pairwise (simd::sum) and the
// curved contacts' terms go to the block directly. The packs are cut from the body's contact list, whose
// order is fixed by the contact list (RigidSolver::buildAdjacency), so the block is the same for any thread
// count; test_contact_lanes compares it with the scalar loop (relative differences ~1e-11).
#include "backend/simd.h"
#include "rigid/constraints.h"

namespace vbd {

// Lanes per pack: 4 doubles (AVX2, and AVX-512, whose 8 would leave most of a box's 7-15 contacts in
// half-empty packs), 2 on SSE2.
constexpr int kContactLanes = simd::nativeLanes<double>(4);

// Whether a contact goes through the lanes: both sides flat (box, ground).
VBD_HD bool lanesContact(const Contact& c) { return c.radA == 0.0f && c.radB == 0.0f; }

// Whether the flat contact `c` may share a pack with `first`: both of one manifold, as the packs of
// addContactRowsLanes are cut. The pack broadcasts the pair's other pose, the normal frame and the friction
// coefficient from its first contact; RigidSolver::freshContact gives every contact of a manifold the
// manifold's (one normal, its tangentBasis, the pair's mu), so the test holds along a manifold and fails at
// its end. It is checked rather than assumed: a list that breaks the rule gets smaller packs, not wrong rows.
inline bool sameManifold(const Contact& c, const Contact& first) {
    auto same = [](const Vec3d& u, const Vec3d& v) { return u.x == v.x && u.y == v.y && u.z == v.z; };
    return lanesContact(c) && c.a == first.a && c.b == first.b && c.mu == first.mu && same(c.n, first.n) &&
           same(c.t1, first.t1) && same(c.t2, first.t2);
}

// Prefetches a contact record (200 bytes: four or five cache lines).
inline void prefetchContact(const Contact& contact) {
    const char* c = reinterpret_cast<const char*>(&contact);
    __builtin_prefetch(c);
    __builtin_prefetch(c + 64);
    __builtin_prefetch(c + 128);
    __builtin_prefetch(c + sizeof(Contact) - 1);
}

// The contact rows of `self` for its contacts items[begin, end): each contact's dual update first where
// `dual` and self owns it (dualOwner), then its terms added to blk (flat contacts summed per lane, the lanes
// added at the end; curved ones one at a time, see "Sums" above).
//
// ahead[0, aheadCount): the contacts of the body solved after this one (or none), prefetched while this
// body's packs run, a share before each pack in proportion to the packs done. Issued all at once before the
// body, as they were, the pile's ~45 lines per body filled the core's line fill buffers and the sweep stalled
// at the prefetch instructions (7% of the pile's samples on 1 thread); spread, they overlap the arithmetic
// (bench_rigid, 2 threads, alternating runs against the commit before: the pile's solve 29.1-32.2 ->
// 27.7-30.5 ms).
void addContactRowsLanes(Contact* contacts, const int* items, int begin, int end, const BodyPose* pose,
                         int self, const int* dualOwner, bool dual, double alpha, double beta, double kMax,
                         Block66d& blk, const int* ahead = nullptr, int aheadCount = 0);

// The separate dual pass over contacts[begin, end), with the instructions of the fused update in
// addContactRowsLanes: consecutive flat contacts in packs, curved ones through the scalar contactC and
// contactDual. A contact's result does not depend on its lane, so one contact at a time (the host executor
// of the device stages) and the solver's packs of consecutive contacts agree to the bit.
void contactDualLanes(Contact* contacts, int begin, int end, const BodyPose* pose, double alpha, double beta,
                      double kMax);

}  // namespace vbd
