// Static-collider contact: signed distances, the penalty force against finite differences of its
// potential, gap-rate damping only while closing, friction opposing sliding with a PSD block.
#include <gtest/gtest.h>

#include "energy/contact.h"
#include "fd_util.h"

using namespace vbd;

namespace {

// A frictionless collider of stiffness 1e4 N/m of the given type, centred at c.
ParticleCollider collider(ParticleColliderType type, const Vec3& c) {
    ParticleCollider p;
    p.type = type;
    p.center = c;
    p.stiffness = 1e4f;
    p.friction = 0.f;
    return p;
}

ParticleCollider plane() {
    ParticleCollider c = collider(ParticleColliderType::Plane, Vec3(0, 0, 0));
    c.normal = Vec3(0, 1, 0);
    return c;
}

ParticleCollider box() {
    ParticleCollider c = collider(ParticleColliderType::Box, Vec3(1, 2, 3));
    c.halfExtents = Vec3(0.5f, 1.f, 1.5f);
    c.rotation = fromAxisAngle(Vec3(0.3f, 1.f, 0.2f), 0.6f);
    return c;
}

ParticleCollider sphere() {
    ParticleCollider c = collider(ParticleColliderType::Sphere, Vec3(0, 1, 0));
    c.halfExtents = Vec3(0.7f, 0, 0);
    return c;
}

}  // namespace

TEST(Contact, SignedDistances) {
    Vec3 n;
    EXPECT_FLOAT_EQ(colliderDistance(plane(), Vec3(3, -0.25f, 1), n), -0.25f);
    EXPECT_NEAR(colliderDistance(sphere(), Vec3(0, 1, 1), n), 0.3f, 1e-6);
    EXPECT_NEAR(n.z, 1.f, 1e-6);
    ParticleCollider b = box();
    // Point just outside the local +x face, and one inside nearest to the +y face.
    Vec3 p = b.center + rotate(b.rotation, Vec3(0.6f, 0.1f, 0.2f));
    EXPECT_NEAR(colliderDistance(b, p, n), 0.1f, 1e-5);
    EXPECT_NEAR(dot(n, rotate(b.rotation, Vec3(1, 0, 0))), 1.f, 1e-5);
    p = b.center + rotate(b.rotation, Vec3(0.1f, 0.95f, 0.2f));
    EXPECT_NEAR(colliderDistance(b, p, n), -0.05f, 1e-5);
    EXPECT_NEAR(dot(n, rotate(b.rotation, Vec3(0, 1, 0))), 1.f, 1e-5);
}

TEST(Contact, PenaltyForceIsMinusGradientOfPotential) {
    ContactParams p;
    p.dampingTime = 0;
    const float h = 1e-3f;
    for (const ParticleCollider& c : {plane(), box(), sphere()}) {
        Vec3 x = c.type == ParticleColliderType::Plane ? Vec3(0.2f, -0.05f, 0.1f)
                 : c.type == ParticleColliderType::Sphere
                     ? Vec3(0.1f, 1.5f, 0.2f)
                     : c.center + rotate(c.rotation, Vec3(0.1f, 0.9f, 0.3f));
        Vec3 f(0.f);
        Mat33 H;
        ASSERT_TRUE(colliderContact(c, p, x, x, 0.01f, f, H));
        for (int k = 0; k < 3; ++k) {
            Vec3 a = x, b = x;
            a[k] += h;
            b[k] -= h;
            const float fd = -(colliderEnergy(c, a) - colliderEnergy(c, b)) / (2 * h);
            // Float central difference of a quadratic: roundoff ~ 1e-7 * E / h relative to k d ~ 1e3.
            EXPECT_NEAR(f[k], fd, 2e-3f * std::fabs(f[k]) + 0.5f);
        }
    }
}

TEST(Contact, GapDampingOnlyWhileClosing) {
    ContactParams p;
    p.dampingTime = 0.1f;
    const ParticleCollider c = plane();
    const Vec3 x(0, -0.01f, 0);
    Vec3 fClose(0.f), fOpen(0.f);
    Mat33 H;
    colliderContact(c, p, x, x + Vec3(0, 0.02f, 0), 0.01f, fClose, H);  // moving down: closing
    colliderContact(c, p, x, x - Vec3(0, 0.02f, 0), 0.01f, fOpen, H);   // moving up: separating
    const float penalty = 1e4f * 0.01f;
    EXPECT_NEAR(fOpen.y, penalty, 1e-3f);
    // closing: extra c k |gdot| = 0.1 * 1e4 * 2 (m/s) on top of the penalty
    EXPECT_NEAR(fClose.y, penalty + 0.1f * 1e4f * 2.f, 1e-1f);
}

TEST(Contact, FrictionOpposesSlidingAndIsBoundedByCoulomb) {
    ContactParams p;
    p.dampingTime = 0;
    p.frictionEps = 1e-3f;
    ParticleCollider c = plane();
    c.friction = 0.5f;
    const Vec3 x(0, -0.01f, 0);
    const Vec3 xPrev = x - Vec3(0.05f, 0, 0);  // slid +x by 5 cm in one step (5 m/s >> eps)
    Vec3 f(0.f);
    Mat33 H;
    colliderContact(c, p, x, xPrev, 0.01f, f, H);
    const float fn = 1e4f * 0.01f;
    EXPECT_NEAR(f.x, -0.5f * fn, 1e-3f * fn);  // kinetic friction mu * fn against the motion
    EXPECT_NEAR(f.z, 0.f, 1e-6f);
    vbd::Mat33d Hd(H);
    EXPECT_GE(vbdtest::minEigenSym(Hd), -1e-6);
}
