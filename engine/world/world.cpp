// World: soft (VBD particles) + rigid (AVBD) solvers of one scene, stepped frame by frame, with the
// per-frame metrics of DESIGN.md.
#include "world/world.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "backend/parallel.h"
#include "math/error.h"
#include "soft/soft_solver.h"
#include "world/world_state.h"
#ifdef VBD_WORLD_RIGID
#include "rigid/rigid_solver.h"
#endif
#ifdef VBD_WORLD_COARSE
#include "coarse/coarse_hook.h"
#endif

namespace vbd {

namespace {

std::atomic<std::uint64_t> g_nextWorldId{1};

class WorldImpl final : public World {
  public:
    explicit WorldImpl(const SceneDesc& d) : desc_(d), id_(g_nextWorldId++) {
        soft_.build(d);
#ifdef VBD_WORLD_RIGID
        rigid_ = std::make_unique<RigidSolver>(d);
#endif
        rebuildSurfaces();
        setSolver(d.solver);
    }

    void step() override {
        auto t0 = std::chrono::steady_clock::now();
        ThreadLimit limit(desc_.solver.threads);
        FrameMetrics m;
        m.frame = frame_ + 1;
        const float h = float(desc_.dt / desc_.substeps);
        lastIts_.clear();
        for (int s = 0; s < desc_.substeps; ++s) {
            soft_.clearIterations();
            SoftStepStats st = soft_.step(h, desc_.gravity);
            if (s == 0) m.residualInitial = st.residualInitial;
            m.residualFinal = st.residualFinal;
            m.energy = st.energy;
            m.iterations = st.iterations;
            m.solveMs += st.solveMs;
            m.diagnosticsMs += st.diagnosticsMs;
            m.coarseMs += st.hookMs;
            m.collisionMs += st.collisionMs;
            for (auto r : soft_.iterations()) {
                r.frame = m.frame;
                r.iteration += s * (desc_.solver.iterations + 1);
                lastIts_.push_back(r);
            }
#ifdef VBD_WORLD_RIGID
            if (rigid_->numBodies() > 0) {
                auto tr = std::chrono::steady_clock::now();
                rigid_->step(h);
                m.solveMs +=
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tr).count();
                if (soft_.model().numVertices() == 0) {
                    // A rigid-only scene reports the rigid solver's convergence.
                    m.iterations = desc_.solver.iterations;
                    const auto& ri = rigid_->lastIterations();
                    if (!ri.empty()) {
                        m.residualInitial = s == 0 ? ri.front().residual : m.residualInitial;
                        m.residualFinal = ri.back().residual;
                        m.energy = ri.back().energy;
                    }
                    for (auto r : ri) {
                        r.frame = m.frame;
                        lastIts_.push_back(r);
                    }
                }
            }
#endif
        }
        ++frame_;
        time_ += desc_.dt;
        m.time = time_;
        // Mass-weighted center of mass, kinetic energy and max speed over particles and bodies.
        const SoftModel& sm = soft_.model();
        double mass = 0, ke = 0, vmax = 0;
        Vec3d com(0, 0, 0);
        for (int i = 0; i < sm.numVertices(); ++i) {
            const double mi = sm.mass[size_t(i)];
            mass += mi;
            com += Vec3d(sm.x[size_t(i)]) * mi;
            const double v2 = squaredNorm(Vec3d(sm.v[size_t(i)]));
            ke += 0.5 * mi * v2;
            vmax = std::max(vmax, std::sqrt(v2));
        }
#ifdef VBD_WORLD_RIGID
        if (rigid_->numBodies() > 0) {
            mass += rigid_->totalMass();
            com += rigid_->massWeightedCom();
            ke += rigid_->kineticEnergy();
            vmax = std::max(vmax, rigid_->maxSpeed());
        }
#endif
        m.com = mass > 0 ? com / mass : Vec3d(0, 0, 0);
        m.kineticEnergy = ke;
        m.maxSpeed = vmax;
        m.minVolumeRatio = soft_.minVolumeRatio();
        m.stepMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        history_.push_back(m);
    }

    const SceneDesc& desc() const override { return desc_; }
    double time() const override { return time_; }
    int frame() const override { return frame_; }
    const std::vector<Vec3>& positions() const override { return soft_.model().x; }
    const std::vector<Vec3>& velocities() const override { return soft_.model().v; }
    const std::vector<char>& fixedMask() const override { return soft_.model().fixed; }
    const std::vector<SurfaceView>& surfaces() const override { return surfaces_; }
    int numColors() const override { return int(soft_.model().colorGroups.size()); }

    void scalarField(ScalarField f, std::vector<float>& out) const override {
        const SoftModel& sm = soft_.model();
        switch (f) {
            case ScalarField::Color:
                out.assign(sm.color.begin(), sm.color.end());
                break;
            case ScalarField::Residual:
                out = soft_.vertexResidual();
                break;
            case ScalarField::VolumeRatio:
                soft_.volumeRatioField(out);
                break;
            case ScalarField::DiagonalDominance:
                soft_.diagonalDominanceField(out);
                break;
            case ScalarField::DominanceSum: {
                std::vector<float> maxRatio;
                soft_.diagonalDominanceField(maxRatio, &out);
                break;
            }
            default:
                out.assign(size_t(sm.numVertices()), 0.f);
        }
    }

    std::vector<RigidBodyView> bodies() const override {
#ifdef VBD_WORLD_RIGID
        return rigid_->views();
#else
        return {};
#endif
    }
    std::vector<ContactView> contacts() const override {
#ifdef VBD_WORLD_RIGID
        return rigid_->contactViews();
#else
        return {};
#endif
    }
    std::vector<JointView> joints() const override {
        std::vector<JointView> out;
#ifdef VBD_WORLD_RIGID
        const auto& st = rigid_->states();
        for (const auto& j : rigid_->joints()) {
            JointView v;
            v.bodyA = j.a;
            v.bodyB = j.b;
            if (j.a >= 0) {
                const RigidBodyState& a = st[size_t(j.a)];
                v.centerA = a.position;
                v.anchorA = a.position + rotate(a.rotation, j.rA);
            } else {
                v.centerA = v.anchorA = j.rA;  // world anchor
            }
            const RigidBodyState& b = st[size_t(j.b)];
            v.centerB = b.position;
            v.anchorB = b.position + rotate(b.rotation, j.rB);
            out.push_back(v);
        }
#endif
        return out;
    }
    const std::vector<FrameMetrics>& history() const override { return history_; }
    const std::vector<IterationRecord>& lastConvergence() const override { return lastIts_; }

    void setSolver(const SolverDesc& s) override {
        soft_.setParams(s);  // may refuse (double precision with cloth): nothing changes then
        desc_.solver = s;
#ifdef VBD_WORLD_RIGID
        rigid_->setParams(s);
#endif
#ifdef VBD_WORLD_COARSE
        if (s.coarse.enabled) {
            if (!coarse_) coarse_ = makeCoarseHook();
            coarse_->configure(s.coarse);
            soft_.setSweepHook(coarse_.get());
        } else {
            soft_.setSweepHook(nullptr);
        }
#endif
    }
    void setDrag(int particle, const Vec3& target, float stiffness) override {
        soft_.setDrag(particle, target, particle >= 0 ? stiffness : 0.f);
    }
    void setBodyDrag(int body, const Vec3& localPoint, const Vec3& target, float stiffness) override {
#ifdef VBD_WORLD_RIGID
        rigid_->setDrag(body, localPoint, target, stiffness);
#endif
    }

    int addRigidBody(const RigidBodyDesc& body) override {
#ifdef VBD_WORLD_RIGID
        // The rigid solver is rebuilt from the extended description (colors, broad phase and contact
        // lists depend on the body set); the existing bodies are put back where they are now. Contact
        // warm-start data is lost, which costs a few sweeps of convergence in the next step.
        std::vector<RigidBodyState> states = rigid_->states();
        SceneDesc d = desc_;
        d.rigidBodies.push_back(body);
        d.rigidBodies.back().key = "rigid_bodies[" + std::to_string(d.rigidBodies.size() - 1) + "]";
        auto fresh = std::make_unique<RigidSolver>(d);
        fresh->setParams(desc_.solver);
        for (size_t i = 0; i < states.size(); ++i) fresh->setState(int(i), states[i]);
        rigid_ = std::move(fresh);
        desc_.rigidBodies = d.rigidBodies;
        return int(desc_.rigidBodies.size()) - 1;
#else
        throw InputError(desc_.file, "rigid_bodies", "built without the rigid-body solver");
#endif
    }

    VertexInspect inspectVertex(int particle) const override {
        VertexInspect v;
        if (particle < 0 || particle >= soft_.model().numVertices()) return v;
        soft_.vertexBlockInfo(particle, v.block, v.dominance, v.dominanceSum);
        v.particle = particle;
        v.valid = true;
        return v;
    }

    std::shared_ptr<const WorldState> saveState() const override {
        auto s = std::make_shared<WorldStateData>();
        s->origin = id_;
        s->frame = frame_;
        s->time = time_;
        saveSoft(soft_, *s);
#ifdef VBD_WORLD_RIGID
        if (rigid_->numBodies() > 0) s->rigid = std::make_shared<const RigidSolver>(*rigid_);
        s->bodies = rigid_->states();
#endif
        s->rigidBodies = desc_.rigidBodies;
        s->lastIterations = lastIts_;
        s->historySize = history_.size();
        return s;
    }

    bool restoreState(const WorldState& state) override {
        const auto* s = dynamic_cast<const WorldStateData*>(&state);
        if (!s) return false;
        const bool same = s->origin == id_;
#ifdef VBD_WORLD_RIGID
        // Another World (an edited description) keeps its own rigid solver and takes only the bodies'
        // poses and velocities; a body added by addRigidBody since then is one body too many.
        if (!same && s->bodies.size() != size_t(rigid_->numBodies())) return false;
#endif
        if (!restoreSoft(soft_, *s)) return false;
#ifdef VBD_WORLD_RIGID
        if (same && s->rigid) {
            rigid_ = std::make_unique<RigidSolver>(*s->rigid);
            rigid_->setParams(desc_.solver);
            desc_.rigidBodies = s->rigidBodies;
        } else if (same && !s->rigid && rigid_->numBodies() > 0) {
            rigid_ = std::make_unique<RigidSolver>(desc_with(s->rigidBodies));  // bodies added since
            rigid_->setParams(desc_.solver);
            desc_.rigidBodies = s->rigidBodies;
        } else {
            for (size_t i = 0; i < s->bodies.size(); ++i) rigid_->setState(int(i), s->bodies[i]);
        }
#endif
        frame_ = s->frame;
        time_ = s->time;
        lastIts_ = s->lastIterations;
        if (history_.size() > s->historySize) history_.resize(s->historySize);
#ifdef VBD_WORLD_COARSE
        coarse_.reset();  // its factorization belongs to the frame it was made at (world_state.h)
        setSolver(desc_.solver);
#endif
        return true;
    }

    SoftSolver& soft() { return soft_; }

  private:
    SceneDesc desc_with(const std::vector<RigidBodyDesc>& bodies) const {
        SceneDesc d = desc_;
        d.rigidBodies = bodies;
        return d;
    }
    void rebuildSurfaces();
    SceneDesc desc_;
    SoftSolver soft_;
#ifdef VBD_WORLD_RIGID
    std::unique_ptr<RigidSolver> rigid_;
#endif
#ifdef VBD_WORLD_COARSE
    std::unique_ptr<CoarseHook> coarse_;
#endif
    std::vector<SurfaceView> surfaces_;
    std::vector<FrameMetrics> history_;
    std::vector<IterationRecord> lastIts_;
    int frame_ = 0;
    double time_ = 0;
    std::uint64_t id_;
};

// Boundary faces of the tet mesh: faces used by exactly one tet, oriented outward. (A tet (0,1,2,3) with
// det Dm > 0 has outward faces (1,2,3), (0,3,2), (0,1,3), (0,2,1).)
void WorldImpl::rebuildSurfaces() {
    surfaces_.clear();
    const SoftModel& sm = soft_.model();
    struct Face {
        std::array<int, 3> sorted, tri;
        int body;
    };
    std::vector<Face> faces;
    faces.reserve(sm.tets.size() * 4);
    static const int fi[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    for (const auto& t : sm.tets)
        for (const auto& f : fi) {
            Face fc;
            fc.tri = {t[f[0]], t[f[1]], t[f[2]]};
            fc.sorted = fc.tri;
            std::sort(fc.sorted.begin(), fc.sorted.end());
            fc.body = sm.bodyOfVertex[size_t(t[0])];
            faces.push_back(fc);
        }
    std::sort(faces.begin(), faces.end(), [](const Face& a, const Face& b) { return a.sorted < b.sorted; });
    int nb = 0;
    for (int b : sm.bodyOfVertex) nb = std::max(nb, b + 1);
    surfaces_.resize(size_t(nb));
    for (int b = 0; b < nb; ++b) surfaces_[size_t(b)].body = b;
    for (size_t i = 0; i < faces.size();) {
        size_t j = i + 1;
        while (j < faces.size() && faces[j].sorted == faces[i].sorted) ++j;
        if (j - i == 1) surfaces_[size_t(faces[i].body)].tris.push_back(faces[i].tri);
        i = j;
    }
    // Cloth sheets: every membrane triangle, drawn from both sides.
    for (const auto& t : sm.tris) {
        const int b = sm.bodyOfVertex[size_t(t[0])];
        surfaces_[size_t(b)].tris.push_back(t);
        surfaces_[size_t(b)].doubleSided = true;
    }
}

}  // namespace

std::unique_ptr<World> World::create(const SceneDesc& desc) { return std::make_unique<WorldImpl>(desc); }

}  // namespace vbd
