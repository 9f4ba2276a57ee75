#pragma once
// Helpers shared by the eigenmode bases (element, patch).
#include <algorithm>
#include <numeric>
#include <vector>

#include <Eigen/Dense>

#include "coarse/basis.h"

namespace vbd::coarse {

// The free DOFs of tet e: local indices 0..11 and their global free DOF numbers.
struct LocalDofs {
    std::vector<int> local;
    std::vector<int> global;
};

inline LocalDofs tetFreeDofs(const SoftModel& m, const DofMap& d, int e) {
    LocalDofs r;
    for (int a = 0; a < 4; ++a) {
        const int b = d.dofBase[size_t(m.tets[size_t(e)][size_t(a)])];
        if (b < 0) continue;
        for (int k = 0; k < 3; ++k) {
            r.local.push_back(3 * a + k);
            r.global.push_back(3 * b + k);
        }
    }
    return r;
}

// Appends the eigenvectors `which` (columns of V, rows over the global DOFs `gdofs`) as columns with
// ascending DOFs.
inline void appendModes(const std::vector<int>& gdofs, const std::vector<int>& which,
                        const Eigen::MatrixXd& V, std::vector<Column>& out) {
    std::vector<int> order(gdofs.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return gdofs[size_t(a)] < gdofs[size_t(b)]; });
    for (int w : which) {
        Column c;
        for (int o : order) {
            c.dofs.push_back(gdofs[size_t(o)]);
            c.vals.push_back(V(o, w));
        }
        out.push_back(std::move(c));
    }
}

}  // namespace vbd::coarse
