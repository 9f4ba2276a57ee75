#pragma once
// The coarse space's evaluation of the incremental potential G and its gradient in double precision, with the
// per-tet rest data and the step's constants cached (C_prev = F_prev^T F_prev and the inertial target y are
// constant within a step). The physics is energy/tet_energy.h and energy/contact.h; this class only caches
// and gathers. Evaluation is parallel and deterministic: per-tet partials are gathered per vertex through
// SoftModel::vertexTets, sums go through fixed blocks (backend/parallel.h).
//   G(x) = sum_v m_v/(2h^2) |x_v - y_v|^2 + sum_e E_e(x) + collider penalties + picking spring
// (friction and the gap damping are dissipative and have no potential).
#include <array>
#include <vector>

#include "scene/scene_desc.h"
#include "soft/soft_model.h"
#include "soft/sweep_hook.h"

namespace vbd::coarse {

class TetEnergyCache {
  public:
    void build(const SoftModel& m);
    bool built(const SoftModel& m) const { return tets_ == int(m.tets.size()) && verts_ == m.numVertices(); }
    // Refreshes C_prev and y (once per step, after the solver's prediction).
    void beginStep(const SoftModel& m, const std::vector<Vec3d>& xPrev, const std::vector<Vec3d>& y);
    void setDrag(const DragSpring& d) { drag_ = d; }

    // G at x; with grad, also its gradient over all vertices (zero on fixed vertices).
    double eval(const SoftModel& m, const std::vector<Vec3d>& x, double h, DampingModel damping,
                std::vector<Vec3d>* grad) const;
    // Energy of the tets `elems` only; with `forces`, also their per-vertex gradients and deformation
    // gradients (read by gatherGradient and lastF).
    double evalElements(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<int>& elems,
                        double h, DampingModel damping, bool forces) const;
    // G(x + d) - G(x) over the tets `elems` and the vertices `verts` (d must vanish elsewhere), from d itself
    // (tetEnergyDelta of energy/tet_energy.h per tet, m/h^2 (d . (x - y) + |d|^2 / 2) per vertex): accurate
    // relative to its own size near convergence, where a difference of two sums of G is not.
    double deltaEnergy(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                       const std::vector<int>& elems, const std::vector<int>& verts, double h,
                       DampingModel damping) const;
    // Potentials at vertex i outside the tets and the inertia: collider penalties and the picking spring,
    // with their gradient and Gauss-Newton block added to g and H when given.
    double vertexPotential(const SoftModel& m, size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const;
    // grad[v] for v in verts: inertia, vertex potentials and the gradients of the tets with use[e] from the
    // last evalElements with forces.
    void gatherGradient(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<int>& verts,
                        const std::vector<char>& use, double h, std::vector<Vec3d>& grad) const;
    // Deformation gradient of tet e at the last evaluation with forces.
    const Mat33d& lastF(int e) const { return F_[size_t(e)]; }
    const Mat33d& restInverse(int e) const { return Dinv_[size_t(e)]; }
    // Vertex weight m^a of tet e.
    const Vec3d& weight(int e, int a) const { return w_[size_t(e)][size_t(a)]; }

  private:
    // Collider penalties at vertex i (see vertexPotential).
    double penalties(const SoftModel& m, size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const;
    double tetEnergyAt(const SoftModel& m, const std::vector<Vec3d>& x, size_t e, double h, bool internal,
                       bool forces) const;
    Vec3d vertexGradient(const SoftModel& m, const std::vector<Vec3d>& x, size_t i, double h,
                         const std::vector<char>* use) const;
    int tets_ = -1, verts_ = -1;
    std::vector<Mat33d> Dinv_, Cp_;
    std::vector<std::array<Vec3d, 4>> w_;
    std::vector<Vec3d> y_;
    DragSpring drag_;
    mutable std::vector<Mat33d> F_;
    mutable std::vector<std::array<Vec3d, 4>> grad_;  // per tet: dE_e/dx_a
};

// G and its gradient at x for the model's published step data (x_prev, y): a reference for tests.
double potentialAndGradient(const SoftModel& m, const std::vector<Vec3d>& x, double h, DampingModel damping,
                            std::vector<Vec3d>* grad);

}  // namespace vbd::coarse
