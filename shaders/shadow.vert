#version 450
#include "common.glsl"
// Ground shadows (renderer.cpp shadowBlobs): discs on the ground plane, blended over the grid without writing
// depth. Each vertex is moved towards the eye by 0.1 % of its distance: enough to win the depth test against
// the grid's own plane (a 32-bit float depth resolves n / w^2 per ulp: 3 mm at 30 m for the 2 cm near plane,
// against the 3 cm pull there), and little enough that a body standing on its disc hides it. The lines' pull
// (2e-4 of clip space, line.vert) is a metre of depth at 10 m: with it the disc was drawn over the lower part
// of the boxes resting on it.
layout(location = 0) in vec3 inPos;
layout(location = 1) in vec4 inColor;
layout(location = 0) out vec4 vColor;
void main() {
    vColor = inColor;
    gl_Position = pc.viewProj * vec4(mix(inPos, pc.eye.xyz, 1e-3), 1.0);
}
