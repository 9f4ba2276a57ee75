#pragma once
// Which CUDA device is the Vulkan physical device: the one whose UUID (cudaDeviceProp::uuid) equals
// VkPhysicalDeviceIDProperties::deviceUUID. Both APIs report the same 16 bytes for the same GPU; a device
// index means nothing across the two APIs (CUDA_VISIBLE_DEVICES reorders one and not the other). Pure, so
// that it is tested without either.
#include <array>
#include <string>
#include <vector>

namespace vbd {

using DeviceUuid = std::array<unsigned char, 16>;

// Index of the first CUDA device whose UUID equals vulkanUuid, or -1 (an all-zero UUID -- a driver that does
// not report one -- matches nothing).
int matchCudaDevice(const DeviceUuid& vulkanUuid, const std::vector<DeviceUuid>& cudaUuids);

// "6d657361-3232-2e33-2e36-000000000000": the 8-4-4-4-12 form nvidia-smi prints (for log lines).
std::string uuidString(const DeviceUuid& uuid);

}  // namespace vbd
