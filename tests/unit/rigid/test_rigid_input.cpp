// Bad input to the rigid solver: refused with InputError naming the key, or repaired with a
// warning where the meaning is unambiguous (a non-unit quaternion).
#include <gtest/gtest.h>

#include <cmath>

#include "math/error.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"

namespace vbd {
namespace {

SceneDesc twoBoxes() {
    SceneDesc s;
    s.file = "scene.json";
    RigidBodyDesc b;
    b.position = Vec3(0, 0.5f, 0);
    s.rigidBodies.push_back(b);
    b.position = Vec3(0, 1.5f, 0);
    s.rigidBodies.push_back(b);
    return s;
}

std::string keyOf(const SceneDesc& s) {
    try {
        RigidSolver r(s);
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "scene.json");
        return e.key();
    }
    return "<accepted>";
}

TEST(RigidInput, NonPositiveSizeAndDensity) {
    SceneDesc s = twoBoxes();
    s.rigidBodies[1].size = Vec3(1, 0, 1);
    EXPECT_EQ(keyOf(s), "rigid_bodies[1].size");
    s = twoBoxes();
    s.rigidBodies[0].size = Vec3(1, -2, 1);
    EXPECT_EQ(keyOf(s), "rigid_bodies[0].size");
    s = twoBoxes();
    s.rigidBodies[0].density = 0;
    EXPECT_EQ(keyOf(s), "rigid_bodies[0].density");
    s = twoBoxes();
    s.rigidBodies[1].density = -5;
    EXPECT_EQ(keyOf(s), "rigid_bodies[1].density");
    s = twoBoxes();
    s.rigidBodies[1].shape = ShapeType::Sphere;
    s.rigidBodies[1].radius = 0;
    EXPECT_EQ(keyOf(s), "rigid_bodies[1].radius");
    s = twoBoxes();
    s.rigidBodies[0].shape = ShapeType::Capsule;
    s.rigidBodies[0].halfHeight = -1;
    EXPECT_EQ(keyOf(s), "rigid_bodies[0].half_height");
    s = twoBoxes();
    s.rigidBodies[0].size = Vec3(NAN, 1, 1);
    EXPECT_EQ(keyOf(s), "rigid_bodies[0].size");
}

TEST(RigidInput, JointNamingMissingBody) {
    SceneDesc s = twoBoxes();
    JointDesc j;
    j.bodyA = 0;
    j.bodyB = 2;  // only bodies 0 and 1 exist
    s.joints.push_back(j);
    EXPECT_EQ(keyOf(s), "joints[0].body_b");
    s.joints[0].bodyB = 1;
    s.joints[0].bodyA = 7;
    EXPECT_EQ(keyOf(s), "joints[0].body_a");
    s.joints[0].bodyA = 1;
    EXPECT_EQ(keyOf(s), "joints[0].body_b");  // a body jointed to itself
    s.joints[0].bodyA = -1;
    s.joints[0].type = JointType::Hinge;
    s.joints[0].axis = Vec3(0.0f);
    EXPECT_EQ(keyOf(s), "joints[0].axis");
    s.joints[0].axis = Vec3(0, 0, 1);
    s.joints[0].limit = true;
    s.joints[0].lower = 1;
    s.joints[0].upper = -1;
    EXPECT_EQ(keyOf(s), "joints[0].lower");
}

TEST(RigidInput, SolverParameters) {
    SceneDesc s = twoBoxes();
    s.solver.iterations = 0;
    EXPECT_EQ(keyOf(s), "solver.iterations");
    s = twoBoxes();
    s.solver.kMax = 1;  // below k_start
    EXPECT_EQ(keyOf(s), "solver.k_max");
    s = twoBoxes();
    s.solver.alpha = 1.5;
    EXPECT_EQ(keyOf(s), "solver.alpha");
    // setParams validates too and leaves the old parameters on failure.
    RigidSolver r(twoBoxes());
    SolverDesc bad;
    bad.gamma = -1;
    EXPECT_THROW(r.setParams(bad), InputError);
}

TEST(RigidInput, NonUnitQuaternionIsNormalizedWithWarning) {
    SceneDesc s = twoBoxes();
    s.rigidBodies[1].rotation = Quat(0, 0, 0, 2);  // identity, scaled
    RigidSolver r(s);
    ASSERT_EQ(r.warnings().size(), 1u);
    EXPECT_NE(r.warnings()[0].find("rigid_bodies[1].rotation"), std::string::npos);
    EXPECT_NEAR(norm(r.states()[1].rotation), 1.0f, 1e-6f);
    EXPECT_NEAR(r.states()[1].rotation.w, 1.0f, 1e-6f);
    // A zero quaternion has no rotation to normalize to.
    s.rigidBodies[1].rotation = Quat(0, 0, 0, 0);
    EXPECT_EQ(keyOf(s), "rigid_bodies[1].rotation");
}

TEST(RigidInput, MassPropertiesFromDensity) {
    // Box a x b x c: m = rho a b c, I_x = m (b^2 + c^2) / 12; sphere: 2/5 m r^2; a capsule with
    // zero half height is a sphere. Closed forms, so rounding only (1e-9 relative).
    Collider box;
    box.half = Vec3(0.5f, 1.0f, 1.5f);
    MassProperties mb = massProperties(box, 100);
    EXPECT_NEAR(mb.mass, 100 * 1 * 2 * 3, 1e-9 * 600);
    EXPECT_NEAR(mb.inertia.x, 600 * (4 + 9) / 12.0, 1e-6);
    EXPECT_NEAR(mb.inertia.z, 600 * (1 + 4) / 12.0, 1e-6);
    Collider sph;
    sph.type = ShapeType::Sphere;
    sph.radius = 0.5f;
    MassProperties ms = massProperties(sph, 1000);
    EXPECT_NEAR(ms.mass, 1000 * 4.0 / 3.0 * M_PI * 0.125, 1e-6);
    EXPECT_NEAR(ms.inertia.y, 0.4 * ms.mass * 0.25, 1e-6);
    Collider cap = sph;
    cap.type = ShapeType::Capsule;
    cap.halfHeight = 0;
    MassProperties mc = massProperties(cap, 1000);
    EXPECT_NEAR(mc.mass, ms.mass, 1e-9);
    EXPECT_NEAR(mc.inertia.x, ms.inertia.x, 1e-9);
    // A long capsule approaches a rod: I_x -> m L^2 / 12 with L = 2 hh (within the caps' share).
    cap.radius = 0.01f;
    cap.halfHeight = 1.0f;
    MassProperties ml = massProperties(cap, 1000);
    EXPECT_NEAR(ml.inertia.x, ml.mass * 4.0 / 12.0, 0.02 * ml.mass * 4.0 / 12.0);
}

}  // namespace
}  // namespace vbd
