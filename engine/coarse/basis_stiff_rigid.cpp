// stiff_rigid: the rigid motions of every stiff component (deflation vectors constant -- rigid -- on each
// high-coefficient region, Vuik, Segal & Meijerink 1999).
#include <algorithm>
#include <array>
#include <map>
#include <numeric>

#include "coarse/basis.h"

namespace vbd::coarse {

namespace {

int findRoot(std::vector<int>& p, int a) {
    while (p[size_t(a)] != a) a = p[size_t(a)] = p[size_t(p[size_t(a)])];
    return a;
}

class StiffComponents final : public BasisStrategy {
  public:
    explicit StiffComponents(double threshold) : threshold_(threshold) {}

    Basis build(const SoftModel& m, const DofMap& dofs, const std::vector<Vec3d>& positions) const override {
        Basis b;
        addComponents(b, m, dofs, stiffComponentSpecs(m, threshold_, &b.candidateElements), positions);
        return b;
    }

  private:
    double threshold_;
};

}  // namespace

// Components over shared FACES: two tets sharing a face form a rigid assembly, while tets that only share a
// vertex or an edge hinge about it (a corner-connected cluster of stiff cells is no rigid body, and its 6
// rigid modes would miss its slow hinge motion).
std::vector<ComponentSpec> stiffComponentSpecs(const SoftModel& m, double threshold, int* stiffCount) {
    const std::vector<char> stiff = stiffElements(m, threshold);
    std::vector<int> parent(m.tets.size());
    std::iota(parent.begin(), parent.end(), 0);
    std::map<std::array<int, 3>, int> faceOwner;
    int count = 0;
    for (size_t e = 0; e < m.tets.size(); ++e) {
        if (!stiff[e]) continue;
        ++count;
        const auto& t = m.tets[e];
        for (int skip = 0; skip < 4; ++skip) {
            std::array<int, 3> f{};
            for (int a = 0, q = 0; a < 4; ++a)
                if (a != skip) f[size_t(q++)] = t[size_t(a)];
            std::sort(f.begin(), f.end());
            const int ra = findRoot(parent, int(e)),
                      rb = findRoot(parent, faceOwner.emplace(f, int(e)).first->second);
            if (ra != rb) parent[size_t(ra)] = rb;
        }
    }
    if (stiffCount) *stiffCount = count;
    std::map<int, ComponentSpec> byRoot;
    for (size_t e = 0; e < m.tets.size(); ++e)
        if (stiff[e]) byRoot[findRoot(parent, int(e))].elements.push_back(int(e));
    std::vector<ComponentSpec> specs;
    specs.reserve(byRoot.size());
    for (auto& kv : byRoot) specs.push_back(std::move(kv.second));
    return specs;
}

std::unique_ptr<BasisStrategy> makeStiffComponents(const CoarseDesc& d) {
    return std::make_unique<StiffComponents>(d.contrastThreshold);
}

}  // namespace vbd::coarse
