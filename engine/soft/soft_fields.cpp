#include "soft/soft_fields.h"

#include <algorithm>

#include "backend/parallel.h"
#include "soft/vertex_block.h"
#include "soft/volume_ratio.h"

namespace vbd {

void volumeRatioField(const SoftModel& m, std::vector<float>& out) {
    const int n = m.numVertices();
    out.assign(size_t(n), 1.f);
    if (m.tets.empty()) return;
    const auto x = [&m](int v) -> const Vec3& { return m.x[size_t(v)]; };
    parallelFor(size_t(n), [&](size_t i) {
        out[i] = vertexVolumeRatio(m.vertexTets.offsets.data(), m.vertexTets.items.data(), m.tets.data(),
                                   m.DmInv.data(), x, int(i));
    });
}

double minVolumeRatio(const SoftModel& m) {
    if (m.tets.empty()) return 1.0;
    std::vector<float> J(m.tets.size());
    const auto x = [&m](int v) -> const Vec3& { return m.x[size_t(v)]; };
    parallelFor(m.tets.size(), [&](size_t e) { J[e] = publishedTetJ(m.tets[e], m.DmInv[e], x); });
    return double(*std::min_element(J.begin(), J.end()));
}

namespace {

// The model's arrays as the kernels' parameters (the one list, soft_model.h forEachParamArray): what
// soft/vertex_block.h reads, host or device.
SoftViewParams modelArrays(const SoftModel& m) {
    SoftViewParams p{};
    forEachParamArray(m, p, [](auto& ptr, const auto& array) { ptr = array.data(); });
    return p;
}

}  // namespace

void vertexBlockInfo(const SoftModel& m, float h, int vi, Mat33& D, float& maxRatio, float& sumRatio) {
    const auto x = [&m](int v) -> const Vec3& { return m.x[size_t(v)]; };
    const VertexBlock b = vertexBlock(modelArrays(m), h, x, vi);
    D = b.D, maxRatio = b.maxRatio, sumRatio = b.sumRatio;
}

void diagonalDominanceField(const SoftModel& m, float h, std::vector<float>& out,
                            std::vector<float>* sumRatio) {
    const int n = m.numVertices();
    out.assign(size_t(n), 0.f);
    if (sumRatio) sumRatio->assign(size_t(n), 0.f);
    const SoftViewParams arrays = modelArrays(m);
    const auto x = [&m](int v) -> const Vec3& { return m.x[size_t(v)]; };
    parallelFor(size_t(n), [&](size_t i) {
        const VertexBlock b = vertexBlock(arrays, h, x, int(i));
        out[i] = b.maxRatio;
        if (sumRatio) (*sumRatio)[i] = b.sumRatio;
    });
}

}  // namespace vbd
