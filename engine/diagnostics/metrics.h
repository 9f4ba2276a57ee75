#pragma once
// Per-frame and per-iteration diagnostics (DESIGN principle 7 and the metrics contract of `vbdlab sim`).
#include <cstdio>
#include <string>
#include <vector>

#include "math/vec3.h"

namespace vbd {

struct FrameMetrics {
    int frame = 0;
    double time = 0;
    int iterations = 0;
    double residualInitial = 0;  // |grad G| over free DOFs at the initial guess (first substep)
    double residualFinal = 0;    // after the last iteration (last substep)
    double energy = 0;           // G at the end of the step
    double kineticEnergy = 0;
    Vec3d com;
    double minVolumeRatio = 1;  // min det F over tets (1 if none)
    double maxSpeed = 0;
    double stepMs = 0;
    // Appended columns (DESIGN.md): kinetic + elastic + gravitational + contact energy, and the rounding
    // floor of residual_final for the state's precision (soft_potential.cpp).
    double totalEnergy = 0;
    double residualFloor = 0;
    // Stage timing (ms) for the app's breakdown plot.
    double solveMs = 0, collisionMs = 0, coarseMs = 0, diagnosticsMs = 0;
    // The World's host time for this frame's metrics (World::measure; not a CSV column): with a device step
    // that publishes, a pass over every particle and tet after the step; with the lazy publish, the read of
    // the device's reductions.
    double measureMs = 0;
};

struct IterationRecord {
    int frame = 0;
    int iteration = 0;  // 0 = initial guess, then 1..N after each sweep
    double residual = 0;
    double energy = 0;
};

// CSV writers with the exact headers of DESIGN.md.
void writeMetricsCsv(const std::string& path, const std::vector<FrameMetrics>& frames);
void writeConvergenceCsv(const std::string& path, const std::vector<IterationRecord>& its);
// The same rows one frame at a time (vbdlab sim streams them, so a run's memory does not grow with
// its length); the header lines are kMetricsHeader / kConvergenceHeader.
void writeMetricsRow(std::FILE* f, const FrameMetrics& m);
void writeConvergenceRows(std::FILE* f, const std::vector<IterationRecord>& its);
extern const char* const kMetricsHeader;
extern const char* const kConvergenceHeader;

}  // namespace vbd
