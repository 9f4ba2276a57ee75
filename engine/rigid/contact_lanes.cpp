#include "rigid/contact_lanes.h"

#include <algorithm>

#include "rigid/body_block.h"

namespace vbd {

namespace {

using P = simd::Pack<double, kContactLanes>;
using Mask = simd::Mask<kContactLanes>;

template <class Get>
VBD_SIMD_INLINE P pack(const Get& get) {
    return simd::lanesOf<double, kContactLanes>(get);
}
template <class Get>
VBD_SIMD_INLINE Vec3T<P> pack3(const Get& get) {
    return {pack([&](int l) { return double(get(l).x); }), pack([&](int l) { return double(get(l).y); }),
            pack([&](int l) { return double(get(l).z); })};
}

// The mask of lanes 0 .. m - 1: the pack's contacts; lanes past m repeat its first contact.
VBD_SIMD_INLINE Mask firstLanes(int m) {
    return pack([&](int l) { return l < m ? 1.0 : 0.0; }) > P(0.0);
}

VBD_SIMD_INLINE void accumulate(ContactTerms<P>& sum, const ContactTerms<P>& t) {
    sum.f += t.f;
    sum.tau += t.tau;
    sum.k0 += t.k0;
    sum.k1 += t.k1;
    sum.k2 += t.k2;
    sum.m0 += t.m0;
    sum.m1 += t.m1;
    sum.m2 += t.m2;
    sum.h0 += t.h0;
    sum.h1 += t.h1;
    sum.h2 += t.h2;
}

VBD_SIMD_INLINE Vec3d laneSum(const Vec3T<P>& v) { return {simd::sum(v.x), simd::sum(v.y), simd::sum(v.z)}; }

const BodyPose kNoPose{Vec3d(0.0), Quatd::identity(), Mat33d()};

// Both anchors' world points and the stabilized rows of the lanes' contacts (contactPoints and contactC for
// flat sides: the normal row's points are the material points). The fused and the separate dual update read
// C from this one function (see the header: inlined into both).
struct LanesGeometry {
    Vec3T<P> xA, xB, rA, rB, n, t1, t2, d0;
    Mat33T<P> RA, RB;
    Mask groundA;  // A is the ground: rA is a world point
    P c0n;
};

VBD_SIMD_INLINE void contactLanesC(const LanesGeometry& g, double alpha, Vec3T<P>& pA, Vec3T<P>& pB, P C[3]) {
    pA = select(g.groundA, g.rA, g.xA + g.RA * g.rA);
    pB = g.xB + g.RB * g.rB;
    contactRows(g.n, g.t1, g.t2, pA, pB, pA, pB, g.d0, g.c0n, P(alpha), C);
}

// x rounded to float and back, lane by lane: what a contact's float field returns for a double stored in it.
VBD_SIMD_INLINE P viaFloat(const P& x) {
    typedef float F __attribute__((vector_size(kContactLanes * sizeof(float))));
    return P::fromVec(__builtin_convertvector(__builtin_convertvector(x.v, F), P::Vec));
}

// The dual update of the lanes' contacts from their C (contactDual on packs): new penalties, multipliers and
// stick flags, stored into the contacts of the lanes in `update`; kOut, lambdaOut: the new penalties and
// multipliers of every lane as the records hold them (rounded to float), for the force rows that follow in
// the sweep. The fused update in the sweep and the separate pass both run this function (see the header).
VBD_SIMD_INLINE void contactLanesDual(Contact* const* cs, const P C[3], Mask update, double alpha,
                                      double beta, double kMax, P kOut[3], P lambdaOut[3]) {
    P k[3], lambda[3];
    for (int r = 0; r < 3; ++r) {
        k[r] = pack([&](int l) { return double(cs[l]->k[r]); });
        lambda[r] = pack([&](int l) { return double(cs[l]->lambda[r]); });
    }
    const P c0n = pack([&](int l) { return double(cs[l]->c0n); });
    const P mu = pack([&](int l) { return double(cs[l]->mu); });
    const Mask stick = contactDualRows(C, c0n, mu, k, lambda, alpha, beta, kMax, kOut, lambdaOut);
    // What the records will hold: the new values rounded to their floats.
    for (int r = 0; r < 3; ++r) {
        kOut[r] = viaFloat(kOut[r]);
        lambdaOut[r] = viaFloat(lambdaOut[r]);
    }
    for (int l = 0; l < kContactLanes; ++l) {
        if (update[l] == 0) continue;
        Contact& c = *cs[l];
        for (int r = 0; r < 3; ++r) {
            c.k[r] = float(kOut[r][l]);
            c.lambda[r] = float(lambdaOut[r][l]);
        }
        c.stick = stick[l] != 0 ? 1 : 0;
    }
}

// What differs between the contacts of one manifold: anchors, slip origins and start gaps, lane by lane.
VBD_SIMD_INLINE void gatherAnchors(const Contact* const* cs, LanesGeometry& g) {
    g.rA = pack3([&](int l) { return cs[l]->rA; });
    g.rB = pack3([&](int l) { return cs[l]->rB; });
    g.d0 = pack3([&](int l) { return cs[l]->d0; });
    g.c0n = pack([&](int l) { return double(cs[l]->c0n); });
}

// The contacts' own fields (normal, tangents, anchors, slip origin, start gap) into g.
VBD_SIMD_INLINE void gatherContacts(const Contact* const* cs, LanesGeometry& g) {
    gatherAnchors(cs, g);
    g.n = pack3([&](int l) { return cs[l]->n; });
    g.t1 = pack3([&](int l) { return cs[l]->t1; });
    g.t2 = pack3([&](int l) { return cs[l]->t2; });
    g.groundA = pack([&](int l) { return cs[l]->a < 0 ? 1.0 : 0.0; }) > P(0.0);
}

VBD_SIMD_INLINE void gatherPose(const BodyPose* const* ps, Vec3T<P>& x, Mat33T<P>& R) {
    x = pack3([&](int l) { return ps[l]->x; });
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) R.m[r][c] = pack([&](int l) { return ps[l]->R.m[r][c]; });
}

// The pose of a body in every lane.
VBD_SIMD_INLINE void broadcastPose(const BodyPose& p, Vec3T<P>& x, Mat33T<P>& R) {
    x = Vec3T<P>(P(p.x.x), P(p.x.y), P(p.x.z));
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) R.m[r][c] = P(p.R.m[r][c]);
}

// The contacts contacts[ci .. ci + m) (m <= kContactLanes) of `self`, one manifold's (sameManifold: one
// pair, one normal frame, one friction coefficient), into the lanes' sums. The pair's other pose, the frame
// and mu are broadcast; only the anchors, the slip origin, the start gap and the dual state differ by lane.
// Flattened: contactTerms on packs out of line passed its eleven 3-vectors of packs through memory
// (bench_rigid, 2 threads: the pyramid 0.75-0.80 -> 0.69-0.73 ms, the pile's solve 30-32 -> 28-29 ms);
// contactLanesC and contactLanesDual are inlined as well (see the header).
[[gnu::flatten]] inline void addPack(Contact* contacts, int ci, int m, const BodyPose* pose, int self,
                                     const Vec3T<P>& xs, const Mat33T<P>& Rs, const int* dualOwner, bool dual,
                                     double alpha, double beta, double kMax, ContactTerms<P>& sum) {
    // Lanes past m repeat the pack's first contact; they are neither updated nor added.
    Contact* cs[kContactLanes];
    for (int l = 0; l < kContactLanes; ++l) cs[l] = &contacts[ci + (l < m ? l : 0)];
    const Contact& c0 = *cs[0];
    const bool sideB = c0.b == self;
    const int o = sideB ? c0.a : c0.b;
    LanesGeometry g;
    gatherAnchors(cs, g);
    g.n = Vec3T<P>(P(c0.n.x), P(c0.n.y), P(c0.n.z));
    g.t1 = Vec3T<P>(P(c0.t1.x), P(c0.t1.y), P(c0.t1.z));
    g.t2 = Vec3T<P>(P(c0.t2.x), P(c0.t2.y), P(c0.t2.z));
    g.groundA = P(c0.a < 0 ? 1.0 : 0.0) > P(0.0);
    Vec3T<P> xo;
    Mat33T<P> Ro;
    broadcastPose(o >= 0 ? pose[o] : kNoPose, xo, Ro);
    g.xA = sideB ? xo : xs;
    g.RA = sideB ? Ro : Rs;
    g.xB = sideB ? xs : xo;
    g.RB = sideB ? Rs : Ro;
    Vec3T<P> pA, pB;
    P C[3];
    contactLanesC(g, alpha, pA, pB, C);
    // The previous sweep's dual update of the contacts this body owns (assembleRigidBody), then the
    // penalties and multipliers it left.
    // The owned lanes take the updated values from the update's registers (rounded as the records round
    // them), not back from the records: a reload waited for the stores, on the chain from C to the force.
    P kk[3], lam[3];
    for (int r = 0; r < 3; ++r) {
        kk[r] = pack([&](int l) { return double(cs[l]->k[r]); });
        lam[r] = pack([&](int l) { return double(cs[l]->lambda[r]); });
    }
    if (dual) {
        const Mask owned =
            pack([&](int l) { return l < m && dualOwner[ci + l] == self ? 1.0 : 0.0; }) > P(0.0);
        if (anyLane(owned)) {
            P kNew[3], lamNew[3];
            contactLanesDual(cs, C, owned, alpha, beta, kMax, kNew, lamNew);
            for (int r = 0; r < 3; ++r) {
                kk[r] = select(owned, kNew[r], kk[r]);
                lam[r] = select(owned, lamNew[r], lam[r]);
            }
        }
    }
    const P mu(double(c0.mu));
    P F[3], slide;
    contactForceRows(kk, lam, mu, C, F, slide);
    if (m < kContactLanes) {
        // Lanes past m add exact zeros: no force, no penalty.
        const Mask valid = firstLanes(m);
        for (int r = 0; r < 3; ++r) {
            F[r] = select(valid, F[r], P(0.0));
            kk[r] = select(valid, kk[r], P(0.0));
        }
    }
    ContactTerms<P> t;
    contactTerms(g.n, g.t1, g.t2, P(sideB ? 1.0 : -1.0), (sideB ? pB : pA) - xs, F, slide, kk, true, t);
    accumulate(sum, t);
}

}  // namespace

void addContactRowsLanes(Contact* contacts, const int* items, int begin, int end, const BodyPose* pose,
                         int self, const int* dualOwner, bool dual, double alpha, double beta, double kMax,
                         Block66d& blk, const int* ahead, int aheadCount) {
    // The next body's records, issued up to `target` (see the header).
    int issued = 0;
    auto prefetchTo = [&](int target) {
        for (; issued < target; ++issued) prefetchContact(contacts[ahead[issued]]);
    };
    const long n = end - begin;
    const BodyPose& me = pose[self];
    Vec3T<P> xs;
    Mat33T<P> Rs;
    broadcastPose(me, xs, Rs);
    // Packs of one manifold's flat contacts, summed lane by lane; a curved contact takes the scalar rows,
    // added to the block at once.
    ContactTerms<P> sum;
    const Vec3T<P> zero(P(0.0));
    sum = {zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero};
    bool any = false;
    int k = begin;
    while (k < end) {
        // Through the pack starting here: its share of the next body's records, one pack's worth early.
        prefetchTo(int(aheadCount * std::min(n, long(k - begin + kContactLanes)) / n));
        const int ci = items[k];
        const Contact& c0 = contacts[ci];
        if (!lanesContact(c0)) {
            addContactRow(contacts[ci], self, me.x, pose, dual && dualOwner[ci] == self, alpha, beta, kMax,
                          blk);
            ++k;
            continue;
        }
        int m = 1;
        while (m < kContactLanes && k + m < end && items[k + m] == ci + m &&
               sameManifold(contacts[ci + m], c0))
            ++m;
        addPack(contacts, ci, m, pose, self, xs, Rs, dualOwner, dual, alpha, beta, kMax, sum);
        any = true;
        k += m;
    }
    prefetchTo(aheadCount);
    if (any)
        addContactTerms(blk, {laneSum(sum.f), laneSum(sum.tau), laneSum(sum.k0), laneSum(sum.k1),
                              laneSum(sum.k2), laneSum(sum.m0), laneSum(sum.m1), laneSum(sum.m2),
                              laneSum(sum.h0), laneSum(sum.h1), laneSum(sum.h2)});
}

void contactDualLanes(Contact* contacts, int begin, int end, const BodyPose* pose, double alpha, double beta,
                      double kMax) {
    int k = begin;
    while (k < end) {
        int m = 0;
        while (m < kContactLanes && k + m < end && lanesContact(contacts[k + m])) ++m;
        if (m == 0) {
            // A curved contact: the scalar C and update, as the sweep's fused update does it.
            Contact& c = contacts[k];
            ContactPoints cp;
            double C[3];
            contactC(c, pose, alpha, cp, C);
            contactDual(c, C, alpha, beta, kMax);
            ++k;
            continue;
        }
        // Lanes past m repeat the first contact and are not stored.
        Contact* cs[kContactLanes];
        const BodyPose* pa[kContactLanes];
        const BodyPose* pb[kContactLanes];
        for (int l = 0; l < kContactLanes; ++l) {
            cs[l] = &contacts[k + (l < m ? l : 0)];
            pa[l] = cs[l]->a >= 0 ? &pose[cs[l]->a] : &kNoPose;
            pb[l] = &pose[cs[l]->b];
        }
        LanesGeometry g;
        gatherContacts(cs, g);
        gatherPose(pa, g.xA, g.RA);
        gatherPose(pb, g.xB, g.RB);
        Vec3T<P> pA, pB;
        P C[3];
        contactLanesC(g, alpha, pA, pB, C);
        P kNew[3], lamNew[3];
        contactLanesDual(cs, C, firstLanes(m), alpha, beta, kMax, kNew, lamNew);
        k += m;
    }
}

}  // namespace vbd
