#include "render/renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace vbdgui {

namespace {

// shaders/common.glsl PushConstants (128 bytes).
struct PushConstants {
    glm::mat4 viewProj;
    glm::vec4 eye, lightDir, color, params;
};
static_assert(sizeof(PushConstants) == 128, "push constants must match common.glsl");

enum VertexKind { kNone, kParticle, kParticlePosOnly, kShapeInstanced, kLine };

const glm::vec4 kSoftColor(0.85f, 0.45f, 0.20f, 1), kClothColor(0.25f, 0.55f, 0.85f, 1);
const glm::vec4 kFixedBodyColor(0.35f, 0.35f, 0.38f, 1);
// Shading modes of mesh.frag (params.x).
constexpr float kModeBase = 0, kModeHeat = 1, kModeCategorical = 2, kModeTint = 3;

glm::vec3 toGlm(const vbd::Vec3& v) { return {v.x, v.y, v.z}; }

void cross3(std::vector<LineVertex>& out, const glm::vec3& p, float s, uint32_t rgba) {
    for (int a = 0; a < 3; ++a) {
        glm::vec3 d(0);
        d[a] = s;
        glm::vec3 p0 = p - d, p1 = p + d;
        out.push_back({{p0.x, p0.y, p0.z}, rgba});
        out.push_back({{p1.x, p1.y, p1.z}, rgba});
    }
}

}  // namespace

std::array<float, 3> bodyColor(size_t index, bool fixed) {
    // Okabe-Ito hues (distinguishable with the common colour-vision deficiencies), muted a little so that
    // a heat-mapped soft body next to them stays the brightest thing in the view; linear RGB.
    static const std::array<float, 3> kPalette[7] = {
        {0.35f, 0.55f, 0.80f}, {0.85f, 0.55f, 0.10f}, {0.10f, 0.55f, 0.40f}, {0.80f, 0.75f, 0.25f},
        {0.15f, 0.35f, 0.65f}, {0.75f, 0.35f, 0.10f}, {0.70f, 0.45f, 0.60f}};
    if (fixed) return {kFixedBodyColor.r, kFixedBodyColor.g, kFixedBodyColor.b};
    return kPalette[index % 7];
}

// From the bodies' boxes, which bound every particle, rather than the positions: a lazily published device
// World measures them where its state is (World::surfaceBounds), and the window reads them every frame.
void sceneBounds(const vbd::World& world, glm::vec3& lo, glm::vec3& hi) {
    sceneBounds(world, world.bodies(), lo, hi);
}

void sceneBounds(const vbd::World& world, const std::vector<vbd::RigidBodyView>& bodies, glm::vec3& lo,
                 glm::vec3& hi) {
    std::vector<vbd::Vec3> corners;
    for (const vbd::Box3& b : world.surfaceBounds())
        if (b.min.x <= b.max.x) corners.push_back(b.min), corners.push_back(b.max);
    sceneBounds(corners, bodies, world.desc(), lo, hi);
}

// The box of the places a body of reach r hanging from anchor a can get to: its centre stays on the sphere of
// radius d = |p - a| about a, and with gravity g it rises above the anchor by at most
// c = (p - a).up + e / |g|, up = -g / |g|, where e = (|v|^2 + |w|^2 r^2) / 2 bounds its kinetic energy per
// unit mass (the rotational part: I <= m r^2 about any axis through the centre, r the half diagonal).
// Along a unit axis e_i the cap {q : |q| = d, q.up <= c} reaches d where the sphere's extreme point
// d e_i is in it (d (e_i.up) <= c), else the rim circle's extreme, centre c up, radius sqrt(d^2 - c^2):
// c (e_i.up) + sqrt(d^2 - c^2) sqrt(1 - (e_i.up)^2). A pendulum let go at 0.1 rad is framed by its arc
// and the anchor, not by the whole 2 m ball of the arcs it could swing through with more energy.
void jointReach(const glm::vec3& a, const glm::vec3& p, const glm::vec3& v, const glm::vec3& w, float r,
                const glm::vec3& g, glm::vec3& lo, glm::vec3& hi) {
    const float d = glm::length(p - a), gn = glm::length(g);
    const glm::vec3 up = gn > 0 ? -g / gn : glm::vec3(0, 1, 0);
    const float c = gn > 0 ? glm::dot(p - a, up) + 0.5f * (glm::dot(v, v) + glm::dot(w, w) * r * r) / gn : d;
    auto extreme = [&](const glm::vec3& e) {
        const float ue = glm::dot(e, up);
        if (c >= d || d * ue <= c) return d;
        const float cc = std::max(c, -d);
        return cc * ue + std::sqrt(std::max(d * d - cc * cc, 0.0f)) * std::sqrt(std::max(1 - ue * ue, 0.0f));
    };
    for (int i = 0; i < 3; ++i) {
        glm::vec3 e(0.0f);
        e[i] = 1;
        hi[i] = a[i] + std::max(extreme(e), 0.0f) + r;
        lo[i] = a[i] - std::max(extreme(-e), 0.0f) - r;
    }
}

// Whether gravity can take something down to the ground: a soft body or sheet pinned nowhere, or a dynamic
// rigid body that hangs from no world anchor through its joints (bodies added since the scene was read, such
// as thrown boxes, are free).
bool somethingFalls(const std::vector<vbd::RigidBodyView>& bodies, const vbd::SceneDesc& desc) {
    if (vbd::dot(desc.gravity, desc.gravity) == 0.0f) return false;
    for (const auto& sb : desc.softBodies)
        if (sb.fixed.empty()) return true;
    for (const auto& c : desc.cloths)
        if (c.fixed.empty()) return true;
    // The bodies joined to the world or to a fixed body, directly or through other bodies: a flood over the
    // joints.
    std::vector<char> hangs(bodies.size(), 0);
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& j : desc.joints) {
            const auto holds = [&](int b) {
                return b < 0 || (size_t(b) < hangs.size() && (hangs[size_t(b)] || bodies[size_t(b)].fixed));
            };
            for (const auto& [from, to] : {std::pair{j.bodyA, j.bodyB}, std::pair{j.bodyB, j.bodyA}})
                if (to >= 0 && size_t(to) < hangs.size() && !hangs[size_t(to)] && holds(from))
                    hangs[size_t(to)] = 1, grew = true;
        }
    }
    for (size_t i = 0; i < bodies.size(); ++i)
        if (!bodies[i].fixed && !hangs[i]) return true;
    return false;
}

void sceneBounds(const std::vector<vbd::Vec3>& positions, const std::vector<vbd::RigidBodyView>& bodies,
                 const vbd::SceneDesc& desc, glm::vec3& lo, glm::vec3& hi) {
    lo = glm::vec3(std::numeric_limits<float>::max());
    hi = -lo;
    for (const auto& p : positions) {
        lo = glm::min(lo, toGlm(p));
        hi = glm::max(hi, toGlm(p));
    }
    auto reach = [](const vbd::RigidBodyView& b) {
        return b.shape == vbd::ShapeType::Box
                   ? 0.5f * glm::length(toGlm(b.size))
                   : b.radius + (b.shape == vbd::ShapeType::Capsule ? b.halfHeight : 0.0f);
    };
    // A body's own box: a box's rotated half extents, sum_j |R_ij| e_j (a 6 m ramp tilted by 0.2 rad
    // is 1.4 m tall, where its half diagonal made it 6.2 m tall and framed the ramps scene small); a
    // sphere's or capsule's reach about its centre, and a spinning box's (any orientation).
    auto halfBox = [&](const vbd::RigidBodyView& b) {
        const bool spins = !b.fixed && vbd::dot(b.angularVelocity, b.angularVelocity) > 0.0f;
        if (b.shape != vbd::ShapeType::Box || spins) return glm::vec3(reach(b));
        const vbd::Mat33 R = vbd::toMatrix(b.rotation);
        glm::vec3 e(0.0f);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) e[i] += std::fabs(R.m[i][j]) * 0.5f * b.size[j];
        return e;
    };
    // Once a frame for the markers' size (markerLines): each body's box is computed once.
    for (const auto& b : bodies) {
        const glm::vec3 c = toGlm(b.position), e = halfBox(b);
        lo = glm::min(lo, c - e);
        hi = glm::max(hi, c + e);
    }
    // A body jointed to the world swings about the anchor at a fixed distance d: frame the anchor and the
    // part of that sphere its energy reaches (jointReach).
    // A welded (fixed) joint holds the body where it is, as does a fixed body: their own boxes frame them.
    // A soft joint (stiffness > 0) may stretch: its body is given twice its arm.
    // A fixed body anchors as the world does (a pendulum hung from a fixed box).
    const auto anchors = [&](int b) {
        return b < 0 || (size_t(b) < bodies.size() && bodies[size_t(b)].fixed);
    };
    for (const auto& j : desc.joints) {
        const int body = anchors(j.bodyA) ? j.bodyB : (anchors(j.bodyB) ? j.bodyA : -1);
        if (body < 0 || size_t(body) >= bodies.size() || j.type == vbd::JointType::Fixed) continue;
        auto b = bodies[size_t(body)];
        if (b.fixed) continue;
        if (j.stiffness > 0) b.position = j.anchor + (b.position - j.anchor) * 2.0f;
        glm::vec3 jlo, jhi;
        jointReach(toGlm(j.anchor), toGlm(b.position), toGlm(b.velocity), toGlm(b.angularVelocity), reach(b),
                   toGlm(desc.gravity), jlo, jhi);
        lo = glm::min(lo, jlo);
        hi = glm::max(hi, jhi);
    }
    // A standing sheet pinned nowhere falls over along its normal: it can lie as far to either side of its
    // plane as it is tall (cloth_fold's 0.8 m sheet, framed as a box 0 m deep, landed out of the view's
    // bottom).
    for (const auto& c : desc.cloths) {
        if (!c.fixed.empty() || c.type != "grid" || c.plane != "xy") continue;
        const float tall = float(c.size[1]);
        const glm::vec3 a = toGlm(c.min), b = a + glm::vec3(float(c.size[0]), tall, 0.0f);
        lo = glm::min(lo, a - glm::vec3(0.0f, 0.0f, tall));
        hi = glm::max(hi, b + glm::vec3(0.0f, 0.0f, tall));
    }
    if (lo.x > hi.x) lo = glm::vec3(-1), hi = glm::vec3(1);
    // Things fall: keep the ground under the scene in the framed box when something can reach it, or when it
    // is near (within a fifth of the scene's size below it). A cantilever pinned 2 m above the ground had the
    // empty ground take two thirds of the view.
    const auto& g = desc.ground;
    const float below = lo.y - float(g.height), size = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
    if (g.enabled && below > 0 && (below < 0.2f * size || somethingFalls(bodies, desc)))
        lo.y = float(g.height);
}

void applySceneView(const vbd::SceneDesc& desc, OrbitCamera& cam) {
    if (!desc.view.given) return;
    cam.yaw = float(glm::radians(desc.view.yawDeg));
    cam.pitch = float(glm::radians(desc.view.pitchDeg));
}

// ---------------------------------------------------------------------------------------------------
SceneGpu::SceneGpu(const Context& ctx, const vbd::World& world, uint32_t slots, bool wantInterop, bool window)
    : ctx_(ctx) {
    vertices_ = makeVertexSource(ctx, world, window ? kWindowInteropSlots : slots, wantInterop, vertexLine_);
    if (window) {
        if (vertices_->interop()) window_ = std::move(vertices_);
        vertices_ = makeCpuVertexSource(ctx, world, slots);
        windowSync_.assign(slots, FrameSync{});
    }
    std::vector<uint32_t> idx;
    for (const auto& s : world.surfaces()) {
        SurfaceRange r;
        r.first = uint32_t(idx.size());
        for (const auto& t : s.tris)
            for (int k = 0; k < 3; ++k) idx.push_back(uint32_t(t[k]));
        r.count = uint32_t(idx.size()) - r.first;
        r.doubleSided = s.doubleSided;
        r.body = s.body;
        if (r.count) ranges_.push_back(r);
    }
    std::vector<uint32_t> edges = surfaceEdges(world.surfaces());
    edgeCount_ = uint32_t(edges.size());
    // Topology is static for a World's lifetime: host-visible is fine (read once per draw, small).
    indices_ = ctx.createBuffer(std::max<size_t>(idx.size(), 1) * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true);
    if (!idx.empty()) std::memcpy(indices_.mapped, idx.data(), idx.size() * 4);
    edges_ = ctx.createBuffer(std::max<size_t>(edges.size(), 1) * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true);
    if (!edges.empty()) std::memcpy(edges_.mapped, edges.data(), edges.size() * 4);
    instances_.resize(slots);
    lines_.resize(slots);
    shadows_.resize(slots);
    shadowCount_.assign(slots, 0);
    boxCount_.assign(slots, 0);
    sphereCount_.assign(slots, 0);
    lineTested_.assign(slots, 0);
    lineOverlay_.assign(slots, 0);
    ground_ = world.desc().ground.enabled;
    groundHeight_ = float(world.desc().ground.height);
}

SceneGpu::~SceneGpu() {
    vkDeviceWaitIdle(ctx_.device);
    window_.reset();
    vertices_.reset();
    ctx_.destroy(indices_);
    ctx_.destroy(edges_);
    for (auto& b : instances_) ctx_.destroy(b);
    for (auto& b : lines_) ctx_.destroy(b);
    for (auto& b : shadows_) ctx_.destroy(b);
}

void SceneGpu::ensure(Buffer& b, VkDeviceSize bytes, VkBufferUsageFlags usage) {
    if (b.buffer && b.size >= bytes) return;
    ctx_.destroy(b);
    b = ctx_.createBuffer(std::max<VkDeviceSize>(bytes * 3 / 2, 256), usage, true);
}

void SceneGpu::update(const vbd::World& world, const DrawOptions& opt, uint32_t slot,
                      const std::vector<unsigned char>* tags, const ExternalFrame* ext) {
    auto t0 = std::chrono::steady_clock::now();
    if (!scalarsPrepared_) vertexScalars(world, opt, tags);
    scalarsPrepared_ = false;
    const auto bodies = world.bodies();
    table_ = bodyInstanceTable(bodies);
    tableBodies_ = int(bodies.size());
    if (!windowSync_.empty()) windowSync_[slot] = {};
    if (window_ && ext && ext->slot >= 0)
        windowSync_[slot] =
            window_->externalSync(uint32_t(ext->slot), ext->simDone, ext->renderDone, ext->bodies);
    else
        vertices_->upload(world, scalar01_, table_, slot);
    bodyInstances(bodies, slot);
    shadowScratch_.clear();
    if (opt.shadows && ground_) shadowBlobs(world, bodies);
    shadowCount_[slot] = uint32_t(shadowScratch_.size());
    ensure(shadows_[slot], std::max<size_t>(shadowScratch_.size(), 1) * sizeof(LineVertex),
           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!shadowScratch_.empty())
        std::memcpy(shadows_[slot].mapped, shadowScratch_.data(), shadowScratch_.size() * sizeof(LineVertex));
    markerLines(world, bodies, opt, slot);
    lastUploadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void SceneGpu::prepareScalars(const vbd::World& world, const DrawOptions& opt,
                              const std::vector<unsigned char>* tags) {
    vertexScalars(world, opt, tags);
    scalarsPrepared_ = true;
}

// Heat map: categorical colour groups pass the index through; continuous fields are mapped affinely (after
// log10 if asked) from [lo, hi] to [0, 1]. An empty field (a snapshot made before the field was chosen)
// draws no heat map rather than a uniform colour. Without a field: the material-region tint.
void SceneGpu::vertexScalars(const vbd::World& world, const DrawOptions& opt,
                             const std::vector<unsigned char>* tags) {
    fieldOn_ = false;
    categorical_ = opt.field == vbd::ScalarField::Color;
    tintOn_ = false;
    scalar01_.clear();
    range.valid = false;
    scale_ = {opt.field, opt.logScale, opt.autoRange, opt.rangeMin, opt.rangeMax, world.numColors()};
    if (opt.field != vbd::ScalarField::None) world.scalarField(opt.field, field_);
    if (opt.field != vbd::ScalarField::None && !field_.empty()) {
        fieldOn_ = true;
        range = heatScalars(field_, scale_, scalar01_);
        return;
    }
    scale_.field = vbd::ScalarField::None;  // an empty field draws no heat map
    if (!opt.regions || !tags || tags->size() != world.numParticles() ||
        std::none_of(tags->begin(), tags->end(), [](unsigned char t) { return t != 0; }))
        return;
    // Material tint: +1 stiffer region, -1 softer region, 0 the body's own material.
    tintOn_ = true;
    scalar01_.resize(tags->size());
    for (size_t i = 0; i < tags->size(); ++i)
        scalar01_[i] = (*tags)[i] == 1 ? 1.0f : ((*tags)[i] == 2 ? -1.0f : 0.0f);
}

// Rigid bodies: boxes first, then spheres (capsules drawn as stretched spheres), each in its own colour
// (table_, gpu/body_instances.h). The interop wrote them into the slot's exported buffer, or the CPU fills
// the host-visible one with the same record function.
void SceneGpu::bodyInstances(const std::vector<vbd::RigidBodyView>& bodies, uint32_t slot) {
    boxCount_[slot] = uint32_t(table_.boxes);
    sphereCount_[slot] = uint32_t(table_.items.size()) - boxCount_[slot];
    if (frameSync(slot).externalInstances) return;
    ensure(instances_[slot], std::max<size_t>(table_.items.size(), 1) * sizeof(BodyInstance),
           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!table_.items.empty())
        vbd::fillBodyInstances(bodies, table_,
                               static_cast<vbd::BodyInstanceRecord*>(instances_[slot].mapped));
}

// Contacts, joints, fixed vertices (depth tested), the picked vertex and the drag spring (always on top);
// marker sizes follow the scene's size so that they read at any scale.
void SceneGpu::markerLines(const vbd::World& world, const std::vector<vbd::RigidBodyView>& bodies,
                           const DrawOptions& opt, uint32_t slot) {
    glm::vec3 lo, hi;
    sceneBounds(world, bodies, lo, hi);
    const float s = 0.008f * glm::length(hi - lo);
    lineScratch_.clear();
    if (opt.contacts) {
        const uint32_t yellow = packRgba(1.0f, 0.85f, 0.1f);
        for (const auto& c : world.contacts()) {
            glm::vec3 p = toGlm(c.point), q = p + 4.0f * s * toGlm(c.normal);
            cross3(lineScratch_, p, s, yellow);
            lineScratch_.push_back({{p.x, p.y, p.z}, yellow});
            lineScratch_.push_back({{q.x, q.y, q.z}, yellow});
        }
    }
    if (opt.joints) {
        // body center -> anchor on each side, and a cross at the anchors (they coincide when satisfied)
        const uint32_t pink = packRgba(1.0f, 0.45f, 0.75f);
        for (const auto& j : world.joints()) {
            for (const auto& [c, a] : {std::pair{j.centerA, j.anchorA}, std::pair{j.centerB, j.anchorB}}) {
                lineScratch_.push_back({{c.x, c.y, c.z}, pink});
                lineScratch_.push_back({{a.x, a.y, a.z}, pink});
            }
            cross3(lineScratch_, toGlm(j.anchorA), s, pink);
        }
    }
    if (opt.fixedVertices) {  // World::pinPositions: a device World gathers them, no positions read
        const uint32_t blue = packRgba(0.2f, 0.9f, 1.0f);
        for (const vbd::Vec3& p : world.pinPositions()) cross3(lineScratch_, toGlm(p), 0.6f * s, blue);
    }
    const uint32_t depthTested = uint32_t(lineScratch_.size());
    if (opt.highlightParticle >= 0 && size_t(opt.highlightParticle) < world.numParticles())
        cross3(lineScratch_, toGlm(world.particlePosition(opt.highlightParticle)), 2.0f * s,
               packRgba(0.2f, 1.0f, 0.3f));
    if (opt.drag) {
        const uint32_t green = packRgba(0.3f, 1.0f, 0.4f);
        lineScratch_.push_back({{opt.dragFrom.x, opt.dragFrom.y, opt.dragFrom.z}, green});
        lineScratch_.push_back({{opt.dragTo.x, opt.dragTo.y, opt.dragTo.z}, green});
        cross3(lineScratch_, opt.dragTo, s, green);
    }
    lineTested_[slot] = depthTested;
    lineOverlay_[slot] = uint32_t(lineScratch_.size()) - depthTested;
    ensure(lines_[slot], std::max<size_t>(lineScratch_.size(), 1) * sizeof(LineVertex),
           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!lineScratch_.empty())
        std::memcpy(lines_[slot].mapped, lineScratch_.data(), lineScratch_.size() * sizeof(LineVertex));
}

// A soft dark disc on the ground under each dynamic body and each soft body or cloth: it shows where an
// object is over the floor and, through its darkness and spread, how high (a contact shadow when it
// rests). Radius: the object's half extent in x and z grown by 60 % plus 0.3 of its height above the
// ground (a resting body hides the disc's middle: at its edge the opacity is still 0.5 (1 - 1/1.6) = 0.19);
// opacity 0.5 at the centre at contact, falling as exp(-height / (extent + 0.05 m)).
void SceneGpu::shadowBlobs(const vbd::World& world, const std::vector<vbd::RigidBodyView>& bodies) {
    auto blob = [&](glm::vec3 lo, glm::vec3 hi) {
        const float height = std::max(0.0f, lo.y - groundHeight_);
        const float extent = 0.5f * std::max(hi.x - lo.x, hi.z - lo.z);
        const float alpha = 0.5f * std::exp(-height / (extent + 0.05f));
        if (alpha < 0.02f) return;
        const float rx = 0.8f * (hi.x - lo.x) + 0.3f * height, rz = 0.8f * (hi.z - lo.z) + 0.3f * height;
        const glm::vec3 c(0.5f * (lo.x + hi.x), groundHeight_, 0.5f * (lo.z + hi.z));
        const uint32_t centre = packRgba(0, 0, 0, alpha), rim = packRgba(0, 0, 0, 0);
        constexpr int kSegments = 28;
        for (int k = 0; k < kSegments; ++k) {
            const float a0 = 6.2831853f * float(k) / kSegments, a1 = 6.2831853f * float(k + 1) / kSegments;
            shadowScratch_.push_back({{c.x, c.y, c.z}, centre});
            shadowScratch_.push_back({{c.x + rx * std::cos(a0), c.y, c.z + rz * std::sin(a0)}, rim});
            shadowScratch_.push_back({{c.x + rx * std::cos(a1), c.y, c.z + rz * std::sin(a1)}, rim});
        }
    };
    for (const auto& b : bodies) {
        if (b.fixed) continue;
        const glm::vec3 p = toGlm(b.position);
        const glm::vec3 r = b.shape == vbd::ShapeType::Box
                                ? 0.5f * toGlm(b.size)
                                : glm::vec3(b.radius, b.radius + b.halfHeight, b.radius);
        blob(p - r, p + r);
    }
    const std::vector<vbd::Box3> boxes = world.surfaceBounds();  // no positions read (sceneBounds)
    const auto& surfaces = world.surfaces();
    for (size_t k = 0; k < surfaces.size() && k < boxes.size(); ++k)
        if (!surfaces[k].tris.empty() && boxes[k].min.x <= boxes[k].max.x)
            blob(toGlm(boxes[k].min), toGlm(boxes[k].max));
}

// ---------------------------------------------------------------------------------------------------
Renderer::Renderer(const Context& ctx, VkRenderPass pass) : ctx_(ctx) {
    VkPushConstantRange pcr{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                            sizeof(PushConstants)};
    auto lci = vkInfo<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &pcr;
    VK_CHECK(vkCreatePipelineLayout(ctx.device, &lci, nullptr, &layout_));

    const auto tri = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, lines = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    meshCull_ = makePipeline(pass, Shader::MeshVert, Shader::MeshFrag, kParticle, tri, VK_CULL_MODE_BACK_BIT,
                             true, true);
    meshTwoSided_ =
        makePipeline(pass, Shader::MeshVert, Shader::MeshFrag, kParticle, tri, VK_CULL_MODE_NONE, true, true);
    body_ = makePipeline(pass, Shader::BodyVert, Shader::MeshFrag, kShapeInstanced, tri,
                         VK_CULL_MODE_BACK_BIT, true, true);
    grid_ = makePipeline(pass, Shader::GridVert, Shader::GridFrag, kNone, tri, VK_CULL_MODE_NONE, true, true);
    wire_ = makePipeline(pass, Shader::WireVert, Shader::LineFrag, kParticlePosOnly, lines, VK_CULL_MODE_NONE,
                         true, false);
    line_ =
        makePipeline(pass, Shader::LineVert, Shader::LineFrag, kLine, lines, VK_CULL_MODE_NONE, true, false);
    overlay_ =
        makePipeline(pass, Shader::LineVert, Shader::LineFrag, kLine, lines, VK_CULL_MODE_NONE, false, false);
    // Shadows: coloured triangles blended over the ground, depth tested (bodies hide them) but not
    // written (they must not hide the grid lines' depth or each other); shadow.vert lifts them off the grid.
    shadow_ = makePipeline(pass, Shader::ShadowVert, Shader::LineFrag, kLine, tri, VK_CULL_MODE_NONE, true,
                           false, true);

    ShapeMesh box = unitBox(), sphere = unitSphere(32, 16);
    std::vector<ShapeVertex> v = box.vertices;
    v.insert(v.end(), sphere.vertices.begin(), sphere.vertices.end());
    std::vector<uint32_t> i = box.indices;
    i.insert(i.end(), sphere.indices.begin(), sphere.indices.end());
    boxFirst_ = 0, boxCount_ = uint32_t(box.indices.size());
    sphereFirst_ = boxCount_, sphereCount_ = uint32_t(sphere.indices.size());
    sphereBase_ = int32_t(box.vertices.size());
    shapeVb_ = ctx.createBuffer(v.size() * sizeof(ShapeVertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true);
    std::memcpy(shapeVb_.mapped, v.data(), v.size() * sizeof(ShapeVertex));
    shapeIb_ = ctx.createBuffer(i.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true);
    std::memcpy(shapeIb_.mapped, i.data(), i.size() * 4);
}

Renderer::~Renderer() {
    vkDeviceWaitIdle(ctx_.device);
    for (VkPipeline p : {meshCull_, meshTwoSided_, body_, grid_, wire_, line_, overlay_, shadow_})
        if (p) vkDestroyPipeline(ctx_.device, p, nullptr);
    vkDestroyPipelineLayout(ctx_.device, layout_, nullptr);
    ctx_.destroy(shapeVb_);
    ctx_.destroy(shapeIb_);
}

VkPipeline Renderer::makePipeline(VkRenderPass pass, Shader vs, Shader fs, int kind, VkPrimitiveTopology topo,
                                  VkCullModeFlags cull, bool depthTest, bool depthWrite, bool decal) {
    SpirV vcode = shaderCode(vs), fcode = shaderCode(fs);
    VkShaderModule vm = ctx_.shaderModule(vcode.code, vcode.bytes),
                   fm = ctx_.shaderModule(fcode.code, fcode.bytes);
    VkPipelineShaderStageCreateInfo stages[2]{};
    stages[0] = vkInfo<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vm;
    stages[0].pName = "main";
    stages[1] = vkInfo<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = fm;
    stages[1].pName = "main";

    std::vector<VkVertexInputBindingDescription> bind;
    std::vector<VkVertexInputAttributeDescription> attr;
    if (kind == kParticle || kind == kParticlePosOnly) {
        bind.push_back({0, sizeof(ParticleVertex), VK_VERTEX_INPUT_RATE_VERTEX});
        attr.push_back({0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(ParticleVertex, pos)});
        if (kind == kParticle) {
            attr.push_back({1, 0, VK_FORMAT_R32_SFLOAT, offsetof(ParticleVertex, scalar)});
            attr.push_back({2, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(ParticleVertex, normal)});
        }
    } else if (kind == kShapeInstanced) {
        bind.push_back({0, sizeof(ShapeVertex), VK_VERTEX_INPUT_RATE_VERTEX});
        bind.push_back({1, sizeof(BodyInstance), VK_VERTEX_INPUT_RATE_INSTANCE});
        attr.push_back({0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(ShapeVertex, pos)});
        attr.push_back({1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(ShapeVertex, normal)});
        for (uint32_t k = 0; k < 4; ++k) attr.push_back({2 + k, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 16 * k});
    } else if (kind == kLine) {
        bind.push_back({0, sizeof(LineVertex), VK_VERTEX_INPUT_RATE_VERTEX});
        attr.push_back({0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(LineVertex, pos)});
        attr.push_back({1, 0, VK_FORMAT_R8G8B8A8_UNORM, offsetof(LineVertex, rgba)});
    }
    auto vi = vkInfo<VkPipelineVertexInputStateCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO);
    vi.vertexBindingDescriptionCount = uint32_t(bind.size());
    vi.pVertexBindingDescriptions = bind.data();
    vi.vertexAttributeDescriptionCount = uint32_t(attr.size());
    vi.pVertexAttributeDescriptions = attr.data();
    auto ia = vkInfo<VkPipelineInputAssemblyStateCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO);
    ia.topology = topo;
    auto vp =
        vkInfo<VkPipelineViewportStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO);
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    auto rs = vkInfo<VkPipelineRasterizationStateCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO);
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = cull;
    // The y-flipped projection keeps world-space CCW triangles CCW in framebuffer coordinates.
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    if (decal) {
        // A disc and the grid's quad lie in one plane but are different triangles: their interpolated depths
        // differ by the rasterizer's rounding, which grows with the plane's depth slope across a pixel. A
        // constant pull (shadow.vert) lost to it where the ground is seen at a grazing angle (the disc
        // under the contrast bar in bands of rows). The slope term pulls by 2 pixels' worth of the slope.
        rs.depthBiasEnable = VK_TRUE;
        rs.depthBiasConstantFactor = -4.0f;
        rs.depthBiasSlopeFactor = -2.0f;
    }
    auto ms = vkInfo<VkPipelineMultisampleStateCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO);
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    auto ds = vkInfo<VkPipelineDepthStencilStateCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO);
    ds.depthTestEnable = depthTest;
    ds.depthWriteEnable = depthWrite;
    ds.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
    VkPipelineColorBlendAttachmentState cba{};
    cba.colorWriteMask = 0xF;
    if (kind == kLine) {
        cba.blendEnable = VK_TRUE;
        cba.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
        cba.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
        cba.colorBlendOp = VK_BLEND_OP_ADD;
        cba.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
        cba.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
        cba.alphaBlendOp = VK_BLEND_OP_ADD;
    }
    auto cb =
        vkInfo<VkPipelineColorBlendStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO);
    cb.attachmentCount = 1;
    cb.pAttachments = &cba;
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    auto dy = vkInfo<VkPipelineDynamicStateCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO);
    dy.dynamicStateCount = 2;
    dy.pDynamicStates = dyn;

    auto pci = vkInfo<VkGraphicsPipelineCreateInfo>(VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO);
    pci.stageCount = 2;
    pci.pStages = stages;
    pci.pVertexInputState = &vi;
    pci.pInputAssemblyState = &ia;
    pci.pViewportState = &vp;
    pci.pRasterizationState = &rs;
    pci.pMultisampleState = &ms;
    pci.pDepthStencilState = &ds;
    pci.pColorBlendState = &cb;
    pci.pDynamicState = &dy;
    pci.layout = layout_;
    pci.renderPass = pass;
    VkPipeline p;
    VK_CHECK(vkCreateGraphicsPipelines(ctx_.device, VK_NULL_HANDLE, 1, &pci, nullptr, &p));
    vkDestroyShaderModule(ctx_.device, vm, nullptr);
    vkDestroyShaderModule(ctx_.device, fm, nullptr);
    return p;
}

void Renderer::draw(VkCommandBuffer cb, const SceneGpu& scene, uint32_t slot, const OrbitCamera& cam,
                    VkRect2D area, const DrawOptions& opt) const {
    VkViewport vp{float(area.offset.x),
                  float(area.offset.y),
                  float(area.extent.width),
                  float(area.extent.height),
                  0.0f,
                  1.0f};
    vkCmdSetViewport(cb, 0, 1, &vp);
    vkCmdSetScissor(cb, 0, 1, &area);
    PushConstants pc{};
    pc.viewProj = cam.viewProj(float(area.extent.width) / float(std::max(area.extent.height, 1u)));
    pc.eye = glm::vec4(cam.eye(), 1);
    pc.lightDir = glm::vec4(glm::normalize(glm::vec3(0.35f, 1.0f, 0.45f)), 0.45f);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    auto push = [&]() { vkCmdPushConstants(cb, layout_, stages, 0, sizeof pc, &pc); };
    VkDeviceSize zero = 0;

    if (opt.surfaces && !scene.ranges_.empty()) {
        VkBuffer vb = scene.vertexBuffer(slot);
        vkCmdBindVertexBuffers(cb, 0, 1, &vb, &zero);
        vkCmdBindIndexBuffer(cb, scene.indices_.buffer, 0, VK_INDEX_TYPE_UINT32);
        // A continuous field with no range yet (the residual before the first step) draws the material
        // colour: mapped, its values sat at the low end, the colour the legend calls converged.
        const bool heat = scene.fieldOn_ && (scene.categorical_ || scene.range.valid);
        const float mode = heat ? (scene.categorical_ ? kModeCategorical : kModeHeat)
                                : (scene.tintOn_ ? kModeTint : kModeBase);
        for (const auto& r : scene.ranges_) {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, r.doubleSided ? meshTwoSided_ : meshCull_);
            pc.color = r.doubleSided ? kClothColor : kSoftColor;
            pc.params = glm::vec4(mode == kModeTint && r.doubleSided ? kModeBase : mode, 0, 0, 0);
            push();
            vkCmdDrawIndexed(cb, r.count, 1, r.first, 0, 0);
        }
        if (opt.wireframe && scene.edgeCount_) {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, wire_);
            vkCmdBindIndexBuffer(cb, scene.edges_.buffer, 0, VK_INDEX_TYPE_UINT32);
            pc.color = glm::vec4(0.05f, 0.05f, 0.06f, 1);
            push();
            vkCmdDrawIndexed(cb, scene.edgeCount_, 1, 0, 0, 0);
        }
    }
    const uint32_t boxes = scene.boxCount_[slot], spheres = scene.sphereCount_[slot];
    if (opt.bodies && boxes + spheres > 0) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, body_);
        VkBuffer bufs[2] = {shapeVb_.buffer, scene.instanceBuffer(slot)};
        VkDeviceSize offs[2] = {0, 0};
        vkCmdBindVertexBuffers(cb, 0, 2, bufs, offs);
        vkCmdBindIndexBuffer(cb, shapeIb_.buffer, 0, VK_INDEX_TYPE_UINT32);
        pc.params = glm::vec4(0);
        push();
        if (boxes) vkCmdDrawIndexed(cb, boxCount_, boxes, boxFirst_, 0, 0);
        if (spheres) vkCmdDrawIndexed(cb, sphereCount_, spheres, sphereFirst_, sphereBase_, boxes);
    }
    if (scene.ground_) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, grid_);
        pc.params =
            glm::vec4(opt.grid ? 1 : 0, scene.groundHeight_, std::max(40.0f, 4.0f * cam.distance), 0.5f);
        push();
        vkCmdDraw(cb, 6, 1, 0, 0);
    }
    if (scene.shadowCount_[slot] > 0) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, shadow_);
        VkBuffer sb = scene.shadows_[slot].buffer;
        vkCmdBindVertexBuffers(cb, 0, 1, &sb, &zero);
        // shadow.vert's pull: 8 steps of the depth buffer's resolution near 1 (2^-24 for 32-bit float and
        // 24-bit depths, 2^-16 for the 16-bit fallback).
        const float step = ctx_.depthFormat() == VK_FORMAT_D16_UNORM ? 1.0f / 65536 : 1.0f / 16777216;
        pc.params = glm::vec4(8 * step, 0, 0, 0);
        push();
        vkCmdDraw(cb, scene.shadowCount_[slot], 1, 0, 0);
    }
    const uint32_t tested = scene.lineTested_[slot], overlay = scene.lineOverlay_[slot];
    if (tested + overlay > 0) {
        VkBuffer lb = scene.lines_[slot].buffer;
        vkCmdBindVertexBuffers(cb, 0, 1, &lb, &zero);
        push();
        if (tested) {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, line_);
            vkCmdDraw(cb, tested, 1, 0, 0);
        }
        if (overlay) {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, overlay_);
            vkCmdDraw(cb, overlay, 1, tested, 0);
        }
    }
}

}  // namespace vbdgui
