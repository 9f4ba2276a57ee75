#pragma once
// Vertex i's row of the elastic + inertia Hessian at the published state: its 3x3 block
//   D_i = m_i/h^2 I + sum_{e ∋ i} H_aa(e)
// and the block diagonal dominance ratios
//   maxRatio = ||D_i|| / max_j ||H_ij||,  sumRatio = ||D_i|| / sum_j ||H_ij||   (Frobenius norms),
// H_ij = sum over the tets holding both i and j of the neo-Hookean block H_ab (energy/tet_energy.h
// neoHookeanBlock; for a = b the sweep's own block). Low ratios mean one neighbour's coupling rivals the
// vertex's own block: the seed's interface quantity, the dominance heat maps.
//
// One source for the host (soft/soft_fields.cpp: the heat maps and the inspected vertex) and the device
// (gpu/frame_measure_stages.h), so without a list of neighbours: each neighbour j is summed when it is first
// met in i's tet list, over that tet and every later one holding j. That is the order a list kept in
// first-met order accumulates in, so both give the same sums; the cost is O(deg^2) block evaluations for a
// vertex of deg tets, paid only while a heat map or the inspector is shown. It reads the vertex-tet lists,
// tets, DmInv, volume, mu, lambda and mass of m (the model's arrays or their device copies); x(v) returns
// vertex v's position as published (float).
#include <array>
#include <cmath>

#include "energy/tet_energy.h"
#include "math/hd.h"
#include "soft/soft_model.h"

namespace vbd {

struct VertexBlock {
    Mat33 D;
    float maxRatio = 0;
    float sumRatio = 0;
};

namespace detail {

// Corner of tet t holding vertex v, -1 if none.
VBD_HD int cornerOf(const std::array<int, 4>& t, int v) {
    for (int c = 0; c < 4; ++c)
        if (t[c] == v) return c;
    return -1;
}

// H_ab of tet e at the positions x.
template <class X>
VBD_HD Mat33 tetBlock(const SoftViewParams& m, const X& x, int e, int a, int b) {
    const std::array<int, 4>& t = m.tets[e];
    const Mat33& Dinv = m.DmInv[e];
    const Mat33 F = tetDeformationGradient(x(t[0]), x(t[1]), x(t[2]), x(t[3]), Dinv);
    return neoHookeanBlock(F, tetVertexWeight(Dinv, a), tetVertexWeight(Dinv, b), m.volume[e], m.mu[e],
                           m.lambda[e]);
}

}  // namespace detail

template <class X>
VBD_HD VertexBlock vertexBlock(const SoftViewParams& m, float h, const X& x, int i) {
    VertexBlock r;
    r.D = Mat33::diag(m.mass[i] / (h * h));
    float mx = 0.f, sum = 0.f;
    const int k0 = m.vtOffsets[i], k1 = m.vtOffsets[i + 1];
    for (int k = k0; k < k1; ++k) {
        const int e = m.vtItems[k] >> 2, a = m.vtItems[k] & 3;
        const std::array<int, 4>& t = m.tets[e];
        r.D += detail::tetBlock(m, x, e, a, a);
        for (int b = 0; b < 4; ++b) {
            if (b == a) continue;
            const int j = t[b];
            bool met = false;  // in an earlier tet of i's: summed there
            for (int k2 = k0; k2 < k && !met; ++k2)
                met = detail::cornerOf(m.tets[m.vtItems[k2] >> 2], j) >= 0;
            if (met) continue;
            Mat33 Hij = detail::tetBlock(m, x, e, a, b);
            for (int k2 = k + 1; k2 < k1; ++k2) {
                const int e2 = m.vtItems[k2] >> 2;
                const int b2 = detail::cornerOf(m.tets[e2], j);
                if (b2 >= 0) Hij += detail::tetBlock(m, x, e2, m.vtItems[k2] & 3, b2);
            }
            const float nrm = std::sqrt(Hij.frobenius2());
            mx = mx > nrm ? mx : nrm;
            sum += nrm;
        }
    }
    const float d = std::sqrt(r.D.frobenius2());
    r.maxRatio = mx > 0.f ? d / mx : 1e30f;
    r.sumRatio = sum > 0.f ? d / sum : 1e30f;
    return r;
}

}  // namespace vbd
