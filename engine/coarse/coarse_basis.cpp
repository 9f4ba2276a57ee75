#include "coarse/coarse_basis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

#include "coarse/element_hessian.h"

namespace vbd::coarse {

DofMap::DofMap(const SoftModel& m) {
    dofBase.assign(size_t(m.numVertices()), -1);
    for (int i = 0; i < m.numVertices(); ++i)
        if (!m.fixed[size_t(i)]) dofBase[size_t(i)] = numDofs++;
    numDofs *= 3;
}

std::string Basis::describe() const {
    std::ostringstream s;
    s << columns.size() << " columns";
    if (!components.empty()) s << ", " << components.size() << " stiff components";
    if (patches) s << ", " << patches << " patches";
    if (droppedCrossColor) s << ", " << droppedCrossColor << " single-color modes dropped";
    return s.str();
}

namespace {

// Appends the eigenvectors `which` of the symmetric K (over the global DOFs `gdofs`) as columns.
void appendModes(const Eigen::MatrixXd& K, const std::vector<int>& gdofs, const std::vector<int>& which,
                 const Eigen::MatrixXd& V, std::vector<Column>& out) {
    (void)K;
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

struct LocalDofs {
    std::vector<int> local;   // indices 0..11 of free DOFs of the tet
    std::vector<int> global;  // their global free DOF numbers
};

LocalDofs tetFreeDofs(const SoftModel& m, const DofMap& d, int e) {
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

int find(std::vector<int>& p, int a) {
    while (p[size_t(a)] != a) a = p[size_t(a)] = p[size_t(p[size_t(a)])];
    return a;
}

}  // namespace

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
        auto it = ids.emplace(key, int(ids.size())).first;
        r[e] = it->second;
    }
    if (numPatches) *numPatches = int(ids.size());
    return r;
}

void updateRigidColumns(Basis& b, const DofMap& dofs, const std::vector<Vec3>& positions) {
    for (StiffComponent& c : b.components) {
        Vec3d ctr(0, 0, 0);
        for (int v : c.vertices) ctr += Vec3d(positions[size_t(v)]);
        ctr /= double(c.vertices.size());
        double r2 = 0;
        for (int v : c.vertices) r2 += squaredNorm(Vec3d(positions[size_t(v)]) - ctr);
        c.center = ctr;
        c.radius = std::sqrt(r2 / double(c.vertices.size()));
        if (!(c.radius > 0)) c.radius = 1;
        for (int k = 0; k < 6; ++k) {
            Column& col = b.columns[size_t(c.firstColumn + k)];
            col.dofs.clear();
            col.vals.clear();
            for (int v : c.vertices) {
                const Vec3d rel = Vec3d(positions[size_t(v)]) - ctr;
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

Basis buildBasis(const SoftModel& m, const CoarseDesc& d, const DofMap& dofs,
                 const std::vector<Vec3>& positions) {
    Basis b;
    const int k = std::max(1, std::min(12, d.modesPerElement));
    if (d.basis == CoarseBasis::StiffRigid) {
        const std::vector<char> stiff = stiffElements(m, d.contrastThreshold);
        // Components over shared FACES: two tets sharing a face form a rigid assembly, while tets that only
        // share a vertex or an edge hinge about it (a corner-connected cluster of stiff cells is no rigid
        // body, and its 6 rigid modes would miss its slow hinge motion).
        std::vector<int> parent(m.tets.size());
        std::iota(parent.begin(), parent.end(), 0);
        std::map<std::array<int, 3>, int> faceOwner;
        for (size_t e = 0; e < m.tets.size(); ++e) {
            if (!stiff[e]) continue;
            ++b.candidateElements;
            const auto& t = m.tets[e];
            for (int skip = 0; skip < 4; ++skip) {
                std::array<int, 3> f{};
                for (int a = 0, q = 0; a < 4; ++a)
                    if (a != skip) f[size_t(q++)] = t[size_t(a)];
                std::sort(f.begin(), f.end());
                auto it = faceOwner.emplace(f, int(e)).first;
                const int ra = find(parent, int(e)), rb = find(parent, it->second);
                if (ra != rb) parent[size_t(ra)] = rb;
            }
        }
        std::map<int, std::vector<int>> compElems;
        for (size_t e = 0; e < m.tets.size(); ++e)
            if (stiff[e]) compElems[find(parent, int(e))].push_back(int(e));
        b.componentOfElement.assign(m.tets.size(), -1);
        for (auto& kv : compElems) {
            std::vector<int> verts;
            for (int e : kv.second)
                for (int v : m.tets[size_t(e)])
                    if (dofs.dofBase[size_t(v)] >= 0) verts.push_back(v);
            std::sort(verts.begin(), verts.end());
            verts.erase(std::unique(verts.begin(), verts.end()), verts.end());
            if (verts.size() < 3) continue;  // fewer than 3 free vertices: rigid modes are dependent
            StiffComponent c;
            c.vertices = verts;
            c.firstColumn = int(b.columns.size());
            for (int e : kv.second) {
                bool allFree = true;
                for (int v : m.tets[size_t(e)]) allFree &= dofs.dofBase[size_t(v)] >= 0;
                // A tet with a clamped vertex does not move rigidly with the component's columns (they are
                // zero there): it goes through the generic assembly.
                if (allFree) b.componentOfElement[size_t(e)] = int(b.components.size());
            }
            b.components.push_back(c);
            b.columns.resize(b.columns.size() + 6);
        }
        updateRigidColumns(b, dofs, positions);
        return b;
    }
    const bool patches = d.basis == CoarseBasis::PatchSoft || d.filter == CoarseFilter::Patch;
    if (patches) {
        int np = 0;
        const std::vector<int> pid = patchOfElement(m, d.patchSize, &np);
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
                const Mat12 Ke = restStiffness(m, e);
                for (size_t i = 0; i < ld.local.size(); ++i)
                    for (size_t j = 0; j < ld.local.size(); ++j)
                        K(pos[ld.global[i]], pos[ld.global[j]]) += Ke(ld.local[i], ld.local[j]);
            }
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(K);
            const Eigen::VectorXd w = es.eigenvalues();
            std::vector<int> which;
            if (d.basis == CoarseBasis::PatchSoft) {
                // Softest non-rigid modes: skip the (near-)kernel, i.e. the patch's free rigid motions.
                for (int i = 0; i < n && int(which.size()) < k; ++i)
                    if (w(i) > 1e-8 * w(n - 1)) which.push_back(i);
            } else {
                for (int i = n - 1; i >= 0 && int(which.size()) < k; --i) which.push_back(i);
            }
            appendModes(K, gd, which, es.eigenvectors(), b.columns);
        }
        return b;
    }
    std::vector<char> keep(m.tets.size(), 1);
    if (d.filter == CoarseFilter::Contrast) keep = interfaceElements(m, d.contrastThreshold);
    for (size_t e = 0; e < m.tets.size(); ++e) {
        if (!keep[e]) continue;
        const LocalDofs ld = tetFreeDofs(m, dofs, int(e));
        if (ld.local.empty()) continue;
        ++b.candidateElements;
        const Mat12 Ke = restStiffness(m, int(e));
        const int n = int(ld.local.size());
        Eigen::MatrixXd Kr(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) Kr(i, j) = Ke(ld.local[size_t(i)], ld.local[size_t(j)]);
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Kr);
        std::vector<int> which;
        for (int i = n - 1; i >= 0 && int(which.size()) < k; --i) which.push_back(i);
        std::vector<Column> cols;
        appendModes(Kr, ld.global, which, es.eigenvectors(), cols);
        for (Column& c : cols) {
            if (d.filter == CoarseFilter::CrossColor) {
                // Support = vertices carrying more than 1e-12 of the mode's largest vertex amplitude.
                double mx = 0;
                std::vector<std::pair<int, double>> amp;
                for (size_t q = 0; q < c.dofs.size(); q += 3) {
                    const double a = std::sqrt(c.vals[q] * c.vals[q] + c.vals[q + 1] * c.vals[q + 1] +
                                               c.vals[q + 2] * c.vals[q + 2]);
                    amp.emplace_back(c.dofs[q] / 3, a);
                    mx = std::max(mx, a);
                }
                int firstColor = -1;
                bool cross = false;
                for (const auto& va : amp) {
                    if (va.second <= 1e-12 * mx) continue;
                    int vert = -1;
                    for (int v : m.tets[e])
                        if (dofs.dofBase[size_t(v)] == va.first) vert = v;
                    const int col = m.color.empty() ? 0 : m.color[size_t(vert)];
                    if (firstColor < 0)
                        firstColor = col;
                    else if (col != firstColor)
                        cross = true;
                }
                if (!cross) {
                    ++b.droppedCrossColor;
                    continue;
                }
            }
            b.columns.push_back(std::move(c));
        }
    }
    return b;
}

}  // namespace vbd::coarse
