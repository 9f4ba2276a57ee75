#include "render/device_choice.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <exception>
#include <string>

#include "gpu/backend_choice.h"
#include "gpu/interop_cuda.h"

namespace vbdgui {

int deviceTypeRank(int t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return 3;
        default:
            return 4;
    }
}

int chooseRenderDevice(const std::vector<DeviceCandidate>& candidates,
                       const std::optional<DeviceUuidBytes>& prefer) {
    const bool named =
        prefer && std::any_of(prefer->begin(), prefer->end(), [](uint8_t b) { return b != 0; });
    if (named)
        for (size_t i = 0; i < candidates.size(); ++i)
            if (candidates[i].uuid == *prefer) return int(i);
    int best = -1;
    for (size_t i = 0; i < candidates.size(); ++i)
        if (best < 0 || candidates[i].rank < candidates[size_t(best)].rank) best = int(i);
    return best;
}

std::optional<DeviceUuidBytes> cudaStepDeviceUuid() {
    if (vbd::probeCuda().devices <= 0) return std::nullopt;
    std::string error;
    std::vector<vbd::DeviceUuid> uuids;
    try {
        uuids = vbd::cudaDeviceUuids(error);
    } catch (const std::exception&) {  // a CUDA fault: render by device type, as without CUDA
        return std::nullopt;
    }
    if (uuids.empty()) return std::nullopt;
    DeviceUuidBytes u{};
    std::copy(uuids[0].begin(), uuids[0].end(), u.begin());
    return u;
}

}  // namespace vbdgui
