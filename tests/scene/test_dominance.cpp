// The per-vertex block diagonal dominance field (the heat map the app draws) on the stiffness-contrast
// bar: it must be lowest at the stiff/soft interface, where the seed says Gauss-Seidel stalls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "energy/tet_energy.h"
#include "scene_util.h"
#include "soft/soft_fields.h"

using namespace vbd;
using namespace vbdtest;

TEST(DiagonalDominance, LowestAtTheStiffSoftInterface) {
    SceneDesc s = loadScene("contrast_bar.json");
    SoftSolver solver;
    solver.build(s);
    std::vector<float> maxRatio, sumRatio;
    diagonalDominanceField(solver.model(), solver.currentH(), maxRatio, &sumRatio);
    const SoftModel& m = solver.model();
    // Mean per x-layer (x = 0 .. 4 in 16 cells; the interface is the layer x = 2).
    std::map<int, std::pair<double, int>> layer;
    for (int i = 0; i < m.numVertices(); ++i) {
        if (m.fixed[size_t(i)]) continue;
        const int k = int(std::lround(m.x0[size_t(i)].x * 4));
        layer[k].first += maxRatio[size_t(i)];
        layer[k].second++;
    }
    double interface = 0, lowestOther = 1e30;
    for (const auto& [k, v] : layer) {
        const double mean = v.first / v.second;
        std::printf("layer x=%.2f  mean ||D_i||/max_j||H_ij|| = %.3f\n", k / 4.0, mean);
        if (k == 8)
            interface = mean;
        else if (k != 16)
            lowestOther = std::min(lowestOther, mean);  // the free end face has fewer neighbours
    }
    // Clearly lowest: an interface vertex has about half the stiff tets of a stiff interior vertex in its
    // own block but a full-strength coupling to its stiff neighbours.
    EXPECT_LT(interface, 0.8 * lowestOther);
}

// soft/vertex_block.h sums each neighbour's coupling without a list of neighbours (one source for the host
// and the device): against the list it replaced, neighbours kept in first-met order and each tet's H_ab added
// to its neighbour's entry, on a deformed bar (after 20 frames of sag) where every block differs. The sums
// are taken in the same order, so the blocks and both ratios agree to float rounding of that order
// (exactly, unless the compiler contracts differently: 1e-6 relative allows a few ulps of the norms).
TEST(DiagonalDominance, VertexBlockIsTheNeighbourListsSum) {
    SceneDesc s = loadScene("contrast_bar.json");
    SoftSolver solver;
    solver.build(s);
    for (int f = 0; f < 20; ++f) solver.step(float(s.dt), s.gravity);
    const SoftModel& m = solver.model();
    const float h = solver.currentH();
    std::vector<float> maxRatio, sumRatio;
    diagonalDominanceField(m, h, maxRatio, &sumRatio);
    double worst = 0;
    for (int i = 0; i < m.numVertices(); ++i) {
        Mat33 D = Mat33::diag(m.mass[size_t(i)] / (h * h));
        std::vector<std::pair<int, Mat33>> off;
        for (int k = m.vertexTets.begin(i); k < m.vertexTets.end(i); ++k) {
            const int item = m.vertexTets.items[size_t(k)];
            const size_t e = size_t(item >> 2);
            const int a = item & 3;
            const auto& t = m.tets[e];
            const Mat33 F = tetDeformationGradient(m.x[size_t(t[0])], m.x[size_t(t[1])], m.x[size_t(t[2])],
                                                   m.x[size_t(t[3])], m.DmInv[e]);
            const Vec3 ma = tetVertexWeight(m.DmInv[e], a);
            D += neoHookeanBlock(F, ma, ma, m.volume[e], m.mu[e], m.lambda[e]);
            for (int b = 0; b < 4; ++b) {
                if (b == a) continue;
                const Mat33 Hab =
                    neoHookeanBlock(F, ma, tetVertexWeight(m.DmInv[e], b), m.volume[e], m.mu[e], m.lambda[e]);
                auto it = std::find_if(off.begin(), off.end(),
                                       [&](const auto& p) { return p.first == t[size_t(b)]; });
                if (it == off.end())
                    off.emplace_back(t[size_t(b)], Hab);
                else
                    it->second += Hab;
            }
        }
        float mx = 0, sum = 0;
        for (const auto& p : off) {
            mx = std::max(mx, std::sqrt(p.second.frobenius2()));
            sum += std::sqrt(p.second.frobenius2());
        }
        const float d = std::sqrt(D.frobenius2());
        ASSERT_GT(mx, 0.f) << i;  // every vertex of the bar has neighbours
        const double refMax = d / mx, refSum = d / sum;
        worst = std::max({worst, std::abs(maxRatio[size_t(i)] - refMax) / refMax,
                          std::abs(sumRatio[size_t(i)] - refSum) / refSum});
        Mat33 block;
        float bm = 0, bs = 0;
        vertexBlockInfo(m, h, i, block, bm, bs);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                ASSERT_NEAR(block(r, c), D(r, c), 1e-6 * std::sqrt(D.frobenius2())) << i;
    }
    std::printf("largest relative difference of the ratios: %.2e\n", worst);
    EXPECT_LT(worst, 1e-6);
}
