#pragma once
// Two guards that keep NaN out of every output (DESIGN principle 6).
//
// validateBuiltModel: after the soft model is built, the quantities that depend on the imported meshes
// and on overlapping regions (per-tet volume, mu, lambda, per-particle mass and m / h^2, cloth triangle and
// hinge coefficients) must be finite and within the limits of scene/scene_limits.h. A failure is an
// InputError naming the scene key (exit code 2), e.g. "scene.json: soft_bodies[0].regions: overlapping
// youngs_scale regions multiply Young's modulus to 1e45 at tet 17 ...".
//
// guardFrame: after every step, every particle's position and velocity, every rigid body's pose and
// velocities, the frame's metrics and its per-iteration records (convergence.csv) must be finite. The first
// that is not stops the run with a NonFiniteError naming the frame and the particle (with its body key) or
// body (exit code 1), so no NaN ever reaches metrics.csv or final_state.json. It costs one pass over the
// particles per frame.
#include <stdexcept>
#include <string>
#include <vector>

#include "diagnostics/metrics.h"
#include "scene/scene_desc.h"
#include "soft/soft_model.h"
#include "world/world.h"

namespace vbd {

class NonFiniteError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Throws InputError (see above). h is the substep.
void validateBuiltModel(const SceneDesc& desc, const SoftModel& m);

// Throws NonFiniteError (see above). `metrics` is the frame just appended to the history. particles = false:
// the particles were checked where they are (the device's frame measures, gpu/frame_sums.h firstBad), and
// the model's arrays may be older than the frame.
void guardFrame(const SceneDesc& desc, const SoftModel& m, const std::vector<RigidBodyView>& bodies,
                const FrameMetrics& metrics, const std::vector<IterationRecord>& iterations = {},
                bool particles = true);

}  // namespace vbd
