#pragma once
// The renderer's per-body instance record (rotation, translation, scale, colour), one source for the CPU
// upload (app/render/renderer.cpp, host memory mapped by Vulkan) and the CUDA-Vulkan interop kernel
// (gpu/interop_cuda.cu, device memory exported by Vulkan, read from the device rigid step's poses). The
// engine defines the record; the app static_asserts that its BodyInstance and shaders/body.vert have this
// layout.
//
// Instances are drawn boxes first, then spheres and capsules (two instanced draws over one buffer): a table
// in draw order names each instance's body and holds what does not change between steps (shape, colour),
// built on the host when the body set changes; the pose comes from the step's state per frame.
#include <array>
#include <vector>

#include "math/hd.h"
#include "math/quat.h"
#include "math/vec3.h"
#include "rigid/rigid_body.h"
#include "views/views.h"

namespace vbd {

// 64 bytes, four vec4 attributes of shaders/body.vert: quaternion (x, y, z, w); translation (w = 1); box:
// edge lengths, sphere: radius in all three, capsule: (r, r + half height, r) (w = 0); linear RGB (a = 1).
struct BodyInstanceRecord {
    float rot[4];
    float pos[4];
    float scale[4];
    float color[4];
};
static_assert(sizeof(BodyInstanceRecord) == 64, "BodyInstanceRecord is four vec4 attributes");

// One instance of the table: its body and the body's shape and colour.
struct BodyInstanceShape {
    int body = 0;
    int box = 1;  // 1: a box of half extents `half`; 0: a sphere / capsule of radius, halfHeight
    Vec3 half{0.5f, 0.5f, 0.5f};
    float radius = 0.5f, halfHeight = 0.0f;  // halfHeight 0 for spheres
    float color[3] = {1, 1, 1};
};

// The record of one instance from its body's pose. Only copies and the shape's scale (2 * half, r + h), so
// every caller writes the same bytes.
VBD_HD BodyInstanceRecord bodyInstanceRecord(const Vec3& position, const Quat& rotation,
                                             const BodyInstanceShape& s) {
    BodyInstanceRecord r{};
    r.rot[0] = rotation.x, r.rot[1] = rotation.y, r.rot[2] = rotation.z, r.rot[3] = rotation.w;
    r.pos[0] = position.x, r.pos[1] = position.y, r.pos[2] = position.z, r.pos[3] = 1.0f;
    if (s.box) {
        r.scale[0] = s.half.x * 2.0f, r.scale[1] = s.half.y * 2.0f, r.scale[2] = s.half.z * 2.0f;
    } else {
        r.scale[0] = s.radius, r.scale[1] = s.radius + s.halfHeight, r.scale[2] = s.radius;
    }
    r.scale[3] = 0.0f;
    r.color[0] = s.color[0], r.color[1] = s.color[1], r.color[2] = s.color[2], r.color[3] = 1.0f;
    return r;
}

// The records of a table from the rigid step's states: functor over [0, count) for an executor's forEach
// (gpu/host_exec.h, gpu/cuda_exec.cuh).
struct BodyInstanceStage {
    const RigidBodyState* state = nullptr;
    const BodyInstanceShape* table = nullptr;
    BodyInstanceRecord* out = nullptr;
    VBD_HD void operator()(int k) const {
        const BodyInstanceShape& s = table[k];
        out[k] = bodyInstanceRecord(state[s.body].position, state[s.body].rotation, s);
    }
};

struct BodyInstanceTable {
    std::vector<BodyInstanceShape> items;  // boxes first, then spheres and capsules, each in body order
    int boxes = 0;
};

// The table of `bodies` (World::bodies()); colors[i]: body i's linear RGB (the app's palette).
BodyInstanceTable bodyInstanceTable(const std::vector<RigidBodyView>& bodies,
                                    const std::vector<std::array<float, 3>>& colors);

// The CPU upload's fill: the table's records from the views' poses into out (table.items.size() records).
void fillBodyInstances(const std::vector<RigidBodyView>& bodies, const BodyInstanceTable& table,
                       BodyInstanceRecord* out);

}  // namespace vbd
