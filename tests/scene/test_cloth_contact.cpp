// Cloth proximity contacts (soft/cloth_contact.h): closest points, penalty force = -grad E, momentum
// conservation from weights summing to zero, no damping or friction under rigid translation, PSD blocks.
#include <gtest/gtest.h>

#include <random>

#include "soft/cloth_collision.h"
#include "soft/cloth_contact.h"

using namespace vbd;

namespace {

Vec3d rnd(std::mt19937& g, double s) {
    std::uniform_real_distribution<double> u(-s, s);
    return {u(g), u(g), u(g)};
}

// A close pair: VT = vertex above a triangle, EE = two crossing edges, separated by about `gap`.
void closePair(std::mt19937& g, ContactKind kind, double gap, Vec3d x[4]) {
    if (kind == ContactKind::VertexTriangle) {
        x[1] = Vec3d(0, 0, 0) + rnd(g, 0.1);
        x[2] = Vec3d(1, 0, 0) + rnd(g, 0.1);
        x[3] = Vec3d(0, 1, 0) + rnd(g, 0.1);
        for (int j = 1; j < 4; ++j) x[j].z *= 0.1;  // keep the triangle near z = 0 (tilt <= 0.01)
        x[0] = Vec3d(0.3, 0.3, gap) + rnd(g, 0.2 * gap);
    } else {
        x[0] = Vec3d(-0.5, 0, 0) + rnd(g, 0.1);
        x[1] = Vec3d(0.5, 0, 0) + rnd(g, 0.1);
        x[0].z *= 0.1;
        x[1].z *= 0.1;
        x[2] = Vec3d(0, -0.5, gap) + rnd(g, 0.1 * gap);
        x[3] = Vec3d(0, 0.5, gap) + rnd(g, 0.1 * gap);
    }
}

}  // namespace

TEST(ClothContact, ClosestPointsMatchBruteForce) {
    std::mt19937 g(1);
    for (int t = 0; t < 200; ++t) {
        const Vec3 p(rnd(g, 1)), a(rnd(g, 1)), b(rnd(g, 1)), c(rnd(g, 1)), q(rnd(g, 1));
        float best = 1e30f, bestE = 1e30f;
        const int N = 200;
        for (int i = 0; i <= N; ++i)
            for (int j = 0; j <= N - i; ++j) {
                const float u = float(i) / N, v = float(j) / N;
                best = std::min(best, norm(p - (a + (b - a) * u + (c - a) * v)));
            }
        for (int i = 0; i <= N; ++i)
            for (int j = 0; j <= N; ++j)
                bestE =
                    std::min(bestE, norm((p + (q - p) * (float(i) / N)) - (a + (b - a) * (float(j) / N))));
        // a 1/200 parameter grid overestimates the true minimum by at most ~(1/200) * edge length ~ 1e-2
        const float dT = vertexTriangleDistance(p, a, b, c), dE = edgeEdgeDistance(p, q, a, b);
        EXPECT_LE(dT, best + 1e-5f);
        EXPECT_GE(dT, best - 2e-2f);
        EXPECT_LE(dE, bestE + 1e-5f);
        EXPECT_GE(dE, bestE - 2e-2f);
    }
}

TEST(ClothContact, PenaltyForceIsMinusGradientAndForcesBalance) {
    std::mt19937 g(2);
    ContactParams p;
    p.dampingTime = 0.01f;
    p.frictionEps = 1e-3f;
    const double h = 1e-6, dt = 0.01;
    for (int t = 0; t < 60; ++t) {
        const ContactKind kind = t % 2 ? ContactKind::EdgeEdge : ContactKind::VertexTriangle;
        SelfContact c;
        c.kind = kind;
        c.radius = 0.05f;
        c.stiffness = 1e3f;
        c.friction = 0;
        Vec3d x[4], xp[4];
        closePair(g, kind, 0.03, x);
        for (int j = 0; j < 4; ++j) xp[j] = x[j];  // at rest: no damping, no friction
        Vec3d total(0, 0, 0);
        for (int a = 0; a < 4; ++a) {
            Vec3d f(0, 0, 0);
            Mat33d H;
            ASSERT_TRUE(selfContactVertex(c, x, xp, a, p, dt, f, H));
            total += f;
            for (int k = 0; k < 3; ++k) {
                Vec3d y1[4], y2[4];
                for (int j = 0; j < 4; ++j) y1[j] = y2[j] = x[j];
                y1[a][k] += h;
                y2[a][k] -= h;
                const double fd = -(selfContactEnergy(c, y1) - selfContactEnergy(c, y2)) / (2 * h);
                // E ~ k (r - d)^2 ~ 0.2; closest-point parameters are stationary, so the FD is clean: 1e-6.
                EXPECT_NEAR(f[k], fd, 1e-6 * (1 + std::fabs(fd))) << "kind " << int(kind) << " slot " << a;
            }
            // k b_a^2 n n^T: rank one PSD (trace = k b_a^2)
            EXPECT_GE(H(0, 0) + H(1, 1) + H(2, 2), 0.0);
        }
        // weights sum to zero: the pair's forces cancel (double roundoff on O(10) forces)
        EXPECT_LT(norm(total), 1e-9);
    }
}

// The gap and slip are relative quantities (weights sum to zero): a rigid translation of the whole
// stencil since x_prev gives no damping and no friction force, only the penalty.
TEST(ClothContact, RigidTranslationIsNotDampedNorResisted) {
    std::mt19937 g(3);
    ContactParams p;
    p.dampingTime = 0.05f;
    p.frictionEps = 1e-3f;
    for (int t = 0; t < 40; ++t) {
        const ContactKind kind = t % 2 ? ContactKind::EdgeEdge : ContactKind::VertexTriangle;
        SelfContact c;
        c.kind = kind;
        c.radius = 0.05f;
        c.stiffness = 1e3f;
        c.friction = 0.8f;
        Vec3d x[4], xp[4];
        closePair(g, kind, 0.03, x);
        const Vec3d shift = rnd(g, 0.2);
        for (int j = 0; j < 4; ++j) xp[j] = x[j] - shift;
        SelfContact still = c;
        still.friction = 0;
        ContactParams noDamp = p;
        noDamp.dampingTime = 0;
        for (int a = 0; a < 4; ++a) {
            Vec3d f(0, 0, 0), f0(0, 0, 0);
            Mat33d H, H0;
            selfContactVertex(c, x, xp, a, p, 0.01, f, H);
            selfContactVertex(still, x, xp, a, noDamp, 0.01, f0, H0);  // penalty alone
            // the relative displacement sum_j b_j shift = 0 up to roundoff of O(1) terms
            EXPECT_LT(norm(f - f0), 1e-9 * (1 + norm(f0)));
        }
    }
}
