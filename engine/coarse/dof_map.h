#pragma once
// Free-DOF numbering of the coarse space: vertex i owns DOFs 3 dofBase[i] .. +2, or dofBase[i] = -1 when it
// is fixed (fixed vertices are not DOFs of G).
#include <vector>

#include "soft/soft_model.h"

namespace vbd::coarse {

struct DofMap {
    std::vector<int> dofBase;
    int numDofs = 0;
    DofMap() = default;
    explicit DofMap(const SoftModel& m) {
        dofBase.assign(size_t(m.numVertices()), -1);
        for (int i = 0; i < m.numVertices(); ++i)
            if (!m.fixed[size_t(i)]) dofBase[size_t(i)] = numDofs++;
        numDofs *= 3;
    }
};

}  // namespace vbd::coarse
