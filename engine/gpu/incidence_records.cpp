#include "gpu/incidence_records.h"

#include <cstddef>

namespace vbd {

void buildIncidenceRecords(const SoftModel& m, std::vector<IncidenceRecord>& records, std::vector<float>& kd,
                           std::vector<int>& cprevSlot) {
    const std::vector<int>& items = m.vertexTets.items;
    records.resize(items.size());
    kd.resize(items.size());
    cprevSlot.assign(4 * m.tets.size(), -1);
    for (size_t j = 0; j < items.size(); ++j) {
        cprevSlot[size_t(items[j])] = int(j);
        const size_t e = size_t(items[j] >> 2);
        IncidenceRecord& r = records[j];
        for (int k = 0; k < 4; ++k) r.tet[k] = m.tets[e][size_t(k)];
        r.DmInv = m.DmInv[e];
        r.volume = m.volume[e];
        r.mu = m.mu[e];
        r.lambda = m.lambda[e];
        kd[j] = m.kd[e];
    }
}

}  // namespace vbd
