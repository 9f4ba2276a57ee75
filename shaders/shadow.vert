#version 450
#include "common.glsl"
// Ground shadows (renderer.cpp shadowBlobs): discs on the ground plane, blended over the grid without writing
// depth. The disc is pulled towards the eye by params.x of clip space, 8 steps of the depth buffer's
// resolution near 1 (renderer.cpp: 5e-7 for a 32-bit float depth beyond twice the near plane): enough to win
// the depth test against the grid's own plane, whose depth differs from the disc's by the rasterizer's
// rounding, and a constant count of steps at any distance (the depth's resolution and the pull's world length
// both grow as w^2: 1.2 mm at 7 m). The lines' pull (2e-4, line.vert) is 400 times that, a metre of depth at
// 10 m: with it the disc was drawn over the lower part of the bodies resting on it (test_offscreen
// GroundShadowUnderEachBodyFromItsBox: 747 face pixels, now none).
layout(location = 0) in vec3 inPos;
layout(location = 1) in vec4 inColor;
layout(location = 0) out vec4 vColor;
void main() {
    vColor = inColor;
    gl_Position = pc.viewProj * vec4(inPos, 1.0);
    gl_Position.z -= pc.params.x * gl_Position.w;
}
