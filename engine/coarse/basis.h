#pragma once
// The coarse basis P (seed, "Element eigenmodes as a free coarse basis" and "What's left to figure out"),
// built by one strategy per `solver.coarse.basis`:
//   element      the stiffest rest modes of each element (filters: contrast, cross_color, patch)
//   patch_soft   the softest non-rigid modes of cell patches
//   stiff_rigid  the six rigid motions of every face-connected stiff component (deflation)
//   aggregate    the stiff components plus the rigid motions of spatial blocks of the remaining free vertices
//                (aggregate_size cells a side): the near-kernel of elasticity, for uniform bodies too
// Every column is sparse over free DOFs. A basis made of components (vertex sets with their rigid motions)
// is applied by the rigid correction (rigid_coarse.h); any other by the Galerkin correction.
#include <memory>
#include <string>
#include <vector>

#include "coarse/dof_map.h"
#include "scene/scene_desc.h"
#include "soft/soft_model.h"

namespace vbd::coarse {

struct Column {
    std::vector<int> dofs;  // free DOF indices, ascending
    std::vector<double> vals;
};

// A vertex set moved as one rigid body. Its columns are the 6 rigid motions
//   translation k: t = e_k;   rotation k: omega = e_k / L about the centre c (L = rms radius),
// evaluated at the positions the basis was built from; firstColumn .. +5.
struct StiffComponent {
    std::vector<int> vertices;  // free vertices, ascending
    Vec3d center;
    double radius = 1;
    int firstColumn = 0;
};

struct Basis {
    std::vector<Column> columns;
    std::vector<StiffComponent> components;  // component bases only
    // Component bases: the component of a tet whose 4 vertices are free and in it (it moves rigidly with that
    // component's columns), else -1. A vertex may belong to several components (they touch at corners).
    std::vector<int> componentOfElement;
    // Diagnostics of the construction.
    int candidateElements = 0;  // elements that passed the filter (element basis) / stiff elements
    int droppedCrossColor = 0;  // modes whose support lay inside one color
    int patches = 0;
    std::string describe() const;
};

// One way of choosing the columns. `positions` are where rigid modes are evaluated (rest x0 for the rest
// matrix, the current iterate for the Hessian); other bases use rest data only.
class BasisStrategy {
  public:
    virtual ~BasisStrategy() = default;
    virtual Basis build(const SoftModel& m, const DofMap& dofs,
                        const std::vector<Vec3d>& positions) const = 0;
};

std::unique_ptr<BasisStrategy> makeBasisStrategy(const CoarseDesc& d);
// P = I (the projected Newton step; tests and the experiment's reference solution).
std::unique_ptr<BasisStrategy> makeIdentityBasis();

// Stiffness measure of a tet for the contrast tests: its shear modulus mu.
// Element e is an interface element (filter `contrast`) when mu_e / mu_f or mu_f / mu_e exceeds threshold
// for some tet f sharing a vertex with it. Element e is stiff (basis `stiff_rigid`) when
// mu_e > threshold * (smallest mu of its body).
std::vector<char> interfaceElements(const SoftModel& m, double threshold);
std::vector<char> stiffElements(const SoftModel& m, double threshold);

// Patch index of every tet: element centroid (at rest, x0) on a grid of patchSize * cell, where the cell size
// is cbrt(6 * mean tet volume) (exact for box grids split into 6 tets a cube).
std::vector<int> patchOfElement(const SoftModel& m, int patchSize, int* numPatches);

// A component to add: the tets it is made of (its vertices are their free vertices), or explicit free
// `vertices` with the tets lying entirely among them.
struct ComponentSpec {
    std::vector<int> elements;
    std::vector<int> vertices;
};
// Appends the components with their 6 columns at `positions` (a component with fewer than 3 free vertices is
// dropped: its rigid modes are dependent) and marks its tets with 4 free vertices in componentOfElement (a
// tet with a clamped vertex does not move rigidly with the columns, which are zero there).
void addComponents(Basis& b, const SoftModel& m, const DofMap& dofs, const std::vector<ComponentSpec>& specs,
                   const std::vector<Vec3d>& positions);

// The face-connected components of stiff tets (stiff_rigid); stiffCount (optional) receives the number of
// stiff tets.
std::vector<ComponentSpec> stiffComponentSpecs(const SoftModel& m, double threshold,
                                               int* stiffCount = nullptr);

// Rebuilds the rigid columns of `b` at new positions (same pattern).
void updateRigidColumns(Basis& b, const DofMap& dofs, const std::vector<Vec3d>& positions);

}  // namespace vbd::coarse
