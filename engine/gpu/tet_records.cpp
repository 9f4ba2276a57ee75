#include "gpu/tet_records.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace vbd {

const char* tetLayoutName(TetLayout layout) {
    switch (layout) {
        case TetLayout::IncidenceRecords:
            return "incidence records";
        case TetLayout::TetRecords:
            return "tet records";
        default:
            return "tet arrays";
    }
}

TetRecord tetRecordOf(const SoftModel& m, size_t e) {
    TetRecord r;
    for (int k = 0; k < 4; ++k) r.tet[k] = m.tets[e][size_t(k)];
    r.DmInv = m.DmInv[e];
    r.volume = m.volume[e];
    r.mu = m.mu[e];
    r.lambda = m.lambda[e];
    return r;
}

void buildTetRecords(const SoftModel& m, TetLayout layout, std::vector<TetRecord>& records,
                     std::vector<float>& kd, float& kdAll) {
    if (layout == TetLayout::Arrays) throw std::invalid_argument("buildTetRecords: the tet arrays have none");
    // The tet behind each record: e, or the entry's item >> 2.
    std::vector<size_t> tetOf;
    if (layout == TetLayout::TetRecords) {
        tetOf.resize(m.tets.size());
        for (size_t e = 0; e < tetOf.size(); ++e) tetOf[e] = e;
    } else {
        const std::vector<int>& items = m.vertexTets.items;
        tetOf.resize(items.size());
        for (size_t j = 0; j < items.size(); ++j) tetOf[j] = size_t(items[j] >> 2);
    }
    records.resize(tetOf.size());
    for (size_t j = 0; j < tetOf.size(); ++j) records[j] = tetRecordOf(m, tetOf[j]);
    // One k_d for all (the usual scene: one material per body and one damping): no per-record load. Equal
    // as bits, so that the value read is the model's for every tet.
    auto bits = [](float f) {
        uint32_t u;
        std::memcpy(&u, &f, sizeof u);
        return u;
    };
    const bool uniform = !m.kd.empty() && std::all_of(m.kd.begin(), m.kd.end(),
                                                      [&](float k) { return bits(k) == bits(m.kd.front()); });
    kdAll = uniform ? m.kd.front() : 0.f;
    kd.clear();
    if (uniform) return;
    kd.resize(tetOf.size());
    for (size_t j = 0; j < tetOf.size(); ++j) kd[j] = m.kd[tetOf[j]];
}

}  // namespace vbd
