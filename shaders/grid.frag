#version 450
#include "common.glsl"
// Anti-aliased grid lines: distance to the nearest line in units of the screen-space derivative, so
// lines stay one pixel wide at any distance; every 5th line is a major line; fades out far away.
// params.x: the lines' weight (1 drawn, 0 the plain floor: the "grid" switch hides the lines, not the ground
// the bodies rest on).
layout(location = 0) in vec3 vPos;
layout(location = 0) out vec4 outColor;
float lines(vec2 p, float cell) {
    vec2 g = p / cell;
    vec2 d = abs(fract(g - 0.5) - 0.5) / max(fwidth(g), vec2(1e-6));
    return 1.0 - min(min(d.x, d.y), 1.0);
}
void main() {
    float minor = pc.params.x * lines(vPos.xz, pc.params.w);
    float major = pc.params.x * lines(vPos.xz, 5.0 * pc.params.w);
    float dist = length(vPos.xz - pc.eye.xz);
    float fade = clamp(1.0 - dist / pc.params.z, 0.0, 1.0);
    vec3 floorColor = vec3(0.10, 0.105, 0.115);
    vec3 c = mix(floorColor, vec3(0.22), minor * 0.8);
    c = mix(c, vec3(0.36), major);
    outColor = toDisplay(c * (0.6 + 0.4 * fade), 1.0);
}
