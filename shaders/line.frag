#version 450
layout(location = 0) in vec4 vColor;
layout(location = 0) out vec4 outColor;
void main() { outColor = vec4(pow(vColor.rgb, vec3(1.0 / 2.2)), vColor.a); }
