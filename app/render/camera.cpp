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

// With insets b (bottom) and t (top) the box is fitted into the NDC heights [-1 + 2b, 1 - 2t]: half-height
// f = 1 - b - t about b - t. So its half-height is fitted to f (the width kept: aspect / f), then the target
// moves down by (b - t) of the view's half-height at its depth, D (b - t) tan(fovY / 2) along the view's up,
// which puts what was centred at NDC b - t (exact at the target's depth, the margin covering the box's
// depth).
void OrbitCamera::frame(const glm::vec3& lo, const glm::vec3& hi, float aspect, float bottomInset,
                        float topInset) {
    const float b = std::clamp(bottomInset, 0.0f, 0.4f), t = std::clamp(topInset, 0.0f, 0.4f), f = 1 - b - t;
    target = 0.5f * (lo + hi);
    distance = fitDistance(lo, hi, aspect / f, f / kFrameMargin);
    fitShift = glm::vec3(0.0f);
    if (b != t) {
        const glm::mat4 v = view();
        const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
        fitShift = up * (distance * (b - t) * std::tan(0.5f * fovY));
        target -= fitShift;
    }
    fitLo = lo;
    fitHi = hi;
    nearZ = std::max(0.01f, distance * 0.005f);
    farZ = std::max(500.0f, distance * 20);
}

// The framed box filling the capture as it fills the view (its outermost corner at the same |NDC|), whatever
// the user's zoom and orbit since. Both measured with the box centred at the current angles: the user's pan
// moves the box across the view, not nearer, and measured about the panned target the fill (and so the
// capture's zoom) depended on where the box sat (a reviewer's target 50 m aside refitted to 0.1 m). Without
// a framed box, or with the box overflowing the view by half or more (zoomed into it: the fit's near-plane
// clamp decides there), the distance scales as the fit's distance does, or as the bounding sphere's.
OrbitCamera OrbitCamera::refitted(float fromAspect, float toAspect) const {
    OrbitCamera c = *this;
    if (fromAspect == toAspect) return c;  // exactly this camera (no rounding of the distance)
    OrbitCamera centred = *this;
    if (fitLo.x <= fitHi.x) {
        centred.target = 0.5f * (fitLo + fitHi);
        const float f = centred.fill(fitLo, fitHi, fromAspect);
        if (f > 0 && f < 1.5f)
            c.distance = centred.fitDistance(fitLo, fitHi, toAspect, f);
        else
            c.distance = distance * centred.fitDistance(fitLo, fitHi, toAspect) /
                         centred.fitDistance(fitLo, fitHi, fromAspect);
    } else {
        c.distance = distance * std::sin(narrowerHalfAngle(fovY, fromAspect)) /
                     std::sin(narrowerHalfAngle(fovY, toAspect));
    }
    // The insets' shift keeps its share of the view: scaled with the distance (a take 0.6 as far away
    // moved by the window's shift showed the scene at its top edge).
    const float r = c.distance / distance;
    c.target = target + fitShift * (1 - r);
    c.fitShift = fitShift * r;
    c.nearZ = nearZ * r;
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
