#include "soft/soft_fields.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "backend/parallel.h"
#include "energy/tet_energy.h"

namespace vbd {

namespace {

Mat33 tetF(const SoftModel& m, size_t e) {
    const auto& t = m.tets[e];
    return tetDeformationGradient(m.x[t[0]], m.x[t[1]], m.x[t[2]], m.x[t[3]], m.DmInv[e]);
}

}  // namespace

void volumeRatioField(const SoftModel& m, std::vector<float>& out) {
    const int n = m.numVertices();
    out.assign(size_t(n), 1.f);
    parallelFor(size_t(n), [&](size_t i) {
        double s = 0;
        int c = 0;
        for (int k = m.vertexTets.begin(int(i)); k < m.vertexTets.end(int(i)); ++k) {
            s += tetF(m, size_t(m.vertexTets.items[size_t(k)] >> 2)).det();
            ++c;
        }
        if (c) out[i] = float(s / c);
    });
}

double minVolumeRatio(const SoftModel& m) {
    if (m.tets.empty()) return 1.0;
    std::vector<float> J(m.tets.size());
    parallelFor(m.tets.size(), [&](size_t e) { J[e] = tetF(m, e).det(); });
    return double(*std::min_element(J.begin(), J.end()));
}

// D_i = m_i/h^2 I + sum_e H_aa and the off-diagonal blocks H_ab summed per neighbour, all from
// neoHookeanBlock (energy/tet_energy.h; for a = b it is the sweep's block).
void vertexBlockInfo(const SoftModel& m, float h, int vi, Mat33& D, float& maxRatio, float& sumRatio) {
    const size_t i = size_t(vi);
    D = Mat33::diag(m.mass[i] / (h * h));
    std::vector<std::pair<int, Mat33>> off;
    for (int k = m.vertexTets.begin(vi); k < m.vertexTets.end(vi); ++k) {
        const int item = m.vertexTets.items[size_t(k)];
        const size_t e = size_t(item >> 2);
        const int a = item & 3;
        const auto& t = m.tets[e];
        const Mat33& Dinv = m.DmInv[e];
        const Mat33 F = tetF(m, e);
        const float mu = m.mu[e], lam = m.lambda[e], V = m.volume[e];
        const Vec3 ma = tetVertexWeight(Dinv, a);
        D += neoHookeanBlock(F, ma, ma, V, mu, lam);
        for (int b = 0; b < 4; ++b) {
            if (b == a) continue;
            const Mat33 Hab = neoHookeanBlock(F, ma, tetVertexWeight(Dinv, b), V, mu, lam);
            auto it =
                std::find_if(off.begin(), off.end(), [&](const auto& p) { return p.first == t[size_t(b)]; });
            if (it == off.end())
                off.emplace_back(t[size_t(b)], Hab);
            else
                it->second += Hab;
        }
    }
    float mx = 0.f, sum = 0.f;
    for (const auto& p : off) {
        const float nrm = std::sqrt(p.second.frobenius2());
        mx = std::max(mx, nrm);
        sum += nrm;
    }
    const float d = std::sqrt(D.frobenius2());
    maxRatio = mx > 0.f ? d / mx : 1e30f;
    sumRatio = sum > 0.f ? d / sum : 1e30f;
}

void diagonalDominanceField(const SoftModel& m, float h, std::vector<float>& out,
                            std::vector<float>* sumRatio) {
    const int n = m.numVertices();
    out.assign(size_t(n), 0.f);
    if (sumRatio) sumRatio->assign(size_t(n), 0.f);
    parallelFor(size_t(n), [&](size_t i) {
        Mat33 D;
        float mx = 0, sum = 0;
        vertexBlockInfo(m, h, int(i), D, mx, sum);
        out[i] = mx;
        if (sumRatio) (*sumRatio)[i] = sum;
    });
}

}  // namespace vbd
