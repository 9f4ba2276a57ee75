#include "gpu/backend_choice.h"

#include <cstdio>

namespace vbd {

namespace {

// Why the device cannot run the scene, or "".
std::string whyNotDevice(const CudaProbe& probe, const std::string& unsupported, size_t bytesNeeded) {
    if (!probe.compiled) return "built without CUDA (nvcc was not found at configure time)";
    if (probe.devices <= 0)
        return probe.error.empty() ? std::string("no CUDA device") : "no CUDA device (" + probe.error + ")";
    if (!unsupported.empty()) return unsupported;
    // 10% headroom for the CUDA context, graphs and the allocator's rounding.
    if (probe.memoryBytes > 0 && double(bytesNeeded) > 0.9 * double(probe.memoryBytes)) {
        char buf[160];
        std::snprintf(buf, sizeof(buf),
                      "the device step needs %.2f GB, more than 90%% of the device's %.2f GB",
                      double(bytesNeeded) * 1e-9, double(probe.memoryBytes) * 1e-9);
        return buf;
    }
    return "";
}

}  // namespace

BackendChoice chooseBackend(Backend requested, const CudaProbe& probe, const std::string& unsupported,
                            size_t bytesNeeded, bool rigidBodies, bool softBodies) {
    BackendChoice c;
    if (requested == Backend::Cpu) {
        c.line = "CPU backend (solver.backend = cpu)";
        return c;
    }
    const std::string why = whyNotDevice(probe, unsupported, bytesNeeded);
    if (!why.empty()) {
        c.reason = why;
        c.refused = requested == Backend::Cuda;
        c.line = why + ": CPU backend";
        return c;
    }
    c.backend = Backend::Cuda;
    char cc[32];
    std::snprintf(cc, sizeof(cc), "sm_%d%d", probe.major, probe.minor);
    c.line = "CUDA backend on " + probe.name + " (" + cc + "): ";
    if (softBodies) c.line += "soft-body step on the device";
    if (softBodies && rigidBodies) c.line += "; ";
    if (rigidBodies) c.line += "rigid bodies on the device (broad and narrow phase on the CPU)";
    return c;
}

}  // namespace vbd
