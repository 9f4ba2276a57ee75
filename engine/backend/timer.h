#pragma once
// Wall-clock stage timing for the metrics' time breakdown (solve, collision, coarse, diagnostics).
// ScopedTimer adds the milliseconds of its lifetime to a counter, so a stage is timed by opening a scope.
#include <chrono>

namespace vbd {

inline double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class ScopedTimer {
  public:
    explicit ScopedTimer(double& accumulator) : acc_(accumulator), t0_(std::chrono::steady_clock::now()) {}
    ~ScopedTimer() { acc_ += msSince(t0_); }
    ScopedTimer(const ScopedTimer&) = delete;
    ScopedTimer& operator=(const ScopedTimer&) = delete;

  private:
    double& acc_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace vbd
