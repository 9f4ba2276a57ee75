#pragma once
// CPU-side geometry for drawing: GPU vertex layouts, unit shapes for instancing, and
// the heat-map colour ramp mirrored from shaders/common.glsl (for the legend).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/body_instances.h"
#include "world/world.h"

namespace vbdgui {

// One per particle (32 bytes): shaders/mesh.vert locations 0..2.
struct ParticleVertex {
    float pos[3];
    float scalar;  // heat-map value in [0, 1] (or a colour-group index in categorical mode)
    float normal[3];
    float pad;
};
static_assert(sizeof(ParticleVertex) == 32, "ParticleVertex must match mesh.vert");

// Unit-shape vertex for instanced bodies (24 bytes): shaders/body.vert locations 0..1.
struct ShapeVertex {
    float pos[3];
    float normal[3];
};

// Per-body instance (64 bytes): shaders/body.vert locations 2..5.
struct BodyInstance {
    float rot[4];    // quaternion (x, y, z, w)
    float pos[4];    // translation
    float scale[4];  // box: edge lengths; sphere: radius in all three
    float color[4];
};
static_assert(sizeof(BodyInstance) == 64, "BodyInstance must match body.vert");
// The engine writes the records (gpu/body_instances.h: the CPU upload and the interop kernel).
static_assert(offsetof(BodyInstance, rot) == offsetof(vbd::BodyInstanceRecord, rot) &&
                  offsetof(BodyInstance, pos) == offsetof(vbd::BodyInstanceRecord, pos) &&
                  offsetof(BodyInstance, scale) == offsetof(vbd::BodyInstanceRecord, scale) &&
                  offsetof(BodyInstance, color) == offsetof(vbd::BodyInstanceRecord, color) &&
                  sizeof(BodyInstance) == sizeof(vbd::BodyInstanceRecord),
              "BodyInstance (shaders/body.vert) must have vbd::BodyInstanceRecord's layout");

// Line vertex (16 bytes): shaders/line.vert.
struct LineVertex {
    float pos[3];
    uint32_t rgba;  // R in the low byte (VK_FORMAT_R8G8B8A8_UNORM)
};

struct ShapeMesh {
    std::vector<ShapeVertex> vertices;
    std::vector<uint32_t> indices;
};
ShapeMesh unitBox();                           // edge length 1, flat-shaded faces, outward CCW
ShapeMesh unitSphere(int slices, int stacks);  // radius 1

// Unique undirected edges of the surfaces (for the wireframe), as index pairs.
std::vector<uint32_t> surfaceEdges(const std::vector<vbd::SurfaceView>& surfaces);

uint32_t packRgba(float r, float g, float b, float a = 1);
// Linear RGB of the material-region tints of shaders/common.glsl materialTint() (for the legend).
inline constexpr float kStifferTint[3] = {0.20f, 0.33f, 0.62f}, kSofterTint[3] = {0.95f, 0.85f, 0.45f};
// Same ramp as heatMap() in shaders/common.glsl, in linear RGB.
std::array<float, 3> heatMapColor(float t);

}  // namespace vbdgui
