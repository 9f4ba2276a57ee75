// Picking: a ray from the camera through a vertex's projected pixel must grab that vertex (or a body
// when the ray hits it first), using the same camera math as the renderer.
#include <gtest/gtest.h>

#include <algorithm>

#include "cube_scene.h"
#include "render/picking.h"
#include "render/preview_world.h"

namespace vbdgui {
namespace {

TEST(Picking, RayThroughProjectedCornerGrabsThatVertex) {
    vbd::SceneDesc d;
    vbd::SoftBodyDesc sb = vbdtest::cubeBody(0, 1, 3);
    d.softBodies.push_back(sb);
    auto world = makePreviewWorld(d, false);
    OrbitCamera cam;
    cam.target = {0.5f, 0.5f, 0.5f};
    cam.distance = 4;
    const float w = 640, h = 480;
    glm::mat4 vp = cam.viewProj(w / h);
    const auto& x = world->positions();
    int tested = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        glm::vec3 p(x[i].x, x[i].y, x[i].z);
        // Only vertices on the faces that look at the camera (eye is at +x, +y, +z of the box).
        if (!(p.x == 1 || p.y == 1 || p.z == 1)) continue;
        glm::vec3 s = projectToPixel(vp, p, w, h);
        // Nudge the ray a quarter of a grid cell towards the face centre so that it hits a triangle that
        // has this vertex as its nearest corner.
        glm::vec3 centre = projectToPixel(vp, {0.5f, 0.5f, 0.5f}, w, h);
        glm::vec2 dir = glm::normalize(glm::vec2(centre) - glm::vec2(s));
        PickHit hit = pick(*world, cam.ray(s.x + 3 * dir.x, s.y + 3 * dir.y, w, h));
        ASSERT_GE(hit.particle, 0);
        EXPECT_EQ(hit.particle, int(i)) << "vertex at " << p.x << "," << p.y << "," << p.z;
        ++tested;
    }
    EXPECT_GT(tested, 20);
}

TEST(Picking, NearerBodyWinsOverSurface) {
    vbd::SceneDesc d;
    vbd::SoftBodyDesc sb = vbdtest::cubeBody(-1, 1, 1);
    d.softBodies.push_back(sb);
    vbd::RigidBodyDesc box;
    box.size = {0.5f, 0.5f, 0.5f};
    box.position = {0, 0, 2};
    d.rigidBodies.push_back(box);
    auto world = makePreviewWorld(d, false);
    PickHit hit = pick(*world, Ray{{0, 0, 10}, {0, 0, -1}});
    EXPECT_EQ(hit.body, 0);
    EXPECT_EQ(hit.particle, -1);
    // Box face at z = 2.25: 7.75 from the origin of the ray (float rounding).
    EXPECT_NEAR(hit.t, 7.75f, 1e-4f);
}

}  // namespace
}  // namespace vbdgui

// A capture at another aspect than the view's (an offscreen take at 960x540 of a 480x720 view) refits the
// camera so that what fills the view fills the capture: a box framed for the tall view spans the same
// fraction of the narrower side in the wide capture as it did in the view.
TEST(Camera, RefittedToAnotherAspectFramesTheSameFraction) {
    const glm::vec3 lo(0, 0, 0), hi(4, 1, 1);
    vbdgui::OrbitCamera cam;
    cam.frame(lo, hi, 480.0f / 720.0f);
    cam.distance *= 1.4f;  // the user zoomed out
    // The box's projected width as a fraction of the viewport's narrower side.
    auto span = [&](const vbdgui::OrbitCamera& c, float w, float h) {
        const glm::mat4 vp = c.viewProj(w / h);
        float x0 = 1e30f, x1 = -1e30f, y0 = 1e30f, y1 = -1e30f;
        for (int k = 0; k < 8; ++k) {
            const glm::vec3 p((k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z);
            const glm::vec3 s = vbdgui::projectToPixel(vp, p, w, h);
            x0 = std::min(x0, s.x), x1 = std::max(x1, s.x), y0 = std::min(y0, s.y), y1 = std::max(y1, s.y);
        }
        return std::max(x1 - x0, y1 - y0) / std::min(w, h);
    };
    const float inView = span(cam, 480, 720);
    const vbdgui::OrbitCamera wide = cam.refitted(480.0f / 720.0f, 960.0f / 540.0f);
    EXPECT_LT(wide.distance, cam.distance);
    // The same bounding sphere fills the narrower field: the box's extent agrees within the perspective's
    // difference between the two (the sphere, not the box, is what is fitted): 10 %.
    EXPECT_NEAR(span(wide, 960, 540), inView, 0.1f * inView);
    // Unrefitted, the box took two thirds of that (the same vertical field over 540 rows instead of 720, and
    // 0.375 of the view's share of the width: the audit's "tiny beam").
    EXPECT_LT(span(cam, 960, 540), 0.7f * inView);
    // The same aspect: exactly this camera.
    const vbdgui::OrbitCamera same = cam.refitted(1.5f, 1.5f);
    EXPECT_EQ(same.distance, cam.distance);
    EXPECT_EQ(same.nearZ, cam.nearZ);
}
