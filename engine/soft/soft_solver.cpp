#include "soft/soft_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "backend/parallel.h"
#include "soft/cloth_build.h"
#include "soft/vertex_kernel.h"

namespace vbd {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Rotation matrix of the rotation vector theta (Rodrigues).
Mat33 rotationMatrix(const Vec3& theta) { return toMatrix(fromRotationVector(theta)); }

}  // namespace

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

// Initial guess (VBD paper, sec. 3.6 "adaptive initialization"): x = x + h v + h^2 a~ with a~ the part
// of last step's acceleration along gravity, clamped to [0, |g|]. A body in free fall gets the full
// inertial target; a body resting on the ground (acceleration ~ 0) starts where it is instead of h^2 g
// inside the ground, which a stiff contact would need many sweeps to undo.
void SoftSolver::predict(float h, const Vec3& gravity) {
    const int n = m_.numVertices();
    const float tNext = float(time_) + h;
    const float g = norm(gravity);
    const Vec3 gdir = g > 0 ? gravity / g : Vec3(0.f);
    const bool adaptive = params_.adaptiveInit && g > 0 && m_.vLast.size() == size_t(n);
    parallelFor(size_t(n), [&](size_t i) {
        m_.xPrev[i] = m_.x[i];
        if (m_.fixed[i]) {
            const int r = m_.kinematic[i];
            if (r >= 0) {
                const KinematicRegion& k = m_.regions[size_t(r)];
                m_.x[i] =
                    k.center + rotationMatrix(k.omega * tNext) * (m_.x0[i] - k.center) + k.velocity * tNext;
            }
            m_.y[i] = m_.x[i];
        } else {
            m_.y[i] = m_.x[i] + m_.v[i] * h + gravity * (h * h);
            if (adaptive) {
                const float aG = dot(m_.v[i] - m_.vLast[i], gdir) / h;
                const float at = aG < 0.f ? 0.f : (aG > g ? g : aG);
                m_.x[i] = m_.x[i] + m_.v[i] * h + gdir * (at * h * h);
            } else {
                m_.x[i] = m_.y[i];
            }
        }
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
    const CollisionState& cs = m_.collision;
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
    const bool bounded = cs.enabled;
    const SoftView s = view();
    for (const auto& group : m_.colorGroups) {
        // Vertices of one color share no element: their local solves are independent, and each writes
        // only its own x (gather, no atomics), so the result is the same for any thread count.
        parallelFor(
            group.size(),
            [&](size_t k) {
                const int i = group[k];
                Vec3 f;
                Mat33 H;
                inContact_[size_t(i)] = vertexForceHessian(s, i, f, H);
                Vec3 dx;
                if (solveSpd33(H, f, dx)) m_.x[size_t(i)] += dx;
                if (bounded)
                    m_.x[size_t(i)] = truncateToBound(m_.x[size_t(i)], cs.xc[size_t(i)], cs.ref[size_t(i)],
                                                      cs.bound[size_t(i)]);
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
void SoftSolver::chebyshev(int k) {
    const double rho = params_.chebyshevRho;
    if (rho <= 0) return;
    if (k == 1)
        chebOmega_ = 1;
    else if (k == 2)
        chebOmega_ = 2.0 / (2.0 - rho * rho);
    else
        chebOmega_ = 4.0 / (4.0 - rho * rho * chebOmega_);
    const float w = float(chebOmega_);
    const int n = m_.numVertices();
    parallelFor(size_t(n), [&](size_t i) {
        Vec3 xi = m_.x[i];
        if (k >= 2 && !m_.fixed[i] && !inContact_[i]) xi = (xi - chebPrevPrev_[i]) * w + chebPrevPrev_[i];
        if (m_.collision.enabled && !m_.fixed[i])
            xi = truncateToBound(xi, m_.collision.xc[i], m_.collision.ref[i], m_.collision.bound[i]);
        chebPrevPrev_[i] = chebPrev_[i];
        chebPrev_[i] = xi;
        m_.x[i] = xi;
    });
}

SoftStepStats SoftSolver::step(float h, const Vec3& gravity) {
    SoftStepStats st;
    h_ = h;
    const int n = m_.numVertices();
    residual_.assign(size_t(n), 0.f);
    inContact_.assign(size_t(n), 0);
    if (n == 0) return st;
    predict(h, gravity);
    m_.Cprev.resize(m_.tets.size());
    parallelFor(m_.tets.size(), [&](size_t e) {
        const auto& t = m_.tets[e];
        const Mat33 Fp = tetDeformationGradient(m_.xPrev[t[0]], m_.xPrev[t[1]], m_.xPrev[t[2]],
                                                m_.xPrev[t[3]], m_.DmInv[e]);
        m_.Cprev[e] = Fp.transposed() * Fp;
    });
    if (!m_.tris.empty()) clothBeginStep(m_);
    if (m_.collision.enabled) {
        auto tc = std::chrono::steady_clock::now();
        detectClothCollisions(true);
        st.collisionMs += msSince(tc);
    }
    if (hook_) hook_->beginStep(*this);
    const bool diag = params_.diagnostics;
    auto td = std::chrono::steady_clock::now();
    st.residualInitial = residualNorm();
    if (diag) its_.push_back({0, 0, st.residualInitial, incrementalPotential()});
    st.diagnosticsMs += msSince(td);
    if (params_.chebyshevRho > 0) {
        chebPrev_ = m_.x;
        chebPrevPrev_ = m_.x;
    }
    for (int it = 1; it <= params_.iterations; ++it) {
        const int ci = m_.collision.interval;
        if (m_.collision.enabled && ci > 0 && it > 1 && (it - 1) % ci == 0) {
            auto tc = std::chrono::steady_clock::now();
            detectClothCollisions(false);
            st.collisionMs += msSince(tc);
        }
        auto t0 = std::chrono::steady_clock::now();
        sweep();
        chebyshev(it);
        st.solveMs += msSince(t0);
        if (hook_) {
            auto th = std::chrono::steady_clock::now();
            hook_->afterSweep(*this, it);
            st.hookMs += msSince(th);
        }
        if (diag) {
            auto t1 = std::chrono::steady_clock::now();
            its_.push_back({0, it, residualNorm(), incrementalPotential()});
            st.diagnosticsMs += msSince(t1);
        }
    }
    auto t2 = std::chrono::steady_clock::now();
    st.residualFinal = diag ? its_.back().residual : residualNorm();
    st.energy = diag ? its_.back().energy : incrementalPotential();
    st.diagnosticsMs += msSince(t2);
    st.iterations = params_.iterations;
    st.contacts = int(m_.collision.contacts.size());
    const float invH = 1.f / h;
    if (m_.vLast.size() != size_t(n)) m_.vLast.assign(size_t(n), Vec3(0.f));
    parallelFor(size_t(n), [&](size_t i) {
        m_.vLast[i] = m_.v[i];
        m_.v[i] = (m_.x[i] - m_.xPrev[i]) * invH;
    });
    time_ += h;
    return st;
}

void SoftSolver::computeForces(std::vector<Vec3>& f) const {
    const SoftView s = view();
    const int n = m_.numVertices();
    f.assign(size_t(n), Vec3(0.f));
    parallelFor(size_t(n), [&](size_t i) {
        if (m_.fixed[i]) return;
        Mat33 H;
        vertexForceHessian(s, int(i), f[i], H);
    });
}

double SoftSolver::residualNorm() {
    std::vector<Vec3>& f = forceScratch_;  // reused: this runs after every sweep when diagnostics are on
    computeForces(f);
    residual_.resize(f.size());
    for (size_t i = 0; i < f.size(); ++i) residual_[i] = norm(f[i]);
    return std::sqrt(reduceSum<double>(f.size(), [&](size_t i) { return double(squaredNorm(f[i])); }));
}

double SoftSolver::incrementalPotential() const {
    const double h2 = double(h_) * double(h_);
    const int n = m_.numVertices();
    double inertia = reduceSum<double>(size_t(n), [&](size_t i) {
        if (m_.fixed[i]) return 0.0;
        const Vec3d d = Vec3d(m_.x[i]) - Vec3d(m_.y[i]);
        double e = 0.5 * double(m_.mass[i]) / h2 * squaredNorm(d);
        const float off = m_.numCloths > 0 ? m_.colliderOffset[i] : 0.f;
        for (const ParticleCollider& c : m_.colliders)
            e += double(colliderEnergy(off > 0.f ? offsetCollider(c, off) : c, m_.x[i]));
        return e;
    });
    const bool internal = params_.damping == DampingModel::Internal;
    double elastic = reduceSum<double>(m_.tets.size(), [&](size_t e) {
        const auto& t = m_.tets[e];
        const Mat33d Dinv(m_.DmInv[e]);
        const Mat33d F = tetDeformationGradient(Vec3d(m_.x[t[0]]), Vec3d(m_.x[t[1]]), Vec3d(m_.x[t[2]]),
                                                Vec3d(m_.x[t[3]]), Dinv);
        double v = double(m_.volume[e]) * neoHookeanPsi(F, double(m_.mu[e]), double(m_.lambda[e]));
        if (internal && m_.kd[e] > 0) {
            const Mat33d Fp = tetDeformationGradient(Vec3d(m_.xPrev[t[0]]), Vec3d(m_.xPrev[t[1]]),
                                                     Vec3d(m_.xPrev[t[2]]), Vec3d(m_.xPrev[t[3]]), Dinv);
            v += internalDampingPotential(F, Fp, double(m_.volume[e]), double(m_.mu[e]), double(m_.lambda[e]),
                                          double(m_.kd[e]), double(h_));
        }
        return v;
    });
    double drag = 0;
    if (dragVertex_ >= 0 && dragVertex_ < n)
        drag = 0.5 * dragK_ * squaredNorm(Vec3d(m_.x[size_t(dragVertex_)]) - Vec3d(dragTarget_));
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
