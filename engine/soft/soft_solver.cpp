#include "soft/soft_solver.h"

#include <algorithm>
#include <type_traits>

#include "backend/parallel.h"
#include "backend/phases.h"
#include "backend/timer.h"
#include "math/error.h"
#include "soft/cloth_build.h"
#include "soft/cloth_collision.h"
#include "soft/hook_state.h"
#include "soft/predict.h"
#include "soft/state_update.h"
#include "soft/vertex_blocks.h"
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
    if (st.increments) {
        s.dx = st.dx.data();
        s.dy = st.dy.data();
    }
    return s;
}

void SoftSolver::syncState() {
    if (inStep_) return;
    stateF_.increments = sweepOptions_.floatIncrement;
    withState([&](auto& st) { st.sync(m_); });
}

namespace {

// The increment arrays of a state (nullptr in the absolute form), for the writes of soft/state_update.h.
template <typename T>
Vec3T<T>* incrementsOf(SoftState<T>& st) {
    return st.increments ? st.dx.data() : nullptr;
}

// The cloth contact stage truncates x into its bounds (absolute positions): the increments follow.
template <typename T>
void resyncIncrements(SoftState<T>& st) {
    Vec3T<T>* inc = incrementsOf(st);
    if (!inc) return;
    parallelFor(st.x.size(), [&](size_t i) { resyncIncrement(st.x.data(), inc, st.xPrev.data(), int(i)); });
}

}  // namespace

// ---- the step ------------------------------------------------------------------------------------------

SoftStepStats SoftSolver::step(float h, const Vec3& gravity) {
    beginStep(h, gravity);
    if (sweepsFuse()) {
        // Every iteration is a bare sweep: one phase chain for all of them (backend/phases.h), the same
        // sweeps in the same order without a team loop's publish and join between them.
        ScopedTimer t(stats_.solveMs);
        withState([&](auto& st) { sweepT(st, params_.iterations); });
        stats_.iterations = params_.iterations;
    } else {
        for (int it = 1; it <= params_.iterations && !converged(); ++it) iterate(it);
    }
    return endStep();
}

// iterate() runs only the sweep when there are no contacts to re-detect, no Chebyshev step, no hook, and
// neither the diagnostics nor a tolerance reads the residual after each sweep.
bool SoftSolver::sweepsFuse() const {
    return m_.numVertices() > 0 && params_.iterations > 1 && !cloth_.active(m_) &&
           !(params_.chebyshevRho > 0) && !hook_ && !params_.diagnostics && !(params_.tolerance > 0);
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
            resyncIncrements(st);
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
            st.chebPrev = st.increments ? st.dx : st.x;
            st.chebPrevPrev = st.chebPrev;
        });
}

void SoftSolver::iterate(int it) {
    if (m_.numVertices() == 0) return;
    if (cloth_.due(m_, it)) {
        ScopedTimer t(stats_.collisionMs);
        withState([&](auto& st) {
            cloth_.refresh(m_, st.x);
            resyncIncrements(st);
        });
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
    if (incrementsOf(st)) {
        predictIncrements(st, h, tNext, gravity, adaptive);
        return;
    }
    parallelFor(size_t(n), [&](size_t i) {
        st.xPrev[i] = st.x[i];
        if (m_.fixed[i]) {
            const int r = m_.kinematic[i];
            if (r >= 0) st.x[i] = kinematicPosition(int(i), tNext);
            st.y[i] = st.x[i];
        } else {
            predictFreeVertex(st.x[i], st.y[i], st.v[i], st.vLast[i], h, gravity, gdir, g, adaptive);
        }
    });
}

// Where kinematic vertex `vertex` is at time t: its region's rotation about the centre and translation.
template <typename T>
Vec3T<T> SoftSolver::kinematicPosition(int vertex, T t) const {
    const KinematicRegion& k = m_.regions[size_t(m_.kinematic[size_t(vertex)])];
    const Vec3T<T> c(k.center);
    return c + rotationMatrix(Vec3T<T>(k.omega) * t) * (Vec3T<T>(m_.x0[size_t(vertex)]) - c) +
           Vec3T<T>(k.velocity) * t;
}

// predict() for a float state in the increment form (soft/state_update.h): dx and dy from v and g alone, x
// and y rounded from them. (A separate loop: a branch inside predict's loop changed how GCC contracts the
// double state's arithmetic into FMAs, and with it the double results' last bits.)
template <typename T>
void SoftSolver::predictIncrements(SoftState<T>& st, T h, T tNext, const Vec3T<T>& gravity, bool adaptive) {
    const T g = norm(gravity);
    const Vec3T<T> gdir = g > 0 ? gravity / g : Vec3T<T>(T(0));
    parallelFor(st.x.size(), [&](size_t i) {
        st.xPrev[i] = st.x[i];
        if (m_.fixed[i]) {
            const int r = m_.kinematic[i];
            if (r >= 0) st.x[i] = kinematicPosition(int(i), tNext);
            st.y[i] = st.x[i];
            st.dx[i] = st.dy[i] = st.x[i] - st.xPrev[i];
        } else {
            predictFreeIncrement(st.dx[i], st.dy[i], st.v[i], st.vLast[i], h, gravity, gdir, g, adaptive);
            st.x[i] = st.xPrev[i] + st.dx[i];
            st.y[i] = st.xPrev[i] + st.dy[i];
        }
    });
}

// C_prev = F_prev^T F_prev per tet, the internal damping's reference (damping.h).
template <typename T>
void SoftSolver::refreshCprev(SoftState<T>& st) {
    const TetBlocks& tb = m_.tetBlocks;
    const TetLanes& tl = m_.tetLanes;
    st.Cprev.resize(m_.tets.size());
    st.CprevLanes.resize(tb.cprevSize());
    st.CprevTetLanes.resize(tl.cprevSize());
    const size_t nb = tb.blocks.size(), nl = tl.cprevSize() > 0 ? tl.blocks.size() : 0;
    // Two phases of one team loop (backend/phases.h): each tet's C_prev, then its copies in the sweep's
    // blocks and the tet lanes (soft_model.h fillCprevLanes, fillCprevTetLanes).
    parallelPhases(
        2, [&](size_t p) { return p == 0 ? m_.tets.size() : nb + nl; },
        [&](size_t p, size_t e) {
            if (p == 0) {
                const auto& t = m_.tets[e];
                st.Cprev[e] = tetCprev(st.xPrev[t[0]], st.xPrev[t[1]], st.xPrev[t[2]], st.xPrev[t[3]],
                                       Mat33T<T>(m_.DmInv[e]));
            } else if (e < nb) {
                cprevLanesBlock(tb, st.Cprev, st.CprevLanes.data(), e);
            } else {
                cprevTetLanesBlock(tl, st.Cprev, st.CprevTetLanes.data(), e - nb);
            }
        },
        64);
}

// Smallest chunk of a color a thread claims (backend/thread_team.h): 16 vertices are 1-3 µs of local solves
// against ~0.05 µs per claim; the hanging bar's colors (120 vertices) still split, and 4, 8 and 16 measured
// the same on it and on the cube (fifth session; with TBB's tasks the grain was 128, and the bar's colors ran
// on one thread).
constexpr size_t kSweepGrain = 16;

// One colored Gauss-Seidel sweep. Vertices of one color share no element: their local solves are
// independent, and each writes only its own x (gather, no atomics), so the result is the same for any thread
// count. Contacts couple vertices that share no element, so two vertices of one color may be contact
// partners; instead of recoloring at every detection, each color then reads a snapshot of x taken before the
// color starts: elastic neighbours have other colors, so for them the snapshot equals the live x, while
// same-color contact partners see each other's pre-color position (a Jacobi update inside the contact
// coupling only). The step bound keeps every update penetration-free whatever the coupling does.
// The tet and cloth terms come from the SIMD blocks (soft/vertex_blocks.h) unless sweepOptions_.simd is off.
template <typename T>
void SoftSolver::sweepT(SoftState<T>& st, int sweeps) {
    const CollisionState& cs = m_.collision;
    const bool bounded = cs.enabled;
    const bool snapshot = bounded && !cs.contacts.empty();
    const bool blocks = sweepOptions_.simd && !(m_.tetBlocks.empty() && m_.clothBlocks.empty());
    const size_t grain = sweepOptions_.grain > 0 ? sweepOptions_.grain : kSweepGrain;
    SoftViewT<T> s = viewT(st);
    const VertexBlocks<T> vb{m_.tetBlocks, st.CprevLanes.data(), m_.clothBlocks};
    Vec3T<T>* x = st.x.data();
    Vec3T<T>* inc = incrementsOf(st);
    const Vec3T<T>* xPrev = st.xPrev.data();
    std::vector<Vec3T<T>>& xRead = snapshotOf<T>();
    auto update = [&](int i) {
        Vec3T<T> f, dx;
        Mat33T<T> H;
        const char touching =
            blocks ? vertexForceHessianBlocks(s, vb, i, f, H) : vertexForceHessian(s, i, f, H);
        // Written only when it changes: the flags of both threads' vertices share cache lines (a color's
        // share is compact in space, not in index), and a store on every visit made each one a line
        // transfer between the cores.
        if (inContact_[size_t(i)] != touching) inContact_[size_t(i)] = touching;
        if (solveVertexSystem(H, f, dx)) moveVertex(x, inc, xPrev, i, dx);
        if (bounded) {
            const Vec3T<T> b = boundToBall(x[i], cs.xc[size_t(i)], cs.ref[size_t(i)], cs.bound[size_t(i)]);
            if (!sameValue(b, x[i])) placeVertex(x, inc, xPrev, i, b);
        }
    };
    const auto& groups = m_.colorGroups;
    if (!snapshot) {
        // The colors as the phases of one team loop (backend/phases.h): a barrier between colors instead of a
        // loop each, and each slot starts a color with its interior vertices before it waits for the others
        // to finish the color before (prepareSplit).
        const size_t colors = groups.size();
        size_t largest = 0;
        for (const auto& g : groups) largest = std::max(largest, g.size());
        const int slots = phaseSlots(largest, grain);
        if (slots > 1 && slots != splitSlots_) prepareSplit(slots);
        parallelPhases(
            colors * size_t(sweeps), [&](size_t p) { return groups[p % colors].size(); },
            [&](size_t p, size_t k) { update(groups[p % colors][k]); }, grain,
            [&](size_t p, int slot, int n, size_t b, size_t) { return splitAt(p % colors, slot, n, b); },
            [&](size_t p, int slot, int n, size_t size) { return shareStart(p % colors, slot, n, size); });
        return;
    }
    // (sweepsFuse keeps the snapshot's sweeps apart: contacts are re-detected between them.)
    // With the snapshot: phase 0 copies x (and dx) whole, phase 2c + 1 updates color c reading the copy, and
    // phase 2c + 2 copies what color c changed, its own vertices, so that the copy equals the live x again
    // when color c + 1 starts (a full copy before every color, as this was, moved n vertices per color on one
    // thread).
    const bool copyDx = std::is_same_v<T, float> && inc != nullptr;
    xRead.resize(st.x.size());
    if (copyDx) dxRead_.resize(st.x.size());
    auto copyVertex = [&](size_t i) {
        xRead[i] = st.x[i];
        if constexpr (std::is_same_v<T, float>) {
            if (copyDx) dxRead_[i] = st.dx[i];
        }
    };
    s.x = xRead.data();
    if constexpr (std::is_same_v<T, float>) {
        if (copyDx) s.dx = dxRead_.data();
    }
    const size_t phases = 2 * groups.size();
    parallelPhases(
        phases, [&](size_t p) { return p == 0 ? st.x.size() : groups[(p - 1) / 2].size(); },
        [&](size_t p, size_t k) {
            if (p == 0)
                copyVertex(k);
            else if (p % 2 == 1)
                update(groups[p / 2][k]);
            else
                copyVertex(size_t(groups[p / 2 - 1][k]));
        },
        grain);
}

// Where slot `slot` of `slots` starts color c (its share from prepareSplit when it was computed for that many
// slots, else the even one), and where the share [b, ...) stops being interior.
size_t SoftSolver::shareStart(size_t c, int slot, int slots, size_t size) const {
    return slots == splitSlots_ ? shareBegin_[c][size_t(slot)] : EvenShares()(c, slot, slots, size);
}

size_t SoftSolver::splitAt(size_t c, int slot, int slots, size_t b) const {
    return slots == splitSlots_ ? b + interior_[c][size_t(slot)] : b;
}

// Splits each color into `slots` contiguous shares of about equal work (backend/phases.h), and orders each
// share: the vertices whose neighbours all belong to the same slot (any color; fixed vertices, never
// written, do not count) first, in their previous order, then those with a neighbour in another slot. The
// interior ones neither read nor are read by another slot, so a slot may update them while the others still
// finish the color before. The order inside a color changes no result (its vertices are independent).
//
// Work per vertex: its element incidences (tets, triangles, hinges) plus kVertexCost for the inertia, the
// 3x3 solve and the write. Equal counts of vertices were unequal work where the colors are small: the
// hanging bar's 120-vertex colors split 639 against 702 tet incidences, and the caller waited 5% of the
// 2-thread step at the barriers (perf).
void SoftSolver::prepareSplit(int slots) {
    constexpr size_t kVertexCost = 4;  // about one 4-lane pack of tet terms
    auto& groups = m_.colorGroups;
    const Csr& g = m_.vertexGraph;
    auto work = [&](int v) {
        auto count = [v](const Csr& c) { return c.rows() > v ? size_t(c.end(v) - c.begin(v)) : size_t(0); };
        return kVertexCost + count(m_.vertexTets) + count(m_.vertexTris) + count(m_.vertexHinges);
    };
    shareBegin_.assign(groups.size(), std::vector<size_t>(size_t(slots) + 1, 0));
    for (size_t c = 0; c < groups.size(); ++c) {
        // Slot s starts at the first vertex whose work before it reaches s / slots of the color's total.
        size_t total = 0;
        for (int v : groups[c]) total += work(v);
        std::vector<size_t>& begin = shareBegin_[c];
        size_t before = 0, k = 0;
        for (int s = 1; s < slots; ++s) {
            while (k < groups[c].size() && before * size_t(slots) < total * size_t(s))
                before += work(groups[c][k++]);
            begin[size_t(s)] = k;
        }
        begin[size_t(slots)] = groups[c].size();
    }
    std::vector<int> slotOf(size_t(m_.numVertices()), -1);
    auto shareOf = [&](size_t c, int s) {
        return std::make_pair(shareBegin_[c][size_t(s)], shareBegin_[c][size_t(s) + 1]);
    };
    for (size_t c = 0; c < groups.size(); ++c)
        for (int s = 0; s < slots; ++s) {
            const auto [b, e] = shareOf(c, s);
            for (size_t k = b; k < e; ++k) slotOf[size_t(groups[c][k])] = s;
        }
    auto interior = [&](int v, int s) {
        if (g.rows() != m_.numVertices()) return false;
        for (int k = g.begin(v); k < g.end(v); ++k) {
            const int o = slotOf[size_t(g.items[size_t(k)])];
            if (o >= 0 && o != s) return false;
        }
        return true;
    };
    interior_.assign(groups.size(), std::vector<size_t>(size_t(slots), 0));
    for (size_t c = 0; c < groups.size(); ++c)
        for (int s = 0; s < slots; ++s) {
            const auto [b, e] = shareOf(c, s);
            const auto first = groups[c].begin() + long(b), last = groups[c].begin() + long(e);
            const auto mid = std::stable_partition(first, last, [&](int v) { return interior(v, s); });
            interior_[c][size_t(s)] = size_t(mid - first);
        }
    splitSlots_ = slots;
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
    Vec3T<T>* x = st.x.data();
    Vec3T<T>* inc = incrementsOf(st);
    const Vec3T<T>* xPrev = st.xPrev.data();
    // Extrapolates the iterate value (state_update.h: dx in the increment form, x otherwise).
    parallelFor(size_t(m_.numVertices()), [&](size_t i) {
        const int v = int(i);
        Vec3T<T> q = iterateValue(x, inc, v);
        if (k >= 2 && !m_.fixed[i] && !inContact_[i]) q = (q - st.chebPrevPrev[i]) * w + st.chebPrevPrev[i];
        setIterateValue(x, inc, xPrev, v, q);
        if (cs.enabled && !m_.fixed[i]) {
            const Vec3T<T> b = boundToBall(x[i], cs.xc[i], cs.ref[i], cs.bound[i]);
            if (!sameValue(b, x[i])) placeVertex(x, inc, xPrev, v, b);
        }
        st.chebPrevPrev[i] = st.chebPrev[i];
        st.chebPrev[i] = iterateValue(x, inc, v);
    });
}

// What a hook sees (soft/hook_state.h): the double state itself, or the float one widened into scratch arrays
// (x every call; x_prev and y, constant within a step, when refreshStepData).
template <typename T>
HookView SoftSolver::hookView(SoftState<T>& st, bool refreshStepData) {
    return hookViewOf(m_, st, hookWidened_, refreshStepData, hookSettings(h_));
}

HookSettings SoftSolver::hookSettings(float h) const {
    HookSettings s;
    s.h = h;
    s.damping = params_.damping;
    s.drag = drag_;
    s.contact = contactParams();
    return s;
}

// The hook returns a displacement of free vertices, added here (in float precision rounded once to float).
template <typename T>
void SoftSolver::correctT(SoftState<T>& st, SweepHook& hook, int iteration, bool refreshStepData) {
    update_.clear();
    update_.dx.resize(st.x.size());
    hook.afterSweep(hookView(st, refreshStepData), iteration, update_);
    applyHookUpdate(m_, st, update_);
}

// v = (x - x_prev) / h; the previous velocity is kept for the next adaptive initial guess.
template <typename T>
void SoftSolver::finalize(SoftState<T>& st, float h) {
    const size_t n = size_t(m_.numVertices());
    const T invH = T(1) / T(h);
    if (st.vLast.size() != n) st.vLast.assign(n, Vec3T<T>(T(0)));
    const Vec3T<T>* inc = incrementsOf(st);
    parallelFor(n, [&](size_t i) {
        st.vLast[i] = st.v[i];
        st.v[i] = stepMotion(st.x.data(), inc, st.xPrev.data(), int(i)) * invH;
    });
}

// ---- the iterate outside the step loop -----------------------------------------------------------------

void SoftSolver::positions(std::vector<Vec3d>& out) {
    syncState();
    withState([&](auto& st) { iterateInDouble(st, out); });
}

void SoftSolver::stepPositions(std::vector<Vec3d>& x, std::vector<Vec3d>& xPrev) {
    withState([&](auto& st) {
        iterateInDouble(st, x);
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
