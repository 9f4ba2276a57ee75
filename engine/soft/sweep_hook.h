#pragma once
// The narrow interface between the VBD loop and a correction that runs after each full color sweep (the
// coarse space, engine/coarse). What a hook may read: the model (topology, materials, colliders: read only),
// the iterate x, the step's x_prev and inertial target y (always in double: the solver's double state itself,
// or its float state widened), h, the damping model and the picking spring. What it may write: a displacement
// of the free vertices, which the solver adds to its iterate (rounding once to float in float precision).
// Nothing else of the solver is reachable from here.
#include <vector>

#include "scene/scene_desc.h"
#include "soft/soft_model.h"

namespace vbd {

// The picking spring k/2 |x_v - target|^2 (k = 0 or vertex < 0: none).
struct DragSpring {
    int vertex = -1;
    Vec3 target;
    float stiffness = 0;
};

struct HookView {
    const SoftModel& model;
    const std::vector<Vec3d>& x;
    const std::vector<Vec3d>& xPrev;
    const std::vector<Vec3d>& y;
    double h;
    DampingModel damping;
    DragSpring drag;
    ContactParams contact;  // collider gap damping and friction smoothing (the fine solve's)
    bool doublePrecision;   // the iterate is stored in double (else each write is rounded to float)
};

// What a hook reads besides the positions (soft/hook_state.h hookViewOf).
struct HookSettings {
    double h = 0;
    DampingModel damping = DampingModel::None;
    DragSpring drag;
    ContactParams contact;
};

// The hook's double positions of a float state (soft/hook_state.h): x every call, x_prev and y (constant
// within a step) when asked to refresh them.
struct HookWidened {
    std::vector<Vec3d> x, xPrev, y;
};

// A displacement of the vertices listed in `vertices` (free vertices only); dx is indexed by vertex and
// sized to the model (entries of unlisted vertices are ignored).
struct HookUpdate {
    std::vector<int> vertices;
    std::vector<Vec3d> dx;
    void clear() { vertices.clear(); }
};

class SweepHook {
  public:
    virtual ~SweepHook() = default;
    // After the step's prediction and initial guess.
    virtual void beginStep(const HookView& view) {}
    // After sweep `iteration` (1-based); leave `update` empty to change nothing.
    virtual void afterSweep(const HookView& view, int iteration, HookUpdate& update) = 0;
};

}  // namespace vbd
