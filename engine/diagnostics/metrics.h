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

// A read-only run of consecutive frames' metrics, oldest first: World::history(). It does not own them: a
// World's stays valid until the World's next step or restore; a snapshot's as long as the snapshot.
class MetricsSpan {
  public:
    MetricsSpan() = default;
    MetricsSpan(const FrameMetrics* first, size_t count) : p_(first), n_(count) {}
    MetricsSpan(const std::vector<FrameMetrics>& v) : p_(v.data()), n_(v.size()) {}  // NOLINT: a view of v
    const FrameMetrics* begin() const { return p_; }
    const FrameMetrics* end() const { return p_ + n_; }
    const FrameMetrics* data() const { return p_; }
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    const FrameMetrics& operator[](size_t i) const { return p_[i]; }
    const FrameMetrics& front() const { return p_[0]; }
    const FrameMetrics& back() const { return p_[n_ - 1]; }

  private:
    const FrameMetrics* p_ = nullptr;
    size_t n_ = 0;
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
