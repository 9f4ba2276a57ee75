// Rigid <-> particle coupling: candidates, body colliders, the body side of the contact law and the rows'
// dual update (the reasoning is in coupling.h and energy/body_contact.h).
#include "world/coupling.h"

#include <algorithm>
#include <cmath>

#include "backend/parallel.h"

namespace vbd {

namespace {

BodyCollider colliderOf(const Collider& c, float friction) {
    BodyCollider b;
    b.type = c.type == ShapeType::Box      ? BodyShapeType::Box
             : c.type == ShapeType::Sphere ? BodyShapeType::Sphere
                                           : BodyShapeType::Capsule;
    b.half = c.half;
    b.radius = c.radius;
    b.halfHeight = c.halfHeight;
    b.friction = friction;
    return b;
}

struct Box {
    Vec3 lo, hi;
    bool overlaps(const Box& o) const {
        return !(hi.x < o.lo.x || o.hi.x < lo.x || hi.y < o.lo.y || o.hi.y < lo.y || hi.z < o.lo.z ||
                 o.hi.z < lo.z);
    }
};

// The box swept by a ball of radius r whose centre moves from a to b.
Box sweptBox(const Vec3& a, const Vec3& b, float r) {
    return {cwiseMin(a, b) - Vec3(r), cwiseMax(a, b) + Vec3(r)};
}

}  // namespace

bool RigidParticleCoupling::active(const SoftSolver& soft, const RigidSolver& rigid) {
    if (soft.model().numVertices() == 0) return false;
    for (int b = 0; b < rigid.numBodies(); ++b)
        if (!rigid.isFixed(b)) return true;
    return false;
}

// Candidates. A vertex may meet body b during the step if the box its start position and its inertial
// prediction x + h v + h^2 g span (grown by its contact thickness and that motion again, for the deviation
// of the solve from the prediction) overlaps the box swept by b's bounding sphere from its start to its
// initial guess (grown by the same motion again plus 10 % of its size). A pair that the margin misses
// meets at the next step's detection.
void RigidParticleCoupling::begin(SoftSolver& soft, const RigidSolver& rigid, float h, const Vec3& gravity,
                                  const SolverDesc& p) {
    SoftModel& m = soft.model();
    beta_ = p.beta;
    kMax_ = p.kMax;
    const int nb = rigid.numBodies(), nv = m.numVertices();
    bodyIndex_.clear();
    colliderOf_.assign(size_t(nb), -1);
    std::vector<Box> bodyBox;
    m.bodyColliders.clear();
    for (int b = 0; b < nb; ++b) {
        if (rigid.isFixed(b)) continue;
        colliderOf_[size_t(b)] = int(bodyIndex_.size());
        bodyIndex_.push_back(b);
        m.bodyColliders.push_back(colliderOf(rigid.collider(b), rigid.friction(b)));
        const Vec3 x0 = rigid.startPosition(b), x1 = Vec3(rigid.poses()[size_t(b)].x);
        bodyBox.push_back(sweptBox(x0, x1, 1.1f * boundingRadius(rigid.collider(b)) + norm(x1 - x0)));
    }
    const size_t nc = bodyIndex_.size();
    // Per vertex, its candidate colliders in collider order (vertex-major rows, sorted by (vertex, body)).
    std::vector<std::vector<int>> perVertex(static_cast<size_t>(nv));
    parallelFor(size_t(nv), [&](size_t v) {
        const Vec3& x = m.x[v];
        const Vec3 xp = x + m.v[v] * h + gravity * (h * h);
        const float off = m.numCloths > 0 ? m.colliderOffset[v] : 0.f;
        const Box pb = sweptBox(x, xp, off + norm(xp - x));
        for (size_t c = 0; c < nc; ++c)
            if (pb.overlaps(bodyBox[c])) perVertex[v].push_back(int(c));
    });
    m.bodyRows.clear();
    m.bodyRowOffsets.assign(size_t(nv) + 1, 0);
    const double ih2 = 1.0 / (double(h) * double(h));
    for (int v = 0; v < nv; ++v) {
        for (int c : perVertex[size_t(v)]) {
            const int body = bodyIndex_[size_t(c)];
            // Penalty floor: the effective inertia of the pair (a fixed vertex: the body's).
            const double mv = m.fixed[size_t(v)] ? rigid.mass(body) : double(m.mass[size_t(v)]);
            const float kMin = float(std::min(std::min(mv, rigid.mass(body)) * ih2, p.kMax));
            BodyContactRow row;
            row.collider = c;
            row.vertex = v;
            row.k = kMin;
            const auto it = std::lower_bound(previous_.begin(), previous_.end(), std::make_pair(v, body),
                                             [](const Kept& a, const std::pair<int, int>& key) {
                                                 return std::make_pair(a.vertex, a.body) < key;
                                             });
            if (it != previous_.end() && it->vertex == v && it->body == body) {
                // Warm start as the rigid contacts (rigid_solver.cpp): lambda kept, k <- max(gamma k, k_min).
                row.lambda = it->lambda;
                row.k = std::max(kMin, float(p.gamma * double(it->k)));
            }
            m.bodyRows.push_back(row);
        }
        m.bodyRowOffsets[size_t(v) + 1] = int(m.bodyRows.size());
    }
    // Collider -> rows.
    bodyRowItems_ = Csr{};
    bodyRowItems_.offsets.assign(nc + 1, 0);
    for (const BodyContactRow& r : m.bodyRows) ++bodyRowItems_.offsets[size_t(r.collider) + 1];
    for (size_t c = 0; c < nc; ++c) bodyRowItems_.offsets[c + 1] += bodyRowItems_.offsets[c];
    bodyRowItems_.items.assign(m.bodyRows.size(), 0);
    std::vector<int> fill(bodyRowItems_.offsets.begin(), bodyRowItems_.offsets.end() - 1);
    for (size_t r = 0; r < m.bodyRows.size(); ++r)
        bodyRowItems_.items[size_t(fill[size_t(m.bodyRows[r].collider)]++)] = int(r);
    publishBodies(soft, rigid);
}

void RigidParticleCoupling::publishBodies(SoftSolver& soft, const RigidSolver& rigid) const {
    std::vector<BodyCollider>& bc = soft.model().bodyColliders;
    for (size_t c = 0; c < bodyIndex_.size(); ++c) {
        const int b = bodyIndex_[c];
        const BodyPose& p = rigid.poses()[size_t(b)];
        bc[c].x = p.x;
        bc[c].q = p.q;
        bc[c].xPrev = Vec3d(rigid.startPosition(b));
        bc[c].qPrev = Quatd(rigid.startRotation(b));
    }
}

void RigidParticleCoupling::readPositions(const SoftModel& m, const PositionReader& read) {
    read(x_, xPrev_);
    offset_.assign(x_.size(), 0.0);
    if (m.numCloths > 0)
        for (size_t v = 0; v < x_.size(); ++v) offset_[v] = double(m.colliderOffset[v]);
}

// Body side of every row of collider c (energy/body_contact.h): the particle's force f and block H at the
// particle position x, with the opposite sign on the body at the same point, r = x - c:
//   f_lin -= f,  f_ang -= r x f,  H_ll += H,  H_al += [r]x H,  H_aa += [r]x H [r]x^T.
void RigidParticleCoupling::bodyBlock(int c, const SoftModel& m, float h, Block66d& blk) const {
    blk.clear();
    const BodyCollider& bc = m.bodyColliders[size_t(c)];
    const float eps = contactEps_;
    for (int k = bodyRowItems_.offsets[size_t(c)]; k < bodyRowItems_.offsets[size_t(c) + 1]; ++k) {
        const BodyContactRow& row = m.bodyRows[size_t(bodyRowItems_.items[size_t(k)])];
        const size_t v = size_t(row.vertex);
        Vec3d f(0.0);
        Mat33d H;
        if (!bodyParticleContact(bc, row, eps, x_[v], xPrev_[v], offset_[v], double(h), f, H)) continue;
        const Vec3d r = x_[v] - bc.x;
        const Mat33d S = skew(r);
        const Mat33d SH = S * H;
        blk.flin -= f;
        blk.fang -= cross(r, f);
        blk.hll += H;
        blk.hal += SH;
        blk.haa += SH * S.transposed();
    }
}

void RigidParticleCoupling::bodyTerms(SoftSolver& soft, const RigidSolver& rigid, float h,
                                      const PositionReader& read) {
    readPositions(soft.model(), read);
    contactEps_ = soft.contactParams().frictionEps;
    blocks_.resize(size_t(rigid.numBodies()));
    parallelFor(size_t(rigid.numBodies()), [&](size_t b) {
        const int c = colliderOf_[b];
        if (c < 0)
            blocks_[b].clear();
        else
            bodyBlock(c, soft.model(), h, blocks_[b]);
    });
}

// AVBD dual update of every row at the particles' and the bodies' current iterate (eq. 11 and the penalty
// ramp): lambda <- max(0, k d + lambda); k <- min(k + beta |d|, k_max) while the row pushes.
void RigidParticleCoupling::dualUpdate(SoftSolver& soft, const RigidSolver& rigid,
                                       const PositionReader& read) {
    publishBodies(soft, rigid);
    readPositions(soft.model(), read);
    SoftModel& m = soft.model();
    parallelFor(m.bodyRows.size(), [&](size_t r) {
        BodyContactRow& row = m.bodyRows[r];
        const size_t v = size_t(row.vertex);
        Vec3d n, lp;
        const double d = bodyPenetration(m.bodyColliders[size_t(row.collider)], x_[v], offset_[v], n, lp);
        const double lambda = std::max(0.0, double(row.k) * d + double(row.lambda));
        row.lambda = float(lambda);
        if (lambda > 0) row.k = float(std::min(double(row.k) + beta_ * std::fabs(d), kMax_));
    });
}

void RigidParticleCoupling::end(SoftSolver& soft) {
    SoftModel& m = soft.model();
    previous_.clear();
    previous_.reserve(m.bodyRows.size());
    for (const BodyContactRow& r : m.bodyRows)
        if (r.lambda > 0) previous_.push_back({r.vertex, bodyIndex_[size_t(r.collider)], r.k, r.lambda});
    m.bodyColliders.clear();
    m.bodyRows.clear();
    m.bodyRowOffsets.clear();
}

}  // namespace vbd
