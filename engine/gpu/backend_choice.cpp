#include "gpu/backend_choice.h"

#include <cstdio>
#include <cstdlib>
#include <string>

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

RigidDetection rigidDetectionFromEnv() {
    auto on = [](const char* name) {
        const char* v = std::getenv(name);
        return v && v[0] == '1';
    };
    RigidDetection d;
    d.contacts = on("VBD_CUDA_DEVICE_CONTACTS");
    d.broad = d.contacts && on("VBD_CUDA_DEVICE_BROAD");
    return d;
}

std::string rigidDetectionText(RigidDetection d) {
    if (!d.contacts) return "broad and narrow phase on the CPU";
    if (!d.broad) return "broad phase on the CPU, narrow phase and contact matching on the device";
    return "collision detection on the device, its candidate filter and coloring on the CPU";
}

std::string softOnHostText(SoftOnHost s) {
    if (s.collision && s.coarse) return " (collision detection and the coarse correction on the CPU)";
    if (s.collision) return " (collision detection on the CPU)";
    if (s.coarse) return " (the coarse correction on the CPU)";
    return "";
}

BackendChoice chooseBackend(Backend requested, const CudaProbe& probe, const std::string& unsupported,
                            size_t bytesNeeded, bool rigidBodies, bool softBodies, RigidDetection rigid,
                            SoftOnHost softHost) {
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
    if (softBodies) c.line += softOnHostText(softHost);
    if (softBodies && rigidBodies) c.line += "; ";
    if (rigidBodies && softBodies && softHost.coupledRigid)
        c.line += "rigid bodies on the CPU (coupled to the particles between the device's sweeps)";
    else if (rigidBodies)
        c.line += "rigid bodies on the device (" + rigidDetectionText(rigid) + ")";
    return c;
}

}  // namespace vbd
