// The ray against surface triangles (mesh/surface_ray.h): the hit's distance and corner against the geometry
// of the hit, and the nearest-hit reduction's independence of the order it is summed in (what lets the
// device's tree and the host's loop name the same particle).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "mesh/surface_ray.h"

using namespace vbd;

namespace {

const Vec3 kA(0, 0, 0), kB(1, 0, 0), kC(0, 1, 0);

SurfaceRay down(float x, float y, float height) { return {Vec3(x, y, height), Vec3(0, 0, -1)}; }

}  // namespace

// Straight down onto the z = 0 triangle: t is the height, exact in float (every product is of small
// integers and powers of two).
TEST(SurfaceRay, DistanceToThePlaneInsideTheTriangle) {
    for (float h : {0.5f, 1.f, 3.f})
        for (const Vec3& p : {Vec3(0.25f, 0.25f, 0), Vec3(0.5f, 0.125f, 0), Vec3(0.125f, 0.75f, 0)}) {
            const SurfaceRay r = down(p.x, p.y, h);
            EXPECT_EQ(rayTriangle(r.origin, r.dir, kA, kB, kC), h) << p.x << " " << p.y;
        }
}

// An oblique ray: the hit point o + t d must lie in the triangle's plane and on the line it was aimed along.
// Single-precision arithmetic on numbers of order 1: a few ulps, 1e-6.
TEST(SurfaceRay, ObliqueHitLiesOnThePlaneItWasAimedAt) {
    const Vec3 a(0.3f, -0.2f, 0.1f), b(1.4f, 0.1f, -0.3f), c(0.2f, 1.1f, 0.4f);
    const Vec3 n = normalized(cross(b - a, c - a));
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.05f, 0.45f);
    for (int k = 0; k < 50; ++k) {
        const float s = u(rng), t = u(rng);
        const Vec3 target = a + s * (b - a) + t * (c - a);
        const Vec3 origin = target + 2.f * n + Vec3(0.3f, -0.5f, 0.2f);
        const Vec3 dir = normalized(target - origin);
        const float hit = rayTriangle(origin, dir, a, b, c);
        ASSERT_GT(hit, 0.f);
        EXPECT_NEAR(hit, norm(target - origin), 1e-6f * norm(target - origin));
        EXPECT_NEAR(dot(origin + hit * dir - a, n), 0.f, 1e-6f);
    }
}

TEST(SurfaceRay, MissesOutsideBehindAndAlongThePlane) {
    EXPECT_LT(rayTriangle(Vec3(0.75f, 0.75f, 1), Vec3(0, 0, -1), kA, kB, kC), 0.f);  // u + v > 1
    EXPECT_LT(rayTriangle(Vec3(-0.1f, 0.5f, 1), Vec3(0, 0, -1), kA, kB, kC), 0.f);   // u < 0
    EXPECT_LT(rayTriangle(Vec3(0.5f, -0.1f, 1), Vec3(0, 0, -1), kA, kB, kC), 0.f);   // v < 0
    EXPECT_LT(rayTriangle(Vec3(-1, 0.2f, 0), Vec3(1, 0, 0), kA, kB, kC), 0.f);       // in the plane
    // Behind the origin: rayTriangle gives the negative t, triangleHit no hit.
    EXPECT_EQ(rayTriangle(Vec3(0.25f, 0.25f, -1), Vec3(0, 0, -1), kA, kB, kC), -1.f);
    const int corners[3] = {4, 5, 6};
    const Vec3 x[3] = {kA, kB, kC};
    EXPECT_FALSE(triangleHit(down(0.25f, 0.25f, -1), 0, corners, x).hit());
}

// The particle is the corner nearest to the hit point, whichever corner that is.
TEST(SurfaceRay, TheHitsParticleIsTheNearestCorner) {
    const int corners[3] = {10, 11, 12};
    const Vec3 x[3] = {kA, kB, kC};
    const struct {
        float px, py;
        int particle;
    } cases[] = {{0.1f, 0.1f, 10}, {0.8f, 0.1f, 11}, {0.1f, 0.8f, 12}, {0.6f, 0.3f, 11}, {0.3f, 0.6f, 12}};
    for (const auto& c : cases) {
        const SurfaceHit h = triangleHit(down(c.px, c.py, 2), 3, corners, x);
        ASSERT_TRUE(h.hit());
        EXPECT_EQ(h.t, 2.0);
        EXPECT_EQ(h.triangle, 3.0);
        EXPECT_EQ(h.particle, double(c.particle)) << c.px << " " << c.py;
    }
}

// The sum is the nearest hit, the lowest triangle among equally near ones, in any order and grouping:
// random lists with repeated distances, summed in shuffled orders and as pairwise trees, give the hit the
// sorted minimum names.
TEST(SurfaceRay, TheNearestHitDoesNotDependOnTheOrderOfTheSum) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> dist(1, 6), miss(0, 3);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<SurfaceHit> hits(size_t(1 + trial % 40));
        for (size_t k = 0; k < hits.size(); ++k) {
            if (miss(rng) == 0) continue;  // a miss: the default
            hits[k].t = 0.5 * dist(rng);   // few distinct values: ties are common
            hits[k].triangle = double(k);
            hits[k].particle = double(100 + k);
        }
        SurfaceHit want;
        for (const SurfaceHit& h : hits)
            if (h.hit() && (!want.hit() || h.t < want.t)) want = h;  // the first (lowest) of the nearest
        for (int order = 0; order < 4; ++order) {
            std::vector<SurfaceHit> v = hits;
            std::shuffle(v.begin(), v.end(), rng);
            SurfaceHit got;
            if (order % 2 == 0) {
                for (const SurfaceHit& h : v) got = got + h;
            } else {  // a tree, as a block's shared-memory sum
                while (v.size() > 1) {
                    std::vector<SurfaceHit> up;
                    for (size_t k = 0; k < v.size(); k += 2)
                        up.push_back(k + 1 < v.size() ? v[k + 1] + v[k] : v[k]);
                    v = up;
                }
                got = v[0];
            }
            EXPECT_EQ(got.hit(), want.hit());
            EXPECT_EQ(got.t, want.t);
            EXPECT_EQ(got.triangle, want.triangle);
            EXPECT_EQ(got.particle, want.particle);
        }
    }
    // The miss is the identity on both sides.
    SurfaceHit h;
    h.t = 1, h.triangle = 2, h.particle = 3;
    EXPECT_EQ((SurfaceHit{} + h).triangle, 2.0);
    EXPECT_EQ((h + SurfaceHit{}).triangle, 2.0);
    EXPECT_FALSE((SurfaceHit{} + SurfaceHit{}).hit());
}
