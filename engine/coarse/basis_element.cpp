// Element eigenmodes (the seed's basis): per element, the k stiffest eigenvectors of its rest stiffness over
// its free DOFs, with the seed's filters: `contrast` keeps interface elements only, `cross_color` drops modes
// whose support lies inside one vertex color (the smoother already resolves them).
#include <algorithm>
#include <cmath>
#include <utility>

#include <Eigen/Dense>

#include "coarse/basis.h"
#include "coarse/basis_util.h"
#include "coarse/element_matrix.h"

namespace vbd::coarse {

namespace {

// Whether a mode's support (vertices carrying more than 1e-12 of its largest vertex amplitude) spans two
// or more colors.
bool crossesColors(const SoftModel& m, const DofMap& dofs, int e, const Column& c) {
    double mx = 0;
    std::vector<std::pair<int, double>> amp;
    for (size_t q = 0; q < c.dofs.size(); q += 3) {
        const double a =
            std::sqrt(c.vals[q] * c.vals[q] + c.vals[q + 1] * c.vals[q + 1] + c.vals[q + 2] * c.vals[q + 2]);
        amp.emplace_back(c.dofs[q] / 3, a);
        mx = std::max(mx, a);
    }
    int firstColor = -1;
    for (const auto& va : amp) {
        if (va.second <= 1e-12 * mx) continue;
        int vert = -1;
        for (int v : m.tets[size_t(e)])
            if (dofs.dofBase[size_t(v)] == va.first) vert = v;
        const int col = m.color.empty() ? 0 : m.color[size_t(vert)];
        if (firstColor < 0)
            firstColor = col;
        else if (col != firstColor)
            return true;
    }
    return false;
}

class ElementModes final : public BasisStrategy {
  public:
    explicit ElementModes(const CoarseDesc& d) : d_(d) {}

    Basis build(const SoftModel& m, const DofMap& dofs, const std::vector<Vec3d>&) const override {
        Basis b;
        const int k = std::max(1, std::min(12, d_.modesPerElement));
        std::vector<char> keep(m.tets.size(), 1);
        if (d_.filter == CoarseFilter::Contrast) keep = interfaceElements(m, d_.contrastThreshold);
        for (size_t e = 0; e < m.tets.size(); ++e) {
            if (!keep[e]) continue;
            const LocalDofs ld = tetFreeDofs(m, dofs, int(e));
            if (ld.local.empty()) continue;
            ++b.candidateElements;
            const Mat12d Ke = restStiffness(m, int(e));
            const int n = int(ld.local.size());
            Eigen::MatrixXd Kr(n, n);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) Kr(i, j) = Ke(ld.local[size_t(i)], ld.local[size_t(j)]);
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Kr);
            std::vector<int> which;
            for (int i = n - 1; i >= 0 && int(which.size()) < k; --i) which.push_back(i);
            std::vector<Column> cols;
            appendModes(ld.global, which, es.eigenvectors(), cols);
            for (Column& c : cols) {
                if (d_.filter == CoarseFilter::CrossColor && !crossesColors(m, dofs, int(e), c)) {
                    ++b.droppedCrossColor;
                    continue;
                }
                b.columns.push_back(std::move(c));
            }
        }
        return b;
    }

  private:
    CoarseDesc d_;
};

}  // namespace

std::unique_ptr<BasisStrategy> makeElementModes(const CoarseDesc& d) {
    return std::make_unique<ElementModes>(d);
}

}  // namespace vbd::coarse
