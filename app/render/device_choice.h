#pragma once
// Which Vulkan physical device renders. The CUDA backend steps on CUDA device 0 (gpu/cuda_exec.cuh), and
// the interop (render/interop_vertex_source.cpp) needs the renderer on that same GPU: on a machine of several
// GPUs the type ranking alone may pick another one (two discrete cards, or an integrated GPU listed first
// among equals), and every frame would then go through the host. So the GPU whose
// VkPhysicalDeviceIDProperties::deviceUUID equals the CUDA device's UUID comes first when it can render
// (and present); otherwise the best type (discrete, integrated, virtual, CPU), the first of equals.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace vbdgui {

using DeviceUuidBytes = std::array<uint8_t, 16>;

// One physical device with a graphics queue (that can present, where there is a surface).
struct DeviceCandidate {
    int rank = 4;  // deviceTypeRank
    DeviceUuidBytes uuid{};
};

// 0 discrete, 1 integrated, 2 virtual, 3 CPU, 4 other (VkPhysicalDeviceType's values, without Vulkan here).
int deviceTypeRank(int vkPhysicalDeviceType);

// Index of the device to render on among `candidates`, -1 when there are none. prefer: the UUID of the GPU
// the solver steps on (an all-zero UUID identifies nothing and is ignored, as in vbd::matchCudaDevice).
int chooseRenderDevice(const std::vector<DeviceCandidate>& candidates,
                       const std::optional<DeviceUuidBytes>& prefer);

// The UUID of CUDA device 0 where the build has CUDA and the machine a CUDA device (the GPU the CUDA
// backend steps on), else nothing; never throws (a CUDA fault gives nothing).
std::optional<DeviceUuidBytes> cudaStepDeviceUuid();

}  // namespace vbdgui
