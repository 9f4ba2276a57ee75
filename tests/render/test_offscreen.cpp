// Offscreen rendering on whatever Vulkan device exists (lavapipe on CI): known geometry must appear
// exactly where the camera math projects it, the background must be the clear colour, and the
// validation layer must stay silent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "cube_scene.h"
#include "gui/core/world_snapshot.h"
#include "render/preview_world.h"
#include "render/renderer.h"
#include "render/targets.h"
#include "world/world.h"

namespace vbdgui {
namespace {

constexpr uint32_t kW = 320, kH = 240;

struct Bounds {
    int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
    long count = 0;
};

uint8_t clearByte(int c) { return uint8_t(std::lround(kClearColor[c] * 255.0f)); }

bool isBackground(const uint8_t* p) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(int(p[c]) - int(clearByte(c))) > 1) return false;
    return true;
}

Bounds foreground(const Pixels& px) {
    Bounds b;
    for (uint32_t y = 0; y < px.height; ++y)
        for (uint32_t x = 0; x < px.width; ++x)
            if (!isBackground(px.at(x, y))) {
                b.x0 = std::min(b.x0, int(x)), b.x1 = std::max(b.x1, int(x));
                b.y0 = std::min(b.y0, int(y)), b.y1 = std::max(b.y1, int(y));
                ++b.count;
            }
    return b;
}

class OffscreenRender : public ::testing::Test {
  protected:
    void SetUp() override {
        ContextOptions o;
        o.validation = true;
        try {
            ctx = std::make_unique<Context>(o);
        } catch (const VulkanError& e) {
            GTEST_SKIP() << "no Vulkan device to render on: " << e.what();
        }
        target = std::make_unique<OffscreenTarget>(*ctx, kW, kH);
        renderer = std::make_unique<Renderer>(*ctx, target->pass());
    }
    void TearDown() override {
        if (!ctx) return;
        renderer.reset();
        target.reset();
        // Every Vulkan call of the test ran under the validation layer (when installed): none may complain.
        EXPECT_EQ(ctx->validationMessages(), 0);
    }
    Pixels render(const vbd::World& world, const OrbitCamera& cam, const DrawOptions& opt) {
        SceneGpu gpu(*ctx, world, 1);
        gpu.update(world, opt, 0);
        return target->render(kClearColor, [&](VkCommandBuffer cb) {
            renderer->draw(cb, gpu, 0, cam, VkRect2D{{0, 0}, {kW, kH}}, opt);
        });
    }
    // Pixel bounding box of the projections of points.
    static void projectedBounds(const OrbitCamera& cam, const std::vector<glm::vec3>& pts, glm::vec2& lo,
                                glm::vec2& hi) {
        glm::mat4 vp = cam.viewProj(float(kW) / float(kH));
        lo = glm::vec2(1e9f), hi = glm::vec2(-1e9f);
        for (const auto& p : pts) {
            glm::vec3 s = projectToPixel(vp, p, float(kW), float(kH));
            lo = glm::min(lo, glm::vec2(s)), hi = glm::max(hi, glm::vec2(s));
        }
    }
    std::unique_ptr<Context> ctx;
    std::unique_ptr<OffscreenTarget> target;
    std::unique_ptr<Renderer> renderer;
};

// Two unit cubes 3 m apart along x (x in [0, 1] and [3, 4]), over a ground at groundHeight.
vbd::SceneDesc twoCubes(float groundHeight) {
    vbd::SceneDesc d;
    d.ground.enabled = true;
    d.ground.height = groundHeight;
    for (float x : {0.0f, 3.0f}) {
        vbd::SoftBodyDesc sb = vbdtest::cubeBody(0, 1, 2);
        sb.min.x += x, sb.max.x += x;
        sb.key = "soft_bodies[" + std::to_string(d.softBodies.size()) + "]";
        d.softBodies.push_back(sb);
    }
    return d;
}

OrbitCamera cameraAt(glm::vec3 target, float yaw, float pitch, float distance) {
    OrbitCamera cam;
    cam.target = target;
    cam.yaw = yaw;
    cam.pitch = pitch;
    cam.distance = distance;
    return cam;
}

// Looking down at twoCubes(0) from above the ground in front of them (the shadow and grid tests).
OrbitCamera groundCamera() { return cameraAt({2.0f, 0.0f, 0.5f}, 0.3f, 0.7f, 7.0f); }

OrbitCamera testCamera() { return cameraAt({0.5f, 0.5f, 0.5f}, 0.7f, 0.45f, 4.0f); }

TEST_F(OffscreenRender, BoxSilhouetteSitsOnProjectedBoundingBox) {
    vbd::SceneDesc d;
    d.ground.enabled = false;
    vbd::SoftBodyDesc sb = vbdtest::cubeBody(0, 1, 2);
    d.softBodies.push_back(sb);
    auto world = makePreviewWorld(d, false);
    OrbitCamera cam = testCamera();
    DrawOptions opt;
    opt.fixedVertices = false;
    Pixels px = render(*world, cam, opt);

    std::vector<glm::vec3> corners;
    for (int i = 0; i < 8; ++i) corners.push_back(glm::vec3(i & 1, (i >> 1) & 1, (i >> 2) & 1));
    glm::vec2 lo, hi;
    projectedBounds(cam, corners, lo, hi);
    Bounds b = foreground(px);
    ASSERT_GT(b.count, 0) << "nothing was drawn";
    // A convex box's silhouette is the hull of its projected corners, so its pixel bounds are the corners'
    // bounds; a pixel is lit when its centre (x + 0.5) is inside, hence at most one pixel of slack a side.
    EXPECT_NEAR(b.x0 + 0.5f, lo.x, 1.0f);
    EXPECT_NEAR(b.x1 + 0.5f, hi.x, 1.0f);
    EXPECT_NEAR(b.y0 + 0.5f, lo.y, 1.0f);
    EXPECT_NEAR(b.y1 + 0.5f, hi.y, 1.0f);
    // Everything outside the projected box is exactly the clear colour (within UNORM rounding).
    for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
            const bool outside =
                x + 0.5f < lo.x - 1 || x + 0.5f > hi.x + 1 || y + 0.5f < lo.y - 1 || y + 0.5f > hi.y + 1;
            if (outside) {
                ASSERT_TRUE(isBackground(px.at(x, y))) << "stray pixel at " << x << "," << y;
            }
        }
    // Lit and shaded: the faces seen from above-front differ in brightness (Lambert term per face).
    long sumTop = 0, sumSide = 0, nTop = 0, nSide = 0;
    glm::mat4 vp = cam.viewProj(float(kW) / float(kH));
    glm::vec3 top = projectToPixel(vp, {0.5f, 1.0f, 0.5f}, kW, kH),
              side = projectToPixel(vp, {0.5f, 0.5f, 1.0f}, kW, kH);
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            sumTop += px.at(uint32_t(top.x + dx), uint32_t(top.y + dy))[1], ++nTop;
            sumSide += px.at(uint32_t(side.x + dx), uint32_t(side.y + dy))[1], ++nSide;
        }
    // Light direction (0.35, 1, 0.45)/|.|: n.l = 0.87 for the top face, 0.39 for the +z face.
    EXPECT_GT(double(sumTop) / nTop, double(sumSide) / nSide + 10.0);
}

// The ground shadows come from each body's box (World::surfaceBounds, no positions read): two cubes resting
// on the ground 3 m apart each darken the ground around their base when shadows are on, and nothing else
// changes. A disc's opacity falls from 0.5 at its centre to 0 at its rim, 0.8 of the box's width across, so
// a ring shows around each base: the test counts the pixels it darkens (by 3 or more of 255) next to each
// cube, requires every darkened pixel to be nearer a cube's base than the cubes are to each other, and none
// to be a cube's own (the disc, pulled towards the eye with the lines' 2e-4 of clip space, darkened the
// lower part of the cubes' faces).
TEST_F(OffscreenRender, GroundShadowUnderEachBodyFromItsBox) {
    vbd::SceneDesc d = twoCubes(0);
    auto world = vbd::World::create(d);
    ASSERT_EQ(world->surfaceBounds().size(), 2u);
    const OrbitCamera cam = groundCamera();
    DrawOptions opt;
    opt.fixedVertices = false;
    opt.grid = false;
    opt.shadows = false;
    const Pixels off = render(*world, cam, opt);
    opt.shadows = true;
    const Pixels on = render(*world, cam, opt);
    opt.shadows = false;
    opt.surfaces = false;
    const Pixels bare = render(*world, cam, opt);  // the plain ground and the sky: what is not a cube
    const glm::mat4 vp = cam.viewProj(float(kW) / float(kH));
    const glm::vec3 base[2] = {projectToPixel(vp, {0.5f, 0, 0.5f}, kW, kH),
                               projectToPixel(vp, {3.5f, 0, 0.5f}, kW, kH)};
    const float apart = glm::length(glm::vec2(base[1] - base[0]));
    long near[2] = {0, 0}, stray = 0, onCube = 0;
    for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
            const int dark = int(off.at(x, y)[1]) - int(on.at(x, y)[1]);
            if (dark < 3) continue;
            // A cube's pixel with cube below it: on its face, not on the row that meets the ground (where the
            // pull that keeps the disc over the ground's plane reaches a pixel's centre).
            auto cube = [&](uint32_t px, uint32_t py) {
                const uint8_t *c = off.at(px, py), *b = bare.at(px, py);
                return c[0] != b[0] || c[1] != b[1] || c[2] != b[2];
            };
            if (y + 2 < kH && cube(x, y) && cube(x, y + 1) && cube(x, y + 2)) ++onCube;
            const glm::vec2 p(float(x) + 0.5f, float(y) + 0.5f);
            const float d0 = glm::length(p - glm::vec2(base[0])), d1 = glm::length(p - glm::vec2(base[1]));
            if (std::min(d0, d1) > 0.5f * apart)
                ++stray;
            else
                ++near[d0 < d1 ? 0 : 1];
        }
    EXPECT_GT(near[0], 30);
    EXPECT_GT(near[1], 30);
    EXPECT_EQ(stray, 0);
    EXPECT_EQ(onCube, 0);
}

// The "grid" switch hides the ground's lines, not the ground: with it off the ground is still drawn (no
// pixel below the horizon is the clear colour; it used to drop the whole plane and leave the bodies resting
// on nothing), and the lines are what the switch changes (a few hundred pixels brighter with it on, none
// darker: the lines are lighter than the floor).
TEST_F(OffscreenRender, GridSwitchHidesTheLinesNotTheGround) {
    vbd::SceneDesc d = twoCubes(0);
    auto world = vbd::World::create(d);
    const OrbitCamera cam = groundCamera();
    DrawOptions opt;
    opt.fixedVertices = false;
    opt.surfaces = false;
    opt.shadows = false;
    const Pixels lines = render(*world, cam, opt);
    opt.grid = false;
    const Pixels plain = render(*world, cam, opt);
    // Ground points in front of the cubes, their pixels: not the clear colour with the grid off.
    const glm::mat4 vp = cam.viewProj(float(kW) / float(kH));
    int ground = 0;
    for (float x = -1; x <= 5; x += 0.5f)
        for (float z = 1.5f; z <= 4; z += 0.5f) {
            const glm::vec3 p = projectToPixel(vp, {x, 0, z}, kW, kH);
            if (p.x < 0 || p.y < 0 || p.x >= kW || p.y >= kH) continue;
            ++ground;
            EXPECT_FALSE(isBackground(plain.at(uint32_t(p.x), uint32_t(p.y)))) << x << ", " << z;
        }
    EXPECT_GT(ground, 40);
    long brighter = 0, darker = 0;
    for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
            const int diff = int(lines.at(x, y)[1]) - int(plain.at(x, y)[1]);
            brighter += diff > 8;
            darker += diff < -1;
        }
    EXPECT_GT(brighter, 300);
    EXPECT_EQ(darker, 0);
}

// The framing box and marker size of a frame (sceneBounds) from the bodies' boxes: the box of the positions
// and the bodies, as before, without reading the positions of a snapshot that takes them from its frame's
// save (the window's frames drawn from the interop's buffers then bring no positions to the host). The same
// for the pin markers' positions (World::pinPositions), here of a face swept by a moving fixed box.
TEST(SceneBounds, FromTheBodiesBoxesWithoutThePositions) {
    vbd::SceneDesc d = twoCubes(-2);
    vbd::FixedDesc pin;
    pin.box = {{-0.1f, -0.1f, -0.1f}, {0.1f, 1.1f, 1.1f}};  // the first cube's x = 0 face, moving up
    pin.velocity = {0, 0.5f, 0};
    d.softBodies[0].fixed.push_back(pin);
    vbd::RigidBodyDesc box;
    box.position = {1.5f, 3, 0};
    d.rigidBodies.push_back(box);
    auto world = vbd::World::create(d);
    for (int f = 0; f < 5; ++f) world->step();  // falling and turning: off the rest boxes
    auto snap = std::make_shared<WorldSnapshot>(
        *world, vbd::ScalarField::None, std::make_shared<WorldStatic>(), SharedMetrics{},
        std::make_shared<std::mutex>(), std::make_shared<PendingCommands>(), world->saveState());
    glm::vec3 lo, hi, refLo, refHi;
    sceneBounds(*snap, lo, hi);
    EXPECT_FALSE(snap->positionsRead());
    sceneBounds(world->positions(), world->bodies(), world->desc(), refLo, refHi);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(lo[k], refLo[k]) << k;
        EXPECT_EQ(hi[k], refHi[k]) << k;
    }
    EXPECT_EQ(lo.y, -2.0f);  // the ground kept under the scene
    EXPECT_GT(hi.x, 3.9f);
    const std::vector<vbd::Vec3> pins = snap->pinPositions();
    EXPECT_FALSE(snap->positionsRead());
    std::vector<vbd::Vec3> ref;
    for (size_t i = 0; i < world->fixedMask().size(); ++i)
        if (world->fixedMask()[i]) ref.push_back(world->positions()[i]);
    ASSERT_EQ(pins.size(), 9u);  // the face's 3 x 3 vertices
    for (size_t k = 0; k < pins.size(); ++k) {
        EXPECT_EQ(pins[k].x, ref[k].x);
        EXPECT_EQ(pins[k].y, ref[k].y);
        EXPECT_EQ(pins[k].z, ref[k].z);
    }
    EXPECT_GT(pins[0].y, 0.0f);  // moved up with its box (5 frames at 0.5 m/s)
}

TEST_F(OffscreenRender, SphereSilhouetteMatchesProjectedRadius) {
    vbd::SceneDesc d;
    d.ground.enabled = false;
    vbd::RigidBodyDesc s;
    s.shape = vbd::ShapeType::Sphere;
    s.radius = 0.5;
    s.position = {0.5f, 0.5f, 0.5f};
    d.rigidBodies.push_back(s);
    auto world = makePreviewWorld(d, false);
    OrbitCamera cam = testCamera();
    Pixels px = render(*world, cam, DrawOptions{});
    Bounds b = foreground(px);
    ASSERT_GT(b.count, 0);
    // The sphere is centred on the camera target, so its image is centred in the viewport; its angular
    // radius is asin(r/d), i.e. a pixel radius of tan(asin(r/d)) / tan(fov/2) * H/2.
    const float r = 0.5f, dist = cam.distance;
    const float rpx = std::tan(std::asin(r / dist)) / std::tan(0.5f * cam.fovY) * 0.5f * kH;
    const float cx = 0.5f * (b.x0 + b.x1 + 1), cy = 0.5f * (b.y0 + b.y1 + 1);
    EXPECT_NEAR(cx, 0.5f * kW, 1.0f);  // one pixel: rasterisation of the two extreme columns
    EXPECT_NEAR(cy, 0.5f * kH, 1.0f);
    // 32 x 16 tessellation: the polygon's inradius is cos(pi/32) = 0.995 of r (0.3 px here) plus 1 px raster.
    EXPECT_NEAR(0.5f * (b.x1 - b.x0 + 1), rpx, 1.5f);
    EXPECT_NEAR(0.5f * (b.y1 - b.y0 + 1), rpx, 1.5f);
    // Filled disc: area within 3 % of pi r^2 (the edge pixels are 2 pi r of about 1 px each).
    EXPECT_NEAR(double(b.count), 3.14159 * rpx * rpx, 0.03 * 3.14159 * rpx * rpx + 2 * 3.14159 * rpx);
}

TEST_F(OffscreenRender, ClothIsDoubleSided) {
    vbd::SceneDesc d;
    d.ground.enabled = false;
    vbd::ClothDesc c;
    c.min = {0, 0.5f, 0};
    c.size = {1, 1};
    c.cells = {4, 4};
    d.cloths.push_back(c);
    auto world = makePreviewWorld(d, false);
    OrbitCamera above = testCamera(), below = testCamera();
    below.pitch = -0.45f;
    DrawOptions opt;
    opt.fixedVertices = false;
    Bounds a = foreground(render(*world, above, opt)), b = foreground(render(*world, below, opt));
    // The sheet seen from either side covers the projection of its four corners.
    std::vector<glm::vec3> corners = {{0, 0.5f, 0}, {1, 0.5f, 0}, {0, 0.5f, 1}, {1, 0.5f, 1}};
    for (const OrbitCamera* cam : {&above, &below}) {
        glm::vec2 lo, hi;
        projectedBounds(*cam, corners, lo, hi);
        const Bounds& bb = cam == &above ? a : b;
        ASSERT_GT(bb.count, 0) << (cam == &above ? "from above" : "from below");
        // The extreme points are corners of the projected quad, wedges whose tip can fall between pixel
        // centres: two pixels of slack.
        EXPECT_NEAR(bb.x0 + 0.5f, lo.x, 2.0f);
        EXPECT_NEAR(bb.x1 + 0.5f, hi.x, 2.0f);
        EXPECT_NEAR(bb.y0 + 0.5f, lo.y, 2.0f);
        EXPECT_NEAR(bb.y1 + 0.5f, hi.y, 2.0f);
    }
    // Same pixel count from above and below: the projection is mirror-symmetric about the sheet's plane
    // (pitch -> -pitch), so the silhouette is the same polygon flipped vertically (1 % raster slack).
    EXPECT_NEAR(double(a.count), double(b.count), 0.01 * double(a.count));
}

TEST_F(OffscreenRender, HeatMapSpansTheColourRamp) {
    vbd::SceneDesc d;
    d.ground.enabled = false;
    vbd::SoftBodyDesc sb = vbdtest::cubeBody(0, 1, 4);
    sb.fixed.push_back({});
    sb.fixed.back().box = {{-0.01f, -0.01f, -0.01f}, {0.01f, 1.01f, 1.01f}};
    d.softBodies.push_back(sb);
    auto world = makePreviewWorld(d, true);
    for (int i = 0; i < 30; ++i) world->step();  // sag grows with x: a field that varies over the body
    OrbitCamera cam = testCamera();
    DrawOptions opt;
    opt.field = vbd::ScalarField::VolumeRatio;
    opt.fixedVertices = false;
    SceneGpu gpu(*ctx, *world, 1);
    gpu.update(*world, opt, 0);
    Pixels px = target->render(kClearColor, [&](VkCommandBuffer cb) {
        renderer->draw(cb, gpu, 0, cam, VkRect2D{{0, 0}, {kW, kH}}, opt);
    });
    ASSERT_TRUE(gpu.range.valid);
    EXPECT_GT(gpu.range.hi, gpu.range.lo);
    // The ramp runs from blue (low) to red (high): both ends must be present on the lit body.
    long bluish = 0, reddish = 0;
    for (uint32_t y = 0; y < kH; ++y)
        for (uint32_t x = 0; x < kW; ++x) {
            const uint8_t* p = px.at(x, y);
            if (isBackground(p)) continue;
            if (p[2] > p[0] + 40) ++bluish;
            if (p[0] > p[2] + 40) ++reddish;
        }
    EXPECT_GT(bluish, 50);
    EXPECT_GT(reddish, 50);
}

}  // namespace
}  // namespace vbdgui
