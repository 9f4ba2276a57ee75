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

void OrbitCamera::frame(const glm::vec3& lo, const glm::vec3& hi, float aspect) {
    target = 0.5f * (lo + hi);
    float radius = 0.5f * glm::length(hi - lo);
    const float half = narrowerHalfAngle(fovY, aspect);
    distance = std::max(radius / std::sin(half), 0.1f) * 1.3f;  // 30 % margin around the sphere
    nearZ = std::max(0.01f, distance * 0.005f);
    farZ = std::max(500.0f, distance * 20);
}

OrbitCamera OrbitCamera::refitted(float fromAspect, float toAspect) const {
    OrbitCamera c = *this;
    if (fromAspect == toAspect) return c;  // exactly this camera (no rounding of the distance)
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
