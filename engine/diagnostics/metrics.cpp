#include "diagnostics/metrics.h"

#include <cstdio>
#include <stdexcept>

namespace vbd {

const char* const kMetricsHeader =
    "frame,time,iterations,residual_initial,residual_final,energy,kinetic_energy,com_x,com_y,com_z,"
    "min_volume_ratio,max_speed,step_ms,total_energy,residual_floor";
const char* const kConvergenceHeader = "frame,iteration,residual,energy";

void writeMetricsRow(std::FILE* f, const FrameMetrics& m) {
    std::fprintf(f, "%d,%.9g,%d,%.9g,%.9g,%.12g,%.12g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.12g,%.3g\n", m.frame,
                 m.time, m.iterations, m.residualInitial, m.residualFinal, m.energy, m.kineticEnergy, m.com.x,
                 m.com.y, m.com.z, m.minVolumeRatio, m.maxSpeed, m.stepMs, m.totalEnergy, m.residualFloor);
}

void writeConvergenceRows(std::FILE* f, const std::vector<IterationRecord>& its) {
    for (const auto& r : its)
        std::fprintf(f, "%d,%d,%.9g,%.12g\n", r.frame, r.iteration, r.residual, r.energy);
}

void writeMetricsCsv(const std::string& path, const std::vector<FrameMetrics>& frames) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw std::runtime_error("cannot write " + path);
    std::fprintf(f, "%s\n", kMetricsHeader);
    for (const auto& m : frames) writeMetricsRow(f, m);
    std::fclose(f);
}

void writeConvergenceCsv(const std::string& path, const std::vector<IterationRecord>& its) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw std::runtime_error("cannot write " + path);
    std::fprintf(f, "%s\n", kConvergenceHeader);
    writeConvergenceRows(f, its);
    std::fclose(f);
}

}  // namespace vbd
