#include "soft/cloth_stage.h"

#include <atomic>

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

// The positions as float: the array itself, or a rounded copy into `scratch`.
template <typename T>
const std::vector<Vec3>& asFloat(const std::vector<Vec3T<T>>& x, std::vector<Vec3>& scratch) {
    if constexpr (std::is_same_v<T, float>) {
        return x;
    } else {
        scratch.resize(x.size());
        for (size_t i = 0; i < x.size(); ++i) scratch[i] = Vec3(x[i]);
        return scratch;
    }
}

}  // namespace

template <typename T>
void ClothContactStage::begin(SoftModel& m, const std::vector<Vec3T<T>>& xPrev, std::vector<Vec3T<T>>& x) {
    CollisionState& cs = m.collision;
    const StaticColliders sc = staticColliders(m);
    const std::vector<Vec3>& xp = asFloat(xPrev, xPrevf_);
    std::vector<Vec3> ref;
    const float R = chooseReferences(cs, xp, asFloat(x, xf_), m.mass, m.fixed, sc, ref);
    detectCollisions(cs, xp, R, std::move(ref), m.fixed, sc);
    held_ = applyBound(m, x);
}

bool ClothContactStage::due(const SoftModel& m, int iteration) const {
    const int ci = m.collision.interval;
    if (!m.collision.enabled || iteration <= 1) return false;
    // The interval is the scene's least (a sheet's may set it): a held soft body re-detects regardless.
    return held_ || (ci > 0 && (iteration - 1) % ci == 0);
}

template <typename T>
void ClothContactStage::refresh(SoftModel& m, std::vector<Vec3T<T>>& x) {
    CollisionState& cs = m.collision;
    detectCollisions(cs, asFloat(x, xf_), cs.queryRadius, {}, m.fixed, staticColliders(m));
    applyBound(m, x);
}

template <typename T>
bool ClothContactStage::applyBound(const SoftModel& m, std::vector<Vec3T<T>>& x) const {
    const CollisionState& cs = m.collision;
    std::atomic<bool> softMoved{false};
    parallelFor(cs.verts.size(), [&](size_t k) {
        const size_t v = size_t(cs.verts[k]);
        if (m.fixed[v]) return;
        const Vec3T<T> b = boundToBall(x[v], cs.xc[v], cs.ref[v], cs.bound[v]);
        if (b.x != x[v].x || b.y != x[v].y || b.z != x[v].z) {
            x[v] = b;
            if (cs.bodies[size_t(m.bodyOfVertex[v])].soft) softMoved.store(true, std::memory_order_relaxed);
        }
    });
    return softMoved.load();
}

template void ClothContactStage::begin<float>(SoftModel&, const std::vector<Vec3>&, std::vector<Vec3>&);
template void ClothContactStage::begin<double>(SoftModel&, const std::vector<Vec3d>&, std::vector<Vec3d>&);
template void ClothContactStage::refresh<float>(SoftModel&, std::vector<Vec3>&);
template void ClothContactStage::refresh<double>(SoftModel&, std::vector<Vec3d>&);

}  // namespace vbd
