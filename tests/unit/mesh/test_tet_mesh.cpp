// Vertex -> tet adjacency and rest data (Dm^-1, volume) with its bad-input errors.
#include <gtest/gtest.h>

#include <cmath>

#include "math/error.h"
#include "mesh/box_grid.h"
#include "mesh/tet_mesh.h"

namespace vbd {
namespace {

TEST(VertexTetAdjacency, EveryTetLocalPairExactlyOnceInItsVertexRow) {
    const TetMesh m = makeBoxGrid({0, 0, 0}, {1, 1, 1}, {3, 2, 2}, 5);
    const Csr a = vertexTetAdjacency(int(m.X.size()), m.tets);
    ASSERT_EQ(a.rows(), int(m.X.size()));
    ASSERT_EQ(a.items.size(), m.tets.size() * 4);
    std::vector<int> seen(m.tets.size() * 4, 0);
    for (int v = 0; v < a.rows(); ++v) {
        for (int k = a.begin(v); k < a.end(v); ++k) {
            const int item = a.items[size_t(k)];
            ASSERT_GE(item, 0);
            ASSERT_LT(item, int(seen.size()));
            seen[size_t(item)]++;
            // The item's (tet, local) really refers to this vertex.
            EXPECT_EQ(m.tets[size_t(item / 4)][size_t(item % 4)], v);
            // Rows ascend in tet order: deterministic gather order.
            if (k > a.begin(v)) {
                EXPECT_LT(a.items[size_t(k - 1)], item);
            }
        }
    }
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "item " << i;
}

TEST(VertexTetAdjacency, IsolatedVertexHasEmptyRow) {
    const std::vector<std::array<int, 4>> tets{{0, 1, 2, 3}};
    const Csr a = vertexTetAdjacency(5, tets);
    EXPECT_EQ(a.end(4) - a.begin(4), 0);
    EXPECT_EQ(a.end(2) - a.begin(2), 1);
}

TEST(ComputeTetRest, DmInvTimesDmIsIdentityAndVolumeIsDetOverSix) {
    TetMesh m;
    m.X = {{0.1f, 0.2f, 0.3f}, {1.3f, 0.1f, 0.2f}, {0.4f, 0.9f, -0.1f}, {0.2f, 0.3f, 1.7f}};
    m.tets = {{0, 1, 2, 3}};
    const auto rest = computeTetRest(m);
    ASSERT_EQ(rest.size(), 1u);
    const Mat33 Dm = Mat33::fromCols(m.X[1] - m.X[0], m.X[2] - m.X[0], m.X[3] - m.X[0]);
    const Mat33 P = rest[0].DmInv * Dm;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            // Float inverse of a well-conditioned (cond ~ 3) matrix: ~1e-7 * cond relative error.
            EXPECT_NEAR(P.m[i][j], i == j ? 1.f : 0.f, 1e-5f) << i << "," << j;
    // det by the triple product (x1 - x0) . ((x2 - x0) x (x3 - x0)), computed in double.
    const Vec3d a(m.X[1] - m.X[0]), b(m.X[2] - m.X[0]), c(m.X[3] - m.X[0]);
    EXPECT_NEAR(rest[0].volume, dot(a, cross(b, c)) / 6.0, 1e-6);
    EXPECT_GT(rest[0].volume, 0.f);
}

TEST(ComputeTetRest, ReferenceTetHasVolumeOneSixth) {
    TetMesh m;
    m.X = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    m.tets = {{0, 1, 2, 3}};
    EXPECT_FLOAT_EQ(computeTetRest(m)[0].volume, 1.f / 6.f);
}

TEST(ComputeTetRest, DegenerateTetNamesItsIndex) {
    TetMesh m;
    m.X = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}};
    // tets[1] is flat: all four corners on z = 0.
    m.tets = {{0, 1, 2, 3}, {0, 1, 4, 2}};
    try {
        computeTetRest(m, "flat.ele");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), "tets[1]");
        EXPECT_EQ(e.file(), "flat.ele");
        EXPECT_NE(std::string(e.what()).find("degenerate"), std::string::npos) << e.what();
    }
}

TEST(ComputeTetRest, InvertedAndOutOfRangeTetsAreRefused) {
    TetMesh m;
    m.X = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    m.tets = {{0, 2, 1, 3}};  // det Dm = -1
    EXPECT_THROW(computeTetRest(m), InputError);
    m.tets = {{0, 1, 2, 7}};
    try {
        computeTetRest(m);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), "tets[0]");
    }
}

}  // namespace
}  // namespace vbd
