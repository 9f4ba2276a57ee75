#include "coarse/basis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace vbd::coarse {

std::unique_ptr<BasisStrategy> makeElementModes(const CoarseDesc& d);     // basis_element.cpp
std::unique_ptr<BasisStrategy> makePatchModes(const CoarseDesc& d);       // basis_patch.cpp
std::unique_ptr<BasisStrategy> makeStiffComponents(const CoarseDesc& d);  // basis_stiff_rigid.cpp
std::unique_ptr<BasisStrategy> makeAggregates(const CoarseDesc& d);       // basis_aggregate.cpp

std::unique_ptr<BasisStrategy> makeBasisStrategy(const CoarseDesc& d) {
    switch (d.basis) {
        case CoarseBasis::StiffRigid:
            return makeStiffComponents(d);
        case CoarseBasis::PatchSoft:
            return makePatchModes(d);
        case CoarseBasis::Aggregate:
            return makeAggregates(d);
        case CoarseBasis::Element:
            break;
    }
    // The patch filter replaces per-element modes by patch modes.
    return d.filter == CoarseFilter::Patch ? makePatchModes(d) : makeElementModes(d);
}

namespace {

class IdentityBasis final : public BasisStrategy {
  public:
    Basis build(const SoftModel&, const DofMap& dofs, const std::vector<Vec3d>&) const override {
        Basis b;
        for (int i = 0; i < dofs.numDofs; ++i) b.columns.push_back(Column{{i}, {1.0}});
        return b;
    }
};

}  // namespace

std::unique_ptr<BasisStrategy> makeIdentityBasis() { return std::make_unique<IdentityBasis>(); }

std::string Basis::describe() const {
    std::ostringstream s;
    s << columns.size() << " columns";
    if (!components.empty()) s << ", " << components.size() << " stiff components";
    if (patches) s << ", " << patches << " patches";
    if (droppedCrossColor) s << ", " << droppedCrossColor << " single-color modes dropped";
    return s.str();
}

std::vector<char> interfaceElements(const SoftModel& m, double threshold) {
    const size_t nv = size_t(m.numVertices());
    std::vector<float> lo(nv, 1e30f), hi(nv, 0.f);
    for (size_t e = 0; e < m.tets.size(); ++e)
        for (int v : m.tets[e]) {
            lo[size_t(v)] = std::min(lo[size_t(v)], m.mu[e]);
            hi[size_t(v)] = std::max(hi[size_t(v)], m.mu[e]);
        }
    std::vector<char> r(m.tets.size(), 0);
    for (size_t e = 0; e < m.tets.size(); ++e)
        for (int v : m.tets[e])
            if (double(hi[size_t(v)]) > threshold * double(m.mu[e]) ||
                double(m.mu[e]) > threshold * double(lo[size_t(v)]))
                r[e] = 1;
    return r;
}

std::vector<char> stiffElements(const SoftModel& m, double threshold) {
    std::map<int, float> softest;
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const int b = m.bodyOfVertex[size_t(m.tets[e][0])];
        auto it = softest.find(b);
        if (it == softest.end())
            softest[b] = m.mu[e];
        else
            it->second = std::min(it->second, m.mu[e]);
    }
    std::vector<char> r(m.tets.size(), 0);
    for (size_t e = 0; e < m.tets.size(); ++e)
        r[e] = double(m.mu[e]) > threshold * double(softest[m.bodyOfVertex[size_t(m.tets[e][0])]]);
    return r;
}

std::vector<int> patchOfElement(const SoftModel& m, int patchSize, int* numPatches) {
    double vol = 0;
    Vec3d lo(1e300, 1e300, 1e300);
    for (size_t e = 0; e < m.tets.size(); ++e) vol += m.volume[e];
    for (const Vec3& p : m.x0)
        lo = Vec3d(std::min(lo.x, double(p.x)), std::min(lo.y, double(p.y)), std::min(lo.z, double(p.z)));
    const double cell = std::cbrt(6.0 * vol / double(std::max<size_t>(1, m.tets.size())));
    const double size = cell * patchSize;
    std::map<std::array<long, 3>, int> ids;
    std::vector<int> r(m.tets.size());
    for (size_t e = 0; e < m.tets.size(); ++e) {
        Vec3d c(0, 0, 0);
        for (int v : m.tets[e]) c += Vec3d(m.x0[size_t(v)]) * 0.25;
        // A small inward nudge keeps centroids that sit exactly on a patch boundary on one side.
        const std::array<long, 3> key{long(std::floor((c.x - lo.x) / size + 1e-9)),
                                      long(std::floor((c.y - lo.y) / size + 1e-9)),
                                      long(std::floor((c.z - lo.z) / size + 1e-9))};
        r[e] = ids.emplace(key, int(ids.size())).first->second;
    }
    if (numPatches) *numPatches = int(ids.size());
    return r;
}

void addComponents(Basis& b, const SoftModel& m, const DofMap& dofs, const std::vector<ComponentSpec>& specs,
                   const std::vector<Vec3d>& positions) {
    if (b.componentOfElement.empty()) b.componentOfElement.assign(m.tets.size(), -1);
    for (const ComponentSpec& spec : specs) {
        std::vector<int> verts = spec.vertices;
        if (verts.empty())
            for (int e : spec.elements)
                for (int v : m.tets[size_t(e)])
                    if (dofs.dofBase[size_t(v)] >= 0) verts.push_back(v);
        std::sort(verts.begin(), verts.end());
        verts.erase(std::unique(verts.begin(), verts.end()), verts.end());
        if (verts.size() < 3) continue;
        StiffComponent c;
        c.vertices = std::move(verts);
        c.firstColumn = int(b.columns.size());
        for (int e : spec.elements) {
            bool allFree = true;
            for (int v : m.tets[size_t(e)]) allFree &= dofs.dofBase[size_t(v)] >= 0;
            if (allFree) b.componentOfElement[size_t(e)] = int(b.components.size());
        }
        b.components.push_back(std::move(c));
        b.columns.resize(b.columns.size() + 6);
    }
    updateRigidColumns(b, dofs, positions);
}

void updateRigidColumns(Basis& b, const DofMap& dofs, const std::vector<Vec3d>& positions) {
    for (StiffComponent& c : b.components) {
        Vec3d ctr(0, 0, 0);
        for (int v : c.vertices) ctr += positions[size_t(v)];
        ctr /= double(c.vertices.size());
        double r2 = 0;
        for (int v : c.vertices) r2 += squaredNorm(positions[size_t(v)] - ctr);
        c.center = ctr;
        c.radius = std::sqrt(r2 / double(c.vertices.size()));
        if (!(c.radius > 0)) c.radius = 1;
        for (int k = 0; k < 6; ++k) {
            Column& col = b.columns[size_t(c.firstColumn) + size_t(k)];
            col.dofs.clear();
            col.vals.clear();
            for (int v : c.vertices) {
                const Vec3d rel = positions[size_t(v)] - ctr;
                Vec3d val(0, 0, 0);
                if (k < 3) {
                    val[k] = 1;
                } else {
                    Vec3d w(0, 0, 0);
                    w[k - 3] = 1.0 / c.radius;
                    val = cross(w, rel);
                }
                for (int q = 0; q < 3; ++q) {
                    col.dofs.push_back(3 * dofs.dofBase[size_t(v)] + q);
                    col.vals.push_back(val[q]);
                }
            }
        }
    }
}

}  // namespace vbd::coarse
