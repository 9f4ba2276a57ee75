#pragma once
// Per-tet second derivatives of the incremental potential in double precision, for the coarse space.
// The solver only ever needs 3x3 diagonal blocks; the coarse system P^T A P needs the full 12x12 element
// matrices A_e, which nobody else computes, so they live here and are built from SoftModel alone.
//
// Notation (seed, "Stable Neo-Hookean Energy and Its Hessian"): F = Ds Dm^{-1}, vec(F) row-major
// (index 3i+j for F_ij), m^a the tet vertex weights, so dF_ij/dx_{a,k} = delta_ik m^a_j and
//   A_e = V B^T H9 B,   B[3i+j, 3a+i] = m^a_j,
// with H9 the 9x9 Hessian of the energy density with respect to vec(F).
#include <Eigen/Dense>

#include "soft/soft_model.h"

namespace vbd::coarse {

using Mat9 = Eigen::Matrix<double, 9, 9>;
using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec9 = Eigen::Matrix<double, 9, 1>;
using Vec12 = Eigen::Matrix<double, 12, 1>;
using Mat9x12 = Eigen::Matrix<double, 9, 12>;

// d2psi/dF2 of stable Neo-Hookean: mu I + lambda vec(cof F) vec(cof F)^T + s d2J/dF2, s = lambda (J - alpha),
// where d2J/dF_ij dF_kl = eps_ikp eps_jlq F_pq.
Mat9 neoHookeanHessianF(const Eigen::Matrix3d& F, double mu, double lambda);

// Gauss-Newton Hessian (per unit volume) of the internal-variable dissipation potential of
// energy/damping.h: Phi = h k_d (mu |Edot|^2 + lambda_L/2 tr(Edot)^2), Edot = (F^T F - Fp^T Fp)/(2h);
// dEdot = sym(F^T dF)/h, so the quadratic form is (k_d/h) (2 mu |sym(F^T dF)|^2 + lambda_L (F:dF)^2).
Mat9 internalDampingHessianF(const Eigen::Matrix3d& F, double mu, double lambdaNH, double kd, double h);

// Clamps negative eigenvalues to 0. `clipped` (optional) counts the eigenvalues that were negative beyond
// round-off (below -1e-12 of the largest magnitude).
Mat9 projectPsd(const Mat9& H, int* clipped = nullptr);

// B for the tet with rest inverse DmInv (12 -> 9).
Mat9x12 deformationJacobian(const Mat33& DmInv);

Eigen::Matrix3d deformationGradient(const SoftModel& m, int e, const Vec3* x);
// Ds = [x1 - x0, x2 - x0, x3 - x0] of tet t (F = Ds Dm^{-1}; with displacements d, dF = edgeMatrix(t, d)
// Dm^{-1}).
Eigen::Matrix3d edgeMatrix(const std::array<int, 4>& t, const std::vector<Eigen::Vector3d>& x);
Eigen::Matrix3d cofactorMatrix(const Eigen::Matrix3d& F);  // cof(F) = J F^{-T}, columns as cross products

enum class ElementMatrixKind { ProjectedHessian, Rest };

// A_e without the mass term: elastic (projected) + damping, at the positions x (the model's float x when
// null; ProjectedHessian) or at F = I (Rest). Naive damping adds the Jacobian of its force,
// (k_d/h) blockdiag(K_aa).
Mat12 elementMatrix(const SoftModel& m, int e, ElementMatrixKind kind, DampingModel damping, double h,
                    int* clipped = nullptr, const std::vector<Eigen::Vector3d>* x = nullptr);

// Rest elastic stiffness K_e (no damping), the source of the element eigenmodes.
Mat12 restStiffness(const SoftModel& m, int e);

// Double-precision incremental potential G and its gradient over all vertices (gradient zero on fixed
// vertices): tets, inertia, internal damping and collider penalties (no drag spring). Used by tests as an
// independent reference for the solver's float G and forces.
double potentialAndGradient(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, double h,
                            DampingModel damping, std::vector<Eigen::Vector3d>* grad);

}  // namespace vbd::coarse

namespace vbd::coarse {

// The same G and gradient as potentialAndGradient (plus the drag spring), with the per-tet rest data in
// double and the previous
// step's deformation gradients and the inertial target cached (they are constant within a step), evaluated in
// parallel and deterministically (per-tet partials gathered per vertex through SoftModel::vertexTets,
// fixed-block sums). Positions come in double so that the solver's float or double state can be used.
class TetEnergyCache {
  public:
    void build(const SoftModel& m);
    // Refreshes F_prev and y (call once per step, after the solver's prediction).
    void beginStep(const SoftModel& m, const std::vector<Eigen::Vector3d>& xPrev,
                   const std::vector<Eigen::Vector3d>& y);
    double eval(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, double h, DampingModel damping,
                std::vector<Eigen::Vector3d>* grad) const;
    // Elastic (+ damping) energy of the tets `elems` only; with `forces`, also their per-vertex gradients and
    // deformation gradients (for gatherGradient and lastF).
    double evalElements(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                        const std::vector<int>& elems, double h, DampingModel damping, bool forces) const;
    // G(x + d) - G(x) over the tets `elems` and the inertia of the vertices `verts` (d must vanish
    // elsewhere), from d itself, without forming either G: per tet with dF = dDs Dm^-1,
    //   mu/2 (|F + dF|^2 - |F|^2)        = mu (F : dF + |dF|^2 / 2)
    //   lambda/2 ((J' - a)^2 - (J - a)^2) = lambda dJ (J - a + dJ / 2),  dJ = cof F : dF + F : cof dF + det
    //   dF damping                          = h k_d V (mu dE : (2 E + dE) + lambda_L dtr (tr E + dtr / 2)),
    //                                      dE = (F^T dF + dF^T F + dF^T dF) / 2h
    // and per vertex m/h^2 (d . (x - y) + |d|^2 / 2) (exact identities). Near convergence |dG| falls far
    // below the round-off of G itself (~1e-16 x the sum of the terms of G), so a line search comparing two
    // sums of G accepts or rejects at random; this difference is accurate relative to its own terms.
    double deltaEnergy(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                       const std::vector<Eigen::Vector3d>& d, const std::vector<int>& elems,
                       const std::vector<int>& verts, double h, DampingModel damping) const;
    // The picking spring k/2 |x_v - target|^2 (the solver's drag; k = 0 or v < 0: none). Set before eval.
    void setDrag(int vertex, const Eigen::Vector3d& target, double k) {
        dragVertex_ = vertex;
        dragTarget_ = target;
        dragK_ = k;
    }
    // Vertex potentials outside the tets and the inertia: collider penalties k/2 g^2 (g < 0, the solver's
    // colliderEnergy; friction and gap damping are dissipative and have no potential) and the picking
    // spring, at position x of vertex i: energy, and optionally its gradient and Gauss-Newton block
    // (k n n^T, k I) added to g and H.
    double vertexPotential(const SoftModel& m, size_t i, const Eigen::Vector3d& x, Eigen::Vector3d* g,
                           Eigen::Matrix3d* H) const;
    // grad[v] for v in verts: inertia + the gradients of the tets with use[e] from the last evalElements.
    void gatherGradient(const SoftModel& m, const std::vector<Eigen::Vector3d>& x,
                        const std::vector<int>& verts, const std::vector<char>& use, double h,
                        std::vector<Eigen::Vector3d>& grad) const;
    bool built(const SoftModel& m) const { return tets_ == int(m.tets.size()) && verts_ == m.numVertices(); }
    // Deformation gradients of the last eval with a gradient.
    const Eigen::Matrix3d& lastF(int e) const { return F_[size_t(e)]; }
    const Eigen::Matrix3d& restInverse(int e) const { return Dinv_[size_t(e)]; }
    const Eigen::Matrix<double, 3, 4>& weights(int e) const { return w_[size_t(e)]; }

  private:
    // Collider penalties at vertex i (see vertexPotential).
    double penalty(const SoftModel& m, size_t i, const Eigen::Vector3d& x, Eigen::Vector3d* g = nullptr,
                   Eigen::Matrix3d* H = nullptr) const;
    double tetEnergy(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, size_t e, double h,
                     bool internal, bool forces) const;
    // Gradient at free vertex i: inertia, vertex potentials and the tets of the last evaluation with forces
    // (those with use[e] when use is given).
    Eigen::Vector3d vertexGradient(const SoftModel& m, const std::vector<Eigen::Vector3d>& x, size_t i,
                                   double h, const std::vector<char>* use) const;
    int tets_ = -1, verts_ = -1;
    std::vector<Eigen::Matrix3d> Dinv_, Cp_;  // Cp = F_prev^T F_prev
    std::vector<Eigen::Vector3d> y_;
    int dragVertex_ = -1;
    Eigen::Vector3d dragTarget_ = Eigen::Vector3d::Zero();
    double dragK_ = 0;
    mutable std::vector<Eigen::Matrix3d> F_;
    std::vector<Eigen::Matrix<double, 3, 4>> w_;
    mutable std::vector<Eigen::Matrix<double, 3, 4>> force_;
};

}  // namespace vbd::coarse
