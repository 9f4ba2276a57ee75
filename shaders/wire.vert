#version 450
#include "common.glsl"
// Wireframe over the particle surfaces: same ParticleVertex buffer as mesh.vert, flat colour.
layout(location = 0) in vec3 inPos;
layout(location = 0) out vec4 vColor;
void main() {
    vColor = pc.color;
    gl_Position = pc.viewProj * vec4(inPos, 1.0);
    gl_Position.z -= 2e-4 * gl_Position.w;  // win the depth test against the surface underneath
}
