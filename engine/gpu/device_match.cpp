#include "gpu/device_match.h"

#include <algorithm>
#include <cstdio>

namespace vbd {

int matchCudaDevice(const DeviceUuid& vulkanUuid, const std::vector<DeviceUuid>& cudaUuids) {
    if (std::all_of(vulkanUuid.begin(), vulkanUuid.end(), [](unsigned char b) { return b == 0; })) return -1;
    for (size_t i = 0; i < cudaUuids.size(); ++i)
        if (cudaUuids[i] == vulkanUuid) return int(i);
    return -1;
}

std::string uuidString(const DeviceUuid& uuid) {
    std::string s;
    char hex[3];
    for (size_t i = 0; i < uuid.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        std::snprintf(hex, sizeof hex, "%02x", unsigned(uuid[i]));
        s += hex;
    }
    return s;
}

}  // namespace vbd
