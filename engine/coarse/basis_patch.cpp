// Patch aggregation (the seed's third filter): per patch of patchSize^3 cells, the eigenmodes of the patch's
// assembled rest stiffness -- the stiffest k (element basis with filter `patch`) or the softest k non-rigid
// ones (basis `patch_soft`).
#include <algorithm>
#include <map>
#include <numeric>

#include <Eigen/Dense>

#include "coarse/basis.h"
#include "coarse/basis_util.h"
#include "coarse/element_matrix.h"

namespace vbd::coarse {

namespace {

class PatchModes final : public BasisStrategy {
  public:
    explicit PatchModes(const CoarseDesc& d) : d_(d) {}

    Basis build(const SoftModel& m, const DofMap& dofs, const std::vector<Vec3d>&) const override {
        Basis b;
        const int k = std::max(1, std::min(12, d_.modesPerElement));
        int np = 0;
        const std::vector<int> pid = patchOfElement(m, d_.patchSize, &np);
        b.patches = np;
        std::vector<std::vector<int>> members(static_cast<size_t>(np));
        for (size_t e = 0; e < m.tets.size(); ++e) members[size_t(pid[e])].push_back(int(e));
        for (const auto& elems : members) {
            std::map<int, int> pos;
            std::vector<int> gd;
            for (int e : elems)
                for (int g : tetFreeDofs(m, dofs, e).global)
                    if (pos.emplace(g, int(gd.size())).second) gd.push_back(g);
            if (gd.empty()) continue;
            const int n = int(gd.size());
            Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
            for (int e : elems) {
                const LocalDofs ld = tetFreeDofs(m, dofs, e);
                const Mat12d Ke = restStiffness(m, e);
                for (size_t i = 0; i < ld.local.size(); ++i)
                    for (size_t j = 0; j < ld.local.size(); ++j)
                        K(pos[ld.global[i]], pos[ld.global[j]]) += Ke(ld.local[i], ld.local[j]);
            }
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(K);
            const Eigen::VectorXd& w = es.eigenvalues();
            std::vector<int> which;
            if (d_.basis == CoarseBasis::PatchSoft) {
                // Softest non-rigid modes: skip the (near-)kernel, i.e. the patch's free rigid motions.
                for (int i = 0; i < n && int(which.size()) < k; ++i)
                    if (w(i) > 1e-8 * w(n - 1)) which.push_back(i);
            } else {
                for (int i = n - 1; i >= 0 && int(which.size()) < k; --i) which.push_back(i);
            }
            appendModes(gd, which, es.eigenvectors(), b.columns);
        }
        return b;
    }

  private:
    CoarseDesc d_;
};

}  // namespace

std::unique_ptr<BasisStrategy> makePatchModes(const CoarseDesc& d) { return std::make_unique<PatchModes>(d); }

}  // namespace vbd::coarse
