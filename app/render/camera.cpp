#include "render/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace vbdgui {

glm::vec3 OrbitCamera::eye() const {
    // Spherical coordinates about the target: yaw about +y, pitch above the xz plane.
    glm::vec3 back(std::sin(yaw) * std::cos(pitch), std::sin(pitch), std::cos(yaw) * std::cos(pitch));
    return target + distance * back;
}

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target, glm::vec3(0, 1, 0)); }

glm::mat4 OrbitCamera::proj(float aspect) const {
    glm::mat4 p = glm::perspective(fovY, aspect, nearZ, farZ);
    p[1][1] *= -1.0f;  // Vulkan's y axis points down
    return p;
}

void OrbitCamera::orbit(float dYaw, float dPitch) {
    yaw += dYaw;
    pitch = std::clamp(pitch + dPitch, -1.55f, 1.55f);
}

void OrbitCamera::pan(float dx, float dy, float viewportHeight) {
    // One pixel at the target's depth spans 2 d tan(fov/2) / H world units.
    float scale = 2.0f * distance * std::tan(0.5f * fovY) / std::max(viewportHeight, 1.0f);
    glm::mat4 v = view();
    glm::vec3 right(v[0][0], v[1][0], v[2][0]), up(v[0][1], v[1][1], v[2][1]);
    target += (-dx * right + dy * up) * scale;
}

void OrbitCamera::zoom(float steps) {
    distance = std::clamp(distance * std::pow(0.88f, steps), 0.05f, 400.0f);
}

namespace {
// Half the narrower of the two fields of view of a viewport of this aspect: a bounding sphere fits it.
float narrowerHalfAngle(float fovY, float aspect) {
    const float half = 0.5f * fovY;
    return aspect < 1 ? std::atan(std::tan(half) * aspect) : half;
}
}  // namespace

// With the eye at target - D f (f the unit view direction, r and u the view's right and up), a corner c
// relative to the target lies at depth D + c.f, and sits at |NDC x| <= edge when
// |c.r| <= (D + c.f) tx edge, tx the half-tangent across (ty up): D >= |c.r| / (tx edge) - c.f, and the
// same with u and ty. The largest bound over the corners is the nearest eye that holds all of them. frame()
// targets the box's centre, so a box seen obliquely may sit off-centre by the perspective's asymmetry;
// the margin covers it.
float OrbitCamera::fitDistance(const glm::vec3& lo, const glm::vec3& hi, float aspect, float edge) const {
    const glm::mat4 v = view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]), up(v[0][1], v[1][1], v[2][1]),
        fwd(-v[0][2], -v[1][2], -v[2][2]);
    const float ty = std::tan(0.5f * fovY) * edge, tx = ty * aspect;
    float d = 0.1f, depth = 0.0f;
    for (int k = 0; k < 8; ++k) {
        const glm::vec3 c =
            glm::vec3((k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z) - target;
        const float z = glm::dot(c, fwd);
        d = std::max({d, std::fabs(glm::dot(c, right)) / tx - z, std::fabs(glm::dot(c, up)) / ty - z});
        depth = std::max(depth, -z);
    }
    // Every corner in front of the near plane, a little beyond the box's nearest corner.
    return std::max(d, 1.05f * depth + 0.1f);
}

float OrbitCamera::fill(const glm::vec3& lo, const glm::vec3& hi, float aspect) const {
    const glm::mat4 vp = viewProj(aspect);
    float edge = 0;
    for (int k = 0; k < 8; ++k) {
        const glm::vec4 c =
            vp * glm::vec4((k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z, 1.0f);
        if (c.w <= 0) return -1;
        edge = std::max({edge, std::fabs(c.x / c.w), std::fabs(c.y / c.w)});
    }
    return edge;
}

void OrbitCamera::frame(const glm::vec3& lo, const glm::vec3& hi, float aspect) {
    target = 0.5f * (lo + hi);
    distance = fitDistance(lo, hi, aspect);
    fitLo = lo;
    fitHi = hi;
    nearZ = std::max(0.01f, distance * 0.005f);
    farZ = std::max(500.0f, distance * 20);
}

// The framed box filling the capture as it fills the view (its outermost corner at the same |NDC|), whatever
// the user's zoom, orbit and pan since. Without a framed box, or with a corner of it behind the eye, the
// bounding-sphere rule: the narrower field holds what it held.
OrbitCamera OrbitCamera::refitted(float fromAspect, float toAspect) const {
    OrbitCamera c = *this;
    if (fromAspect == toAspect) return c;  // exactly this camera (no rounding of the distance)
    const float f = fitLo.x <= fitHi.x ? fill(fitLo, fitHi, fromAspect) : -1.0f;
    if (f > 0)
        c.distance = fitDistance(fitLo, fitHi, toAspect, f);
    else
        c.distance = distance * std::sin(narrowerHalfAngle(fovY, fromAspect)) /
                     std::sin(narrowerHalfAngle(fovY, toAspect));
    c.nearZ = nearZ * c.distance / distance;
    return c;
}

Ray OrbitCamera::ray(float px, float py, float w, float h) const {
    glm::mat4 inv = glm::inverse(viewProj(w / std::max(h, 1.0f)));
    float nx = 2 * px / w - 1, ny = 2 * py / h - 1;
    glm::vec4 a = inv * glm::vec4(nx, ny, 0, 1), b = inv * glm::vec4(nx, ny, 1, 1);
    glm::vec3 pa = glm::vec3(a) / a.w, pb = glm::vec3(b) / b.w;
    return {pa, glm::normalize(pb - pa)};
}

glm::vec3 projectToPixel(const glm::mat4& viewProj, const glm::vec3& p, float w, float h) {
    glm::vec4 c = viewProj * glm::vec4(p, 1);
    glm::vec3 ndc = glm::vec3(c) / c.w;
    // Vulkan viewport transform: x_pix = (ndc.x + 1) w / 2, y_pix = (ndc.y + 1) h / 2 (y already down).
    return {(ndc.x + 1) * 0.5f * w, (ndc.y + 1) * 0.5f * h, ndc.z};
}

}  // namespace vbdgui
