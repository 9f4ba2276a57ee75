#pragma once
// The Vulkan objects every renderer target shares: instance (with a debug messenger that counts
// validation messages), the chosen physical device, one graphics queue, a command pool, and thin
// helpers for buffers, images and one-shot command buffers. Windowed and offscreen rendering both
// start from a Context; only the swapchain needs a surface.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

namespace vbdgui {

// Thrown by VK_CHECK and by Context::create when no usable device exists; names file and line.
struct VulkanError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const char* vkResultName(VkResult r);
[[noreturn]] void vkFail(VkResult r, const char* expr, const char* file, int line);

#define VK_CHECK(expr)                                                       \
    do {                                                                     \
        VkResult vk_check_r_ = (expr);                                       \
        if (vk_check_r_ < 0) vkFail(vk_check_r_, #expr, __FILE__, __LINE__); \
    } while (0)

// Zero-initialised Vulkan info struct with its sType set (avoids partially braced initialisers).
template <typename T>
T vkInfo(VkStructureType type) {
    T v{};
    v.sType = type;
    return v;
}

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr;  // host-visible buffers stay mapped for their lifetime
};

struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
};

struct ContextOptions {
    bool validation = false;                      // VK_LAYER_KHRONOS_validation + debug messenger
    std::vector<const char*> instanceExtensions;  // e.g. from glfwGetRequiredInstanceExtensions
    bool swapchain = false;                       // enable VK_KHR_swapchain on the device
    // Called once the instance exists so the caller can create a surface that device selection must
    // be able to present to (VK_NULL_HANDLE = offscreen only).
    VkSurfaceKHR (*makeSurface)(VkInstance, void* user) = nullptr;
    void* surfaceUser = nullptr;
    // The GPU to render on when it can (render/device_choice.h): the one the CUDA backend steps on
    // (cudaStepDeviceUuid), so that the interop can share its buffers. Unset: by device type.
    std::optional<std::array<uint8_t, 16>> preferUuid;
};

// What the device offers for sharing memory and semaphores with CUDA (render/interop_vulkan.h); the
// extensions found are enabled on the device.
struct ExternalCaps {
    bool memoryFd = false;           // VK_KHR_external_memory_fd (exportable VkDeviceMemory as a POSIX fd)
    bool semaphoreFd = false;        // VK_KHR_external_semaphore_fd
    bool timeline = false;           // VK_KHR_timeline_semaphore with its feature on
    std::array<uint8_t, 16> uuid{};  // VkPhysicalDeviceIDProperties::deviceUUID
};

class Context {
  public:
    explicit Context(const ContextOptions& opt);  // throws VulkanError with a readable reason
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t queueFamily = 0;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties props{};
    bool validationOn = false;
    ExternalCaps external;

    // Number of validation warnings and errors reported so far (tests assert 0).
    int validationMessages() const { return messages_; }
    std::string deviceName() const { return props.deviceName; }
    VkFormat depthFormat() const { return depthFormat_; }

    uint32_t memoryType(uint32_t typeBits, VkMemoryPropertyFlags flags) const;
    Buffer createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible) const;
    void destroy(Buffer& b) const;
    Image createImage(uint32_t w, uint32_t h, VkFormat format, VkImageUsageFlags usage,
                      VkImageAspectFlags aspect) const;
    void destroy(Image& img) const;
    // Records with fn into a fresh command buffer, submits it and waits for the queue.
    template <typename F>
    void oneShot(F&& fn) const {
        VkCommandBuffer cb = beginOneShot();
        fn(cb);
        endOneShot(cb);
    }
    VkShaderModule shaderModule(const uint32_t* code, size_t bytes) const;

  private:
    void release();
    void queryExternalCaps(std::vector<const char*>& exts,
                           VkPhysicalDeviceTimelineSemaphoreFeaturesKHR& timeline);
    VkCommandBuffer beginOneShot() const;
    void endOneShot(VkCommandBuffer cb) const;
    static VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                        VkDebugUtilsMessageTypeFlagsEXT type,
                                                        const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                        void* user);
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkFormat depthFormat_ = VK_FORMAT_D32_SFLOAT;
    int messages_ = 0;
};

// True when the environment asks for validation (VBD_VALIDATION=1) or the build is a debug build.
bool validationRequested();

// Image layout transition with a full pipeline barrier on the given stages.
void transitionImage(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                     VkImageLayout to, VkAccessFlags srcAccess, VkAccessFlags dstAccess,
                     VkPipelineStageFlags srcStage, VkPipelineStageFlags dstStage);

}  // namespace vbdgui
