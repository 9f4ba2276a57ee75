#version 450
#include "common.glsl"
// Ground plane: two triangles at y = params.y spanning +-params.z around the origin (no vertex buffer).
layout(location = 0) out vec3 vPos;
void main() {
    const vec2 corners[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    vec2 c = corners[gl_VertexIndex] * pc.params.z;
    vPos = vec3(c.x, pc.params.y, c.y);
    gl_Position = pc.viewProj * vec4(vPos, 1.0);
}
