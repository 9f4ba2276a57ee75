// The render device choice (render/device_choice.h): the CUDA backend's GPU first where it can render, so
// that the interop shares its buffers; otherwise the device type's rank, the first of equals.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include "render/device_choice.h"

using namespace vbdgui;

namespace {

DeviceCandidate device(int rank, uint8_t id) {
    DeviceCandidate c;
    c.rank = rank;
    c.uuid.fill(0);
    c.uuid[0] = id;
    c.uuid[15] = uint8_t(0xa0 + id);
    return c;
}

DeviceUuidBytes uuidOf(uint8_t id) { return device(0, id).uuid; }

}  // namespace

TEST(DeviceChoice, TypeRankWithoutAPreference) {
    EXPECT_EQ(deviceTypeRank(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU), 0);
    EXPECT_EQ(deviceTypeRank(VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU), 1);
    EXPECT_EQ(deviceTypeRank(VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU), 2);
    EXPECT_EQ(deviceTypeRank(VK_PHYSICAL_DEVICE_TYPE_CPU), 3);
    EXPECT_EQ(deviceTypeRank(VK_PHYSICAL_DEVICE_TYPE_OTHER), 4);
    // lavapipe, an integrated GPU, a discrete GPU: the discrete one; of two discrete ones the first.
    EXPECT_EQ(chooseRenderDevice({device(3, 1), device(1, 2), device(0, 3)}, std::nullopt), 2);
    EXPECT_EQ(chooseRenderDevice({device(1, 1), device(0, 2), device(0, 3)}, std::nullopt), 1);
    EXPECT_EQ(chooseRenderDevice({device(3, 1)}, std::nullopt), 0);  // lavapipe alone
    EXPECT_EQ(chooseRenderDevice({}, std::nullopt), -1);
}

TEST(DeviceChoice, TheCudaDeviceComesFirst) {
    // Two discrete GPUs, CUDA steps on the second one listed: that one, not the first of equals.
    EXPECT_EQ(chooseRenderDevice({device(0, 1), device(0, 2)}, uuidOf(2)), 1);
    // An integrated GPU that is the CUDA device (a Jetson-like machine) against a discrete one.
    EXPECT_EQ(chooseRenderDevice({device(0, 1), device(1, 2)}, uuidOf(2)), 1);
    // The CUDA device cannot render (not among the candidates): the rank decides.
    EXPECT_EQ(chooseRenderDevice({device(3, 1), device(0, 2)}, uuidOf(7)), 1);
    // An all-zero UUID (a driver without one) names no device, even against a candidate of zeros.
    DeviceCandidate zero;
    zero.rank = 3;
    EXPECT_EQ(chooseRenderDevice({zero, device(0, 2)}, DeviceUuidBytes{}), 1);
}
