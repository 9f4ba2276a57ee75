#pragma once
// `vbdlab experiment truncation`: a truncated solve is not implicit Euler. The hanging bar at 40 iterations
// (assets/scenes/hanging_bar_40.json, no material damping) for N frames with plain VBD, Chebyshev (rho 0.9
// and 0.95) and the aggregate coarse space, plus a converged reference (tolerance 1e-9). Writes
// DIR/truncation.csv (per method and frame: total energy, kinetic energy, lowest point, centre of mass) and
// DIR/truncation_energy.png (total energy against frame). A converged implicit-Euler step never raises the
// total energy of an undamped body; the truncated plain solve does.
#include <string>

namespace vbd::experiments {

void runTruncationStudy(const std::string& outDir, const std::string& assetsDir, int frames);

}  // namespace vbd::experiments
