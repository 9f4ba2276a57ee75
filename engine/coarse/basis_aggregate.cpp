// aggregate: the rigid motions of vertex aggregates, the near-kernel of elasticity.
//
// Why: block Gauss-Seidel resolves what is local and stiff relative to its block (high frequencies); what it
// moves slowly is smooth, low-energy motion spanning many cells -- on a uniform bar, its bending and
// stretching, which locally look like rigid motions of small pieces. The rigid motions of small aggregates
// span exactly that near-kernel (the idea of smoothed-aggregation multigrid and of the prototype
// prototypes/aggregate_gs.py: blocks of 2^3 cells converge a 30x3x3 bar in 18 sweeps where plain Gauss-Seidel
// needs 6,208, and 25 on the 2x refined bar). Fixed-size 3-D blocks keep the sweep count nearly flat under
// refinement; aggregates spanning a whole cross-section do not (the section's own bending is left over).
//
// Construction: the stiff components of stiff_rigid first (a stiff region moves rigidly as one piece), then
// the remaining free vertices of each body binned on a grid of aggregate_size cells by their rest position.
// The cell size is the median over tets of the shortest edge (exactly the cell of a box grid, a local length
// on a TetGen mesh); bins are anchored at the body's lowest rest corner, so a box grid's vertex layers pair
// up {0, 1}, {2, 3}, ... with aggregate_size 2. Each aggregate moves rigidly (rigid_correction.h): the tets
// with all four vertices in one aggregate keep their energy and drop out of gradient, matrix and line search.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "coarse/basis.h"

namespace vbd::coarse {

namespace {

// Median over tets of the shortest rest edge.
double cellSize(const SoftModel& m) {
    std::vector<double> shortest;
    shortest.reserve(m.tets.size());
    for (const auto& t : m.tets) {
        double s = 1e300;
        for (int a = 0; a < 4; ++a)
            for (int b = a + 1; b < 4; ++b)
                s = std::min(
                    s, double(norm(Vec3d(m.x0[size_t(t[size_t(a)])]) - Vec3d(m.x0[size_t(t[size_t(b)])]))));
        shortest.push_back(s);
    }
    if (shortest.empty()) return 1;
    std::nth_element(shortest.begin(), shortest.begin() + long(shortest.size() / 2), shortest.end());
    return shortest[shortest.size() / 2];
}

class Aggregates final : public BasisStrategy {
  public:
    explicit Aggregates(const CoarseDesc& d) : d_(d) {}

    Basis build(const SoftModel& m, const DofMap& dofs, const std::vector<Vec3d>& positions) const override {
        Basis b;
        std::vector<ComponentSpec> specs = stiffComponentSpecs(m, d_.contrastThreshold, &b.candidateElements);
        std::vector<char> taken(size_t(m.numVertices()), 0);
        for (const ComponentSpec& s : specs)
            for (int e : s.elements)
                for (int v : m.tets[size_t(e)]) taken[size_t(v)] = 1;
        appendAggregates(m, dofs, taken, specs);
        addComponents(b, m, dofs, specs, positions);
        return b;
    }

  private:
    // Bins the free vertices not in a stiff component; each bin with its tets becomes one component. A vertex
    // of no tet (a cloth's) is left out: the coarse G holds tets only (TetEnergyCache), and a sheet's
    // aggregates moved it blind to its membranes and hinges (cloth_cube at frame 60: 50 J of total energy
    // against plain VBD's 3.4 J, 311 J against 6.5 J with naive damping).
    void appendAggregates(const SoftModel& m, const DofMap& dofs, const std::vector<char>& taken,
                          std::vector<ComponentSpec>& specs) const {
        const double size = cellSize(m) * std::max(1, d_.aggregateSize);
        std::map<int, std::pair<Vec3d, Vec3d>> box;  // per body: its rest bounding box
        for (int v = 0; v < m.numVertices(); ++v) {
            const Vec3d p(m.x0[size_t(v)]);
            auto [it, fresh] = box.emplace(m.bodyOfVertex[size_t(v)], std::make_pair(p, p));
            if (!fresh) it->second = {cwiseMin(it->second.first, p), cwiseMax(it->second.second, p)};
        }
        // (body, i, j, k) -> aggregate. Per axis round(extent / size) bins (at least one), the last one
        // taking the leftover layer, so that no aggregate is thinner than aggregate_size / 2 cells; a nudge
        // of 1e-6 cell keeps vertices on a bin boundary on one side.
        auto binOfCoord = [&](double r, double extent) {
            const long n = std::max(1L, long(std::lround(extent / size)));
            return std::min(long(std::floor(r / size + 1e-6)), n - 1);
        };
        std::map<std::array<long, 4>, int> bins;
        std::vector<int> binOf(size_t(m.numVertices()), -1);
        for (int v = 0; v < m.numVertices(); ++v) {
            if (dofs.dofBase[size_t(v)] < 0 || taken[size_t(v)] ||
                m.vertexTets.begin(v) == m.vertexTets.end(v))
                continue;
            const int body = m.bodyOfVertex[size_t(v)];
            const auto& [lo, hi] = box[body];
            const Vec3d r = Vec3d(m.x0[size_t(v)]) - lo, ext = hi - lo;
            const std::array<long, 4> key{body, binOfCoord(r.x, ext.x), binOfCoord(r.y, ext.y),
                                          binOfCoord(r.z, ext.z)};
            const auto it = bins.emplace(key, int(specs.size()) + int(bins.size())).first;
            binOf[size_t(v)] = it->second;
        }
        const size_t first = specs.size();
        specs.resize(first + bins.size());
        for (size_t k = first; k < specs.size(); ++k) specs[k].curvature = false;
        for (int v = 0; v < m.numVertices(); ++v)
            if (binOf[size_t(v)] >= 0) specs[size_t(binOf[size_t(v)])].vertices.push_back(v);
        for (size_t e = 0; e < m.tets.size(); ++e) {
            const int a = binOf[size_t(m.tets[e][0])];
            bool inside = a >= 0;
            for (int v : m.tets[e]) inside &= binOf[size_t(v)] == a;
            if (inside) specs[size_t(a)].elements.push_back(int(e));
        }
    }

    CoarseDesc d_;
};

}  // namespace

std::unique_ptr<BasisStrategy> makeAggregates(const CoarseDesc& d) { return std::make_unique<Aggregates>(d); }

}  // namespace vbd::coarse
