#pragma once
// Orbit camera (target, yaw, pitch, distance) and the projection the shaders use. Vulkan clip space:
// depth in [0, 1] and y pointing down, so the GL-style perspective gets its y row negated. The render
// test projects bounding boxes with exactly these matrices.
#define GLM_FORCE_DEPTH_ZERO_TO_ONE
#define GLM_FORCE_RADIANS
#include <glm/glm.hpp>

namespace vbdgui {

struct Ray {
    glm::vec3 origin, dir;
};

struct OrbitCamera {
    glm::vec3 target{0, 0.5f, 0};
    float yaw = 0.6f;     // about +y, radians; 0 looks along -z
    float pitch = 0.35f;  // above the horizon, radians
    float distance = 5;
    float fovY = 0.8f;  // radians
    float nearZ = 0.02f, farZ = 500;

    glm::vec3 eye() const;
    glm::mat4 view() const;
    glm::mat4 proj(float aspect) const;
    glm::mat4 viewProj(float aspect) const { return proj(aspect) * view(); }

    void orbit(float dYaw, float dPitch);
    void pan(float dxPixels, float dyPixels, float viewportHeight);  // keeps the target under the cursor
    void zoom(float steps);                                          // exponential dolly
    // Places target and distance so that the box [lo, hi] fills the view at the current angles: its eight
    // corners within the frustum shrunk by kFrameMargin, the tightest of them on that inner edge. (A
    // bounding sphere framed a long, flat scene such as the ramps at a third of the view's width.)
    // bottomInset, topInset: the fractions of the view's height that overlays cover at its bottom (the app's
    // status bar and legends) and top (captions): the box is fitted into the part between, the target moved
    // to centre it there.
    void frame(const glm::vec3& lo, const glm::vec3& hi, float aspect, float bottomInset = 0,
               float topInset = 0);
    // This camera for a viewport of another aspect: the distance scaled as frame() would scale it, so that
    // what fills a view of `fromAspect` fills one of `toAspect` too, the user's zoom kept relative to it (an
    // offscreen capture at 960x540 of a tall 480x720 view showed the scene at a third of the width).
    OrbitCamera refitted(float fromAspect, float toAspect) const;
    // The distance from the current target, at the current angles, at which the box's outermost corner sits
    // at |NDC| = edge (frame(): 1 / kFrameMargin) in a viewport of this aspect.
    float fitDistance(const glm::vec3& lo, const glm::vec3& hi, float aspect,
                      float edge = 1 / kFrameMargin) const;
    // The largest |NDC x| or |NDC y| of the box's corners in a viewport of this aspect; -1 when a corner is
    // behind the eye.
    float fill(const glm::vec3& lo, const glm::vec3& hi, float aspect) const;

    static constexpr float kFrameMargin = 1.15f;  // the frustum's half-tangents divided by this
    glm::vec3 fitLo{0.0f}, fitHi{-1.0f};          // the box last framed (empty: none)
    glm::vec3 fitShift{0.0f};  // how far frame() moved the target off the box's centre for the insets

    // Ray through pixel (px, py) of a viewport w x h (origin top-left).
    Ray ray(float px, float py, float w, float h) const;
};

// Window pixel of a world point for a viewport w x h with origin top-left; z = NDC depth.
glm::vec3 projectToPixel(const glm::mat4& viewProj, const glm::vec3& p, float w, float h);

}  // namespace vbdgui
