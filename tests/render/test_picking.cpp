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
