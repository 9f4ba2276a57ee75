#version 450
#include "common.glsl"
// Lines (wireframe, contacts, fixed-vertex markers, drag spring): position and RGBA8 colour.
layout(location = 0) in vec3 inPos;
layout(location = 1) in vec4 inColor;
layout(location = 0) out vec4 vColor;
void main() {
    vColor = inColor;
    gl_Position = pc.viewProj * vec4(inPos, 1.0);
    // Pull lines slightly towards the camera so a wireframe wins the depth test over its own surface.
    gl_Position.z -= 2e-4 * gl_Position.w;
}
