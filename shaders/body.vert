#version 450
#include "common.glsl"
// Instanced rigid bodies: a unit shape (box of edge 1 or sphere of radius 1) scaled, rotated by the
// body's quaternion (x, y, z, w) and translated. Instance record is 64 bytes.
layout(location = 0) in vec3 inPos;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec4 iRot;
layout(location = 3) in vec4 iPos;
layout(location = 4) in vec4 iScale;
layout(location = 5) in vec4 iColor;
layout(location = 0) out vec3 vPos;
layout(location = 1) out vec3 vNormal;
layout(location = 2) out float vScalar;
layout(location = 3) out vec4 vColor;
vec3 rotate(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}
void main() {
    vec3 p = rotate(iRot, inPos * iScale.xyz) + iPos.xyz;
    vPos = p;
    vNormal = rotate(iRot, normalize(inNormal / iScale.xyz));
    vScalar = 0.0;
    vColor = iColor;
    gl_Position = pc.viewProj * vec4(p, 1.0);
}
