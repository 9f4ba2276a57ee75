#include "soft/cloth_stage.h"

#include "backend/parallel.h"
#include "soft/cloth_collision.h"

namespace vbd {

namespace {

StaticColliders staticColliders(const SoftModel& m) {
    StaticColliders sc;
    sc.colliders = &m.colliders;
    sc.offset = &m.colliderOffset;
    return sc;
}

}  // namespace

void ClothContactStage::begin(SoftModel& m, const std::vector<Vec3>& xPrev, std::vector<Vec3>& x) const {
    CollisionState& cs = m.collision;
    const StaticColliders sc = staticColliders(m);
    std::vector<Vec3> ref;
    const float R = chooseReferences(cs, xPrev, x, m.mass, m.fixed, sc, ref);
    detectCollisions(cs, xPrev, R, std::move(ref), m.fixed, sc);
    applyBound(m, x);
}

bool ClothContactStage::due(const SoftModel& m, int iteration) const {
    const int ci = m.collision.interval;
    return m.collision.enabled && ci > 0 && iteration > 1 && (iteration - 1) % ci == 0;
}

void ClothContactStage::refresh(SoftModel& m, std::vector<Vec3>& x) const {
    CollisionState& cs = m.collision;
    detectCollisions(cs, x, cs.queryRadius, {}, m.fixed, staticColliders(m));
    applyBound(m, x);
}

void ClothContactStage::applyBound(const SoftModel& m, std::vector<Vec3>& x) const {
    const CollisionState& cs = m.collision;
    parallelFor(cs.verts.size(), [&](size_t k) {
        const size_t v = size_t(cs.verts[k]);
        if (!m.fixed[v]) x[v] = truncateToBound(x[v], cs.xc[v], cs.ref[v], cs.bound[v]);
    });
}

}  // namespace vbd
