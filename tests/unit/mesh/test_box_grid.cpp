// Box grid generator: exact volume, orientation, conformity and a closed outward boundary.
#include <gtest/gtest.h>

#include <set>

#include "mesh/box_grid.h"
#include "mesh/surface.h"

namespace vbd {
namespace {

struct GridCase {
    Vec3 min, max;
    std::array<int, 3> cells;
    int tetsPerCell;
};

class BoxGrid : public ::testing::TestWithParam<GridCase> {};

double boxVolume(const GridCase& c) {
    return double(c.max.x - c.min.x) * double(c.max.y - c.min.y) * double(c.max.z - c.min.z);
}

TEST_P(BoxGrid, RestVolumeEqualsBoxAndEveryTetPositive) {
    const auto c = GetParam();
    const TetMesh m = makeBoxGrid(c.min, c.max, c.cells, c.tetsPerCell);
    const int nx = c.cells[0], ny = c.cells[1], nz = c.cells[2];
    EXPECT_EQ(m.X.size(), size_t((nx + 1) * (ny + 1) * (nz + 1)));
    EXPECT_EQ(m.tets.size(), size_t(c.tetsPerCell * nx * ny * nz));
    const auto rest = computeTetRest(m);  // throws on a degenerate or inverted tet
    double total = 0;
    for (const auto& r : rest) {
        EXPECT_GT(r.volume, 0.f);
        total += r.volume;
    }
    // Each float volume carries ~1e-7 relative rounding from float positions; summed in double.
    EXPECT_NEAR(total, boxVolume(c), 1e-5 * boxVolume(c));
}

TEST_P(BoxGrid, ConformingWithExpectedFaceCounts) {
    const auto c = GetParam();
    const TetMesh m = makeBoxGrid(c.min, c.max, c.cells, c.tetsPerCell);
    const int nx = c.cells[0], ny = c.cells[1], nz = c.cells[2];
    const TetTopology topo = checkTetTopology(m);
    EXPECT_TRUE(topo.conforming()) << topo.firstProblem;
    // Boundary: 2 (nx ny + ny nz + nz nx) quads on the six box sides, 2 triangles each. Every other
    // face of the 4 T tet faces is interior and counted from both sides: I = (4T - B) / 2.
    const int B = 4 * (nx * ny + ny * nz + nz * nx);
    const int T = c.tetsPerCell * nx * ny * nz;
    EXPECT_EQ(topo.boundaryFaces, B);
    EXPECT_EQ(topo.interiorFaces, (4 * T - B) / 2);
    EXPECT_EQ(topo.overusedFaces, 0);
    EXPECT_EQ(topo.sameOrientation, 0);
}

TEST_P(BoxGrid, BoundaryIsClosedOutwardAndEnclosesTheBox) {
    const auto c = GetParam();
    const TetMesh m = makeBoxGrid(c.min, c.max, c.cells, c.tetsPerCell);
    const TriMesh b = extractBoundary(m);
    const int nx = c.cells[0], ny = c.cells[1], nz = c.cells[2];
    EXPECT_EQ(b.tris.size(), size_t(4 * (nx * ny + ny * nz + nz * nx)));
    const SurfaceTopology st = checkSurface(b.tris);
    EXPECT_TRUE(st.closedOriented()) << st.boundaryEdges << " open, " << st.inconsistentEdges
                                     << " inconsistent";
    // Euler characteristic of a sphere-like closed surface: V - E + F = 2.
    const auto bv = boundaryVertices(m);
    EXPECT_EQ(int(bv.size()) - st.edges + int(b.tris.size()), 2);
    const int interior = (nx - 1) * (ny - 1) * (nz - 1);
    EXPECT_EQ(bv.size(), m.X.size() - size_t(interior));
    // Divergence theorem; positive only if every face is counter-clockwise seen from outside. The
    // grid does not contain the origin for every case, so this also checks translation invariance.
    EXPECT_NEAR(enclosedVolume(b), boxVolume(c), 1e-5 * boxVolume(c));
    // Every boundary vertex lies on a box side (float positions: exact comparisons hold, the grid
    // puts i = 0 and i = n exactly on min and max).
    for (int v : bv) {
        const Vec3& x = m.X[size_t(v)];
        const bool onSide = x.x == c.min.x || x.x == c.max.x || x.y == c.min.y || x.y == c.max.y ||
                            x.z == c.min.z || x.z == c.max.z;
        EXPECT_TRUE(onSide) << "vertex " << v;
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, BoxGrid,
                         ::testing::Values(GridCase{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 6},
                                           GridCase{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 5},
                                           GridCase{{-1, 0.5f, 2}, {3, 2, 3}, {4, 3, 2}, 6},
                                           GridCase{{-1, 0.5f, 2}, {3, 2, 3}, {4, 3, 2}, 5},
                                           GridCase{{0, 1, 0}, {4, 2, 1}, {16, 4, 4}, 6},
                                           GridCase{{0, 1, 0}, {4, 2, 1}, {7, 5, 3}, 5}));

TEST(BoxGrid, FiveTetCellHasOneCentralTetOfThirdTheVolume) {
    // The 5-tet split: four corner tets of volume 1/6 each and a regular central tet of volume 1/3.
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 5);
    std::multiset<long> sixths;
    for (const auto& r : computeTetRest(m)) sixths.insert(std::lround(double(r.volume) * 6.0));
    EXPECT_EQ(sixths, (std::multiset<long>{1, 1, 1, 1, 2}));
}

}  // namespace
}  // namespace vbd
