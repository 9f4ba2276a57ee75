#pragma once
// The interop's writer for a World whose device steps run on the host executor (WorldOptions::hostExecutor;
// the app makes such Worlds under VBD_HOST_EXECUTOR=1, render/world_source.h). It keeps the CUDA writer's
// contract (gpu/interop_cuda.h ExternalVertexWriter) with a host thread and Vulkan's host-side timeline
// operations, so that the window's interop path -- the simulation thread's writes through WindowVertexLink,
// the slots, the submits that wait on simDone and signal renderDone, the teardown, a lost device's recovery
// -- runs and is tested on a machine without a GPU (lavapipe). A test stand-in, not a product path: the
// window line names it "host-executor interop".
//
// The CUDA writer's two streams, on the host:
//   the step's stream    the caller (the simulation thread): write() copies the frame's positions, rounded to
//                        float as publishing does, and the bodies' states into the write's own copy at once
//                        (the host executor's step has finished when the World hands its state out), and
//                        never waits;
//   the writer's stream  one worker thread, in write order: wait renderDone >= the slot's last draw
//                        (vkWaitSemaphores), the records (fillVertexRecords, the CPU upload's own fill) and
//                        the body instances (BodyInstanceStage) into the slot's mapped buffers, signal
//                        simDone = frame (vkSignalSemaphore).
// The worker runs one write at a time, so a write's wait also holds the later ones, as on a CUDA stream.
// Teardown (the destructor) as the CUDA writer's: the queue drains
// within kTeardownWait, or renderDone is signalled from the host up to the last value a write waits for (the
// renderer will not: a lost device, a frame begun and never submitted), said on stderr, and the queue
// drained.
//
// Memory: host writes after the submit that reads them, ordered by a host-signalled semaphore, are visible to
// a CPU device (lavapipe); the specification guarantees host writes only for submits made after them, which
// is why this stays a test stand-in.
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

#include "gpu/interop_cuda.h"

namespace vbdgui {

struct HostInteropTarget {
    VkDevice device = VK_NULL_HANDLE;
    VkSemaphore simDone = VK_NULL_HANDLE;     // timeline, signalled here with the write's frame
    VkSemaphore renderDone = VK_NULL_HANDLE;  // timeline, signalled by the window's submits
    std::vector<void*> slots;                 // mapped ParticleVertex buffers, one per slot
    std::vector<void*> instanceSlots;         // mapped BodyInstance buffers (as many as slots, or none)
    int instanceCapacity = 0;                 // BodyInstance records each instance buffer holds
};

// A writer for numVertices records of `layout` over adj into target's buffers. Throws VulkanError when the
// device lacks the timeline semaphores' host operations.
std::unique_ptr<vbd::ExternalVertexWriter> makeHostVertexWriter(const HostInteropTarget& target,
                                                                int numVertices,
                                                                const vbd::SurfaceAdjacency& adj,
                                                                const vbd::VertexLayout& layout);

}  // namespace vbdgui
