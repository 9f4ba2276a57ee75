#include "soft/soft_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

#include "backend/parallel.h"
#include "math/error.h"
#include "soft/cloth_build.h"
#include "soft/vertex_kernel.h"

namespace vbd {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Rotation matrix of the rotation vector theta (Rodrigues).
template <typename T>
Mat33T<T> rotationMatrix(const Vec3T<T>& theta) {
    return toMatrix(fromRotationVector(theta));
}

constexpr const char* kPrecisionKey = "solver.precision";

template <typename D, typename S>
std::vector<D> widened(const std::vector<S>& a) {
    std::vector<D> out;
    out.reserve(a.size());
    for (const S& v : a) out.emplace_back(v);
    return out;
}

}  // namespace

template <typename T>
struct SoftSolver::StateRef {
    std::vector<Vec3T<T>>&x, &v, &xPrev, &y, &vLast, &chebPrev, &chebPrevPrev, &force;
    std::vector<Mat33T<T>>& Cprev;
};

template <>
SoftSolver::StateRef<float> SoftSolver::state<float>() {
    return {m_.x, m_.v, m_.xPrev, m_.y, m_.vLast, chebPrev_, chebPrevPrev_, forceScratch_, m_.Cprev};
}

template <>
SoftSolver::StateRef<double> SoftSolver::state<double>() {
    DoubleState& d = shadow_;
    return {d.x, d.v, d.xPrev, d.y, d.vLast, d.chebPrev, d.chebPrevPrev, d.force, d.Cprev};
}

void SoftSolver::checkPrecision() const {
    if (doubleState() && (!m_.tris.empty() || m_.collision.enabled))
        throw InputError("", kPrecisionKey,
                         "double precision supports tet soft bodies only (this scene has cloth)");
}

void SoftSolver::setParams(const SolverDesc& s) {
    const SolverDesc old = params_;
    params_ = s;
    try {
        checkPrecision();
    } catch (...) {
        params_ = old;  // a refused setting leaves the solver as it was
        throw;
    }
    if (!doubleState()) shadow_ = DoubleState{};
}

SoftView SoftSolver::view() const {
    SoftView s;
    forEachViewArray(m_, s, [](auto& ptr, const auto& array) { ptr = array.data(); });
    s.numColliders = int(m_.colliders.size());
    // nullptr marks what the kernel must skip: contact offsets without cloth, self contacts when none.
    if (m_.numCloths == 0) s.colliderOffset = nullptr;
    const CollisionState& cs = m_.collision;
    if (!(cs.enabled && !cs.contacts.empty()))
        s.contacts = nullptr, s.vcOffsets = nullptr, s.vcItems = nullptr;
    s.h = h_;
    s.damping = params_.damping;
    s.contact.dampingTime = float(params_.contactDamping);
    s.contact.frictionEps = float(params_.frictionEpsilon);
    s.dragVertex = dragVertex_;
    s.dragTarget = dragTarget_;
    s.dragStiffness = dragK_;
    return s;
}

// The float view with the state pointers swapped for the double shadow: the parameters stay float.
template <typename T>
SoftViewT<T> SoftSolver::viewT() const {
    if constexpr (std::is_same_v<T, float>) {
        return view();
    } else {
        SoftViewT<T> s;
        static_cast<SoftViewParams&>(s) = view();
        s.x = shadow_.x.data();
        s.xPrev = shadow_.xPrev.data();
        s.y = shadow_.y.data();
        s.Cprev = shadow_.Cprev.data();
        return s;
    }
}

bool SoftSolver::shadowReady() const {
    const DoubleState& d = shadow_;
    const size_t n = m_.x.size();
    return d.x.size() == n && d.v.size() == n && d.xPrev.size() == n && d.y.size() == n &&
           d.vLast.size() == m_.vLast.size() && d.Cprev.size() == m_.Cprev.size();
}

// The app, World and tests edit model().x / v between steps (drag, reset, rebuild). The float arrays
// are written from the shadow at the end of every step, so any difference means such an edit: the shadow
// then restarts from the float state (losing only the sub-float digits of that one state).
void SoftSolver::reseedShadow(bool compareValues) {
    DoubleState& d = shadow_;
    bool edited = !shadowReady();
    for (size_t i = 0; compareValues && i < m_.x.size() && !edited; ++i) {
        const Vec3 xf(d.x[i]), vf(d.v[i]);
        edited = xf.x != m_.x[i].x || xf.y != m_.x[i].y || xf.z != m_.x[i].z || vf.x != m_.v[i].x ||
                 vf.y != m_.v[i].y || vf.z != m_.v[i].z;
    }
    if (!edited) return;
    d.x = widened<Vec3d>(m_.x);
    d.v = widened<Vec3d>(m_.v);
    d.xPrev = widened<Vec3d>(m_.xPrev);
    d.y = widened<Vec3d>(m_.y);
    d.vLast = widened<Vec3d>(m_.vLast);
    d.Cprev = widened<Mat33d>(m_.Cprev);
}

void SoftSolver::writeFloatState() {
    const DoubleState& d = shadow_;
    parallelFor(m_.x.size(), [&](size_t i) {
        m_.x[i] = Vec3(d.x[i]);
        m_.v[i] = Vec3(d.v[i]);
        m_.xPrev[i] = Vec3(d.xPrev[i]);
        m_.y[i] = Vec3(d.y[i]);
    });
    for (size_t i = 0; i < d.vLast.size() && i < m_.vLast.size(); ++i) m_.vLast[i] = Vec3(d.vLast[i]);
}

// Initial guess (VBD paper, sec. 3.6 "adaptive initialization"): x = x + h v + h^2 a~ with a~ the part
// of last step's acceleration along gravity, clamped to [0, |g|]. A body in free fall gets the full
// inertial target; a body resting on the ground (acceleration ~ 0) starts where it is instead of h^2 g
// inside the ground, which a stiff contact would need many sweeps to undo.
template <typename T>
void SoftSolver::predict(float hf, const Vec3& gravityF) {
    StateRef<T> st = state<T>();
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
            st.y[i] = st.x[i] + st.v[i] * h + gravity * (h * h);
            if (adaptive) {
                const T aG = dot(st.v[i] - st.vLast[i], gdir) / h;
                const T at = aG < T(0) ? T(0) : (aG > g ? g : aG);
                st.x[i] = st.x[i] + st.v[i] * h + gdir * (at * h * h);
            } else {
                st.x[i] = st.y[i];
            }
        }
    });
}

// C_prev = F_prev^T F_prev per tet, the internal damping's reference (damping.h).
template <typename T>
void SoftSolver::refreshCprev() {
    StateRef<T> st = state<T>();
    st.Cprev.resize(m_.tets.size());
    parallelFor(m_.tets.size(), [&](size_t e) {
        const auto& t = m_.tets[e];
        const Mat33T<T> Fp = tetDeformationGradient(st.xPrev[t[0]], st.xPrev[t[1]], st.xPrev[t[2]],
                                                    st.xPrev[t[3]], Mat33T<T>(m_.DmInv[e]));
        st.Cprev[e] = Fp.transposed() * Fp;
    });
}

// Contacts couple vertices that share no element, so two vertices of one color may be contact partners.
// Instead of recoloring at every detection, each color reads a snapshot of x taken before the color
// starts: elastic neighbours have other colors, so for them the snapshot equals the live x, while
// same-color contact partners see each other's pre-color position (a Jacobi update inside the contact
// coupling only). No vertex reads a position another thread is writing, so the sweep stays race-free and
// deterministic, and the step bound keeps every update penetration-free whatever the coupling does.
// Vertices per task: large enough that TBB's per-task cost and false sharing at chunk edges (x, the contact
// flags) stay small against ~25 us of local solves, small enough to balance a color of a few hundred.
constexpr size_t kSweepGrain = 128;

void SoftSolver::sweep() {
    if (doubleState()) {
        // Called outside step() (tests) before any step: start the shadow from the float state. Inside a
        // step the shadow is the iterate and the float x is stale, so values are not compared here.
        reseedShadow(false);
        sweepT<double>();
    } else {
        sweepT<float>();
    }
}

template <typename T>
void SoftSolver::sweepT() {
    const CollisionState& cs = m_.collision;
    if constexpr (std::is_same_v<T, float>) {
        if (cs.enabled && !cs.contacts.empty()) {
            SoftView s = view();
            for (const auto& group : m_.colorGroups) {
                xRead_ = m_.x;
                s.x = xRead_.data();
                parallelFor(
                    group.size(),
                    [&](size_t k) {
                        const int i = group[k];
                        Vec3 f;
                        Mat33 H;
                        inContact_[size_t(i)] = vertexForceHessian(s, i, f, H);
                        Vec3 dx;
                        if (solveSpd33(H, f, dx))
                            m_.x[size_t(i)] = truncateToBound(m_.x[size_t(i)] + dx, cs.xc[size_t(i)],
                                                              cs.ref[size_t(i)], cs.bound[size_t(i)]);
                    },
                    16);
            }
            return;
        }
    }
    // Cloth (and with it the collision bound) exists only in float mode (checkPrecision).
    const bool bounded = std::is_same_v<T, float> && cs.enabled;
    std::vector<Vec3T<T>>& x = state<T>().x;
    const SoftViewT<T> s = viewT<T>();
    for (const auto& group : m_.colorGroups) {
        // Vertices of one color share no element: their local solves are independent, and each writes
        // only its own x (gather, no atomics), so the result is the same for any thread count.
        parallelFor(
            group.size(),
            [&](size_t k) {
                const int i = group[k];
                Vec3T<T> f;
                Mat33T<T> H;
                inContact_[size_t(i)] = vertexForceHessian(s, i, f, H);
                Vec3T<T> dx;
                if (solveSpd33(H, f, dx)) x[size_t(i)] += dx;
                if constexpr (std::is_same_v<T, float>) {
                    if (bounded)
                        x[size_t(i)] = truncateToBound(x[size_t(i)], cs.xc[size_t(i)], cs.ref[size_t(i)],
                                                       cs.bound[size_t(i)]);
                }
            },
            kSweepGrain);
    }
}

void SoftSolver::applyStepBound() {
    CollisionState& cs = m_.collision;
    parallelFor(cs.verts.size(), [&](size_t k) {
        const int v = cs.verts[k];
        if (!m_.fixed[size_t(v)])
            m_.x[size_t(v)] =
                truncateToBound(m_.x[size_t(v)], cs.xc[size_t(v)], cs.ref[size_t(v)], cs.bound[size_t(v)]);
    });
}

void SoftSolver::detectClothCollisions(bool firstRound) {
    CollisionState& cs = m_.collision;
    StaticColliders sc;
    sc.colliders = &m_.colliders;
    sc.offset = &m_.colliderOffset;
    if (firstRound) {
        std::vector<Vec3> ref;
        const float R = chooseReferences(cs, m_.xPrev, m_.x, m_.mass, m_.fixed, sc, ref);
        detectCollisions(cs, m_.xPrev, R, std::move(ref), m_.fixed, sc);
    } else {
        detectCollisions(cs, m_.x, cs.queryRadius, {}, m_.fixed, sc);
    }
    applyStepBound();
}

// Chebyshev semi-iterative acceleration (Wang 2015, as in Gaia): with x^ the sweep result,
//   x_k = w_k (x^_k - x_{k-2}) + x_{k-2},  w_1 = 1, w_2 = 2/(2 - rho^2), w_k = 4/(4 - rho^2 w_{k-1}).
// Skipped for vertices in active collision (their Jacobian changes between sweeps). It diverges when
// rho exceeds the true spectral radius of the sweep's iteration matrix (over-extrapolation).
template <typename T>
void SoftSolver::chebyshev(int k) {
    const double rho = params_.chebyshevRho;
    if (rho <= 0) return;
    if (k == 1)
        chebOmega_ = 1;
    else if (k == 2)
        chebOmega_ = 2.0 / (2.0 - rho * rho);
    else
        chebOmega_ = 4.0 / (4.0 - rho * rho * chebOmega_);
    const T w = T(chebOmega_);
    const int n = m_.numVertices();
    StateRef<T> st = state<T>();
    parallelFor(size_t(n), [&](size_t i) {
        Vec3T<T> xi = st.x[i];
        if (k >= 2 && !m_.fixed[i] && !inContact_[i]) xi = (xi - st.chebPrevPrev[i]) * w + st.chebPrevPrev[i];
        if constexpr (std::is_same_v<T, float>) {
            if (m_.collision.enabled && !m_.fixed[i])
                xi = truncateToBound(xi, m_.collision.xc[i], m_.collision.ref[i], m_.collision.bound[i]);
        }
        st.chebPrevPrev[i] = st.chebPrev[i];
        st.chebPrev[i] = xi;
        st.x[i] = xi;
    });
}

// v = (x - x_prev) / h; the previous velocity is kept for the next adaptive initial guess.
template <typename T>
void SoftSolver::finalize(float h) {
    StateRef<T> st = state<T>();
    const size_t n = size_t(m_.numVertices());
    const T invH = T(1) / T(h);
    if (st.vLast.size() != n) st.vLast.assign(n, Vec3T<T>(T(0)));
    parallelFor(n, [&](size_t i) {
        st.vLast[i] = st.v[i];
        st.v[i] = (st.x[i] - st.xPrev[i]) * invH;
    });
}

SoftStepStats SoftSolver::step(float h, const Vec3& gravity) {
    return doubleState() ? stepT<double>(h, gravity) : stepT<float>(h, gravity);
}

template <typename T>
SoftStepStats SoftSolver::stepT(float h, const Vec3& gravity) {
    SoftStepStats st;
    h_ = h;
    const int n = m_.numVertices();
    residual_.assign(size_t(n), 0.f);
    inContact_.assign(size_t(n), 0);
    if (n == 0) return st;
    constexpr bool isDouble = std::is_same_v<T, double>;
    if constexpr (isDouble) {
        checkPrecision();
        reseedShadow(true);
    }
    StateRef<T> s = state<T>();
    predict<T>(h, gravity);
    refreshCprev<T>();
    if constexpr (isDouble) {
        // The float view of this step (hooks' beginStep, diagnostics fields) sees the predicted state.
        writeFloatState();
        m_.Cprev.resize(m_.tets.size());
        for (size_t e = 0; e < m_.tets.size(); ++e) m_.Cprev[e] = Mat33(s.Cprev[e]);
    }
    if (!m_.tris.empty()) clothBeginStep(m_);
    if (m_.collision.enabled) {
        auto tc = std::chrono::steady_clock::now();
        detectClothCollisions(true);
        st.collisionMs += msSince(tc);
    }
    if (hook_) hook_->beginStep(*this);
    const bool diag = params_.diagnostics;
    auto td = std::chrono::steady_clock::now();
    st.residualInitial = residualNormT<T>();
    if (diag) its_.push_back({0, 0, st.residualInitial, incrementalPotentialT<T>()});
    st.diagnosticsMs += msSince(td);
    if (params_.chebyshevRho > 0) {
        s.chebPrev = s.x;
        s.chebPrevPrev = s.x;
    }
    for (int it = 1; it <= params_.iterations; ++it) {
        const int ci = m_.collision.interval;
        if (m_.collision.enabled && ci > 0 && it > 1 && (it - 1) % ci == 0) {
            auto tc = std::chrono::steady_clock::now();
            detectClothCollisions(false);
            st.collisionMs += msSince(tc);
        }
        auto t0 = std::chrono::steady_clock::now();
        sweepT<T>();
        chebyshev<T>(it);
        st.solveMs += msSince(t0);
        if (hook_) {
            auto th = std::chrono::steady_clock::now();
            hook_->afterSweep(*this, it);
            st.hookMs += msSince(th);
        }
        if (diag) {
            auto t1 = std::chrono::steady_clock::now();
            its_.push_back({0, it, residualNormT<T>(), incrementalPotentialT<T>()});
            st.diagnosticsMs += msSince(t1);
        }
    }
    auto t2 = std::chrono::steady_clock::now();
    st.residualFinal = diag ? its_.back().residual : residualNormT<T>();
    st.energy = diag ? its_.back().energy : incrementalPotentialT<T>();
    st.diagnosticsMs += msSince(t2);
    st.iterations = params_.iterations;
    st.contacts = int(m_.collision.contacts.size());
    finalize<T>(h);
    if constexpr (isDouble) writeFloatState();
    time_ += h;
    return st;
}

template <typename T>
void SoftSolver::computeForcesT(std::vector<Vec3T<T>>& f) const {
    const SoftViewT<T> s = viewT<T>();
    const int n = m_.numVertices();
    f.assign(size_t(n), Vec3T<T>(T(0)));
    parallelFor(size_t(n), [&](size_t i) {
        if (m_.fixed[i]) return;
        Mat33T<T> H;
        vertexForceHessian(s, int(i), f[i], H);
    });
}

// Forces in the solver's precision, returned in the caller's.
void SoftSolver::computeForces(std::vector<Vec3>& f) const {
    if (!useDouble()) return computeForcesT<float>(f);
    std::vector<Vec3d> fd;
    computeForcesT<double>(fd);
    f.resize(fd.size());
    for (size_t i = 0; i < fd.size(); ++i) f[i] = Vec3(fd[i]);
}

void SoftSolver::computeForces(std::vector<Vec3d>& f) const {
    if (useDouble()) return computeForcesT<double>(f);
    std::vector<Vec3> ff;
    computeForcesT<float>(ff);
    f.resize(ff.size());
    for (size_t i = 0; i < ff.size(); ++i) f[i] = Vec3d(ff[i]);
}

double SoftSolver::residualNorm() { return useDouble() ? residualNormT<double>() : residualNormT<float>(); }

template <typename T>
double SoftSolver::residualNormT() {
    std::vector<Vec3T<T>>& f = state<T>().force;  // reused: this runs after every sweep with diagnostics
    computeForcesT<T>(f);
    residual_.resize(f.size());
    for (size_t i = 0; i < f.size(); ++i) residual_[i] = float(norm(f[i]));
    return std::sqrt(reduceSum<double>(f.size(), [&](size_t i) { return double(squaredNorm(f[i])); }));
}

double SoftSolver::incrementalPotential() const {
    return useDouble() ? incrementalPotentialT<double>() : incrementalPotentialT<float>();
}

// G summed in double for either state; the collider penalty is evaluated in the state's scalar.
template <typename T>
double SoftSolver::incrementalPotentialT() const {
    const SoftViewT<T> s = viewT<T>();
    const double h2 = double(h_) * double(h_);
    const int n = m_.numVertices();
    double inertia = reduceSum<double>(size_t(n), [&](size_t i) {
        if (m_.fixed[i]) return 0.0;
        const Vec3d d = Vec3d(s.x[i]) - Vec3d(s.y[i]);
        double e = 0.5 * double(m_.mass[i]) / h2 * squaredNorm(d);
        if constexpr (std::is_same_v<T, float>) {
            const float off = m_.numCloths > 0 ? m_.colliderOffset[i] : 0.f;
            for (const ParticleCollider& c : m_.colliders)
                e += double(colliderEnergy(off > 0.f ? offsetCollider(c, off) : c, s.x[i]));
        } else {
            for (const ParticleCollider& c : m_.colliders) e += colliderEnergy(c, s.x[i]);
        }
        return e;
    });
    const bool internal = params_.damping == DampingModel::Internal;
    double elastic = reduceSum<double>(m_.tets.size(), [&](size_t e) {
        const auto& t = m_.tets[e];
        const Mat33d Dinv(m_.DmInv[e]);
        const Mat33d F = tetDeformationGradient(Vec3d(s.x[t[0]]), Vec3d(s.x[t[1]]), Vec3d(s.x[t[2]]),
                                                Vec3d(s.x[t[3]]), Dinv);
        double v = double(m_.volume[e]) * neoHookeanPsi(F, double(m_.mu[e]), double(m_.lambda[e]));
        if (internal && m_.kd[e] > 0) {
            const Mat33d Fp = tetDeformationGradient(Vec3d(s.xPrev[t[0]]), Vec3d(s.xPrev[t[1]]),
                                                     Vec3d(s.xPrev[t[2]]), Vec3d(s.xPrev[t[3]]), Dinv);
            v += internalDampingPotential(F, Fp, double(m_.volume[e]), double(m_.mu[e]), double(m_.lambda[e]),
                                          double(m_.kd[e]), double(h_));
        }
        return v;
    });
    double drag = 0;
    if (dragVertex_ >= 0 && dragVertex_ < n)
        drag = 0.5 * dragK_ * squaredNorm(Vec3d(s.x[size_t(dragVertex_)]) - Vec3d(dragTarget_));
    const double cloth = m_.tris.empty() ? 0.0 : clothPotential(m_, double(h_), params_.damping);
    return inertia + elastic + drag + cloth;
}

void SoftSolver::volumeRatioField(std::vector<float>& out) const {
    const int n = m_.numVertices();
    out.assign(size_t(n), 1.f);
    parallelFor(size_t(n), [&](size_t i) {
        double s = 0;
        int c = 0;
        for (int k = m_.vertexTets.begin(int(i)); k < m_.vertexTets.end(int(i)); ++k) {
            const int e = m_.vertexTets.items[size_t(k)] >> 2;
            const auto& t = m_.tets[size_t(e)];
            s += tetDeformationGradient(m_.x[t[0]], m_.x[t[1]], m_.x[t[2]], m_.x[t[3]], m_.DmInv[size_t(e)])
                     .det();
            ++c;
        }
        if (c) out[i] = float(s / c);
    });
}

double SoftSolver::minVolumeRatio() const {
    if (m_.tets.empty()) return 1.0;
    std::vector<float> J(m_.tets.size());
    parallelFor(m_.tets.size(), [&](size_t e) {
        const auto& t = m_.tets[e];
        J[e] = tetDeformationGradient(m_.x[t[0]], m_.x[t[1]], m_.x[t[2]], m_.x[t[3]], m_.DmInv[e]).det();
    });
    return double(*std::min_element(J.begin(), J.end()));
}

// Off-diagonal elastic block of a tet between its vertices a != b:
//   H_ab = V (mu (m_a . m_b) I + lambda w_a w_b^T - s [F (m_a x m_b)]_x)
// where the last term is s d2J/dF2 contracted with e (x) m_a and e (x) m_b: eps_{ab p} (F (m_a x m_b))_p.
// On the diagonal (a = b) m_a x m_a = 0 and it vanishes, which is the seed's cancellation.
void SoftSolver::vertexBlockInfo(int vi, Mat33& D, float& maxRatio, float& sumRatio) const {
    const size_t i = size_t(vi);
    const float h2 = h_ * h_;
    D = Mat33::diag(m_.mass[i] / h2);
    std::vector<std::pair<int, Mat33>> off;
    for (int k = m_.vertexTets.begin(int(i)); k < m_.vertexTets.end(int(i)); ++k) {
        const int item = m_.vertexTets.items[size_t(k)];
        const int e = item >> 2, a = item & 3;
        const auto& t = m_.tets[size_t(e)];
        const Mat33& Dinv = m_.DmInv[size_t(e)];
        const Mat33 F = tetDeformationGradient(m_.x[t[0]], m_.x[t[1]], m_.x[t[2]], m_.x[t[3]], Dinv);
        const Mat33 cof = cofactor(F);
        const float mu = m_.mu[size_t(e)], lam = m_.lambda[size_t(e)], V = m_.volume[size_t(e)];
        const float s = lam * (F.det() - (1.f + mu / lam));
        const Vec3 ma = tetVertexWeight(Dinv, a), wa = cof * ma;
        D += (Mat33::diag(mu * dot(ma, ma)) + outer(wa, wa) * lam) * V;
        for (int b = 0; b < 4; ++b) {
            if (b == a) continue;
            const Vec3 mb = tetVertexWeight(Dinv, b), wb = cof * mb;
            Mat33 Hab =
                (Mat33::diag(mu * dot(ma, mb)) + outer(wa, wb) * lam - skew(F * cross(ma, mb)) * s) * V;
            auto it = std::find_if(off.begin(), off.end(), [&](const auto& p) { return p.first == t[b]; });
            if (it == off.end())
                off.emplace_back(t[b], Hab);
            else
                it->second += Hab;
        }
    }
    float mx = 0.f, sum = 0.f;
    for (const auto& p : off) {
        const float nrm = std::sqrt(p.second.frobenius2());
        mx = std::max(mx, nrm);
        sum += nrm;
    }
    const float d = std::sqrt(D.frobenius2());
    maxRatio = mx > 0.f ? d / mx : 1e30f;
    sumRatio = sum > 0.f ? d / sum : 1e30f;
}

void SoftSolver::diagonalDominanceField(std::vector<float>& out, std::vector<float>* sumRatio) const {
    const int n = m_.numVertices();
    out.assign(size_t(n), 0.f);
    if (sumRatio) sumRatio->assign(size_t(n), 0.f);
    parallelFor(size_t(n), [&](size_t i) {
        Mat33 D;
        float mx = 0, sum = 0;
        vertexBlockInfo(int(i), D, mx, sum);
        out[i] = mx;
        if (sumRatio) (*sumRatio)[i] = sum;
    });
}

}  // namespace vbd
