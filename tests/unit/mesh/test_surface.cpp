// Surface topology helpers: closed-manifold check, welding, enclosed volume, single-tet boundary.
#include <gtest/gtest.h>

#include <cmath>

#include "mesh/surface.h"

namespace vbd {
namespace {

// Unit cube [0,1]^3 as 12 outward triangles.
TriMesh unitCube() {
    TriMesh s;
    s.X = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    s.tris = {{0, 3, 2}, {0, 2, 1}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
              {3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};
    return s;
}

TEST(Surface, CubeIsClosedOrientedWithVolumeOne) {
    const TriMesh s = unitCube();
    const SurfaceTopology t = checkSurface(s.tris);
    EXPECT_TRUE(t.closedOriented());
    EXPECT_EQ(t.edges, 18);                      // 12 cube edges + 6 face diagonals; Euler: 8 - 18 + 12 = 2
    EXPECT_NEAR(enclosedVolume(s), 1.0, 1e-12);  // exact in double for integer corners
}

TEST(Surface, VolumeIsTranslationInvariantAndFlipsWithOrientation) {
    TriMesh s = unitCube();
    for (auto& x : s.X) x += Vec3(10, -3, 7);
    // Triangle cones to the origin now have volumes ~ 10^2 that cancel; float corners are exact.
    EXPECT_NEAR(enclosedVolume(s), 1.0, 1e-9);
    for (auto& t : s.tris) std::swap(t[1], t[2]);
    EXPECT_NEAR(enclosedVolume(s), -1.0, 1e-9);
}

TEST(Surface, DetectsOpenNonManifoldAndInconsistentEdges) {
    TriMesh s = unitCube();
    auto open = s.tris;
    open.pop_back();  // removes (1,6,5): its 3 edges lose their partner
    SurfaceTopology t = checkSurface(open);
    EXPECT_EQ(t.boundaryEdges, 3);
    EXPECT_FALSE(t.closedOriented());

    auto flipped = s.tris;
    std::swap(flipped[0][1], flipped[0][2]);  // one triangle disagrees with its 3 neighbours
    t = checkSurface(flipped);
    EXPECT_EQ(t.boundaryEdges, 0);
    EXPECT_EQ(t.inconsistentEdges, 3);

    auto fin = s.tris;
    fin.push_back({0, 2, 6});  // an internal fin: edge 0-2 is now used three times
    t = checkSurface(fin);
    EXPECT_GE(t.nonManifoldEdges, 1);
    EXPECT_EQ(t.firstNonManifold, (std::array<int, 2>{0, 2}));
}

TEST(Surface, WeldMergesSplitCornersAndDropsCollapsedTriangles) {
    // Triangle soup (STL-style): every triangle has its own three corners.
    const TriMesh cube = unitCube();
    TriMesh soup;
    for (const auto& t : cube.tris) {
        const int b = int(soup.X.size());
        for (int v : t) soup.X.push_back(cube.X[size_t(v)] + Vec3(1e-8f, 0, 0));
        soup.tris.push_back({b, b + 1, b + 2});
    }
    soup.X.push_back({5, 5, 5});  // unused vertex: dropped
    soup.X.push_back({0, 0, 0});
    soup.tris.push_back({0, int(soup.X.size()) - 1, 1});  // collapses after welding: corners 0 and new
    EXPECT_FALSE(checkSurface(soup.tris).closedOriented());
    const int dropped = weldVertices(soup, 1e-6);
    EXPECT_EQ(dropped, 1);
    EXPECT_EQ(soup.X.size(), 8u);
    EXPECT_EQ(soup.tris.size(), 12u);
    EXPECT_TRUE(checkSurface(soup.tris).closedOriented());
    EXPECT_NEAR(enclosedVolume(soup), 1.0, 1e-6);
}

TEST(Surface, WeldKeepsVerticesFartherThanTolerance) {
    TriMesh s;
    s.X = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2e-6f, 0, 0}};
    s.tris = {{0, 1, 2}, {3, 2, 1}};
    weldVertices(s, 1e-6);
    EXPECT_EQ(s.X.size(), 4u);
}

TEST(Surface, WindingNumberIsOneInsideZeroOutside) {
    TriMesh s = unitCube();
    // Solid angles sum to 4 pi inside exactly; atan2 rounding leaves ~1e-15.
    EXPECT_NEAR(windingNumber(s.X, s.tris, {0.5, 0.5, 0.5}), 1.0, 1e-12);
    EXPECT_NEAR(windingNumber(s.X, s.tris, {0.9, 0.1, 0.2}), 1.0, 1e-12);
    EXPECT_NEAR(windingNumber(s.X, s.tris, {1.5, 0.5, 0.5}), 0.0, 1e-12);
    EXPECT_NEAR(windingNumber(s.X, s.tris, {-3, 7, 2}), 0.0, 1e-12);
    for (auto& t : s.tris) std::swap(t[1], t[2]);
    EXPECT_NEAR(windingNumber(s.X, s.tris, {0.5, 0.5, 0.5}), -1.0, 1e-12);
}

TEST(Surface, OrientShellsAppliesTheEvenOddRule) {
    // Outer cube [0,1]^3 given inside out, inner cube [0.25,0.75]^3 given outward, and a separate
    // cube at x + 3 given inside out: expected outer out, inner in (cavity), separate out.
    const TriMesh c = unitCube();
    TriMesh s;
    auto add = [&](float k, const Vec3& shift, bool flip) {
        const int b = int(s.X.size());
        for (const auto& x : c.X) s.X.push_back(x * k + shift);
        for (auto t : c.tris) {
            if (flip) std::swap(t[1], t[2]);
            s.tris.push_back({t[0] + b, t[1] + b, t[2] + b});
        }
    };
    add(1, {0, 0, 0}, true);
    add(0.5f, {0.25f, 0.25f, 0.25f}, false);
    add(1, {3, 0, 0}, true);
    EXPECT_EQ(orientShells(s), 3);
    EXPECT_TRUE(checkSurface(s.tris).closedOriented());
    EXPECT_NEAR(enclosedVolume(s), 1 - 0.125 + 1, 1e-9);  // float corners are exact binary fractions
    EXPECT_NEAR(windingNumber(s.X, s.tris, {0.5, 0.5, 0.5}), 0.0, 1e-12);  // in the cavity
    EXPECT_NEAR(windingNumber(s.X, s.tris, {0.1, 0.1, 0.1}), 1.0, 1e-12);  // in the shell
    EXPECT_EQ(orientShells(s), 0);                                         // idempotent
}

TEST(Surface, SingleTetBoundaryIsItsFourFacesOutward) {
    TetMesh m;
    m.X = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    m.tets = {{0, 1, 2, 3}};
    const TriMesh b = extractBoundary(m);
    ASSERT_EQ(b.tris.size(), 4u);
    EXPECT_TRUE(checkSurface(b.tris).closedOriented());
    EXPECT_NEAR(enclosedVolume(b), 1.0 / 6.0, 1e-12);
    // Each face normal points away from the opposite vertex.
    for (int f = 0; f < 4; ++f) {
        const auto& t = b.tris[size_t(f)];
        const Vec3d a(b.X[size_t(t[0])]),
            n = cross(Vec3d(b.X[size_t(t[1])]) - a, Vec3d(b.X[size_t(t[2])]) - a);
        const Vec3d opposite(m.X[size_t(f)]);  // face f is opposite vertex f in kTetFaces
        EXPECT_LT(dot(n, opposite - a), 0.0) << "face " << f;
    }
    EXPECT_EQ(boundaryVertices(m), (std::vector<int>{0, 1, 2, 3}));
}

TEST(Surface, TwoTetsSharingAFaceSameWayAreFlagged) {
    TetMesh m;
    m.X = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.2f, 0.2f, 0.5f}};
    // Both tets lie on the same side of face (0,1,2): they overlap.
    m.tets = {{0, 1, 2, 3}, {0, 1, 2, 4}};
    const TetTopology t = checkTetTopology(m);
    EXPECT_EQ(t.sameOrientation, 1);
    EXPECT_FALSE(t.conforming());
    EXPECT_NE(t.firstProblem.find("same orientation"), std::string::npos) << t.firstProblem;
}

}  // namespace
}  // namespace vbd
