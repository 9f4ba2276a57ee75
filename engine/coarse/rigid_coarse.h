#pragma once
// Component bases (stiff_rigid) applied as exact rigid motions: the math of RigidCorrection
// (rigid_correction.h).
//
// Reduced coordinates z = (t_q, theta_q) per stiff component q (the six columns of basis.h). The
// correction moves every vertex v of q by
//   x_v <- c_q + alpha t_q + R(alpha theta_q / L_q) (x_v - c_q)
// with c_q the current centroid of q, L_q its rms radius and R the rotation of a rotation vector. To first
// order this is x + alpha P z with P q's translation and rotation columns; unlike the linear update it moves
// q exactly rigidly. A tet whose four vertices belong to q alone ("interior") then keeps its energy along the
// whole correction, and three things follow:
//   * its energy drops out of the line search: only the other tets touching q and the inertia of q's vertices
//     change;
//   * its forces drop out of the reduced gradient: psi_e is invariant under rigid motions, so its vertex
//     gradients satisfy sum_a g_a = 0 and sum_a x_a x g_a = 0 (P F^T is symmetric), and their projection on
//     q's current translations and rotations is zero. Summing them anyway adds only the round-off of
//     O(contrast) internal forces that cancel, which is what limited the float solver (docs/coarse-space.md);
//   * its block of the reduced Hessian is zero, since psi_e(R F) = psi_e(F) along the path.
// On the layered bar half the tets are interior: gradient, line search and assembly skip them.
// A vertex shared by several components (they touch at edges and corners) gets the sum of their
// displacements, and its tets are not interior.
//
// The reduced Hessian of G(x(z)) is C + K. C = sum_{e evaluated} U_e^T A_e U_e + sum_v (m_v/h^2) U_v^T U_v,
// U the columns at the configuration of the assembly (current positions for the Hessian, rest positions for
// the rest matrix), A_e the PSD-projected Hessian or rest stiffness of element_matrix.h. K = sum_v g_v .
// d2x_v/dz2 is the curvature of the rotations under the load g (the gradient of the evaluated terms, which
// the interior stresses balance: it does not vanish at the solution). With d2x/dtheta_j dtheta_k =
// sym(e_j x (e_k x r)) / L^2 it is K_q = (1/L^2) sum_v [ (r g^T + g r^T)/2 - (g . r) I ] on q's rotation
// block. C has 6 x 6 blocks between components that share a tet or a vertex (sparse along component
// adjacency; 48 x 48 on the layered bar) and is factored with a Cholesky in envelope storage
// (envelope_cholesky.h) whose ordering and envelope are analysed
// once per assembly; C + K is refactored numerically every sweep.
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "coarse/basis.h"
#include "coarse/element_matrix.h"
#include "coarse/energy_cache.h"

namespace vbd::coarse {

struct RigidLayout {
    std::vector<int> compOffsets, compItems;  // per vertex: the components that contain it (CSR)
    std::vector<char> evaluated;              // per tet: touches a component vertex and is not interior
    std::vector<int> elements;                // the evaluated tets, ascending
    std::vector<int> support;                 // free vertices of any component, ascending
    int interior = 0;                         // number of interior tets
};

RigidLayout buildRigidLayout(const SoftModel& m, const Basis& b);

// Centroids c_q of the components at x.
void componentCenters(const Basis& b, const std::vector<Vec3d>& x, std::vector<Vec3d>& c);

// Projection of a per-vertex gradient g (at x) on the rigid modes about `centers`: (sum g, sum (x - c) x g /
// L) per component.
Eigen::VectorXd projectOnRigidModes(const Basis& b, const std::vector<Vec3d>& centers,
                                    const std::vector<Vec3d>& x, const std::vector<Vec3d>& g);

// out = x moved by the correction alpha z (only support vertices are written; out must equal x elsewhere);
// disp (optional, same rule) receives the displacement before rounding, an exact rigid motion to round-off
// relative to itself. The line search judges that displacement: the rounding of x + d is ~1e-16 |x| per
// vertex, not rigid, and its work against the large partial gradients that the skipped interior stresses
// balance (~1e-13 J on the layered bar) would drown the last corrections' decrease (~1e-14 J).
void rigidRetract(const Basis& b, const RigidLayout& L, const std::vector<Vec3d>& centers,
                  const Eigen::VectorXd& z, double alpha, const std::vector<Vec3d>& x,
                  std::vector<Vec3d>& out, std::vector<Vec3d>* disp = nullptr);
// The displacement of rigidRetract alone, written at the support vertices of disp.
void rigidDisplacement(const Basis& b, const RigidLayout& L, const std::vector<Vec3d>& centers,
                       const Eigen::VectorXd& z, double alpha, const std::vector<Vec3d>& x,
                       std::vector<Vec3d>& disp);

// The components' motions of the step alpha z (translation t, rotation axis k, sin a and 2 sin^2(a/2) of the
// angle a), from which rigidDisplacementAt evaluates one vertex: rigidRetract's displacement, vertex by
// vertex.
struct RigidMotions {
    std::vector<Vec3d> t, k;
    std::vector<double> s1, s2;
};
void rigidMotions(const Basis& b, const Eigen::VectorXd& z, double alpha, RigidMotions& out);
// (R - I) r = sin(a) k x r + 2 sin^2(a/2) k x (k x r): no I + O(a) - I cancellation, so the displacement is
// accurate relative to itself even for the 1e-10 rad rotations of late corrections.
inline Vec3d rigidDisplacementAt(const RigidLayout& L, const RigidMotions& M,
                                 const std::vector<Vec3d>& centers, const std::vector<Vec3d>& x, size_t v) {
    Vec3d d(0, 0, 0);
    for (int i = L.compOffsets[v]; i < L.compOffsets[v + 1]; ++i) {
        const size_t q = size_t(L.compItems[size_t(i)]);
        const Vec3d r = x[v] - centers[q], kr = cross(M.k[q], r);
        d += M.t[q] + kr * M.s1[q] + cross(M.k[q], kr) * M.s2[q];
    }
    return d;
}

// K (ncol x ncol, nonzero on the rotation blocks) from the gradient g at x; psdOnly keeps each block's
// nonnegative eigenvalues.
Eigen::SparseMatrix<double> rotationCurvature(const Basis& b, const std::vector<Vec3d>& centers,
                                              const std::vector<Vec3d>& x, const std::vector<Vec3d>& g,
                                              bool psdOnly = false);

// Reduced matrix C with the columns and (for the Hessian) the element matrices evaluated at x.
Eigen::SparseMatrix<double> assembleRigid(const SoftModel& m, const Basis& b, const RigidLayout& L,
                                          const TetEnergyCache& cache, const std::vector<Vec3d>& x,
                                          ElementMatrixKind kind, DampingModel damping, double h,
                                          int* clipped);

}  // namespace vbd::coarse
