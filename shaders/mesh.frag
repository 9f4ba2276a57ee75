#version 450
#include "common.glsl"
layout(location = 0) in vec3 vPos;
layout(location = 1) in vec3 vNormal;
layout(location = 2) in float vScalar;
layout(location = 3) in vec4 vColor;
layout(location = 0) out vec4 outColor;
void main() {
    vec3 n = normalize(vNormal);
    if (!gl_FrontFacing) n = -n;  // cloth is drawn double-sided
    int mode = int(pc.params.x + 0.5);
    vec3 base = mode == 1 ? heatMap(vScalar) : vColor.rgb;  // mode 2: vertex-stage colour groups
    if (mode == 3) base = materialTint(vColor.rgb, vScalar);
    outColor = toDisplay(shade(base, n, vPos), vColor.a);
}
