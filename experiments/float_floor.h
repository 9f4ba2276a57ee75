#pragma once
// `vbdlab experiment float-floor`: how low can |grad G| go when the solver's unknown is stored in float?
// For sampled steps of a few scenes, the step is solved to round-off in double (x*), then the residual of the
// step's G (double arithmetic, coarse/energy_cache.h) is evaluated at x* stored three ways:
//   double      x*                           (the default CPU state)
//   float_abs   fl(x*)                       (absolute float positions: the old default)
//   float_inc   x_prev + fl(x* - x_prev)     (the step's increment in float, x_prev held as the solver holds
//   it)
// The arithmetic is double throughout, so the columns isolate the storage; a float kernel adds the rounding
// of its own arithmetic on top unless it evaluates forces from the increment (the delta form, see
// docs/coarse-space.md). Writes DIR/float_floor.csv.
#include <string>

namespace vbd::experiments {

// Throws InputError for a bad output folder.
void runFloatFloorStudy(const std::string& outDir, const std::string& assetsDir);

}  // namespace vbd::experiments
