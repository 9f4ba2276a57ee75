// Framing a scene: OrbitCamera::frame fits a box's corners to the frustum (render/camera.h), sceneBounds
// takes a rotated box's own extents and a world-jointed body's reach on its energy (render/renderer.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "render/camera.h"
#include "render/renderer.h"
#include "scene/scene.h"
#include "world/world.h"

namespace vbdgui {
namespace {

// The largest |NDC x| or |NDC y| over the box's corners, and the smallest NDC depth (all in front: > 0).
struct Fill {
    float edge = 0, nearest = 2;
};
Fill fillOf(const OrbitCamera& cam, const glm::vec3& lo, const glm::vec3& hi, float aspect) {
    const glm::mat4 vp = cam.viewProj(aspect);
    Fill f;
    for (int k = 0; k < 8; ++k) {
        const glm::vec3 p((k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z);
        const glm::vec4 c = vp * glm::vec4(p, 1);
        f.edge = std::max({f.edge, std::fabs(c.x / c.w), std::fabs(c.y / c.w)});
        f.nearest = std::min(f.nearest, c.z / c.w);
    }
    return f;
}

// Every corner inside the frustum shrunk by the margin, the outermost on its inner edge: max |NDC| times the
// margin is 1 to float rounding (1e-4), for flat, tall, long and cubic boxes, wide and tall views, from
// above, level and below. The ramps' box (6.6 x 1.5 x 7 m) at the default angles in a 480 x 780 view: the
// bounding sphere left it at 0.55 of the view's width.
TEST(Camera, FrameFitsTheBoxCornersToTheFrustum) {
    const glm::vec3 boxes[][2] = {{{-3.3f, 2.2f, -0.5f}, {3.3f, 3.8f, 6.5f}},
                                  {{0, 0, 0}, {1, 1, 1}},
                                  {{-0.1f, 0, -0.1f}, {0.1f, 5, 0.1f}},
                                  {{0, 0, 0}, {12, 0.05f, 0.4f}}};
    const float aspects[] = {480.0f / 780.0f, 1.0f, 16.0f / 9.0f};
    const float angles[][2] = {{0.6f, 0.35f}, {0.0f, 0.0f}, {-2.0f, 1.2f}, {1.0f, -0.5f}};
    for (const auto& b : boxes)
        for (float aspect : aspects)
            for (const auto& a : angles) {
                OrbitCamera cam;
                cam.yaw = a[0];
                cam.pitch = a[1];
                cam.frame(b[0], b[1], aspect);
                const Fill f = fillOf(cam, b[0], b[1], aspect);
                EXPECT_NEAR(f.edge * OrbitCamera::kFrameMargin, 1.0f, 1e-4f)
                    << "aspect " << aspect << " yaw " << a[0] << " pitch " << a[1];
                EXPECT_GT(f.nearest, 0.0f);
            }
}

// With overlays over the view's bottom (the status bar and a legend: 15 %) and top (captions: 6 %) the box
// is framed in the part between: every corner's NDC y (Vulkan's, down) within [-1 + 2 t, 1 - 2 b], x
// within +-1, and the fit still tight (the tightest corner at 0.9 or more of the free half-height, or of the
// width, after the margin). The shift that centres it is exact at the target's depth; corners nearer or
// farther move by (b - t) z / (D + z), which the 1.15 margin holds.
TEST(Camera, FrameFitsBetweenTheOverlays) {
    const glm::vec3 boxes[][2] = {{{-3.3f, 2.2f, -0.5f}, {3.3f, 3.8f, 6.5f}},
                                  {{-0.05f, 0, -0.05f}, {0.05f, 1, 0.05f}},
                                  {{0, 0, 0}, {1, 1, 1}}};
    const float b = 0.15f, t = 0.06f, f = 1 - b - t;
    for (const auto& box : boxes)
        for (float aspect : {480.0f / 780.0f, 16.0f / 9.0f})
            for (float pitch : {0.35f, 0.0f, 1.2f}) {
                OrbitCamera cam;
                cam.pitch = pitch;
                cam.frame(box[0], box[1], aspect, b, t);
                const glm::mat4 vp = cam.viewProj(aspect);
                float y0 = 1e9f, y1 = -1e9f, x = 0;
                for (int k = 0; k < 8; ++k) {
                    const glm::vec3 p((k & 1) ? box[1].x : box[0].x, (k & 2) ? box[1].y : box[0].y,
                                      (k & 4) ? box[1].z : box[0].z);
                    const glm::vec4 c = vp * glm::vec4(p, 1);
                    y0 = std::min(y0, c.y / c.w), y1 = std::max(y1, c.y / c.w),
                    x = std::max(x, std::fabs(c.x / c.w));
                }
                const std::string at = "aspect " + std::to_string(aspect) + " pitch " + std::to_string(pitch);
                EXPECT_GE(y0, -1 + 2 * t) << at;
                EXPECT_LE(y1, 1 - 2 * b) << at;
                EXPECT_LE(x, 1.0f) << at;
                const float mid = t - b;  // the free part's centre, in Vulkan's NDC
                const float tight = std::max(std::max(y1 - mid, mid - y0) / f, x) * OrbitCamera::kFrameMargin;
                EXPECT_GT(tight, 0.9f) << at;
            }
}

// A capture at another aspect shows the framed box as the view shows it after the user's zoom (1.4x out) and
// orbit: its outermost corner at the same |NDC| (float rounding of the projection: 1e-4).
TEST(Camera, RefittedKeepsTheFramedBoxsFill) {
    const glm::vec3 lo(0, 0, 0), hi(4, 1, 1);
    OrbitCamera cam;
    cam.frame(lo, hi, 480.0f / 720.0f);
    cam.distance *= 1.4f;
    cam.orbit(0.3f, 0.1f);
    const float inView = fillOf(cam, lo, hi, 480.0f / 720.0f).edge;
    const OrbitCamera wide = cam.refitted(480.0f / 720.0f, 960.0f / 540.0f);
    EXPECT_NEAR(fillOf(wide, lo, hi, 960.0f / 540.0f).edge, inView, 1e-4f);
    EXPECT_LT(wide.distance, cam.distance);
    // Unrefitted, the wide capture showed the long box at under 0.7 of that (the same vertical field over a
    // wider view, the box's width binding: the audit's "beam at a third of the width" of a take).
    EXPECT_LT(fillOf(cam, lo, hi, 960.0f / 540.0f).edge, 0.7f * inView);
    // Panned, the box moves across the view, not nearer: the capture's zoom is the same (a fill measured
    // about the panned target made it depend on where the box sat: 50 m aside it refitted to 0.1 m).
    OrbitCamera panned = cam;
    panned.pan(300, -300, 720);
    EXPECT_FLOAT_EQ(panned.refitted(480.0f / 720.0f, 960.0f / 540.0f).distance, wide.distance);
    panned.target.x += 50;
    EXPECT_FLOAT_EQ(panned.refitted(480.0f / 720.0f, 960.0f / 540.0f).distance, wide.distance);
    // The same aspect: exactly this camera.
    const OrbitCamera same = cam.refitted(1.5f, 1.5f);
    EXPECT_EQ(same.distance, cam.distance);
    EXPECT_EQ(same.nearZ, cam.nearZ);
}

// A pendulum (1 m arm, 5 cm bob) let go from rest at 0.1 rad: it swings through +-0.1 rad, so its box is the
// anchor and that arc, x within L sin(0.1) + r of the anchor, where the whole reachable ball was 2 (L + r)
// wide in every direction. With the energy to go over the top (v^2 > 4 g L), or without gravity, it is
// the whole ball again.
TEST(Framing, AHangingBodyIsFramedByTheArcItsEnergyReaches) {
    const glm::vec3 a(0, 2, 0), g(0, -9.81f, 0);
    const float L = 1.0f, r = 0.05f, th = 0.1f;
    const glm::vec3 p = a + L * glm::vec3(std::sin(th), -std::cos(th), 0);
    glm::vec3 lo, hi;
    jointReach(a, p, glm::vec3(0), glm::vec3(0), r, g, lo, hi);
    // The arc's ends at +-0.1 rad, its lowest point, and the anchor.
    EXPECT_NEAR(hi.x, a.x + L * std::sin(th) + r, 1e-5f);
    EXPECT_NEAR(lo.x, a.x - L * std::sin(th) - r, 1e-5f);
    EXPECT_NEAR(lo.y, a.y - L - r, 1e-5f);
    EXPECT_NEAR(hi.y, a.y + r, 1e-5f);
    // Out of the plane the cap is a disc of the same radius: the arc could swing about any vertical plane.
    EXPECT_NEAR(hi.z, a.z + L * std::sin(th) + r, 1e-5f);
    // The same state moving: the energy of the bottom speed sqrt(2 g L (1 - cos 0.3)) reaches 0.3 rad.
    const float v = std::sqrt(2 * 9.81f * L * (1 - std::cos(0.3f)));
    jointReach(a, a - glm::vec3(0, L, 0), glm::vec3(v, 0, 0), glm::vec3(0), r, g, lo, hi);
    EXPECT_NEAR(hi.x, a.x + L * std::sin(0.3f) + r, 1e-4f);
    // Enough to loop, or no gravity: the ball of radius L + r about the anchor.
    for (const glm::vec3& gg : {g, glm::vec3(0)}) {
        jointReach(a, p, glm::vec3(gg == g ? 7.0f : 0.0f, 0, 0), glm::vec3(0), r, gg, lo, hi);
        for (int i = 0; i < 3; ++i) {
            EXPECT_NEAR(hi[i], a[i] + L + r, 1e-5f);
            EXPECT_NEAR(lo[i], a[i] - L - r, 1e-5f);
        }
    }
    // A spinning bob's rotational energy counts (|w| r bounds its speed equivalent): it widens the arc.
    glm::vec3 lo2, hi2;
    jointReach(a, p, glm::vec3(0), glm::vec3(0, 0, 40), r, g, lo2, hi2);
    EXPECT_GT(hi2.x, a.x + L * std::sin(th) + r + 1e-3f);
}

// Through sceneBounds: a ball joint frames the arc, a welded (fixed) joint or a fixed body only the body's
// own box, a soft joint (stiffness > 0) the arc of twice its arm.
TEST(Framing, AJointsTypeDecidesWhatItsBodyCanReach) {
    vbd::SceneDesc d;
    d.ground.enabled = false;
    vbd::RigidBodyView bob;
    bob.shape = vbd::ShapeType::Sphere;
    bob.radius = 0.05f;
    bob.position = vbd::Vec3(std::sin(0.1f), 2 - std::cos(0.1f), 0);
    vbd::JointDesc j;
    j.bodyA = -1, j.bodyB = 0, j.anchor = vbd::Vec3(0, 2, 0);
    d.joints = {j};
    glm::vec3 lo, hi;
    sceneBounds({}, {bob}, d, lo, hi);
    EXPECT_NEAR(lo.x, -std::sin(0.1f) - 0.05f, 1e-5f);  // the arc's far end
    EXPECT_NEAR(hi.y, 2.05f, 1e-5f);                    // the anchor
    d.joints[0].type = vbd::JointType::Fixed;
    sceneBounds({}, {bob}, d, lo, hi);
    EXPECT_NEAR(lo.x, bob.position.x - 0.05f, 1e-5f);
    EXPECT_NEAR(hi.y, bob.position.y + 0.05f, 1e-5f);
    d.joints[0].type = vbd::JointType::Ball;
    // Hung from a fixed box instead of the world: the same arc.
    vbd::RigidBodyView holder;
    holder.fixed = true;
    holder.size = vbd::Vec3(0.02f);
    holder.position = vbd::Vec3(0, 2, 0);
    d.joints[0].bodyA = 1;
    sceneBounds({}, {bob, holder}, d, lo, hi);
    EXPECT_NEAR(lo.x, -std::sin(0.1f) - 0.05f, 1e-5f);
    d.joints[0].bodyA = -1;
    bob.fixed = true;
    sceneBounds({}, {bob}, d, lo, hi);
    EXPECT_NEAR(lo.x, bob.position.x - 0.05f, 1e-5f);
    bob.fixed = false;
    d.joints[0].stiffness = 1e4;
    sceneBounds({}, {bob}, d, lo, hi);
    EXPECT_NEAR(lo.y, 2 - 2.0f - 0.05f, 1e-5f);  // the arm doubled: 2 m below the anchor
}

// A rotated box is framed by its own extents: a 6 x 0.2 x 1 plate tilted 0.2 rad about z spans
// 6 cos 0.2 + 0.2 sin 0.2 in x and 6 sin 0.2 + 0.2 cos 0.2 = 1.388 m in y (its half diagonal gave 6.17 m).
TEST(Framing, ARotatedBoxIsFramedByItsRotatedExtents) {
    vbd::SceneDesc d;
    d.ground.enabled = false;
    vbd::RigidBodyView b;
    b.shape = vbd::ShapeType::Box;
    b.size = vbd::Vec3(6, 0.2f, 1);
    b.position = vbd::Vec3(0, 3, 0);
    b.rotation = vbd::Quat(0, 0, std::sin(0.1f), std::cos(0.1f));
    glm::vec3 lo, hi;
    sceneBounds({}, {b}, d, lo, hi);
    EXPECT_NEAR(hi.x - lo.x, 6 * std::cos(0.2f) + 0.2f * std::sin(0.2f), 1e-4f);
    EXPECT_NEAR(hi.y - lo.y, 6 * std::sin(0.2f) + 0.2f * std::cos(0.2f), 1e-4f);
    EXPECT_NEAR(hi.z - lo.z, 1.0f, 1e-5f);
    // Spinning, it may turn any way: the ball of its half diagonal.
    b.angularVelocity = vbd::Vec3(0, 1, 0);
    sceneBounds({}, {b}, d, lo, hi);
    const float half = 0.5f * std::sqrt(36.0f + 0.04f + 1.0f);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(hi[i] - lo[i], 2 * half, 1e-4f);
}

// The ground is kept under the framed scene when something can fall to it: a soft body pinned nowhere, a
// rigid body hanging from nothing. A beam pinned 2 m above it (beam_sag) is framed without it, as is a chain
// hanging from the world (joined body to body); cut loose, or with a free box beside it, the ground is in.
// A standing sheet pinned nowhere falls over: cloth_fold's 0.8 m sheet, framed as a box 0 m deep (its plane),
// landed up to 0.32 m outside that box by frame 45, under the view's bottom edge. Its framed box, from the
// first state, now holds every particle of the fall.
TEST(Framing, AFallingSheetIsFramedWhereItCanLand) {
    const vbd::SceneDesc d =
        vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/cloth_fold.json");
    auto w = vbd::World::create(d);
    glm::vec3 lo, hi;
    sceneBounds(w->positions(), {}, d, lo, hi);
    for (int f = 0; f < 45; ++f) w->step();
    float outside = 0;
    for (const vbd::Vec3& p : w->positions())
        for (int k = 0; k < 3; ++k) outside = std::max({outside, lo[k] - p[k], p[k] - hi[k]});
    EXPECT_LE(outside, 0.01f) << "a particle " << outside
                              << " m outside the framed box";  // the contact radius
}

TEST(Framing, TheGroundIsFramedWhenSomethingCanFallToIt) {
    vbd::SceneDesc d;
    d.ground.height = -2;
    vbd::SoftBodyDesc beam;
    beam.min = vbd::Vec3(0, 1, 0);
    beam.max = vbd::Vec3(2.5f, 1.5f, 0.5f);
    vbd::FixedDesc pin;
    pin.box = {{-0.01f, 0.99f, -0.01f}, {0.01f, 1.51f, 0.51f}};
    beam.fixed.push_back(pin);
    d.softBodies.push_back(beam);
    const std::vector<vbd::Vec3> pts{beam.min, beam.max};
    glm::vec3 lo, hi;
    sceneBounds(pts, {}, d, lo, hi);
    EXPECT_FLOAT_EQ(lo.y, 1.0f);
    d.softBodies[0].fixed.clear();
    sceneBounds(pts, {}, d, lo, hi);
    EXPECT_FLOAT_EQ(lo.y, -2.0f);
    d.softBodies[0].fixed.push_back(pin);
    // A two-link chain from the world anchor at (0, 3, 0): 0 hangs from the world, 1 from 0.
    vbd::RigidBodyView link;
    link.size = vbd::Vec3(0.1f);
    std::vector<vbd::RigidBodyView> bodies{link, link};
    bodies[0].position = vbd::Vec3(0, 2.5f, 0);
    bodies[1].position = vbd::Vec3(0, 2, 0);
    vbd::JointDesc j0, j1;
    j0.bodyA = -1, j0.bodyB = 0, j0.anchor = vbd::Vec3(0, 3, 0);
    j1.bodyA = 0, j1.bodyB = 1, j1.anchor = vbd::Vec3(0, 2.25f, 0);
    d.joints = {j1, j0};  // the order does not matter
    EXPECT_FALSE(somethingFalls(bodies, d));
    d.joints = {j1};  // cut from the world
    EXPECT_TRUE(somethingFalls(bodies, d));
    bodies[0].fixed = true;  // hung from a fixed body instead: held as by the world
    EXPECT_FALSE(somethingFalls(bodies, d));
    bodies[0].fixed = false;
    d.joints = {j1, j0};
    bodies.push_back(link);  // a free box (a thrown one)
    EXPECT_TRUE(somethingFalls(bodies, d));
    bodies.back().fixed = true;
    EXPECT_FALSE(somethingFalls(bodies, d));
    d.gravity = vbd::Vec3(0, 0, 0);
    d.softBodies[0].fixed.clear();
    EXPECT_FALSE(somethingFalls(bodies, d));  // nothing falls without gravity
    // The ground near the scene (within a fifth of its size below) is kept whatever falls.
    d.gravity = vbd::Vec3(0, -9.81f, 0);
    d.softBodies[0].fixed.push_back(pin);
    d.joints.clear();
    d.ground.height = 0.8f;
    sceneBounds(pts, {}, d, lo, hi);
    EXPECT_FLOAT_EQ(lo.y, 0.8f);
}

}  // namespace
}  // namespace vbdgui
