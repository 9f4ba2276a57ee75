// The cloth collision search (soft/cloth_collision.cpp detectCollisions: per-body grids, a query visits the
// cells within its reach) against brute force over every vertex-triangle and edge-edge pair of a crumpled
// sheet: the same pairs within R (numPairs) and the same contacts (pairs closer than 2 r), at several R.
// Also where the grid cannot index its cells densely (a sheet 1 km from the origin with a NaN vertex: the
// cells between the origin, where NaN lands, and the sheet are far too many), which takes the sorted-key
// search. A search that misses a neighbouring cell, or a run of cells cut short, loses pairs here.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "soft/cloth_collision.h"
#include "soft/soft_solver.h"

using namespace vbd;

namespace {

// A 24x24 sheet (one cloth body, self-collision on) built by the solver, whose collision mesh is tested.
SoftSolver crumpledSheet() {
    SceneDesc s;
    ClothDesc c;
    c.min = Vec3(-0.5f, 0.5f, -0.5f);
    c.size = {1, 1};
    c.cells = {24, 24};
    c.selfCollision = true;
    s.cloths.push_back(c);
    SoftSolver solver;
    solver.build(s);
    return solver;
}

// The sheet folded over itself twice (a z-fold along x) with noise: layers 2 cm apart, so that pairs exist
// across the folds and within each layer.
std::vector<Vec3> crumple(const std::vector<Vec3>& x0, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> noise(-0.004f, 0.004f);
    std::vector<Vec3> x(x0.size());
    for (size_t i = 0; i < x0.size(); ++i) {
        const float u = x0[i].x + 0.5f;  // 0..1 along the sheet
        const int layer = std::min(2, int(u * 3.f));
        const float along = layer % 2 == 0 ? u - float(layer) / 3.f : float(layer + 1) / 3.f - u;
        x[i] = Vec3(along, 0.5f + 0.02f * float(layer), x0[i].z) + Vec3(noise(rng), noise(rng), noise(rng));
    }
    return x;
}

struct Found {
    int pairs = 0;
    std::set<std::tuple<int, int, int, int, int>> contacts;  // kind, v[4]
};

Found bruteForce(const CollisionState& cs, const std::vector<Vec3>& x, float R) {
    Found f;
    const float r2 = 2.f * cs.bodies[0].radius;  // one body
    std::vector<char> inMesh(x.size(), 0);
    for (const auto& t : cs.tris)
        for (int v : t) inMesh[size_t(v)] = 1;
    for (int v : cs.verts) {
        if (!inMesh[size_t(v)]) continue;
        for (const auto& t : cs.tris) {
            if (t[0] == v || t[1] == v || t[2] == v) continue;
            const float d =
                vertexTriangleDistance(x[size_t(v)], x[size_t(t[0])], x[size_t(t[1])], x[size_t(t[2])]);
            if (!(d < R)) continue;
            ++f.pairs;
            if (d < r2) f.contacts.insert({int(ContactKind::VertexTriangle), v, t[0], t[1], t[2]});
        }
    }
    for (size_t a = 0; a < cs.edges.size(); ++a)
        for (size_t b = a + 1; b < cs.edges.size(); ++b) {
            const auto &A = cs.edges[a], &B = cs.edges[b];
            if (A[0] == B[0] || A[0] == B[1] || A[1] == B[0] || A[1] == B[1]) continue;
            const float d =
                edgeEdgeDistance(x[size_t(A[0])], x[size_t(A[1])], x[size_t(B[0])], x[size_t(B[1])]);
            if (!(d < R)) continue;
            ++f.pairs;
            if (d < r2) f.contacts.insert({int(ContactKind::EdgeEdge), A[0], A[1], B[0], B[1]});
        }
    return f;
}

Found detected(CollisionState& cs, const std::vector<Vec3>& x, float R, const std::vector<char>& fixed) {
    detectCollisions(cs, x, R, {}, fixed, StaticColliders{});
    Found f;
    f.pairs = cs.numPairs;
    for (const SelfContact& c : cs.contacts) f.contacts.insert({int(c.kind), c.v[0], c.v[1], c.v[2], c.v[3]});
    return f;
}

}  // namespace

TEST(ClothDetection, EveryPairWithinReachIsFoundAsByBruteForce) {
    SoftSolver solver = crumpledSheet();
    const SoftModel& m = solver.model();
    ASSERT_TRUE(m.collision.enabled);
    const float edge = m.collision.meanEdge, r = m.collision.bodies[0].radius;
    for (unsigned seed : {1u, 2u}) {
        const std::vector<Vec3> x = crumple(m.x, seed);
        // R from the contact range 2 r to a few edges (the search's cells scale with R).
        for (float R : {2.f * r, edge, 2.5f * edge}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + ", R = " + std::to_string(R));
            CollisionState cs = m.collision;
            const Found a = detected(cs, x, R, m.fixed);
            const Found b = bruteForce(m.collision, x, R);
            EXPECT_GT(b.pairs, 1000);  // across the folds, not only neighbours in the sheet
            EXPECT_GT(b.contacts.size(), 50u);
            EXPECT_EQ(a.pairs, b.pairs);
            EXPECT_EQ(a.contacts, b.contacts);
        }
    }
}

TEST(ClothDetection, FarFromTheOriginWithANaNVertexTheKeySearchFindsTheSamePairs) {
    SoftSolver solver = crumpledSheet();
    const SoftModel& m = solver.model();
    std::vector<Vec3> x = crumple(m.x, 3);
    for (Vec3& p : x) p += Vec3(1000.f, 0.f, 0.f);
    // A vertex of the sheet's interior turns NaN: its primitives' boxes are NaN, their centres land in cell
    // 0 (Grid::coord), 1 km from the others: 30,000 cells of 3 cm along x, far more than the dense index
    // takes. Pairs through it have a NaN distance and are not pairs.
    const int bad = 12 * 25 + 12;
    x[size_t(bad)] = Vec3(std::numeric_limits<float>::quiet_NaN());
    const float R = 2.5f * m.collision.meanEdge;
    CollisionState cs = m.collision;
    const Found a = detected(cs, x, R, m.fixed);
    const Found b = bruteForce(m.collision, x, R);
    EXPECT_GT(b.pairs, 1000);
    EXPECT_EQ(a.pairs, b.pairs);
    EXPECT_EQ(a.contacts, b.contacts);
}
