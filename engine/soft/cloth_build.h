#pragma once
// Cloth sheets in the SoftModel: grid generation, triangle rest frames, bending hinges, per-step rest
// quantities of the damping models, and the cloth part of the incremental potential.
#include <array>
#include <string>
#include <vector>

#include "soft/soft_model.h"
#include "soft/soft_state.h"

namespace vbd {

struct ClothMesh {
    std::vector<Vec3> X;
    std::vector<std::array<int, 3>> tris;  // counter-clockwise in the grid's (u, v) parameter plane
};

// A cells[0] x cells[1] grid spanning size[0] along x and size[1] along z (plane xz) or y (plane xy), with
// alternating diagonals (no preferred shear direction).
ClothMesh makeClothGrid(const ClothDesc& c);

// Interior edges shared by two consistently oriented triangles: (x0, x1, x2, x3) with triangle A =
// (x0, x1, x2) and B = (x1, x0, x3) in their own cyclic order (energy/bending.h's stencil).
std::vector<std::array<int, 4>> clothHinges(const std::vector<std::array<int, 3>>& tris);

// Rest frame of a triangle: Dm^{-1} in an orthonormal 2D frame of its plane, and its area. Throws
// InputError(file, key, ...) for a zero-area triangle (area below relTol times the squared mean edge).
TriRest triangleRest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const std::string& file,
                     const std::string& key, double relTol = 1e-9);

// Appends the scene's cloths (vertices, membranes, hinges, masses, fixed vertices) to m, after the soft
// bodies. Body index of cloth c is scene.softBodies.size() + c.
void appendCloths(const SceneDesc& scene, SoftModel& m);

// Builds the cloth adjacency CSRs and the collision mesh (call once all elements are in).
void finishCloths(const SceneDesc& scene, SoftModel& m);

// Per-step damping references from the state's x_prev: C_prev of each triangle, theta_prev of each hinge.
template <typename T>
void clothBeginStep(const SoftModel& m, SoftState<T>& st);

// Cloth terms of G at the state's x: membrane and bending energy, internal damping potentials, self-contact
// penalties.
template <typename T>
double clothPotential(const SoftModel& m, const SoftState<T>& st, double h, DampingModel damping);
// The self-contact penalties alone (part of clothPotential).
template <typename T>
double clothContactEnergy(const SoftModel& m, const SoftState<T>& st);

// Vertex -> element CSR for elements of K vertices (item = 4*element + local).
template <size_t K>
Csr vertexElementAdjacency(int numVertices, const std::vector<std::array<int, K>>& elems) {
    Csr c;
    c.offsets.assign(size_t(numVertices) + 1, 0);
    for (const auto& e : elems)
        for (int v : e) c.offsets[size_t(v) + 1]++;
    for (int i = 0; i < numVertices; ++i) c.offsets[size_t(i) + 1] += c.offsets[size_t(i)];
    c.items.assign(size_t(c.offsets[size_t(numVertices)]), 0);
    std::vector<int> fill(c.offsets.begin(), c.offsets.end() - 1);
    for (size_t e = 0; e < elems.size(); ++e)
        for (size_t a = 0; a < K; ++a) c.items[size_t(fill[size_t(elems[e][a])]++)] = int(4 * e + a);
    return c;
}

}  // namespace vbd
