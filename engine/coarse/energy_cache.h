#pragma once
// The coarse space's evaluation of the incremental potential G and its gradient in double precision, with the
// per-tet rest data and the step's constants cached (C_prev = F_prev^T F_prev and the inertial target y are
// constant within a step). The physics is energy/tet_energy.h and energy/contact.h; this class only caches
// and gathers. Evaluation is parallel and deterministic: per-tet partials are gathered per vertex through
// SoftModel::vertexTets, sums go through fixed blocks (backend/parallel.h).
//   G(x) = sum_v m_v/(2h^2) |x_v - y_v|^2 + sum_e E_e(x) + collider penalties + picking spring
//          + collider gap damping + friction (lagged, below).
//
// Friction and the gap damping are dissipative, but with the contact normal n and the normal force lambda
// held fixed ("lagged", as the VBD paper does for friction) each is the gradient of a potential in x, and the
// fine solve's forces at x are exactly those gradients with n, lambda taken at x. lagContacts() freezes n and
// lambda at the iterate before a correction; then the coarse G and the fine solve minimise the same function
// there (without them a stiff part resting on the ground fights the friction it does not see). Per contact,
// with d = x - x_prev, gdot = n . d / h, u = (I - n n^T) d, e = eps_v h (energy/contact.h):
//   damping   D = (c k h / 2) min(gdot, 0)^2           grad = c k min(gdot, 0) n     block (c k / h) n n^T
//   friction  D = mu lambda F0(|u|),  F0' = f1          grad = mu lambda f1(|u|)/|u| u  block mu lambda
//   f1/|u| (I - n n^T) F0(y) = y^2/e - y^3/(3 e^2) for y < e, y - e/3 beyond (C1, F0(0) = 0).
//
// Naive damping (energy/damping.h) gives vertex a of tet e the force (k_d/h) K_aa (x_prev - x), K_aa the
// tet's elastic block at the iterate. With K_aa held at rest it is the gradient of the vertex potential
//   N_v = sum over v's tets of k_d K_aa(F = I),   D_v = (1 / 2h) (x_v - x_prev,v)^T N_v (x_v - x_prev,v),
// which setNaiveDamping adds to G. Without it the correction minimised a G the sweeps do not: on the
// contrast bar the stiff half's rigid motion, which the naive model resists 1e4 times harder than the soft
// half's, was undone every sweep, and the total energy went from 5.9e3 to 7.6e6 J in ten frames (aggregate
// basis; 4.4e4 J with stiff_rigid).
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
    int numTets() const { return tets_; }
    // Refreshes C_prev and y (once per step, after the solver's prediction).
    void beginStep(const SoftModel& m, const std::vector<Vec3d>& xPrev, const std::vector<Vec3d>& y);
    void setDrag(const DragSpring& d) { drag_ = d; }
    // With on, G holds the naive damping's vertex potentials (above) from now on, built once per step.
    void setNaiveDamping(const SoftModel& m, bool on, double h);
    // Freezes the contact normals and normal forces of the collider contacts at x (see above).
    void lagContacts(const SoftModel& m, const std::vector<Vec3d>& x, double h, const ContactParams& p);

    // G at x; with grad, also its gradient over all vertices (zero on fixed vertices).
    double eval(const SoftModel& m, const std::vector<Vec3d>& x, double h, DampingModel damping,
                std::vector<Vec3d>* grad) const;
    // Energy of the tets `elems` only; with `forces`, also their per-vertex gradients and deformation
    // gradients (read by gatherGradient and lastF).
    double evalElements(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<int>& elems,
                        double h, DampingModel damping, bool forces) const;
    // The per-vertex gradients and deformation gradients of the tets `elems` (all tets when null), without
    // the energy: what a correction's residual needs.
    void gradientElements(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<int>* elems,
                          double h, DampingModel damping) const;
    // G(x + d) - G(x) over the tets `elems` and the vertices `verts` (d must vanish elsewhere), from d itself
    // (tetEnergyDelta of energy/tet_energy.h per tet, m/h^2 (d . (x - y) + |d|^2 / 2) per vertex): accurate
    // relative to its own size near convergence, where a difference of two sums of G is not.
    // reuseF: the tets' F at x are those of the last gradient evaluation (same x): not recomputed.
    double deltaEnergy(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                       const std::vector<int>& elems, const std::vector<int>& verts, double h,
                       DampingModel damping, bool reuseF = false) const;
    // The vertex part of deltaEnergy: inertia, drag and penalties of `verts` (deltaEnergy adds it last).
    double vertexDeltaEnergy(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<Vec3d>& d,
                             const std::vector<int>& verts, double h) const;
    // One vertex's term of vertexDeltaEnergy, for displacement di (inline: the rigid correction calls it per
    // vertex inside its displacement pass).
    double vertexDelta(const SoftModel& m, const std::vector<Vec3d>& x, size_t i, const Vec3d& di,
                       double h) const {
        if (m.fixed[i]) return 0.0;
        double dG = double(m.mass[i]) / (h * h) * (dot(di, x[i] - y_[i]) + 0.5 * squaredNorm(di));
        if (int(i) == drag_.vertex && drag_.stiffness > 0)
            dG += double(drag_.stiffness) * (dot(di, x[i] - Vec3d(drag_.target)) + 0.5 * squaredNorm(di));
        // Penalties: a direct difference; they are small against the terms above (k/2 g^2 with g ~ mm).
        if (!m.colliders.empty()) dG += vertexPenaltyDelta(m, i, x[i], di);
        if (!naive_.empty()) {  // D_v(x + d) - D_v(x), N_v / h symmetric
            const Vec3d Nd = naive_[i] * di;
            dG += dot(Nd, x[i] - xPrev_[i]) + 0.5 * dot(Nd, di);
        }
        return dG;
    }
    // Potentials at vertex i outside the tets and the inertia: collider penalties and the picking spring,
    // with their gradient and Gauss-Newton block added to g and H when given.
    double vertexPotential(const SoftModel& m, size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const;
    // grad[v] for v in verts: inertia, vertex potentials and the gradients of the tets with use[e] from the
    // last evalElements with forces.
    void gatherGradient(const SoftModel& m, const std::vector<Vec3d>& x, const std::vector<int>& verts,
                        const std::vector<char>& use, double h, std::vector<Vec3d>& grad) const;
    // Deformation gradient of tet e at the last evaluation with forces.
    const Mat33d& lastF(int e) const { return F_[size_t(e)]; }
    // C_prev = F_prev^T F_prev per tet (the step's, from beginStep).
    const std::vector<Mat33d>& previousC() const { return Cp_; }
    // The gradient at free vertex i of the terms outside the tets: inertia m/h^2 (x - y), penalties, drag.
    Vec3d vertexOwnGradient(const SoftModel& m, const std::vector<Vec3d>& x, size_t i, double h) const;
    const Mat33d& restInverse(int e) const { return Dinv_[size_t(e)]; }
    // Vertex weight m^a of tet e.
    const Vec3d& weight(int e, int a) const { return w_[size_t(e)][size_t(a)]; }

  private:
    // Collider penalties at vertex i (see vertexPotential).
    double penalties(const SoftModel& m, size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const;
    double vertexPenaltyDelta(const SoftModel& m, size_t i, const Vec3d& xi, const Vec3d& di) const;
    // Lagged damping and friction potentials of vertex i's contacts at x.
    double laggedPotentials(size_t i, const Vec3d& x, Vec3d* g, Mat33d* H) const;
    double tetEnergyAt(const SoftModel& m, const std::vector<Vec3d>& x, size_t e, double h, bool internal,
                       bool forces) const;
    Vec3d vertexGradient(const SoftModel& m, const std::vector<Vec3d>& x, size_t i, double h,
                         const std::vector<char>* use) const;
    int tets_ = -1, verts_ = -1;
    std::vector<Mat33d> Dinv_, Cp_;
    std::vector<std::array<Vec3d, 4>> w_;
    std::vector<Vec3d> y_, xPrev_;
    struct LaggedContact {
        Vec3d n;
        double lambda = 0, k = 0, mu = 0;
    };
    std::vector<int> lagOffsets_;  // per vertex (CSR into lagged_)
    std::vector<LaggedContact> lagged_;
    double lagH_ = 1, lagDamping_ = 0, lagEps_ = 1e-3;
    DragSpring drag_;
    std::vector<Mat33d> naive_;  // per vertex N_v / h; empty: no naive damping
    double naiveH_ = 0;
    bool naiveStale_ = true;  // set by beginStep
    mutable std::vector<Mat33d> F_;
    mutable std::vector<std::array<Vec3d, 4>> grad_;  // per tet: dE_e/dx_a
};

// G and its gradient at x for the model's published step data (x_prev, y): a reference for tests.
double potentialAndGradient(const SoftModel& m, const std::vector<Vec3d>& x, double h, DampingModel damping,
                            std::vector<Vec3d>* grad);

}  // namespace vbd::coarse
