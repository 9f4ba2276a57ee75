#pragma once
// Columns of the coarse prolongation P (seed, "Element eigenmodes as a free coarse basis" and "What's left
// to figure out"). Every column is sparse over free DOFs; fixed vertices are not DOFs.
#include <string>
#include <vector>

#include "scene/scene_desc.h"
#include "soft/soft_model.h"

namespace vbd::coarse {

// Free-DOF numbering: vertex i owns DOFs 3 dofBase[i] .. +2, or dofBase[i] = -1 when fixed.
struct DofMap {
    std::vector<int> dofBase;
    int numDofs = 0;
    explicit DofMap(const SoftModel& m);
    DofMap() = default;
};

struct Column {
    std::vector<int> dofs;  // free DOF indices, ascending
    std::vector<double> vals;
};

// Face-connected components of stiff elements (stiff_rigid). A component's columns are the 6 rigid motions
//   translation k: t = e_k;   rotation k: omega = e_k / L about the component centre c (L = rms radius),
// evaluated at `center` / the positions the basis was built from; firstColumn.. +5.
struct StiffComponent {
    std::vector<int> vertices;  // free vertices, ascending
    Vec3d center;
    double radius = 1;
    int firstColumn = 0;
};

struct Basis {
    std::vector<Column> columns;
    std::vector<StiffComponent> components;  // stiff_rigid only
    // stiff_rigid: the component of a stiff tet whose 4 vertices are free (it moves rigidly with that
    // component's columns), else -1. A vertex may belong to several components (they touch at corners).
    std::vector<int> componentOfElement;
    // Diagnostics of the construction.
    int candidateElements = 0;  // elements that passed the filter (element basis) / stiff elements
    int droppedCrossColor = 0;  // modes whose support lay inside one color
    int patches = 0;
    std::string describe() const;
};

// Stiffness measure of a tet for the contrast tests: its shear modulus mu.
// Element e is an interface element (filter `contrast`) when mu_e / mu_f or mu_f / mu_e exceeds
// threshold for some tet f sharing a vertex with it. Element e is stiff (basis `stiff_rigid`) when
// mu_e > threshold * (smallest mu of its body).
std::vector<char> interfaceElements(const SoftModel& m, double threshold);
std::vector<char> stiffElements(const SoftModel& m, double threshold);

// Patch index of every tet: element centroid (at rest, x0) on a grid of patchSize * cell, where the cell
// size is cbrt(6 * mean tet volume) (exact for box grids split into 6 tets a cube).
std::vector<int> patchOfElement(const SoftModel& m, int patchSize, int* numPatches);

// positions: where rigid modes are evaluated (rest x0 for the rest matrix, current x for the Hessian).
Basis buildBasis(const SoftModel& m, const CoarseDesc& d, const DofMap& dofs,
                 const std::vector<Vec3>& positions);

// Rebuilds the rigid columns of `b` at new positions (same pattern).
void updateRigidColumns(Basis& b, const DofMap& dofs, const std::vector<Vec3>& positions);

}  // namespace vbd::coarse
