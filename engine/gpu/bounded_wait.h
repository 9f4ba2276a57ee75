#pragma once
// A wait that gives up. The interop writer's stream waits on the Vulkan renderer's timeline semaphore
// (gpu/interop_cuda.cu); a renderer that never signals again (a lost Vulkan device, a driver reset) would
// hold a blocking wait -- cudaDeviceSynchronize in the writer's teardown -- forever, and the app with it. So
// the teardown polls the stream until `ready` says it drained, at most `limit`, and reports whether it did:
// a writer whose stream never drains leaves its memory and semaphores allocated (the stream may still touch
// them) rather than freeing them under it or hanging.
#include <chrono>
#include <thread>

namespace vbd {

// How long the interop writers' teardown waits for their queue to drain before it signals the renderer's
// semaphore itself (gpu/interop_cuda.cu, and the app's host-executor writer, app/render/interop_host.h).
inline constexpr std::chrono::milliseconds kInteropTeardownWait{2000};

template <class Ready>
bool waitBounded(const Ready& ready, std::chrono::milliseconds limit,
                 std::chrono::microseconds poll = std::chrono::microseconds(500)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
        if (ready()) return true;
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(poll);
    }
}

}  // namespace vbd
