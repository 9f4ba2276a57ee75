#include "render/vk_context.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "render/device_choice.h"

namespace vbdgui {

const char* vkResultName(VkResult r) {
    switch (r) {
        case VK_SUCCESS:
            return "VK_SUCCESS";
        case VK_NOT_READY:
            return "VK_NOT_READY";
        case VK_TIMEOUT:
            return "VK_TIMEOUT";
        case VK_SUBOPTIMAL_KHR:
            return "VK_SUBOPTIMAL_KHR";
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY:
            return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED:
            return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST:
            return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_LAYER_NOT_PRESENT:
            return "VK_ERROR_LAYER_NOT_PRESENT";
        case VK_ERROR_EXTENSION_NOT_PRESENT:
            return "VK_ERROR_EXTENSION_NOT_PRESENT";
        case VK_ERROR_FEATURE_NOT_PRESENT:
            return "VK_ERROR_FEATURE_NOT_PRESENT";
        case VK_ERROR_INCOMPATIBLE_DRIVER:
            return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_SURFACE_LOST_KHR:
            return "VK_ERROR_SURFACE_LOST_KHR";
        case VK_ERROR_OUT_OF_DATE_KHR:
            return "VK_ERROR_OUT_OF_DATE_KHR";
        default:
            return "VkResult(other)";
    }
}

void vkFail(VkResult r, const char* expr, const char* file, int line) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s:%d: %s failed with %s (%d)", file, line, expr, vkResultName(r),
                  int(r));
    throw VulkanError(buf);
}

bool validationRequested() {
    const char* env = std::getenv("VBD_VALIDATION");
    if (env && *env) return std::strcmp(env, "0") != 0;
#ifdef NDEBUG
    return false;
#else
    return true;
#endif
}

VKAPI_ATTR VkBool32 VKAPI_CALL Context::debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT,
                                                      const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                      void* user) {
    auto* self = static_cast<Context*>(user);
    if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        ++self->messages_;
        std::fprintf(stderr, "vulkan validation: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static bool hasLayer(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return true;
    return false;
}

Context::Context(const ContextOptions& opt) {
    auto app = vkInfo<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.pApplicationName = "vbdlab";
    app.apiVersion = VK_API_VERSION_1_1;
    std::vector<const char*> exts = opt.instanceExtensions;
    std::vector<const char*> layers;
    const char* kValidation = "VK_LAYER_KHRONOS_validation";
    if (opt.validation) {
        if (hasLayer(kValidation)) {
            layers.push_back(kValidation);
            exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
            validationOn = true;
        } else {
            std::fprintf(stderr, "vbdlab: validation requested but %s is not installed\n", kValidation);
        }
    }
    auto dbg =
        vkInfo<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
    dbg.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    dbg.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    dbg.pfnUserCallback = &Context::debugCallback;
    dbg.pUserData = this;

    auto ici = vkInfo<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    ici.pApplicationInfo = &app;
    ici.enabledExtensionCount = uint32_t(exts.size());
    ici.ppEnabledExtensionNames = exts.data();
    ici.enabledLayerCount = uint32_t(layers.size());
    ici.ppEnabledLayerNames = layers.data();
    if (validationOn) ici.pNext = &dbg;  // also reports problems inside vkCreateInstance itself
    VkResult r = vkCreateInstance(&ici, nullptr, &instance);
    if (r != VK_SUCCESS)
        throw VulkanError(std::string("cannot create a Vulkan instance (") + vkResultName(r) +
                          "): is a Vulkan driver installed (e.g. mesa-vulkan-drivers)?");
    if (validationOn) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        if (create) VK_CHECK(create(instance, &dbg, nullptr, &messenger_));
    }
    if (opt.makeSurface) surface = opt.makeSurface(instance, opt.surfaceUser);

    // Device choice (render/device_choice.h): the GPU the CUDA backend steps on where it can render, else
    // discrete GPU first, then integrated, virtual, CPU (lavapipe); each device with its first graphics queue
    // (that can present to the surface, if there is one).
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    std::vector<VkPhysicalDevice> devs(n);
    vkEnumeratePhysicalDevices(instance, &n, devs.data());
    std::vector<DeviceCandidate> candidates;
    std::vector<VkPhysicalDevice> candidateDevs;
    std::vector<uint32_t> candidateQueues;
    for (VkPhysicalDevice d : devs) {
        auto id = vkInfo<VkPhysicalDeviceIDProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES);
        auto p2 = vkInfo<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
        vkGetPhysicalDeviceProperties(d, &p2.properties);
        if (p2.properties.apiVersion < VK_API_VERSION_1_1) continue;
        p2.pNext = &id;
        vkGetPhysicalDeviceProperties2(d, &p2);
        uint32_t qn = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, nullptr);
        std::vector<VkQueueFamilyProperties> qs(qn);
        vkGetPhysicalDeviceQueueFamilyProperties(d, &qn, qs.data());
        for (uint32_t q = 0; q < qn; ++q) {
            if (!(qs[q].queueFlags & VK_QUEUE_GRAPHICS_BIT)) continue;
            if (surface) {
                VkBool32 present = VK_FALSE;
                vkGetPhysicalDeviceSurfaceSupportKHR(d, q, surface, &present);
                if (!present) continue;
            }
            DeviceCandidate c;
            c.rank = deviceTypeRank(int(p2.properties.deviceType));
            std::memcpy(c.uuid.data(), id.deviceUUID, c.uuid.size());
            candidates.push_back(c);
            candidateDevs.push_back(d);
            candidateQueues.push_back(q);
            break;
        }
    }
    const int chosen = chooseRenderDevice(candidates, opt.preferUuid);
    if (chosen >= 0) {
        physical = candidateDevs[size_t(chosen)];
        queueFamily = candidateQueues[size_t(chosen)];
        vkGetPhysicalDeviceProperties(physical, &props);
    }
    if (!physical) {
        release();
        throw VulkanError(n == 0 ? "no Vulkan device found (install mesa-vulkan-drivers for lavapipe)"
                                 : "no Vulkan device with a graphics queue that can present to the window");
    }

    float prio = 1.0f;
    auto qci = vkInfo<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    qci.queueFamilyIndex = queueFamily;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    std::vector<const char*> devExts;
    if (opt.swapchain) devExts.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    auto timeline = vkInfo<VkPhysicalDeviceTimelineSemaphoreFeaturesKHR>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES_KHR);
    queryExternalCaps(devExts, timeline);
    auto dci = vkInfo<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
    if (external.timeline) dci.pNext = &timeline;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = uint32_t(devExts.size());
    dci.ppEnabledExtensionNames = devExts.data();
    VK_CHECK(vkCreateDevice(physical, &dci, nullptr, &device));
    vkGetDeviceQueue(device, queueFamily, 0, &queue);

    auto pci = vkInfo<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = queueFamily;
    VK_CHECK(vkCreateCommandPool(device, &pci, nullptr, &pool));

    for (VkFormat f : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D16_UNORM}) {
        VkFormatProperties fp;
        vkGetPhysicalDeviceFormatProperties(physical, f, &fp);
        if (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) {
            depthFormat_ = f;
            break;
        }
    }
}

// The CUDA-Vulkan interop's extensions (render/interop_vulkan.h): added to exts when the device has them.
void Context::queryExternalCaps(std::vector<const char*>& exts,
                                VkPhysicalDeviceTimelineSemaphoreFeaturesKHR& timeline) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> have(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, have.data());
    auto offer = [&](const char* name) {
        for (const auto& e : have)
            if (std::strcmp(e.extensionName, name) == 0) {
                exts.push_back(name);
                return true;
            }
        return false;
    };
    external.memoryFd = offer(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    external.semaphoreFd = offer(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    if (offer(VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME)) {
        auto f2 = vkInfo<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
        f2.pNext = &timeline;
        vkGetPhysicalDeviceFeatures2(physical, &f2);
        external.timeline = timeline.timelineSemaphore == VK_TRUE;
        timeline.pNext = nullptr;
        if (!external.timeline) exts.pop_back();
    }
    auto id = vkInfo<VkPhysicalDeviceIDProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES);
    auto p2 = vkInfo<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    p2.pNext = &id;
    vkGetPhysicalDeviceProperties2(physical, &p2);
    std::memcpy(external.uuid.data(), id.deviceUUID, external.uuid.size());
}

Context::~Context() { release(); }

void Context::release() {
    if (device) {
        vkDeviceWaitIdle(device);
        if (pool) vkDestroyCommandPool(device, pool, nullptr);
        vkDestroyDevice(device, nullptr);
        device = VK_NULL_HANDLE;
    }
    if (surface) vkDestroySurfaceKHR(instance, surface, nullptr);
    surface = VK_NULL_HANDLE;
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance, messenger_, nullptr);
        messenger_ = VK_NULL_HANDLE;
    }
    if (instance) vkDestroyInstance(instance, nullptr);
    instance = VK_NULL_HANDLE;
}

uint32_t Context::memoryType(uint32_t typeBits, VkMemoryPropertyFlags flags) const {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
        if ((typeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags) return i;
    throw VulkanError("no Vulkan memory type with the requested properties");
}

Buffer Context::createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible) const {
    Buffer b;
    b.size = size;
    auto bci = vkInfo<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device, &bci, nullptr, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    auto mai = vkInfo<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    mai.allocationSize = req.size;
    mai.memoryTypeIndex =
        memoryType(req.memoryTypeBits,
                   hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                               : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK_CHECK(vkAllocateMemory(device, &mai, nullptr, &b.memory));
    VK_CHECK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
    if (hostVisible) VK_CHECK(vkMapMemory(device, b.memory, 0, size, 0, &b.mapped));
    return b;
}

void Context::destroy(Buffer& b) const {
    if (b.buffer) vkDestroyBuffer(device, b.buffer, nullptr);
    if (b.memory) vkFreeMemory(device, b.memory, nullptr);
    b = Buffer{};
}

Image Context::createImage(uint32_t w, uint32_t h, VkFormat format, VkImageUsageFlags usage,
                           VkImageAspectFlags aspect) const {
    Image img;
    img.format = format;
    auto ici = vkInfo<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = format;
    ici.extent = {w, h, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = usage;
    ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK_CHECK(vkCreateImage(device, &ici, nullptr, &img.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, img.image, &req);
    auto mai = vkInfo<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK_CHECK(vkAllocateMemory(device, &mai, nullptr, &img.memory));
    VK_CHECK(vkBindImageMemory(device, img.image, img.memory, 0));
    auto vci = vkInfo<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
    vci.image = img.image;
    vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vci.format = format;
    vci.subresourceRange = {aspect, 0, 1, 0, 1};
    VK_CHECK(vkCreateImageView(device, &vci, nullptr, &img.view));
    return img;
}

void Context::destroy(Image& img) const {
    if (img.view) vkDestroyImageView(device, img.view, nullptr);
    if (img.image) vkDestroyImage(device, img.image, nullptr);
    if (img.memory) vkFreeMemory(device, img.memory, nullptr);
    img = Image{};
}

VkCommandBuffer Context::beginOneShot() const {
    auto ai = vkInfo<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK_CHECK(vkAllocateCommandBuffers(device, &ai, &cb));
    auto bi = vkInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cb, &bi));
    return cb;
}

void Context::endOneShot(VkCommandBuffer cb) const {
    VK_CHECK(vkEndCommandBuffer(cb));
    auto si = vkInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    VK_CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
    VK_CHECK(vkQueueWaitIdle(queue));
    vkFreeCommandBuffers(device, pool, 1, &cb);
}

VkShaderModule Context::shaderModule(const uint32_t* code, size_t bytes) const {
    auto ci = vkInfo<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    ci.codeSize = bytes;
    ci.pCode = code;
    VkShaderModule m;
    VK_CHECK(vkCreateShaderModule(device, &ci, nullptr, &m));
    return m;
}

void transitionImage(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                     VkImageLayout to, VkAccessFlags srcAccess, VkAccessFlags dstAccess,
                     VkPipelineStageFlags srcStage, VkPipelineStageFlags dstStage) {
    auto b = vkInfo<VkImageMemoryBarrier>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER);
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {aspect, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cb, srcStage, dstStage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

}  // namespace vbdgui
