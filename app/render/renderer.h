#pragma once
// Draws one World into a render pass (swapchain or offscreen): particle surfaces with smooth normals
// (soft bodies culled, cloth double-sided), instanced rigid boxes and spheres, the ground grid, an
// optional wireframe, contact points, fixed vertices and the drag spring, with a per-vertex scalar
// field as a heat map. SceneGpu holds one World's buffers; Renderer holds the pipelines.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gui/core/heat_scale.h"
#include "render/camera.h"
#include "render/geometry.h"
#include "render/shaders.h"
#include "render/vertex_source.h"
#include "render/vk_context.h"

namespace vbdgui {

struct DrawOptions {
    bool surfaces = true, bodies = true, grid = true, wireframe = false, contacts = false,
         fixedVertices = true, joints = true;
    bool shadows = true;  // a soft blob on the ground under each body: darker and tighter when closer
    bool regions = true;  // tint vertices of stiffer / softer material regions (no heat map shown)
    vbd::ScalarField field = vbd::ScalarField::None;
    bool logScale = false;  // heat map of log10 of the field (default for residuals)
    bool autoRange = true;  // range = [min, max] of the current frame
    float rangeMin = 0, rangeMax = 1;
    int highlightParticle = -1;  // picked vertex
    bool drag = false;
    glm::vec3 dragFrom{0}, dragTo{0};
};

inline constexpr float kClearColor[4] = {0.13f, 0.14f, 0.17f, 1.0f};

// Linear RGB of rigid body i (a colour-blind-safe palette, repeating), grey for fixed bodies.
std::array<float, 3> bodyColor(size_t index, bool fixed);

// Axis-aligned bounds of everything drawable in world (particles and bodies), down to the ground when
// something can fall to it or it is near.
void sceneBounds(const vbd::World& world, glm::vec3& lo, glm::vec3& hi);
// The same with world.bodies() as read already (a copy of every view: the renderer reads them once a frame).
void sceneBounds(const vbd::World& world, const std::vector<vbd::RigidBodyView>& bodies, glm::vec3& lo,
                 glm::vec3& hi);
// The box a body hanging from a world anchor can reach on its energy (renderer.cpp); part of sceneBounds.
void jointReach(const glm::vec3& anchor, const glm::vec3& position, const glm::vec3& velocity,
                const glm::vec3& angularVelocity, float reach, const glm::vec3& gravity, glm::vec3& lo,
                glm::vec3& hi);
// The same from the particles' positions and the bodies' views of some state (e.g. a World's first,
// gui/core/world_snapshot.h WorldStatic) and the scene's ground.
void sceneBounds(const std::vector<vbd::Vec3>& positions, const std::vector<vbd::RigidBodyView>& bodies,
                 const vbd::SceneDesc& desc, glm::vec3& lo, glm::vec3& hi);
// Whether gravity can take something of the scene down to its ground (sceneBounds keeps the ground in the
// framed box then).
bool somethingFalls(const std::vector<vbd::RigidBodyView>& bodies, const vbd::SceneDesc& desc);

// The camera's angles from the scene's "view" (soft_pile looks into its box from above), when it gives one:
// the app on loading a file, `vbdlab render` for its clip.
void applySceneView(const vbd::SceneDesc& desc, OrbitCamera& cam);

// A window frame drawn from the interop's exported buffer (gui/core/interop_slots.h): the slot the
// simulation thread wrote, the value it signals on simDone, the value the frame's submit signals on
// renderDone.
struct ExternalFrame {
    int slot = -1;
    uint64_t simDone = 0, renderDone = 0;
    bool bodies = false;  // the write also wrote the slot's body instances
};

// Exported vertex buffers of the window's interop: one held by the render thread, one taken with the snapshot
// it draws next, one published with the latest snapshot, one being written (InteropSlots needs >= 4).
inline constexpr uint32_t kWindowInteropSlots = 4;

class SceneGpu {
  public:
    // wantInterop: write the particle vertices with CUDA from the device step's state when the World, the
    // build and the devices allow it (render/vertex_source.h); vertexLine() says which path runs and why.
    // window: the app's window, whose simulation thread writes the interop buffers (windowWriter()); every
    // frame slot also keeps a CPU upload buffer for frames without an interop frame.
    SceneGpu(const Context& ctx, const vbd::World& world, uint32_t slots, bool wantInterop = false,
             bool window = false);
    ~SceneGpu();
    SceneGpu(const SceneGpu&) = delete;
    SceneGpu& operator=(const SceneGpu&) = delete;

    // CPU -> GPU for frame slot `slot` (its previous use must have finished: the caller waited its fence).
    // tags: per-particle material tag (0 base, 1 stiffer region, 2 softer region) for opt.regions.
    // ext (window, interop): slot `slot` draws ext's exported buffer instead of uploading world's positions.
    void update(const vbd::World& world, const DrawOptions& opt, uint32_t slot,
                const std::vector<unsigned char>* tags = nullptr, const ExternalFrame* ext = nullptr);
    // The heat-map scalars (scalars01, heatScale) of world under opt now, ahead of the update() that follows
    // with the same arguments (it then does not make them again): the window decides with them whether an
    // interop slot's records are still the frame's to draw.
    void prepareScalars(const vbd::World& world, const DrawOptions& opt,
                        const std::vector<unsigned char>* tags);
    FieldRange range;
    double lastUploadMs = 0;
    // What the submit that draws slot `slot` must wait for and signal (OffscreenTarget::render).
    FrameSync frameSync(uint32_t slot) const { return window_ ? windowSync_[slot] : vertices_->sync(slot); }
    const std::string& vertexLine() const { return vertexLine_; }
    bool interopVertices() const { return window_ != nullptr || vertices_->interop(); }
    // The window's interop writer for the simulation thread (nullptr: CPU upload only).
    std::shared_ptr<vbd::ExternalVertexWriter> windowWriter() const {
        return window_ ? window_->writer() : nullptr;
    }
    // The heat-map values of the last update() (what the records' scalar holds; empty = none), and the
    // scale they were made with (field None: the material tint, or nothing).
    const std::vector<float>& scalars01() const { return scalar01_; }
    const HeatScale& heatScale() const { return scale_; }
    // The body instance table of the last update() and the number of bodies it was built for.
    const vbd::BodyInstanceTable& bodyTable() const { return table_; }
    int bodyTableBodies() const { return tableBodies_; }

  private:
    friend class Renderer;
    struct SurfaceRange {
        uint32_t first = 0, count = 0;
        bool doubleSided = false;
        int body = 0;
    };
    void ensure(Buffer& b, VkDeviceSize bytes, VkBufferUsageFlags usage);
    VkBuffer instanceBuffer(uint32_t slot) const {
        const VkBuffer ext = frameSync(slot).externalInstances;
        return ext ? ext : instances_[slot].buffer;
    }
    VkBuffer vertexBuffer(uint32_t slot) const {
        return windowSync_.empty() || !windowSync_[slot].external ? vertices_->buffer(slot)
                                                                  : windowSync_[slot].external;
    }
    const Context& ctx_;
    std::unique_ptr<VertexSource> vertices_;
    std::unique_ptr<VertexSource> window_;  // the window's exported buffers (interop), or nullptr
    std::vector<FrameSync> windowSync_;     // per frame slot: the exported buffer drawn and its sync
    std::string vertexLine_;
    Buffer indices_, edges_;
    uint32_t edgeCount_ = 0;
    std::vector<SurfaceRange> ranges_;
    void vertexScalars(const vbd::World& world, const DrawOptions& opt,
                       const std::vector<unsigned char>* tags);
    void bodyInstances(const std::vector<vbd::RigidBodyView>& bodies, uint32_t slot);
    void shadowBlobs(const vbd::World& world, const std::vector<vbd::RigidBodyView>& bodies);
    void markerLines(const vbd::World& world, const std::vector<vbd::RigidBodyView>& bodies,
                     const DrawOptions& opt, uint32_t slot);
    std::vector<Buffer> instances_, lines_, shadows_;
    std::vector<uint32_t> boxCount_, sphereCount_, lineTested_, lineOverlay_, shadowCount_;
    std::vector<LineVertex> shadowScratch_;
    std::vector<float> field_, scalar01_;
    HeatScale scale_;
    vbd::BodyInstanceTable table_;  // the bodies of the last update, in draw order
    int tableBodies_ = 0;
    std::vector<LineVertex> lineScratch_;
    bool ground_ = true;
    float groundHeight_ = 0;
    bool categorical_ = false;
    bool fieldOn_ = false;
    bool tintOn_ = false;
    bool scalarsPrepared_ = false;  // prepareScalars ran for the next update()
};

class Renderer {
  public:
    Renderer(const Context& ctx, VkRenderPass pass);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;
    // Records the draws of `scene` (slot `slot`) into the render pass instance currently open on cb,
    // restricted to `area` (viewport and scissor).
    void draw(VkCommandBuffer cb, const SceneGpu& scene, uint32_t slot, const OrbitCamera& cam, VkRect2D area,
              const DrawOptions& opt) const;

  private:
    // decal: a depth bias towards the eye that grows with the triangle's depth slope (the ground shadows).
    VkPipeline makePipeline(VkRenderPass pass, Shader vs, Shader fs, int vertexKind, VkPrimitiveTopology topo,
                            VkCullModeFlags cull, bool depthTest, bool depthWrite, bool decal = false);
    const Context& ctx_;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipeline meshCull_ = VK_NULL_HANDLE, meshTwoSided_ = VK_NULL_HANDLE, body_ = VK_NULL_HANDLE,
               grid_ = VK_NULL_HANDLE, wire_ = VK_NULL_HANDLE, line_ = VK_NULL_HANDLE,
               overlay_ = VK_NULL_HANDLE, shadow_ = VK_NULL_HANDLE;
    Buffer shapeVb_, shapeIb_;
    uint32_t boxFirst_ = 0, boxCount_ = 0, sphereFirst_ = 0, sphereCount_ = 0;
    int32_t sphereBase_ = 0;
};

}  // namespace vbdgui
