// A build without CUDA: no device to match, nothing to import (the descriptors are closed).
#include "gpu/interop_cuda.h"

#ifndef VBD_HAVE_CUDA
#include <unistd.h>

#include <stdexcept>

namespace vbd {

double deviceVertexRecordSeconds(const DeviceParticles&, const SurfaceAdjacency&, int) {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

std::vector<BodyInstanceRecord> deviceBodyInstanceRecords(const DeviceRigidBodies&,
                                                          const std::vector<BodyInstanceShape>&) {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

std::vector<DeviceUuid> cudaDeviceUuids(std::string& error) {
    error = "built without CUDA (nvcc was not found at configure time)";
    return {};
}

std::unique_ptr<ExternalVertexWriter> importExternalVertexTarget(ExternalVertexTarget target, int,
                                                                 const SurfaceAdjacency&,
                                                                 const VertexLayout&) {
    for (const auto* slots : {&target.slots, &target.instanceSlots})
        for (const auto& s : *slots)
            if (s.fd >= 0) close(s.fd);
    for (int fd : {target.simDoneFd, target.renderDoneFd})
        if (fd >= 0) close(fd);
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

}  // namespace vbd
#endif
