#pragma once
// What the UI draws of a World: a read-only copy published by the simulation thread after every step or
// edit. The snapshot is itself a vbd::World, so the renderer, picking and panels read it as they would
// read the real one; its steering calls (setSolver, setDrag, setBodyDrag, addRigidBody, inspectVertex)
// are queued for the simulation thread, which applies them before its next step.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "gui/core/interop_slots.h"
#include "gui/core/metrics_window.h"
#include "world/world.h"

namespace vbdgui {

// Steering of one lab left by the UI for the simulation thread (latest value wins).
struct PendingCommands {
    bool solver = false;
    vbd::SolverDesc solverDesc;
    bool drag = false;
    int particle = -1;
    vbd::Vec3 target;
    float stiffness = 0;
    bool bodyDrag = false;
    int body = -1;
    vbd::Vec3 local, bodyTarget;
    float bodyStiffness = 0;
    std::vector<vbd::RigidBodyDesc> addBodies;  // thrown boxes, added before the next step
    int inspect = -1;                           // particle whose block the next snapshot carries
    std::vector<int> watch;                     // World::setWatchedParticles (the UI's single particles)
    std::optional<vbd::SurfaceRay> ray;         // World::setSurfaceRay (the hover's ray)
    bool contacts = false;                      // the next snapshot carries the contact markers
};

// Per-vertex material of the scene as drawn (the stiffness-contrast regions): 0 the body's own
// material, 1 inside a region with youngs_scale > 1 (stiffer), 2 inside one with youngs_scale < 1.
enum MaterialTag : unsigned char { kBaseMaterial = 0, kStifferRegion = 1, kSofterRegion = 2 };
// Tags from the rest positions (a World right after creation) and the regions of desc's soft bodies.
std::vector<unsigned char> materialTags(const vbd::World& restWorld);
// Per tag, the tagged vertex nearest the centroid of the tag's vertices at rest (-1: none): where the region
// labels sit, moving with the body. One vertex each, watched (World::setWatchedParticles), so that the labels
// read two positions a frame, not all of them.
std::array<int, 3> regionAnchors(const std::vector<unsigned char>& tags, const std::vector<vbd::Vec3>& rest);

// Fixed for one World's lifetime: shared by all of its snapshots.
struct WorldStatic {
    std::vector<vbd::SurfaceView> surfaces;
    std::vector<unsigned char> tags;               // MaterialTag per particle
    std::array<int, 3> regionAnchors{-1, -1, -1};  // by MaterialTag (regionAnchors)
    std::uint64_t generation = 0;                  // increments with every World a lab gets
    // The World's first state (before any carried state), which the camera frames after a load: framing
    // whatever frame the UI first saw made a scripted run's camera depend on timing.
    std::vector<vbd::Vec3> initialPositions;
    std::vector<vbd::RigidBodyView> initialBodies;
};

class WorldSnapshot final : public vbd::World {
  public:
    // Copies everything drawable from w; `field` is the heat-map field computed into the copy; history is
    // the plots' window of the timeline's metrics up to w's frame, shared (MetricsWindow). frameState: w's
    // saved state of this frame (the timeline's), or null. Where it carries the particles
    // (WorldState::particles), the snapshot takes its positions and velocities from it only when they are
    // first read, on the reader's thread: a frame the window draws from the device's buffers (the interop)
    // with nothing that reads the particles then costs the simulation thread no download and no copy of them.
    // Else they are copied from w here. fieldValues: w's values of `field` computed already this frame (the
    // interop's write mapped them), taken instead of computed again.
    WorldSnapshot(const vbd::World& w, vbd::ScalarField field, std::shared_ptr<const WorldStatic> fixed,
                  SharedMetrics history, std::shared_ptr<std::mutex> cmdMutex,
                  std::shared_ptr<PendingCommands> cmds,
                  std::shared_ptr<const vbd::WorldState> frameState = nullptr,
                  std::vector<float>* fieldValues = nullptr);
    void step() override {}
    const WorldStatic& fixedData() const { return *static_; }
    const vbd::SceneDesc& desc() const override { return *desc_; }
    std::shared_ptr<const vbd::SceneDesc> sharedDesc() const override { return desc_; }
    double time() const override { return time_; }
    int frame() const override { return frame_; }
    const std::vector<vbd::Vec3>& positions() const override;
    const std::vector<vbd::Vec3>& velocities() const override;
    // Whether positions() has been read (brought from the frame's state, or copied at construction).
    bool positionsRead() const;
    const std::vector<char>& fixedMask() const override { return fixed_; }
    const std::vector<vbd::SurfaceView>& surfaces() const override { return static_->surfaces; }
    size_t numParticles() const override { return fixed_.size(); }
    std::vector<vbd::Box3> surfaceBounds() const override { return bounds_; }
    std::vector<vbd::Vec3> pinPositions() const override { return pins_; }
    std::vector<vbd::WatchedParticle> watchedPositions() const override { return watched_; }
    // A watched particle's position without reading the others; any other from positions(); the origin for
    // an index out of range (one kept from another World).
    vbd::Vec3 particlePosition(int i) const override;
    // The particles the UI will read one by one (the picked vertex, a dragged particle, marked vertices):
    // the simulation thread watches them from its next step (World::setWatchedParticles), and the snapshots
    // after it carry their positions, so that reading them does not bring the others from a device.
    void watch(const std::vector<int>& particles) const;
    // The hover's ray (nullopt: none): the simulation thread casts it with its next steps where the World
    // casts (World::setSurfaceRay: a device World with the lazy publish), and the snapshots after them carry
    // the hit (castSurfaceHit), so that surfaceHit for that ray reads no positions.
    void castRay(const std::optional<vbd::SurfaceRay>& ray) const;
    std::optional<CastHit> castSurfaceHit() const override { return cast_; }
    int numColors() const override { return colors_; }
    std::string backendLine() const override { return backend_; }
    // Where the World's device step keeps x, as at the copy, with current = false: the snapshot's state is
    // positions() (x may have moved on or be gone; only "does it step on a device" is meant).
    vbd::DeviceParticles deviceParticles() const override { return device_; }
    // The same for the device rigid step's states (the snapshot's poses are bodies()).
    vbd::DeviceRigidBodies deviceBodies() const override { return deviceBodies_; }
    // The field this snapshot was made with; another field reads as empty (the next snapshot has it).
    void scalarField(vbd::ScalarField f, std::vector<float>& out) const override;
    std::vector<vbd::RigidBodyView> bodies() const override { return bodies_; }
    size_t numBodies() const override { return bodies_.size(); }
    // The contact markers, carried only while they are drawn (PendingCommands::contacts): making them costs
    // 0.66 ms for the 10,000-box pile's 57,000 contacts (bench_rigid BM_PileContactViews), and with device
    // contacts it brings every record to the host. Otherwise empty; contactCount() is always the World's.
    std::vector<vbd::ContactView> contacts() const override { return contacts_; }
    size_t contactCount() const override { return contactCount_; }
    // The source World's count when the snapshot was taken (its readers on the simulation thread, this
    // snapshot's construction included).
    size_t stateFetches() const override { return fetches_; }
    std::vector<vbd::JointView> joints() const override { return joints_; }
    vbd::MetricsSpan history() const override { return history_.span; }
    const std::vector<vbd::IterationRecord>& lastConvergence() const override { return conv_; }
    void setSolver(const vbd::SolverDesc& s) override;
    void setDrag(int particle, const vbd::Vec3& target, float stiffness) override;
    void setBodyDrag(int body, const vbd::Vec3& localPoint, const vbd::Vec3& target,
                     float stiffness) override;
    int addRigidBody(const vbd::RigidBodyDesc& body) override;
    // Answers for the particle asked about last (the request reaches the worker for the next snapshot).
    vbd::VertexInspect inspectVertex(int particle) const override;

    vbd::ScalarField field() const { return field_; }
    const std::vector<float>& fieldValues() const { return fieldValues_; }
    const std::vector<unsigned char>& materialTags() const { return static_->tags; }
    std::uint64_t generation() const { return static_->generation; }
    // The exported vertex buffer the simulation thread wrote this frame into (gui/core/interop_slots.h).
    const InteropFrame& interopFrame() const { return interop_; }
    void setInteropFrame(InteropFrame f) { interop_ = f; }

  private:
    std::shared_ptr<const vbd::SceneDesc>
        desc_;  // the World's, shared (copying the 10,000-box pile's: 0.45 ms)
    double time_;
    int frame_, colors_;
    std::string backend_;
    vbd::DeviceParticles device_;
    vbd::DeviceRigidBodies deviceBodies_;
    InteropFrame interop_;
    // The particles: copied at construction, or read from state_ once on first use (under once_).
    std::shared_ptr<const vbd::WorldState> state_;
    mutable std::once_flag xOnce_, vOnce_;
    mutable std::atomic<bool> xRead_{false};
    mutable std::vector<vbd::Vec3> x_, v_;
    std::vector<char> fixed_;
    std::vector<vbd::Box3> bounds_;
    std::vector<vbd::Vec3> pins_;
    std::vector<vbd::WatchedParticle> watched_;
    std::optional<CastHit> cast_;
    std::shared_ptr<const WorldStatic> static_;
    vbd::ScalarField field_;
    std::vector<float> fieldValues_;
    std::vector<vbd::RigidBodyView> bodies_;
    std::vector<vbd::ContactView> contacts_;
    size_t contactCount_ = 0;
    size_t fetches_ = 0;
    std::vector<vbd::JointView> joints_;
    SharedMetrics history_;
    std::vector<vbd::IterationRecord> conv_;
    vbd::VertexInspect inspect_;
    std::shared_ptr<std::mutex> cmdMutex_;
    std::shared_ptr<PendingCommands> cmds_;
};

}  // namespace vbdgui
