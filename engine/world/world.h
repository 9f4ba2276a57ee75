#pragma once
// A World is everything one scene simulates: VBD particles (tets and cloth) and AVBD rigid bodies.
// It is the narrow view the app, the CLI, tests and benchmarks share: positions, surfaces, per-vertex
// scalar fields and metrics out; parameter structs in. No window or GPU types here.
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics/metrics.h"
#include "gpu/device_bodies.h"
#include "gpu/device_particles.h"
#include "mesh/surface_ray.h"
#include "mesh/tet_mesh.h"
#include "scene/scene_desc.h"
#include "views/views.h"

namespace vbd {

// A World's dynamic state at one frame (World::saveState). Opaque: its holder keeps it to go back to that
// frame later (the app's timeline) and budgets memory with bytes().
class WorldState {
  public:
    virtual ~WorldState() = default;
    virtual size_t bytes() const = 0;
    // Whether particles() gives the saved frame's positions and velocities (false: it keeps none).
    virtual bool carriesParticles() const { return false; }
    // The saved frame's positions and velocities as World::positions() and velocities() gave them, each that
    // is not null. A state kept in a device's memory brings them to the host here (a blocking copy that waits
    // for the save alone), from any thread: a reader that needs a frame's positions only sometimes (the app's
    // window draws them from the device) takes them from its save when it needs them.
    virtual void particles(std::vector<Vec3>* x, std::vector<Vec3>* v) const {
        if (x) x->clear();
        if (v) v->clear();
    }
    int frame = 0;
    double time = 0;
};

// How a World is made beyond its scene.
struct WorldOptions {
    // The device backend's steppers run on the host executor (gpu/host_exec.h: the device orchestration
    // through parallelFor) as if it were a CUDA device named "host executor": solver.backend cuda and auto
    // take it. For tests of the World's device path (the coupled step in parts, the hooks) without a GPU.
    bool hostExecutor = false;
    // The CPU solver sweeps with its scalar per-vertex kernel (SoftSolver::SweepOptions simd = false): the
    // host executor's order of the terms, so that the two backends agree bit for bit (tests).
    bool scalarSweep = false;
};

// A watched particle's position (World::setWatchedParticles).
struct WatchedParticle {
    int particle = -1;
    Vec3 x;
};

// The nearest hit of the ray with the triangles of these surfaces over positions x, the triangles numbered
// in order (World::surfaceHit's cast on the host).
SurfaceHit castSurfaces(const std::vector<SurfaceView>& surfaces, const std::vector<Vec3>& x,
                        const SurfaceRay& ray);

class World {
  public:
    virtual ~World() = default;
    // Throws InputError for a scene that cannot be simulated (bad mesh, degenerate tets, ...).
    static std::unique_ptr<World> create(const SceneDesc& desc);
    static std::unique_ptr<World> create(const SceneDesc& desc, const WorldOptions& options);

    virtual void step() = 0;  // one frame of desc().dt, with desc().substeps substeps
    virtual const SceneDesc& desc() const = 0;
    // desc() as an immutable copy that readers on other threads may keep (the app's snapshots): the World
    // makes it once per change of its description (a solver edit, an added body, a restore), not per call.
    virtual std::shared_ptr<const SceneDesc> sharedDesc() const {
        return std::make_shared<SceneDesc>(desc());
    }
    virtual double time() const = 0;
    virtual int frame() const = 0;

    // Particles (soft bodies then cloths, in scene order).
    virtual const std::vector<Vec3>& positions() const = 0;
    virtual const std::vector<Vec3>& velocities() const = 0;
    // positions() in the state's own precision, for outputs that keep every digit (final_state.json): a
    // double state's digits below float where the state still rounds to the published positions; else (a
    // float state, a World without one) positions() widened.
    virtual std::vector<Vec3d> statePositions() const {
        const std::vector<Vec3>& x = positions();
        return {x.begin(), x.end()};
    }
    virtual const std::vector<char>& fixedMask() const = 0;
    virtual const std::vector<SurfaceView>& surfaces() const = 0;
    // The number of particles, for a reader that needs no positions (positions() may bring them to the host).
    virtual size_t numParticles() const { return positions().size(); }
    // One box per surface (surfaces()[k]): the bounds of its body's particles (min above max for none).
    // With the lazy publish a device step measures them where the state is (gpu/frame_bounds.h) and they are
    // read without the positions. The default bounds each surface's triangle corners.
    virtual std::vector<Box3> surfaceBounds() const;
    // The positions of the fixed particles (fixedMask), in index order: the app's pin markers. With the lazy
    // publish a device step gathers them with its measures and they are read without the positions.
    virtual std::vector<Vec3> pinPositions() const;
    // Particles a reader wants the positions of every frame without the others (the app's picked vertex, a
    // dragged particle, a lesson's marked vertices): with the lazy publish a device step gathers them with
    // the pins, from the step after they are set. Out-of-range indices and repeats are dropped.
    virtual void setWatchedParticles(const std::vector<int>& particles) { (void)particles; }
    // The watched particles and their positions at this frame, in the order set (none by default).
    virtual std::vector<WatchedParticle> watchedPositions() const { return {}; }
    // The nearest hit of the ray with the particle surfaces at this frame (surfaces()' triangles, numbered in
    // order; mesh/surface_ray.h: the hit triangle's corner nearest to the hit is the particle). The default
    // casts over positions(); a World whose last step cast this very ray where its state is (setSurfaceRay)
    // answers from that, without reading the positions.
    virtual SurfaceHit surfaceHit(const SurfaceRay& ray) const;
    // A ray a reader will ask surfaceHit about after each step (the app's hover readout; nullopt: none). With
    // the lazy publish a device step casts it with its measures, from the step after it is set: the hover
    // over a playing scene then reads no positions. No effect elsewhere.
    virtual void setSurfaceRay(const std::optional<SurfaceRay>& ray) { (void)ray; }
    // The hit the last step cast where the state is, with its ray (nullopt: none cast; a reader asking
    // another ray casts over the positions).
    struct CastHit {
        SurfaceRay ray;
        SurfaceHit hit;
    };
    virtual std::optional<CastHit> castSurfaceHit() const { return std::nullopt; }
    // Particle i's position: positions()[i], read without the others where the World has it apart (a watched
    // particle of a snapshot).
    virtual Vec3 particlePosition(int i) const { return positions()[size_t(i)]; }
    virtual int numColors() const = 0;
    // Which backend steps the soft bodies and why, in one line (the log line and the status line), e.g.
    // "no CUDA device: CPU backend" or "CUDA backend on NVIDIA H200 (sm_90): soft-body step on the device".
    virtual std::string backendLine() const { return "CPU backend"; }
    // The device step's positions (the CUDA-Vulkan interop reads them in place); x = nullptr when the soft
    // bodies step on the CPU, current = false when this frame's positions are only in positions().
    virtual DeviceParticles deviceParticles() const { return {}; }
    virtual void scalarField(ScalarField field, std::vector<float>& out) const = 0;
    // The field a reader will read after each step (the app's heat map, `vbdlab render --field`; None: no
    // reader). A field the step would not otherwise bring to the host is then kept: with the CUDA backend the
    // residual is downloaded only while wanted, and reads empty (no map) after device steps that did not
    // want it. Turning it on between steps makes the last step's field readable at once.
    virtual void setWantedField(ScalarField field) { (void)field; }
    // Lazy publish, for runs whose frames are drawn from the device (the CUDA-Vulkan interop) or not drawn
    // (vbdlab sim): with the device backend a step then leaves the particles' state on the device and brings
    // only the frame's measures to the host (gpu/frame_sums.h, reduced where the state is: the metrics and
    // the finite check of every frame); positions(), velocities(), scalarField(), inspectVertex() and
    // setSolver() bring the state to the host when they are called, and saveState() copies it within the
    // device's memory (restoreState puts it back there, or brings it to the host where it cannot). The
    // metrics then differ from an eager run's in the order of their sums and, in double, total_energy in the
    // digits below float (it reads the device's state itself, as the CPU backend reads its own; the eager
    // device run reads the published floats). Off by default: every step publishes. No effect on the CPU
    // backend.
    virtual void setLazyPublish(bool on) { (void)on; }
    // How many times a reader brought a lazily published state to the host (0 on the CPU backend): what the
    // tests and the app's exit line count to show which readers still need the particles.
    virtual size_t stateFetches() const { return 0; }

    // Rigid bodies in scene order.
    virtual std::vector<RigidBodyView> bodies() const = 0;
    // Their number, without making the views.
    virtual size_t numBodies() const { return bodies().size(); }
    // The device rigid step's states (the interop's body instances read them in place); state = nullptr
    // when the rigid bodies step on the CPU, current = false when this frame's poses are only in bodies().
    virtual DeviceRigidBodies deviceBodies() const { return {}; }
    virtual std::vector<ContactView> contacts() const = 0;
    // Their number, without making the views (nor bringing a device step's contact records to the host).
    virtual size_t contactCount() const { return contacts().size(); }
    virtual std::vector<JointView> joints() const = 0;

    // Diagnostics.
    // The last 2,048 to 2,303 frames (the app's snapshots: the plots' window), valid until the next step.
    virtual MetricsSpan history() const = 0;
    virtual const std::vector<IterationRecord>& lastConvergence() const = 0;  // last frame's iterations

    // Steering: new solver parameters take effect at the next step.
    virtual void setSolver(const SolverDesc& s) = 0;
    // A spring pulling particle i towards target (picking). i < 0 releases it.
    virtual void setDrag(int particle, const Vec3& target, float stiffness) = 0;
    virtual void setBodyDrag(int body, const Vec3& localPoint, const Vec3& target, float stiffness) = 0;
    // Adds a rigid body to the running scene (the app's "throw a box"); existing bodies keep their
    // state. Returns its index. Throws InputError for an unusable body.
    virtual int addRigidBody(const RigidBodyDesc& body) = 0;
    // The block and dominance of particle i (valid = false if there is none; a snapshot may answer for
    // the particle it was last asked about only, one step later).
    virtual VertexInspect inspectVertex(int particle) const = 0;

    // History. saveState captures everything the next step reads, so that restoreState(*saveState())
    // followed by N steps gives the bits those N steps gave the first time (world/world_state.h lists
    // what that is). restoreState also takes the state of another World built from an edited
    // description of the same scene (same particles, elements and bodies): positions, velocities and
    // the clock carry over and the new parameters apply from there; the rigid solver's warm start is
    // then not carried. It returns false and changes nothing when the shapes differ. Worlds without
    // history (the default) save nothing.
    virtual std::shared_ptr<const WorldState> saveState() const { return nullptr; }
    virtual bool restoreState(const WorldState& state) { return false; }
};

}  // namespace vbd
