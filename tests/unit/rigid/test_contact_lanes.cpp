// The SIMD contact rows (rigid/contact_lanes.h) against the scalar loop of rigid/body_block.h, for lists of
// every length around the pack width, with ground contacts, both sides of a contact, sticking and sliding
// friction, separated and penetrating gaps, curved contacts among flat ones, and bodies that own some of
// their contacts' dual updates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "rigid/body_block.h"
#include "rigid/contact_lanes.h"

namespace vbd {
namespace {

struct Fixture {
    std::vector<BodyPose> pose;
    std::vector<Contact> contacts;
    std::vector<int> items, owner;
};

// Body 0 touches `count` contacts with bodies 1..5 or the ground, in random configurations, made as the
// narrow phase makes them: manifolds of 1-4 consecutive contacts that share the pair, the normal frame and
// mu (the lanes' packs are cut along them). Body 0's list holds each manifold's contacts in order, the
// manifolds shuffled. One manifold in eight has a contact whose normal differs from the rest (a list that
// breaks the rule: its pack must end there).
Fixture makeFixture(int count, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    auto v3 = [&] { return Vec3d(u(rng), u(rng), u(rng)); };
    Fixture f;
    for (int b = 0; b < 6; ++b) f.pose.push_back(makePose(v3() * 2.0, normalized(Quatd(v3(), 1.0 + u(rng)))));
    std::vector<std::vector<int>> manifolds;
    while (int(f.contacts.size()) < count) {
        const int size = std::min(1 + int(rng() % 4), count - int(f.contacts.size()));
        const int draw = int(rng() % 6), other = draw == 0 ? -1 : draw;  // -1: the ground
        const bool selfIsB = other < 0 || rng() % 2 == 0;
        Contact frame;
        frame.a = selfIsB ? other : 0;
        frame.b = selfIsB ? 0 : other;
        frame.n = normalized(v3());
        frame.t1 = normalized(cross(frame.n, Vec3d(0.3, 1, 0.2)));
        frame.t2 = cross(frame.n, frame.t1);
        frame.mu = float(0.5 + 0.4 * u(rng));
        const int odd = rng() % 8 == 0 ? int(rng() % unsigned(size)) : -1;
        manifolds.emplace_back();
        for (int p = 0; p < size; ++p) {
            Contact c = frame;
            if (p == odd) c.n = normalized(c.n + Vec3d(0.0, 1e-3, 0.0));
            c.rA = Vec3(v3() * 0.5);
            c.rB = Vec3(v3() * 0.5);
            c.d0 = Vec3(v3() * 0.01);
            c.c0n = float(u(rng) * 0.01);
            for (int r = 0; r < 3; ++r) c.k[r] = float(1e5 * (1.5 + u(rng)));
            // Pushing multipliers of several sizes (sliding where the slip force leaves mu |lambda_n|), and
            // a few that do not push at all.
            c.lambda[0] = rng() % 5 == 0 ? 0.0f : float(-200.0 * (1.0 + u(rng)));
            c.lambda[1] = float(100.0 * u(rng));
            c.lambda[2] = float(100.0 * u(rng));
            c.kMin = 1e4f;
            if (rng() % 2 == 0) {
                // Touching: B's anchor at A's world point, a slip of ~1e-4 m, so that k C_t + lambda_t
                // (~10 N) stays inside the cone (mu |lambda_n| ~ 100 N): sticking.
                const Vec3d pA = anchorWorld(f.pose.data(), c.a, c.rA);
                const BodyPose& pb = f.pose[size_t(c.b)];
                c.rB = Vec3(pb.R.transposed() * (pA - pb.x));
                c.d0 = Vec3(v3() * 1e-4);
            }
            manifolds.back().push_back(int(f.contacts.size()));
            f.contacts.push_back(c);
            f.owner.push_back(rng() % 2 == 0 ? 0 : other);
        }
    }
    std::shuffle(manifolds.begin(), manifolds.end(), rng);
    for (const auto& m : manifolds) f.items.insert(f.items.end(), m.begin(), m.end());
    return f;
}

// The scalar loop of assembleRigidBody.
void scalarRows(Fixture& f, bool dual, double alpha, Block66d& blk) {
    for (int k = 0; k < int(f.items.size()); ++k) {
        Contact& c = f.contacts[size_t(f.items[size_t(k)])];
        ContactPoints cp;
        double C[3], F[3], slide;
        contactC(c, f.pose.data(), alpha, cp, C);
        if (dual && f.owner[size_t(f.items[size_t(k)])] == 0) contactDualFused(c, C, alpha, 1e5, 1e10);
        contactForce(c, C, F, &slide);
        addContact(blk, c, 0, f.pose[0].x, cp, F, slide);
    }
}

// Largest |a - b| over the block's parts, each relative to the part's largest entry in a. A force is made
// of terms k C + lambda of 10-1000 N that may cancel (a lone contact nearly in balance leaves 1e-2 N): its
// scale is at least 1 N, and the torque's at least that force scale times 1 m (the fixture's lever arms).
// A part that cancels is so compared with what its terms were made of.
double blockDiff(const Block66d& a, const Block66d& b) {
    auto part = [](const double* x, const double* y, int n, double floor) {
        double scale = floor, d = 0;
        for (int i = 0; i < n; ++i) {
            scale = std::max(scale, std::fabs(x[i]));
            d = std::max(d, std::fabs(x[i] - y[i]));
        }
        return scale > 0 ? d / scale : d;
    };
    const double force = std::max({1.0, std::fabs(a.flin.x), std::fabs(a.flin.y), std::fabs(a.flin.z)});
    return std::max({part(&a.hll.m[0][0], &b.hll.m[0][0], 9, 0.0),
                     part(&a.hal.m[0][0], &b.hal.m[0][0], 9, 0.0),
                     part(&a.haa.m[0][0], &b.haa.m[0][0], 9, 0.0), part(&a.flin.x, &b.flin.x, 3, 1.0),
                     part(&a.fang.x, &b.fang.x, 3, force * 1.0)});
}

// The lanes against the scalar loop. They differ only by how GCC contracts a * b + c (the header says
// why): a few ulps of the anchors' coordinates in C (~1e-16 m here), times penalties of ~1e5, against
// forces of 1e2-1e3 N and block entries of 1e4-1e6: relative differences of ~1e-13. The bound 1e-10
// leaves room for cancellation in a part's sum and fails for any wrong term (a missing or doubled contact
// moves a part by ~10%). The multipliers are floats, k C + lambda rounded: one float ulp (6e-8 relative),
// plus k times C's difference (taken as 1e-14 m) where k C and lambda cancel.
TEST(ContactLanes, AgreeWithTheScalarLoop) {
    std::mt19937 rng(7);
    int sliding = 0, total = 0;
    double worst = 0;
    for (int count = 1; count <= 3 * kContactLanes + 1; ++count)
        for (int trial = 0; trial < 40; ++trial)
            for (bool dual : {false, true})
                for (bool curved : {false, true}) {
                    Fixture s = makeFixture(count, rng);
                    if (curved) s.contacts[size_t(count / 2)].radB = 0.1f;  // one sphere-like side
                    Fixture l = s;
                    Block66d bs, bl;
                    bs.clear();
                    bl.clear();
                    scalarRows(s, dual, 0.99, bs);
                    addContactRowsLanes(l.contacts.data(), l.items.data(), 0, count, l.pose.data(), 0,
                                        l.owner.data(), dual, 0.99, 1e5, 1e10, bl);
                    const double d = blockDiff(bs, bl);
                    worst = std::max(worst, d);
                    ASSERT_LT(d, 1e-10) << count << " contacts, trial " << trial;
                    for (size_t c = 0; c < s.contacts.size(); ++c)
                        for (int r = 0; r < 3; ++r) {
                            const Contact &a = s.contacts[c], &b = l.contacts[c];
                            ASSERT_NEAR(a.k[r], b.k[r], 1.2e-7 * std::fabs(a.k[r]));
                            ASSERT_NEAR(a.lambda[r], b.lambda[r],
                                        1.2e-7 * std::fabs(a.lambda[r]) + 1e-14 * double(a.k[r]));
                        }
                    for (const Contact& c : s.contacts) {
                        double C[3], F[3], slide;
                        ContactPoints cp;
                        contactC(c, s.pose.data(), 0.99, cp, C);
                        contactForce(c, C, F, &slide);
                        sliding += slide < 1.0;
                        ++total;
                    }
                }
    std::printf("lanes against the scalar loop: largest relative difference %.2e\n", worst);
    // Both friction branches were exercised (the lanes' selects in contactTerms and contactForceRows).
    EXPECT_GT(sliding, total / 10);
    EXPECT_LT(sliding, total - total / 10);
}

// What must hold to the bit: the dual update fused into the assembly and the separate pass
// (contactDualUpdate: contactDualLanes, whose curved contacts take the scalar contactC and contactDual)
// leave every owned contact the same, whichever lane of which pack the contact sat in. Otherwise the step
// would depend on the diagnostics switch.
TEST(ContactLanes, FusedDualUpdateEqualsTheSeparatePass) {
    std::mt19937 rng(11);
    for (int count = 1; count <= 3 * kContactLanes + 1; ++count)
        for (int trial = 0; trial < 40; ++trial) {
            Fixture fused = makeFixture(count, rng);
            if (trial % 4 == 0) fused.contacts[0].radA = 0.2f;  // a curved contact: scalar C in both
            Fixture separate = fused;
            Block66d blk;
            blk.clear();
            addContactRowsLanes(fused.contacts.data(), fused.items.data(), 0, count, fused.pose.data(), 0,
                                fused.owner.data(), true, 0.99, 1e5, 1e10, blk);
            int owned = 0;
            for (size_t c = 0; c < separate.contacts.size(); ++c) {
                if (separate.owner[c] != 0) continue;
                ++owned;
                Contact& ct = separate.contacts[c];
                contactDualLanes(&ct, 0, 1, separate.pose.data(), 0.99, 1e5, 1e10);
            }
            ASSERT_EQ(std::memcmp(fused.contacts.data(), separate.contacts.data(),
                                  fused.contacts.size() * sizeof(Contact)),
                      0)
                << count << " contacts (" << owned << " owned), trial " << trial;
        }
}

// The solver's separate pass takes consecutive contacts a pack at a time, the host executor of the device
// stages one contact at a time (lane 0): the same bits, curved contacts among them included.
TEST(ContactLanes, SeparatePassInPacksEqualsOneContactAtATime) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 20; ++trial) {
        Fixture packs = makeFixture(3 * kContactLanes + 2, rng);
        packs.contacts[size_t(trial % 7)].radA = 0.3f;
        const Fixture single0 = packs;
        Fixture single = packs;
        const int n = int(packs.contacts.size());
        contactDualLanes(packs.contacts.data(), 0, n, packs.pose.data(), 0.99, 1e5, 1e10);
        for (int k = 0; k < n; ++k)
            contactDualLanes(single.contacts.data(), k, k + 1, single.pose.data(), 0.99, 1e5, 1e10);
        ASSERT_EQ(std::memcmp(packs.contacts.data(), single.contacts.data(), size_t(n) * sizeof(Contact)), 0)
            << "trial " << trial;
        // And the pass did update them (not a comparison of two untouched lists).
        EXPECT_NE(std::memcmp(packs.contacts.data(), single0.contacts.data(), size_t(n) * sizeof(Contact)),
                  0);
    }
}

// The tangent rows' Hessian (contactTerms) is the friction potential's quadratic majorizer: with the cone's
// radius b = mu |lambda_n| fixed, F_t = proj_b(z), z = k C_t + lambda_t, is the gradient in C_t of the Huber
// potential psi = |z|^2 / 2k (|z| <= b), (b |z| - b^2 / 2) / k (outside), and for every tangential change d
//   psi(C_t + d) <= psi(C_t) + F_t . d + d^T K_t d / 2
// with K_t the block's tangential part, sticking or sliding: a block step on it cannot overshoot the stick
// region (see contactTerms). Checked for equal tangent penalties (the case the potential exists for) on
// random cones, slips and changes, d up to 10x the stick region's width so that it crosses the cone; the
// rounding of psi's terms, ~1e-16 of their size, is the tolerance. And the majorizer is tight: K_t is k s
// (I - n n^T), not larger (relative 1e-13). A sliding Hessian of 0.1 k along the slip fails the inequality
// for changes against the slip when s > 0.1 (most trials).
TEST(ContactLanes, FrictionHessianMajorizesTheFrictionPotential) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int sliding = 0, sticking = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const Vec3d n = normalized(Vec3d(u(rng), u(rng), u(rng)));
        const Vec3d t1 = normalized(cross(n, Vec3d(0.3, 1, 0.2))), t2 = cross(n, t1);
        const double kt = 1e5 * (1.5 + u(rng)), kn = 1e5 * (1.5 + u(rng));
        const double k[3] = {kn, kt, kt};
        const double ln = -200.0 * (1.0 + u(rng)), mu = 0.5 + 0.4 * u(rng), b = -mu * ln;
        const double lambda[3] = {ln, 100.0 * u(rng), 100.0 * u(rng)};
        // Slips from well inside the cone to far outside it (the cone is b / k ~ 1e-3 wide).
        const double slip = std::pow(10.0, -5.0 + 3.0 * (0.5 + 0.5 * u(rng)));
        const double C[3] = {1e-3 * u(rng), slip * u(rng), slip * u(rng)};
        double F[3], slide;
        contactForceRows(k, lambda, mu, C, F, slide);
        (slide < 1.0 ? sliding : sticking) += 1;
        ContactTerms<double> t;
        contactTerms(n, t1, t2, 1.0, Vec3d(0.2, -0.1, 0.3), F, slide, k, true, t);
        const Vec3d col[3] = {t.k0, t.k1, t.k2};
        auto quad = [&](const Vec3d& a, const Vec3d& c) {
            double q = 0;
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) q += a[i] * col[j][i] * c[j];
            return q - kn * dot(a, n) * dot(c, n);  // the tangential part: without k_n n n^T
        };
        const double K11 = quad(t1, t1), K12 = quad(t1, t2), K22 = quad(t2, t2);
        ASSERT_NEAR(K11, kt * slide, 1e-13 * kn) << "trial " << trial;
        ASSERT_NEAR(K22, kt * slide, 1e-13 * kn) << "trial " << trial;
        ASSERT_NEAR(K12, 0.0, 1e-13 * kn) << "trial " << trial;
        auto psi = [&](double c1, double c2) {
            const double z = std::hypot(kt * c1 + lambda[1], kt * c2 + lambda[2]);
            return z <= b ? z * z / (2 * kt) : (b * z - 0.5 * b * b) / kt;
        };
        const double psi0 = psi(C[1], C[2]);
        for (int j = 0; j < 8; ++j) {
            const double d1 = 10.0 * b / kt * u(rng), d2 = 10.0 * b / kt * u(rng);
            // (F[1], F[2]) = proj_b(z) = grad psi.
            const double model =
                psi0 + F[1] * d1 + F[2] * d2 + 0.5 * (K11 * d1 * d1 + 2 * K12 * d1 * d2 + K22 * d2 * d2);
            const double exact = psi(C[1] + d1, C[2] + d2);
            ASSERT_LE(exact, model + 1e-12 * (std::fabs(model) + b * b / kt)) << "trial " << trial;
        }
    }
    EXPECT_GT(sliding, 1000);
    EXPECT_GT(sticking, 1000);
}

}  // namespace
}  // namespace vbd
