#include "rigid/rigid_scenes.h"

#include <cmath>
#include <string>

namespace vbd {

namespace {

RigidBodyDesc box(const Vec3& size, const Vec3& pos, double density = 1000, double friction = 0.5) {
    RigidBodyDesc b;
    b.shape = ShapeType::Box;
    b.size = size;
    b.position = pos;
    b.density = density;
    b.friction = friction;
    return b;
}

void keys(SceneDesc& s) {
    for (size_t i = 0; i < s.rigidBodies.size(); ++i)
        s.rigidBodies[i].key = "rigid_bodies[" + std::to_string(i) + "]";
    for (size_t i = 0; i < s.joints.size(); ++i) s.joints[i].key = "joints[" + std::to_string(i) + "]";
}

}  // namespace

SceneDesc rigidStackScene(int n, float size) {
    SceneDesc s;
    s.name = "Rigid: box stack";
    for (int i = 0; i < n; ++i)
        s.rigidBodies.push_back(box(Vec3(size), Vec3(0, size * (0.5f + float(i)), 0)));
    keys(s);
    return s;
}

SceneDesc rigidPyramidScene(int rows, float size) {
    SceneDesc s;
    s.name = "Rigid: pyramid";
    const float gap = 0.05f * size;
    for (int r = 0; r < rows; ++r) {
        const int count = rows - r;
        const float x0 = -0.5f * float(count - 1) * (size + gap);
        for (int i = 0; i < count; ++i)
            s.rigidBodies.push_back(
                box(Vec3(size), Vec3(x0 + float(i) * (size + gap), size * (0.5f + float(r)), 0)));
    }
    keys(s);
    return s;
}

SceneDesc rigidCardHouseScene() {
    SceneDesc s;
    s.name = "Rigid: card house";
    const float w = 0.6f, hgt = 0.9f, t = 0.02f,
                lean = 0.3f;  // card width (z), height, thickness, lean (rad)
    const float mu = 0.9f;
    const float c = std::cos(lean), sn = std::sin(lean);
    // Leaning half-height along the card's y; a pair's feet are 2 hgt sin(lean) apart.
    const float rise = hgt * c;
    auto pair = [&](float cx, float base) {
        for (int side = -1; side <= 1; side += 2) {
            RigidBodyDesc b = box(Vec3(t, hgt, w),
                                  Vec3(cx + float(side) * (0.5f * hgt * sn + 0.5f * t * c),
                                       base + 0.5f * rise + 0.5f * t * sn, 0),
                                  500, mu);
            b.rotation = fromAxisAngle(Vec3(0, 0, 1), float(side) * lean);
            s.rigidBodies.push_back(b);
        }
    };
    const float spacing = 2.0f * hgt * sn + 0.1f;
    // Storey 1: two pairs and a flat card across their tops; storey 2: one pair on it.
    pair(-0.5f * spacing, 0);
    pair(0.5f * spacing, 0);
    const float top1 = rise + t * sn;
    s.rigidBodies.push_back(box(Vec3(2.0f * spacing, t, w), Vec3(0, top1 + 0.5f * t, 0), 500, mu));
    pair(0, top1 + t);
    keys(s);
    return s;
}

SceneDesc rigidHeavyChainScene(int links, double ratio) {
    SceneDesc s;
    s.name = "Rigid: heavy chain";
    s.ground.enabled = false;
    // Hard joints from the first step: with k_start = 1e4 and beta = 1e5 the penalty ramp
    // (k += beta |C| on the stabilized error) is far too slow for a 5e4 N load on 0.1 kg links.
    s.solver.kStart = 1e10;
    s.solver.kMax = 1e10;
    const float len = 0.1f, r = 0.02f;  // link: capsule of core length len - 2r (+ caps), pitch len
    const float top = float(links) * len + 1.0f;
    RigidBodyDesc link;
    link.shape = ShapeType::Capsule;
    link.radius = r;
    link.halfHeight = 0.5f * len - r;
    link.density = 1000;
    for (int i = 0; i < links; ++i) {
        link.position = Vec3(0, top - (float(i) + 0.5f) * len, 0);
        s.rigidBodies.push_back(link);
        JointDesc j;
        j.type = JointType::Ball;
        j.bodyA = i - 1;
        j.bodyB = i;
        j.anchor = Vec3(0, top - float(i) * len, 0);
        s.joints.push_back(j);
    }
    // The heavy body: a box whose mass is ratio times a link's mass, hung by its top face center.
    const double linkMass = 1000.0 * (M_PI * r * r * (len - 2 * r) + 4.0 / 3.0 * M_PI * r * r * r);
    const float side = 0.3f;
    RigidBodyDesc heavy = box(Vec3(side), Vec3(0, top - float(links) * len - 0.5f * side, 0));
    heavy.density = ratio * linkMass / double(side * side * side);
    s.rigidBodies.push_back(heavy);
    JointDesc j;
    j.type = JointType::Ball;
    j.bodyA = links - 1;
    j.bodyB = links;
    j.anchor = Vec3(0, top - float(links) * len, 0);
    s.joints.push_back(j);
    keys(s);
    return s;
}

SceneDesc rigidDominoesScene(int n) {
    SceneDesc s;
    s.name = "Rigid: dominoes";
    const Vec3 d(0.1f, 0.5f, 0.25f);
    for (int i = 0; i < n; ++i) {
        RigidBodyDesc b = box(d, Vec3(float(i) * 0.3f, 0.25f, 0), 700, 0.6);
        if (i == 0) {
            // Tipped towards +x by 0.3 rad about its bottom +x edge.
            const float a = 0.3f;
            b.rotation = fromAxisAngle(Vec3(0, 0, 1), -a);
            const Vec3 pivot(0.05f, 0, 0);
            b.position = pivot + rotate(b.rotation, Vec3(-0.05f, 0.25f, 0)) + Vec3(0, 0.002f, 0);
        }
        s.rigidBodies.push_back(b);
    }
    keys(s);
    return s;
}

SceneDesc rigidSpinScene(int axis, float omega, float eps) {
    SceneDesc s;
    s.name = "Rigid: intermediate axis";
    s.gravity = Vec3(0.0f);
    s.ground.enabled = false;
    RigidBodyDesc b = box(Vec3(1, 2, 3), Vec3(0, 2, 0), 100);
    Vec3 w(eps, eps, eps);
    w[axis] = omega;
    b.angularVelocity = w;
    s.rigidBodies.push_back(b);
    keys(s);
    return s;
}

SceneDesc rigidRampsScene(const std::vector<float>& angles, const std::vector<float>& mu) {
    SceneDesc s;
    s.name = "Rigid: ramps";
    s.ground.enabled = false;
    const Vec3 rampSize(6.0f, 0.2f, 1.0f), boxSize(0.4f);
    for (size_t i = 0; i < angles.size(); ++i) {
        const float z = float(i) * 2.0f;
        const Quat q = fromAxisAngle(Vec3(0, 0, 1), angles[i]);
        RigidBodyDesc ramp = box(rampSize, Vec3(0, 3, z), 1000, mu[i]);
        ramp.rotation = q;
        ramp.fixed = true;
        s.rigidBodies.push_back(ramp);
        // The box rests on the ramp's top face, 1.5 m up-slope of its center, same orientation.
        RigidBodyDesc b = box(
            boxSize, Vec3(0, 3, z) + rotate(q, Vec3(1.5f, 0.5f * (rampSize.y + boxSize.y), 0)), 1000, mu[i]);
        b.rotation = q;
        s.rigidBodies.push_back(b);
    }
    keys(s);
    return s;
}

SceneDesc rigidPendulumScene(float length, float angle0) {
    SceneDesc s;
    s.name = "Rigid: pendulum";
    s.ground.enabled = false;
    RigidBodyDesc bob;
    bob.shape = ShapeType::Sphere;
    bob.radius = 0.05f;
    bob.density = 1000;
    const Vec3 pivot(0, 2, 0);
    bob.position = pivot + Vec3(length * std::sin(angle0), -length * std::cos(angle0), 0);
    s.rigidBodies.push_back(bob);
    JointDesc j;
    j.type = JointType::Ball;
    j.bodyA = -1;
    j.bodyB = 0;
    j.anchor = pivot;
    s.joints.push_back(j);
    keys(s);
    return s;
}

SceneDesc rigidPileScene(int n, float size) {
    SceneDesc s;
    s.name = "Rigid: pile";
    const int side = int(std::ceil(std::cbrt(double(n) / 2.0)));  // footprint side x side, 2 side tall
    const float pitch = 1.4f * size;  // yawed boxes (corner radius 0.62 size) clear their neighbours
    int k = 0;
    for (int y = 0; k < n; ++y)
        for (int x = 0; x < side && k < n; ++x)
            for (int z = 0; z < side && k < n; ++z, ++k) {
                RigidBodyDesc b = box(Vec3(size), Vec3((float(x) - 0.5f * float(side)) * pitch,
                                                       0.5f * size + 0.02f + float(y) * pitch,
                                                       (float(z) - 0.5f * float(side)) * pitch));
                // Yaw only: columns of flat boxes, each turned a little against the one below.
                b.rotation = fromAxisAngle(Vec3(0, 1, 0), 0.3f * float((k * 7919) % 13) / 13.0f);
                s.rigidBodies.push_back(b);
            }
    keys(s);
    return s;
}

}  // namespace vbd
