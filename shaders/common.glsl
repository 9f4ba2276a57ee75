// Shared by every pipeline: one push-constant block (128 bytes, the guaranteed minimum) so that no
// descriptor set is needed for the scene, and the colour maps the legend mirrors on the CPU
// (app/render/colormap.h keeps the same stops).
layout(push_constant) uniform PushConstants {
    mat4 viewProj;   // projection * view, Vulkan clip space (y down, depth 0..1)
    vec4 eye;        // camera position
    vec4 lightDir;   // xyz: unit vector towards the key light; w: ambient strength
    vec4 color;      // base colour of the draw (rgb) and alpha
    vec4 params;     // x: shading mode (0 base, 1 heat map, 2 categorical, 3 material tint); y: ground height;
                     // z: grid half extent; w: grid cell size
} pc;

vec3 heatMap(float t) {
    // Five-stop perceptual-ish ramp: deep blue, blue, green, yellow, red.
    const vec3 c0 = vec3(0.05, 0.03, 0.45);
    const vec3 c1 = vec3(0.10, 0.40, 0.90);
    const vec3 c2 = vec3(0.15, 0.80, 0.45);
    const vec3 c3 = vec3(0.95, 0.85, 0.15);
    const vec3 c4 = vec3(0.85, 0.10, 0.05);
    t = clamp(t, 0.0, 1.0) * 4.0;
    if (t < 1.0) return mix(c0, c1, t);
    if (t < 2.0) return mix(c1, c2, t - 1.0);
    if (t < 3.0) return mix(c2, c3, t - 2.0);
    return mix(c3, c4, t - 3.0);
}

vec3 categorical(float v) {
    const vec3 pal[8] = vec3[8](vec3(0.90, 0.30, 0.25), vec3(0.25, 0.55, 0.90), vec3(0.30, 0.75, 0.35),
                                vec3(0.95, 0.70, 0.20), vec3(0.60, 0.35, 0.80), vec3(0.20, 0.75, 0.75),
                                vec3(0.90, 0.45, 0.70), vec3(0.55, 0.55, 0.55));
    int i = int(floor(v + 0.5));
    return pal[((i % 8) + 8) % 8];
}

// Material regions (no heat map shown): t = +1 inside a stiffer region (steel blue), -1 inside a softer
// one (pale yellow), 0 the body's own material; interpolated across the triangles at an interface.
// app/gui's legend shows the same colours (kStifferTint, kSofterTint in app/render/geometry.h).
vec3 materialTint(vec3 base, float t) {
    const vec3 stiffer = vec3(0.20, 0.33, 0.62);
    const vec3 softer = vec3(0.95, 0.85, 0.45);
    return t >= 0.0 ? mix(base, stiffer, clamp(t, 0.0, 1.0)) : mix(base, softer, clamp(-t, 0.0, 1.0));
}

// Lambert key light, a hemisphere fill (sky above, ground bounce below) and a Blinn highlight.
vec3 shade(vec3 base, vec3 n, vec3 worldPos) {
    vec3 l = normalize(pc.lightDir.xyz);
    vec3 v = normalize(pc.eye.xyz - worldPos);
    float diff = max(dot(n, l), 0.0);
    float hemi = 0.5 + 0.5 * n.y;
    vec3 ambient = pc.lightDir.w * mix(vec3(0.35, 0.32, 0.30), vec3(0.75, 0.80, 0.90), hemi);
    vec3 h = normalize(l + v);
    float spec = pow(max(dot(n, h), 0.0), 48.0) * 0.25;
    return base * (ambient + 0.75 * diff) + vec3(spec);
}

// Targets are UNORM (so Dear ImGui's colours stay as authored); encode gamma by hand.
vec4 toDisplay(vec3 linear, float a) { return vec4(pow(max(linear, vec3(0.0)), vec3(1.0 / 2.2)), a); }
