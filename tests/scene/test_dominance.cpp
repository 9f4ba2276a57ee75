// The per-vertex block diagonal dominance field (the heat map the app draws) on the stiffness-contrast
// bar: it must be lowest at the stiff/soft interface, where the seed says Gauss-Seidel stalls.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

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
