#include "soft/soft_solver.h"

#include <algorithm>
#include <type_traits>

#include "backend/parallel.h"
#include "backend/timer.h"
#include "math/error.h"
#include "soft/cloth_build.h"
#include "soft/cloth_collision.h"
#include "soft/predict.h"
#include "soft/tet_blocks.h"
#include "soft/vertex_kernel.h"

namespace vbd {

namespace {

// Rotation matrix of the rotation vector theta (Rodrigues).
template <typename T>
Mat33T<T> rotationMatrix(const Vec3T<T>& theta) {
    return toMatrix(fromRotationVector(theta));
}

}  // namespace

void SoftSolver::setParams(const SolverDesc& s) {
    params_ = s;
    // The state of the other precision is dropped; the next step seeds the new one from the published state.
    if (doublePrecision())
        stateF_ = SoftState<float>{};
    else
        stateD_ = SoftState<double>{};
}

ContactParams SoftSolver::contactParams() const {
    ContactParams c;
    c.dampingTime = float(params_.contactDamping);
    c.frictionEps = float(params_.frictionEpsilon);
    return c;
}

SoftViewParams SoftSolver::viewParams() const {
    SoftViewParams s;
    forEachParamArray(m_, s, [](auto& ptr, const auto& array) { ptr = array.data(); });
    s.numColliders = int(m_.colliders.size());
    // nullptr marks what the kernel must skip: contact offsets without cloth, self contacts when none.
    if (m_.numCloths == 0) s.colliderOffset = nullptr;
    const CollisionState& cs = m_.collision;
    if (!(cs.enabled && !cs.contacts.empty()))
        s.contacts = nullptr, s.vcOffsets = nullptr, s.vcItems = nullptr;
    if (m_.bodyRows.empty() || m_.bodyRowOffsets.size() != size_t(m_.numVertices()) + 1)
        s.bodyColliders = nullptr, s.vbOffsets = nullptr, s.bodyRows = nullptr;
    s.h = h_;
    s.damping = params_.damping;
    s.contact = contactParams();
    s.dragVertex = drag_.vertex;
    s.dragTarget = drag_.target;
    s.dragStiffness = drag_.stiffness;
    return s;
}

template <typename T>
SoftViewT<T> SoftSolver::viewT(const SoftState<T>& st) const {
    SoftViewT<T> s;
    static_cast<SoftViewParams&>(s) = viewParams();
    s.x = st.x.data();
    s.xPrev = st.xPrev.data();
    s.y = st.y.data();
    s.Cprev = st.Cprev.data();
    s.triCprev = st.triCprev.data();
    s.hingeThetaPrev = st.hingeThetaPrev.data();
    return s;
}

void SoftSolver::syncState() {
    if (!inStep_) withState([&](auto& st) { st.sync(m_); });
}

// ---- the step ------------------------------------------------------------------------------------------

SoftStepStats SoftSolver::step(float h, const Vec3& gravity) {
    beginStep(h, gravity);
    for (int it = 1; it <= params_.iterations && !converged(); ++it) iterate(it);
    return endStep();
}

void SoftSolver::beginStep(float h, const Vec3& gravity) {
    stats_ = SoftStepStats{};
    h_ = h;
    const size_t n = size_t(m_.numVertices());
    residual_.assign(n, 0.f);
    inContact_.assign(n, 0);
    syncState();
    inStep_ = true;
    if (n == 0) return;
    withState([&](auto& st) {
        predict(st, h, gravity);
        refreshCprev(st);
        if (!m_.tris.empty()) clothBeginStep(m_, st);
        if (cloth_.active(m_)) {
            ScopedTimer t(stats_.collisionMs);
            cloth_.begin(m_, st.xPrev, st.x);
        }
    });
    if (hook_) withState([&](auto& st) { hook_->beginStep(hookView(st, true)); });
    {
        ScopedTimer t(stats_.diagnosticsMs);
        stats_.residualInitial = withState([&](auto& st) { return residualNormT(st); });
        lastResidual_ = stats_.residualInitial;
        record(0, stats_.residualInitial);
    }
    if (params_.chebyshevRho > 0)
        withState([&](auto& st) {
            st.chebPrev = st.x;
            st.chebPrevPrev = st.x;
        });
}

void SoftSolver::iterate(int it) {
    if (m_.numVertices() == 0) return;
    if (cloth_.due(m_, it)) {
        ScopedTimer t(stats_.collisionMs);
        withState([&](auto& st) { cloth_.refresh(m_, st.x); });
    }
    {
        ScopedTimer t(stats_.solveMs);
        withState([&](auto& st) {
            sweepT(st);
            accelerate(st, it);
        });
    }
    if (hook_) {
        ScopedTimer t(stats_.hookMs);
        withState([&](auto& st) { correctT(st, *hook_, it, false); });
    }
    stats_.iterations = it;
    if (params_.diagnostics || params_.tolerance > 0) {
        ScopedTimer t(stats_.diagnosticsMs);
        lastResidual_ = withState([&](auto& st) { return residualNormT(st); });
        record(it, lastResidual_);
    }
}

// The relative tolerance, or the state's rounding floor (soft_potential.cpp) when that is higher: below it
// the residual is round-off and further sweeps cannot lower it (e.g. a step that starts converged, r_0 ~
// floor).
bool SoftSolver::converged() const {
    if (!(params_.tolerance > 0) || stats_.iterations == 0) return false;
    return lastResidual_ <= std::max(params_.tolerance * stats_.residualInitial, 2 * residualFloor_);
}

SoftStepStats SoftSolver::endStep() {
    inStep_ = false;
    if (m_.numVertices() == 0) return stats_;
    {
        ScopedTimer t(stats_.diagnosticsMs);
        const bool diag = params_.diagnostics;
        const bool measured = stats_.iterations > 0 && (diag || params_.tolerance > 0);
        stats_.residualFinal =
            measured ? lastResidual_ : withState([&](auto& st) { return residualNormT(st); });
        stats_.residualFloor = residualFloor_;
        stats_.energy =
            diag ? its_.back().energy : withState([&](auto& st) { return incrementalPotentialT(st); });
    }
    stats_.contacts = int(m_.collision.contacts.size());
    withState([&](auto& st) {
        finalize(st, h_);
        st.publish(m_);
    });
    time_ += h_;
    return stats_;
}

void SoftSolver::record(int iteration, double residual) {
    if (!params_.diagnostics) return;
    its_.push_back({0, iteration, residual, withState([&](auto& st) { return incrementalPotentialT(st); })});
}

// ---- stages --------------------------------------------------------------------------------------------

// Kinematic vertices follow their region; free ones get y and the initial guess (soft/predict.h: the
// inertial target or the VBD paper's adaptive guess).
template <typename T>
void SoftSolver::predict(SoftState<T>& st, float hf, const Vec3& gravityF) {
    const int n = m_.numVertices();
    const T h = T(hf);
    const T tNext = T(time_) + h;
    const Vec3T<T> gravity(gravityF);
    const T g = norm(gravity);
    const Vec3T<T> gdir = g > 0 ? gravity / g : Vec3T<T>(T(0));
    const bool adaptive = params_.adaptiveInit && g > 0 && st.vLast.size() == size_t(n);
    parallelFor(size_t(n), [&](size_t i) {
        st.xPrev[i] = st.x[i];
        if (m_.fixed[i]) {
            const int r = m_.kinematic[i];
            if (r >= 0) {
                const KinematicRegion& k = m_.regions[size_t(r)];
                const Vec3T<T> c(k.center);
                st.x[i] = c + rotationMatrix(Vec3T<T>(k.omega) * tNext) * (Vec3T<T>(m_.x0[i]) - c) +
                          Vec3T<T>(k.velocity) * tNext;
            }
            st.y[i] = st.x[i];
        } else {
            predictFreeVertex(st.x[i], st.y[i], st.v[i], st.vLast[i], h, gravity, gdir, g, adaptive);
        }
    });
}

// C_prev = F_prev^T F_prev per tet, the internal damping's reference (damping.h).
template <typename T>
void SoftSolver::refreshCprev(SoftState<T>& st) {
    st.Cprev.resize(m_.tets.size());
    parallelFor(m_.tets.size(), [&](size_t e) {
        const auto& t = m_.tets[e];
        const Mat33T<T> Fp = tetDeformationGradient(st.xPrev[t[0]], st.xPrev[t[1]], st.xPrev[t[2]],
                                                    st.xPrev[t[3]], Mat33T<T>(m_.DmInv[e]));
        st.Cprev[e] = Fp.transposed() * Fp;
    });
    fillCprevLanes(m_.tetBlocks, st.Cprev, st.CprevLanes);
}

// Vertices per task: large enough that TBB's per-task cost and false sharing at chunk edges (x, the contact
// flags) stay small against the local solves, small enough to balance a color of a few hundred.
constexpr size_t kSweepGrain = 128;
// With cloth contacts the local solves are costlier and less uniform: smaller tasks balance better.
constexpr size_t kContactSweepGrain = 16;

// One colored Gauss-Seidel sweep. Vertices of one color share no element: their local solves are
// independent, and each writes only its own x (gather, no atomics), so the result is the same for any thread
// count. Contacts couple vertices that share no element, so two vertices of one color may be contact
// partners; instead of recoloring at every detection, each color then reads a snapshot of x taken before the
// color starts: elastic neighbours have other colors, so for them the snapshot equals the live x, while
// same-color contact partners see each other's pre-color position (a Jacobi update inside the contact
// coupling only). The step bound keeps every update penetration-free whatever the coupling does.
// The tet terms come from the SIMD blocks (soft/tet_blocks.h) unless sweepOptions_.simd is off.
template <typename T>
void SoftSolver::sweepT(SoftState<T>& st) {
    const CollisionState& cs = m_.collision;
    const bool bounded = cs.enabled;
    const bool snapshot = bounded && !cs.contacts.empty();
    const bool blocks = sweepOptions_.simd && !m_.tetBlocks.empty();
    const size_t grain =
        sweepOptions_.grain > 0 ? sweepOptions_.grain : (snapshot ? kContactSweepGrain : kSweepGrain);
    SoftViewT<T> s = viewT(st);
    const T* cprev = st.CprevLanes.data();
    std::vector<Vec3T<T>>& x = st.x;
    std::vector<Vec3T<T>>& xRead = snapshotOf<T>();
    for (const auto& group : m_.colorGroups) {
        if (snapshot) {
            xRead = x;
            s.x = xRead.data();
        }
        parallelFor(
            group.size(),
            [&](size_t k) {
                const size_t i = size_t(group[k]);
                Vec3T<T> f, dx;
                Mat33T<T> H;
                inContact_[i] = blocks ? vertexForceHessianBlocks(s, m_.tetBlocks, cprev, int(i), f, H)
                                       : vertexForceHessian(s, int(i), f, H);
                if (solveVertexSystem(H, f, dx)) x[i] += dx;
                if (bounded) x[i] = boundToBall(x[i], cs.xc[i], cs.ref[i], cs.bound[i]);
            },
            grain);
    }
}

// Chebyshev semi-iterative acceleration (Wang 2015, as in Gaia): with x^ the sweep result,
//   x_k = w_k (x^_k - x_{k-2}) + x_{k-2},  w_1 = 1, w_2 = 2/(2 - rho^2), w_k = 4/(4 - rho^2 w_{k-1}).
// Skipped for vertices in active collision (their Jacobian changes between sweeps). It diverges when
// rho exceeds the true spectral radius of the sweep's iteration matrix (over-extrapolation).
template <typename T>
void SoftSolver::accelerate(SoftState<T>& st, int k) {
    const double rho = params_.chebyshevRho;
    if (rho <= 0) return;
    if (k == 1)
        chebOmega_ = 1;
    else if (k == 2)
        chebOmega_ = 2.0 / (2.0 - rho * rho);
    else
        chebOmega_ = 4.0 / (4.0 - rho * rho * chebOmega_);
    const T w = T(chebOmega_);
    const CollisionState& cs = m_.collision;
    parallelFor(size_t(m_.numVertices()), [&](size_t i) {
        Vec3T<T> xi = st.x[i];
        if (k >= 2 && !m_.fixed[i] && !inContact_[i]) xi = (xi - st.chebPrevPrev[i]) * w + st.chebPrevPrev[i];
        if (cs.enabled && !m_.fixed[i]) xi = boundToBall(xi, cs.xc[i], cs.ref[i], cs.bound[i]);
        st.chebPrevPrev[i] = st.chebPrev[i];
        st.chebPrev[i] = xi;
        st.x[i] = xi;
    });
}

// What a hook sees (sweep_hook.h): the double state itself, or the float one widened into scratch arrays
// (x every call; x_prev and y, constant within a step, when refreshStepData).
template <typename T>
HookView SoftSolver::hookView(SoftState<T>& st, bool refreshStepData) {
    if constexpr (std::is_same_v<T, double>) {
        return HookView{m_, st.x, st.xPrev, st.y, h_, params_.damping, drag_, contactParams(), true};
    } else {
        convertInto(hookX_, st.x);
        if (refreshStepData || hookXPrev_.size() != st.xPrev.size()) {
            convertInto(hookXPrev_, st.xPrev);
            convertInto(hookY_, st.y);
        }
        return HookView{m_, hookX_, hookXPrev_, hookY_, h_, params_.damping, drag_, contactParams(), false};
    }
}

// The hook returns a displacement of free vertices, added here (in float precision rounded once to float).
template <typename T>
void SoftSolver::correctT(SoftState<T>& st, SweepHook& hook, int iteration, bool refreshStepData) {
    update_.clear();
    update_.dx.resize(st.x.size());
    hook.afterSweep(hookView(st, refreshStepData), iteration, update_);
    for (int v : update_.vertices) {
        const size_t i = size_t(v);
        if (!m_.fixed[i]) st.x[i] = Vec3T<T>(Vec3d(st.x[i]) + update_.dx[i]);
    }
}

// v = (x - x_prev) / h; the previous velocity is kept for the next adaptive initial guess.
template <typename T>
void SoftSolver::finalize(SoftState<T>& st, float h) {
    const size_t n = size_t(m_.numVertices());
    const T invH = T(1) / T(h);
    if (st.vLast.size() != n) st.vLast.assign(n, Vec3T<T>(T(0)));
    parallelFor(n, [&](size_t i) {
        st.vLast[i] = st.v[i];
        st.v[i] = (st.x[i] - st.xPrev[i]) * invH;
    });
}

// ---- the iterate outside the step loop -----------------------------------------------------------------

void SoftSolver::positions(std::vector<Vec3d>& out) {
    syncState();
    withState([&](auto& st) { convertInto(out, st.x); });
}

void SoftSolver::stepPositions(std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev) {
    withState([&](auto& st) {
        convertInto(x, st.x);
        convertInto(xPrev, st.xPrev);
    });
}

void SoftSolver::sweep() {
    syncState();
    withState([&](auto& st) {
        sweepT(st);
        if (!inStep_) st.publishPositions(m_);
    });
}

void SoftSolver::startHook(SweepHook& hook) {
    syncState();
    withState([&](auto& st) { hook.beginStep(hookView(st, true)); });
}

void SoftSolver::correct(SweepHook& hook, int iteration) {
    syncState();
    withState([&](auto& st) {
        correctT(st, hook, iteration, true);
        if (!inStep_) st.publishPositions(m_);
    });
}

// Used by the diagnostics (soft_potential.cpp).
template SoftViewT<float> SoftSolver::viewT<float>(const SoftState<float>&) const;
template SoftViewT<double> SoftSolver::viewT<double>(const SoftState<double>&) const;

}  // namespace vbd
