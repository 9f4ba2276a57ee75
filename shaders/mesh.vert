#version 450
#include "common.glsl"
// Particle surfaces (soft-body boundaries and cloth): one ParticleVertex per particle (32 bytes).
layout(location = 0) in vec3 inPos;
layout(location = 1) in float inScalar;
layout(location = 2) in vec3 inNormal;
layout(location = 0) out vec3 vPos;
layout(location = 1) out vec3 vNormal;
layout(location = 2) out float vScalar;
layout(location = 3) out vec4 vColor;
void main() {
    vPos = inPos;
    vNormal = inNormal;
    vScalar = inScalar;
    // Colour groups are categorical: each vertex carries its group's colour, blended across triangles
    // (rounding an interpolated index would invent groups between vertices).
    vColor = int(pc.params.x + 0.5) == 2 ? vec4(categorical(inScalar), pc.color.a) : pc.color;
    gl_Position = pc.viewProj * vec4(inPos, 1.0);
}
