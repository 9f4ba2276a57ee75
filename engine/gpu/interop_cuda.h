#pragma once
// The CUDA half of the CUDA-Vulkan interop (docs/gpu.md "Interop"): Vulkan allocates the particle vertex
// buffers and two timeline semaphores as exportable objects and hands their POSIX file descriptors over;
// CUDA imports them (cudaImportExternalMemory + cudaExternalMemoryGetMappedBuffer,
// cudaImportExternalSemaphore) and, each frame: copies the device step's positions (and the device rigid
// step's states) into the slot's own scratch on the steps' streams, then on its own stream waits until Vulkan
// has drawn the last frame that used the slot, writes the ParticleVertex records (gpu/render_vertices.h) and,
// where the scene has rigid bodies, the BodyInstance records (gpu/body_instances.h) into the slot's buffers,
// and signals that the slot is ready. No host copy of the positions, no host wait per frame, and the steps'
// streams never wait for the renderer. No CUDA or Vulkan types
// here: the app passes descriptors and sizes.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/body_instances.h"
#include "gpu/device_bodies.h"
#include "gpu/device_match.h"
#include "gpu/device_particles.h"
#include "gpu/render_vertices.h"

namespace vbd {

// One exported Vulkan allocation (VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) holding one vertex buffer
// at offset 0.
struct ExternalMemoryFd {
    int fd = -1;
    unsigned long long allocationBytes = 0;  // VkMemoryAllocateInfo::allocationSize (what CUDA imports)
    unsigned long long bufferBytes = 0;      // the buffer's size (what CUDA maps)
    bool dedicated = true;                   // a VkMemoryDedicatedAllocateInfo allocation
};

struct ExternalVertexTarget {
    int cudaDevice = 0;                   // matchCudaDevice() of the Vulkan device's UUID
    std::vector<ExternalMemoryFd> slots;  // one vertex buffer per frame in flight
    int simDoneFd = -1;                   // timeline: CUDA signals value f once frame f's records are written
    int renderDoneFd = -1;                // timeline: Vulkan signals value f once frame f is drawn
    // Optional: one BodyInstanceRecord buffer per slot (as many as slots, or none), written in the same
    // frame as the slot's vertex buffer and ordered by the same two semaphores.
    std::vector<ExternalMemoryFd> instanceSlots;
};

// A frame's rigid body instances: the device rigid step's states and the table (draw order) built for
// numBodies bodies. The writer writes them when bodies.current, bodies.n == numBodies, the states are on its
// device and the table fits the instance buffers; the table is uploaded when it changed.
struct BodyInstanceFrame {
    DeviceRigidBodies bodies;
    const BodyInstanceShape* table = nullptr;
    int count = 0;
    int numBodies = 0;
};

// Whether a writer on CUDA device `device` whose instance buffers hold `capacity` records writes b's
// instances (nullptr: none asked): the states current on that device, the table built for their body count
// and fitting.
inline bool bodyInstancesWritable(const BodyInstanceFrame* b, int capacity, int device) {
    return b && b->count > 0 && b->count <= capacity && b->table && b->bodies.current && b->bodies.state &&
           b->bodies.n == b->numBodies && b->bodies.cudaDevice == device;
}

class ExternalVertexWriter {
  public:
    virtual ~ExternalVertexWriter() = default;
    // Frame `frame` (1, 2, ...) into `slot`, asynchronously: waits (on the device) for renderDone >=
    // waitRenderDone (0: no wait), writes the records, signals simDone = frame. Positions: src.x when
    // src.current, else hostPositions (the published state; one upload, for frames the CPU stepped).
    // scalar: numScalars heat-map values (uploaded when they changed since the last frame). bodies: the
    // frame's body instances, or nullptr. Returns whether the slot's instance buffer now holds them (else
    // the renderer draws the bodies from its CPU upload).
    virtual bool write(const DeviceParticles& src, const Vec3* hostPositions, const float* scalar,
                       int numScalars, const BodyInstanceFrame* bodies, uint32_t slot,
                       uint64_t waitRenderDone, uint64_t frame) = 0;
    // Whether write reads src's positions in place (current, on this writer's device, its vertex count):
    // else it needs hostPositions.
    virtual bool readsInPlace(const DeviceParticles& src) const {
        (void)src;
        return true;
    }
    // How many body instances each slot's instance buffer holds (0: no instance buffers).
    virtual int instanceCapacity() const = 0;
    // Blocks until everything written so far is done (tests, teardown).
    virtual void finish() = 0;
};

// Seconds per frame of the interop's record kernels on src's device (src.x on the device, src.current), into
// plain device memory instead of an imported buffer: the rounding to float (double state) and the records,
// `frames` times, timed with CUDA events (bench_interop). Throws std::runtime_error without CUDA.
double deviceVertexRecordSeconds(const DeviceParticles& src, const SurfaceAdjacency& adj, int frames);

// The interop's body instance kernel (BodyInstanceStage) run on bodies' device over `table`, into plain
// device memory instead of an imported buffer, and downloaded: the CUDA records the interop would write this
// frame (test_gpu_interop checks them against the CPU fill). Throws std::runtime_error without CUDA or when
// bodies are not current device states.
std::vector<BodyInstanceRecord> deviceBodyInstanceRecords(const DeviceRigidBodies& bodies,
                                                          const std::vector<BodyInstanceShape>& table);

// The UUIDs of the CUDA devices in CUDA's order (empty, with the reason in error, without CUDA or devices).
std::vector<DeviceUuid> cudaDeviceUuids(std::string& error);

// Imports target for numVertices records of `layout` over adjacency adj. Takes every descriptor in target:
// the ones CUDA imported belong to the driver, the rest are closed. Throws std::runtime_error naming the
// call that failed (or "built without CUDA").
std::unique_ptr<ExternalVertexWriter> importExternalVertexTarget(ExternalVertexTarget target, int numVertices,
                                                                 const SurfaceAdjacency& adj,
                                                                 const VertexLayout& layout);

}  // namespace vbd
