// Scene -> SoftModel: meshes, per-tet materials (regions scale Young's modulus), lumped masses, fixed and
// kinematic vertices, static colliders and the vertex coloring.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "coloring/coloring.h"
#include "coloring/share_order.h"
#include "energy/material.h"
#include "math/error.h"
#include "mesh/box_grid.h"
#include "mesh/mesh_import.h"
#include "soft/cloth_build.h"
#include "soft/soft_solver.h"

namespace vbd {

namespace {

// The longest edge of any tet or triangle at rest (SoftModel::restEdgeMax).
float longestRestEdge(const SoftModel& m) {
    float e2 = 0;
    auto edges = [&](const auto& elem) {
        for (size_t a = 0; a < elem.size(); ++a)
            for (size_t b = a + 1; b < elem.size(); ++b)
                e2 = std::max(e2, squaredNorm(m.x0[size_t(elem[a])] - m.x0[size_t(elem[b])]));
    };
    for (const auto& t : m.tets) edges(t);
    for (const auto& t : m.tris) edges(t);
    return std::sqrt(e2);
}

TetMesh makeSoftMesh(const SceneDesc& scene, const SoftBodyDesc& b) {
    if (b.type == "box_grid") return makeBoxGrid(b.min, b.max, b.cells, b.tetsPerCell);
    MeshImportOptions opt;
    opt.scale = b.scale;
    opt.translate = b.translate;
    opt.rotation = b.rotation;
    opt.maxVolume = b.maxVolume;
    opt.sceneFile = scene.file;  // errors name the scene key: "scene.json: soft_bodies[2].path: x.obj: ..."
    opt.sceneKey = b.key;
    return loadTetMesh(b.path, opt);
}

}  // namespace

std::vector<ParticleCollider> buildColliders(const SceneDesc& scene) {
    std::vector<ParticleCollider> cs;
    if (scene.ground.enabled) {
        ParticleCollider g;
        g.type = ParticleColliderType::Plane;
        g.center = Vec3(0, float(scene.ground.height), 0);
        g.normal = Vec3(0, 1, 0);
        g.friction = float(scene.ground.friction);
        g.stiffness = float(scene.ground.stiffness);
        cs.push_back(g);
    }
    for (const auto& rb : scene.rigidBodies) {
        if (!rb.fixed) continue;
        ParticleCollider c;
        c.center = rb.position;
        c.rotation = rb.rotation;
        c.friction = float(rb.friction);
        c.stiffness = float(scene.ground.stiffness);
        if (rb.shape == ShapeType::Box) {
            c.type = ParticleColliderType::Box;
            c.halfExtents = rb.size * 0.5f;
        } else {
            c.type = ParticleColliderType::Sphere;
            c.halfExtents = Vec3(float(rb.radius), 0, 0);
        }
        cs.push_back(c);
    }
    return cs;
}

void appendParticle(SoftModel& m, const Vec3& p, const Vec3& v, int body,
                    const std::vector<FixedDesc>& fixed) {
    m.x.push_back(p);
    m.x0.push_back(p);
    m.v.push_back(v);
    m.mass.push_back(0.f);
    m.bodyOfVertex.push_back(body);
    int fixedIdx = -1;
    for (size_t f = 0; f < fixed.size(); ++f)
        if (fixed[f].box.contains(p)) fixedIdx = int(f);
    m.fixed.push_back(fixedIdx >= 0);
    m.kinematic.push_back(-1);
    if (fixedIdx < 0) return;
    const FixedDesc& fd = fixed[size_t(fixedIdx)];
    m.v.back() = Vec3(0.f);
    if (squaredNorm(fd.velocity) > 0 || squaredNorm(fd.angularVelocity) > 0) {
        KinematicRegion k;
        k.center = fd.hasCenter ? fd.center : (fd.box.min + fd.box.max) * 0.5f;
        k.omega = fd.angularVelocity;
        k.velocity = fd.velocity;
        m.kinematic.back() = int(m.regions.size());
        m.regions.push_back(k);
    }
}

void SoftSolver::build(const SceneDesc& scene) {
    m_ = SoftModel{};
    splitSlots_ = 0;  // prepareSplit orders the new colors when a sweep first needs it
    interior_.clear();
    shareBegin_.clear();
    params_ = scene.solver;
    h_ = float(scene.dt / scene.substeps);
    time_ = 0;
    for (size_t bi = 0; bi < scene.softBodies.size(); ++bi) {
        const SoftBodyDesc& b = scene.softBodies[bi];
        TetMesh mesh = makeSoftMesh(scene, b);
        std::vector<TetRest> rest = computeTetRest(mesh, b.type == "mesh" ? b.path : scene.file);
        const int base = m_.numVertices();
        const Lame lame0 = lameFromYoungPoisson(b.material.youngs, b.material.poisson);
        Vec3d centroid(0, 0, 0);
        for (const Vec3& p : mesh.X) centroid += Vec3d(p);
        centroid /= double(std::max<size_t>(1, mesh.X.size()));
        for (const Vec3& p : mesh.X) {
            appendParticle(m_, p, b.velocity + cross(b.angularVelocity, p - Vec3(centroid)), int(bi),
                           b.fixed);
        }
        for (size_t e = 0; e < mesh.tets.size(); ++e) {
            const auto& t = mesh.tets[e];
            const Vec3 c = (mesh.X[t[0]] + mesh.X[t[1]] + mesh.X[t[2]] + mesh.X[t[3]]) * 0.25f;
            double scale = 1;
            for (const auto& r : b.regions)
                if (r.box.contains(c)) scale *= r.youngsScale;
            Lame l{lame0.mu * scale, lame0.lambda * scale};
            Lame nh = neoHookeanFromLame(l);
            m_.tets.push_back({t[0] + base, t[1] + base, t[2] + base, t[3] + base});
            m_.DmInv.push_back(rest[e].DmInv);
            m_.volume.push_back(rest[e].volume);
            m_.mu.push_back(float(nh.mu));
            m_.lambda.push_back(float(nh.lambda));
            m_.kd.push_back(float(b.material.damping));
            const float mv = float(b.material.density) * rest[e].volume * 0.25f;
            for (int v : t) m_.mass[size_t(v) + size_t(base)] += mv;
        }
    }
    if (!scene.cloths.empty()) appendCloths(scene, m_);
    const int n = m_.numVertices();
    m_.xPrev = m_.x;
    m_.y = m_.x;
    // As if the body had been accelerating under gravity: the first initial guess is the full inertial one.
    m_.vLast = m_.v;
    for (auto& vl : m_.vLast) vl -= scene.gravity * h_;
    m_.vertexTets = vertexTetAdjacency(n, m_.tets);
    m_.colliders = buildColliders(scene);
    finishCloths(scene, m_);
    Graph g;
    if (m_.tris.empty()) {
        g = graphFromElements(n, m_.tets);
    } else {
        // Cloth couples the vertices of a triangle and of a bending stencil (the two wing tips too).
        std::vector<std::vector<int>> elems;
        elems.reserve(m_.tets.size() + m_.tris.size() + m_.hinges.size());
        for (const auto& t : m_.tets) elems.emplace_back(t.begin(), t.end());
        for (const auto& t : m_.tris) elems.emplace_back(t.begin(), t.end());
        for (const auto& t : m_.hinges) elems.emplace_back(t.begin(), t.end());
        g = graphFromElements(n, elems);
    }
    // MCS colors box grids with 4 colors (greedy-by-degree needs 8), i.e. twice the parallel work per color.
    m_.color = colorGraph(g, ColoringMethod::Mcs);
    balanceColors(g, m_.color, 1.1);
    m_.colorGroups.clear();
    for (auto& grp : colorGroups(m_.color)) {
        std::vector<int> free;
        for (int v : grp)
            if (!m_.fixed[size_t(v)]) free.push_back(v);
        if (!free.empty()) m_.colorGroups.push_back(std::move(free));
    }
    orderGroupsForShares(g, m_.x, m_.colorGroups);
    m_.vertexGraph = std::move(g);
    buildTetBlocks(m_);
    buildClothBlocks(m_);
    {
        std::vector<int> all(static_cast<size_t>(n)), tets(m_.tets.size());
        std::iota(all.begin(), all.end(), 0);
        std::iota(tets.begin(), tets.end(), 0);
        m_.tetLanes.build(m_, tets, all);  // every tet, gathered at the free vertices
    }
    m_.restEdgeMax = longestRestEdge(m_);
    residual_.assign(size_t(n), 0.f);
    inContact_.assign(size_t(n), 0);
    // The state of either precision starts from the new model at the first step.
    stateF_ = SoftState<float>{};
    stateD_ = SoftState<double>{};
}

}  // namespace vbd
