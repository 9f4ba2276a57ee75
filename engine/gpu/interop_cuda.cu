// The CUDA half of the interop (gpu/interop_cuda.h).
//
// Teardown order (the reverse of the import): wait for the device, cudaFree every mapped pointer, then
// cudaDestroyExternalMemory and cudaDestroyExternalSemaphore -- all before Vulkan frees the memory and
// destroys the semaphores, which the app guarantees by destroying this writer first. The wait is bounded
// (gpu/bounded_wait.h): the writer's stream waits on the renderer's semaphore, and a renderer that never
// signals again (a lost Vulkan device) would hold the teardown -- and every later cudaFree, which waits for
// the whole device, and the steps' streams, which wait for the slots' records kernels -- forever. After
// kTeardownWait the writer signals renderDone itself, on a stream of its own, up to the last value its
// stream waits for (the renderer is gone: nothing else will signal it), which lets the stream drain, and
// says so on stderr; only a stream that still does not drain is abandoned with its allocations.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "gpu/bounded_wait.h"
#include "gpu/cuda_exec.cuh"
#include "gpu/interop_cuda.h"

namespace vbd {

std::vector<DeviceUuid> cudaDeviceUuids(std::string& error) {
    std::vector<DeviceUuid> out;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        error = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
        cudaGetLastError();
        return out;
    }
    if (n == 0) error = "no CUDA device";
    for (int i = 0; i < n; ++i) {
        cudaDeviceProp prop{};
        VBD_CUDA(cudaGetDeviceProperties(&prop, i));
        DeviceUuid u{};
        std::memcpy(u.data(), prop.uuid.bytes, u.size());
        out.push_back(u);
    }
    return out;
}

namespace {

// The double state rounded to float into out (as publishing does for the CPU path), on stream s.
void roundToFloat(const Vec3d* x, int n, Vec3* out, cudaStream_t s) {
    forEachKernel<<<blocksFor(n), kBlockSize, 0, s>>>(ToFloatStage<double>{x, out}, n);
    VBD_CUDA(cudaGetLastError());
}

// The records of n vertices from the float positions x into out on stream s.
void issueRecords(const Vec3* x, int n, const SurfaceAdjacencyView& adj, const float* scalar, int numScalars,
                  float* out, const VertexLayout& layout, cudaStream_t s) {
    if (n <= 0) return;
    forEachKernel<<<blocksFor(n), kBlockSize, 0, s>>>(
        VertexRecordStage{x, adj, scalar, numScalars, out, layout}, n);
    VBD_CUDA(cudaGetLastError());
}

// The writer's streams: the solver's (the device step's, and the rigid step's) only copy a frame's positions
// and body states into the slot's own scratch and go on; everything that waits for the renderer (the wait for
// renderDone, the records and instance kernels, the simDone signal) runs on the writer's stream. Before, the
// wait for the slot's last draw sat on the solver's stream: the next step queued behind it and the simulation
// thread, which waits for its step's download, waited for the display (under FIFO presentation a draw's
// renderDone comes after its image is acquired, up to a refresh or two later). Now the solver's stream waits
// only for the slot's previous records kernel to have read the scratch, written S frames before.
class CudaVertexWriter final : public ExternalVertexWriter {
  public:
    CudaVertexWriter(ExternalVertexTarget& t, int n, const SurfaceAdjacency& adj, const VertexLayout& layout)
        : n_(n), layout_(layout), device_(t.cudaDevice) {
        try {
            import(t, adj);
        } catch (...) {
            closeRemaining(t);
            release();
            throw;  // release() cleared the failed import's error: the caller falls back to the CPU upload
        }
    }
    ~CudaVertexWriter() override { release(); }
    bool readsInPlace(const DeviceParticles& src) const override {
        return src.current && src.x && src.n == n_ && src.cudaDevice == device_;
    }

    bool write(const DeviceParticles& src, const Vec3* hostPositions, const float* scalar, int numScalars,
               const BodyInstanceFrame* bodies, uint32_t slot, uint64_t waitRenderDone,
               uint64_t frame) override {
        if (slot >= mapped_.size())
            throw std::out_of_range("interop: no vertex buffer slot " + std::to_string(slot));
        VBD_CUDA(cudaSetDevice(device_));
        const bool onDevice = readsInPlace(src);
        if (!onDevice && !hostPositions && n_ > 0)
            throw std::invalid_argument("interop: no current positions on CUDA device " +
                                        std::to_string(device_) + " and no host copy");
        Vec3* x = positions_[slot];  // this slot's float positions
        if (n_ > 0) {
            if (onDevice) {
                // On the step's stream: once the slot's last records kernel has read the scratch, the
                // positions into it (the double state rounded to float, as publishing does for the CPU path).
                cudaStream_t step = src.stream ? static_cast<cudaStream_t>(src.stream) : stream_;
                if (step != stream_) VBD_CUDA(cudaStreamWaitEvent(step, slotRead_[slot], 0));
                if (src.doublePrecision) {
                    roundToFloat(static_cast<const Vec3d*>(src.x), n_, x, step);
                } else {
                    VBD_CUDA(
                        cudaMemcpyAsync(x, src.x, size_t(n_) * sizeof(Vec3), cudaMemcpyDeviceToDevice, step));
                }
                if (step != stream_) {
                    VBD_CUDA(cudaEventRecord(copied_, step));
                    VBD_CUDA(cudaStreamWaitEvent(stream_, copied_, 0));
                }
            } else {
                // This frame's positions are only in the published state (a CPU step; an edit).
                VBD_CUDA(cudaMemcpyAsync(x, hostPositions, size_t(n_) * sizeof(Vec3), cudaMemcpyHostToDevice,
                                         stream_));
            }
        }
        if (numScalars > 0) {
            const size_t m = size_t(numScalars < n_ ? numScalars : n_);
            if (lastScalar_.size() != m || std::memcmp(lastScalar_.data(), scalar, m * sizeof(float)) != 0) {
                lastScalar_.assign(scalar, scalar + m);
                VBD_CUDA(cudaMemcpyAsync(scalar_, lastScalar_.data(), m * sizeof(float),
                                         cudaMemcpyHostToDevice, stream_));
            }
        }
        const bool wroteBodies = bodyInstancesWritable(bodies, instanceCapacity_, device_);
        if (wroteBodies) copyBodies(*bodies, slot);
        if (waitRenderDone > 0) {
            cudaExternalSemaphoreWaitParams w{};
            w.params.fence.value = waitRenderDone;
            VBD_CUDA(cudaWaitExternalSemaphoresAsync(&renderDone_, &w, 1, stream_));
            if (waitRenderDone > lastRenderWait_) lastRenderWait_ = waitRenderDone;
        }
        const int m = numScalars > 0 ? (numScalars < n_ ? numScalars : n_) : 0;
        issueRecords(x, n_, adj_, scalar_, m, static_cast<float*>(mapped_[slot]), layout_, stream_);
        if (wroteBodies) writeBodies(*bodies, slot);
        cudaExternalSemaphoreSignalParams sig{};
        sig.params.fence.value = frame;
        VBD_CUDA(cudaSignalExternalSemaphoresAsync(&simDone_, &sig, 1, stream_));
        VBD_CUDA(cudaEventRecord(slotRead_[slot], stream_));
        VBD_CUDA(cudaEventRecord(done_, stream_));
        written_ = true;
        return wroteBodies;
    }

    int instanceCapacity() const override { return instanceCapacity_; }

    void finish() override {
        VBD_CUDA(cudaSetDevice(device_));
        if (written_) VBD_CUDA(cudaEventSynchronize(done_));
    }

  private:
    // The rigid step's states into the slot's scratch, on the rigid step's stream once the slot's last
    // instance kernel has read it (that stream, like the soft step's, never waits for the renderer), and the
    // table when it changed.
    void copyBodies(const BodyInstanceFrame& b, uint32_t slot) {
        const size_t count = size_t(b.count), n = size_t(b.bodies.n);
        if (lastTable_.size() != count ||
            std::memcmp(static_cast<const void*>(lastTable_.data()), static_cast<const void*>(b.table),
                        count * sizeof(BodyInstanceShape)) != 0) {
            lastTable_.assign(b.table, b.table + count);
            VBD_CUDA(cudaMemcpyAsync(table_, lastTable_.data(), count * sizeof(BodyInstanceShape),
                                     cudaMemcpyHostToDevice, stream_));
        }
        if (bodyStateCapacity_[slot] < n) {  // grows rarely (bodies added): cudaFree waits for the device
            if (bodyStates_[slot]) cudaFree(bodyStates_[slot]);
            bodyStates_[slot] = nullptr;
            bodyStateCapacity_[slot] = 0;
            VBD_CUDA(cudaMalloc(&bodyStates_[slot], n * sizeof(RigidBodyState)));
            bodyStateCapacity_[slot] = n;
        }
        cudaStream_t rigid = b.bodies.stream ? static_cast<cudaStream_t>(b.bodies.stream) : stream_;
        if (rigid != stream_) VBD_CUDA(cudaStreamWaitEvent(rigid, slotRead_[slot], 0));
        VBD_CUDA(cudaMemcpyAsync(bodyStates_[slot], b.bodies.state, n * sizeof(RigidBodyState),
                                 cudaMemcpyDeviceToDevice, rigid));
        if (rigid != stream_) {
            VBD_CUDA(cudaEventRecord(bodiesCopied_, rigid));
            VBD_CUDA(cudaStreamWaitEvent(stream_, bodiesCopied_, 0));
        }
    }
    // The slot's body instances from its scratch, on the writer's stream (after the renderDone wait, before
    // the simDone signal).
    void writeBodies(const BodyInstanceFrame& b, uint32_t slot) {
        forEachKernel<<<blocksFor(b.count), kBlockSize, 0, stream_>>>(
            BodyInstanceStage{bodyStates_[slot], table_, static_cast<BodyInstanceRecord*>(instances_[slot])},
            b.count);
        VBD_CUDA(cudaGetLastError());
    }

    // Imports one exported allocation and maps its buffer (at least `need` bytes).
    void* mapSlot(ExternalMemoryFd& slot, size_t need) {
        if (slot.bufferBytes < need || slot.allocationBytes < slot.bufferBytes)
            throw std::runtime_error("interop: an exported buffer is smaller than its records");
        cudaExternalMemoryHandleDesc d{};
        d.type = cudaExternalMemoryHandleTypeOpaqueFd;
        d.handle.fd = slot.fd;
        d.size = slot.allocationBytes;
        d.flags = slot.dedicated ? cudaExternalMemoryDedicated : 0;
        cudaExternalMemory_t mem = nullptr;
        VBD_CUDA(cudaImportExternalMemory(&mem, &d));
        slot.fd = -1;  // the driver owns it now
        memory_.push_back(mem);
        cudaExternalMemoryBufferDesc b{};
        b.offset = 0;
        b.size = slot.bufferBytes;
        void* p = nullptr;
        VBD_CUDA(cudaExternalMemoryGetMappedBuffer(&p, mem, &b));
        return p;
    }

    void import(ExternalVertexTarget& t, const SurfaceAdjacency& adj) {
        VBD_CUDA(cudaSetDevice(device_));
        VBD_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        VBD_CUDA(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        VBD_CUDA(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming));
        const size_t recordBytes = size_t(n_) * size_t(layout_.stride) * sizeof(float);
        for (ExternalMemoryFd& slot : t.slots) {
            mapped_.push_back(mapSlot(slot, recordBytes));
            slotRead_.push_back(nullptr);
            VBD_CUDA(cudaEventCreateWithFlags(&slotRead_.back(), cudaEventDisableTiming));
            positions_.push_back(nullptr);
            VBD_CUDA(cudaMalloc(&positions_.back(), size_t(n_ > 0 ? n_ : 1) * sizeof(Vec3)));
            bodyStates_.push_back(nullptr);
            bodyStateCapacity_.push_back(0);
        }
        if (!t.instanceSlots.empty() && t.instanceSlots.size() != t.slots.size())
            throw std::runtime_error("interop: instance buffers for some slots only");
        if (!t.instanceSlots.empty()) {
            unsigned long long fewest = t.instanceSlots.front().bufferBytes;
            for (const ExternalMemoryFd& slot : t.instanceSlots) fewest = std::min(fewest, slot.bufferBytes);
            instanceCapacity_ =
                int(std::min<unsigned long long>(fewest / sizeof(BodyInstanceRecord), 1u << 30));
            for (ExternalMemoryFd& slot : t.instanceSlots) instances_.push_back(mapSlot(slot, 0));
            VBD_CUDA(cudaMalloc(
                &table_, size_t(instanceCapacity_ > 0 ? instanceCapacity_ : 1) * sizeof(BodyInstanceShape)));
            VBD_CUDA(cudaEventCreateWithFlags(&bodiesCopied_, cudaEventDisableTiming));
        }
        renderDone_ = importTimeline(t.renderDoneFd);
        simDone_ = importTimeline(t.simDoneFd);
        offsets_ = upload(adj.offsets.data(), adj.offsets.size());
        incident_ = upload(adj.incident.data(), adj.incident.size());
        tris_ = upload(adj.tris.data(), adj.tris.size());
        adj_ = {offsets_, incident_, tris_};
        VBD_CUDA(cudaMalloc(&scalar_, size_t(n_ > 0 ? n_ : 1) * sizeof(float)));
        VBD_CUDA(cudaStreamSynchronize(stream_));
    }

    static cudaExternalSemaphore_t importTimeline(int& fd) {
        cudaExternalSemaphoreHandleDesc d{};
        d.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
        d.handle.fd = fd;
        cudaExternalSemaphore_t s = nullptr;
        VBD_CUDA(cudaImportExternalSemaphore(&s, &d));
        fd = -1;
        return s;
    }

    template <typename U>
    U* upload(const U* src, size_t n) {
        U* p = nullptr;
        VBD_CUDA(cudaMalloc(&p, (n > 0 ? n : 1) * sizeof(U)));
        if (n) VBD_CUDA(cudaMemcpyAsync(p, src, n * sizeof(U), cudaMemcpyHostToDevice, stream_));
        owned_.push_back(p);
        return p;
    }

    static void closeRemaining(ExternalVertexTarget& t) {
        for (auto* slots : {&t.slots, &t.instanceSlots})
            for (auto& s : *slots)
                if (s.fd >= 0) close(s.fd), s.fd = -1;
        for (int* fd : {&t.simDoneFd, &t.renderDoneFd})
            if (*fd >= 0) close(*fd), *fd = -1;
    }

    void release() noexcept {
        if (abandoned_) return;  // a second call would wait, unbounded, for the stream it gave up on
        cudaSetDevice(device_);
        // Every write done before the memory goes: the writer's stream (its renderDone waits, the records
        // and instance kernels, which the steps' copies into the scratch precede), bounded; then the device.
        if (stream_ && !drained() && !(releaseRenderWait() && drained())) {
            std::fprintf(
                stderr,
                "vbdlab: interop: the CUDA writer's stream did not drain (a lost device?); its buffers "
                "and semaphores are left to the process\n");
            abandon();
            return;
        }
        cudaDeviceSynchronize();
        for (void* p : mapped_) cudaFree(p);
        mapped_.clear();
        for (void* p : instances_) cudaFree(p);
        instances_.clear();
        for (cudaExternalMemory_t m : memory_) cudaDestroyExternalMemory(m);
        memory_.clear();
        for (cudaExternalSemaphore_t* s : {&renderDone_, &simDone_})
            if (*s) cudaDestroyExternalSemaphore(*s), *s = nullptr;
        for (void* p : owned_) cudaFree(p);
        owned_.clear();
        for (void* p : positions_) cudaFree(p);
        positions_.clear();
        for (void* p : bodyStates_) cudaFree(p);
        bodyStates_.clear();
        bodyStateCapacity_.clear();
        if (scalar_) cudaFree(scalar_);
        scalar_ = nullptr;
        if (table_) cudaFree(table_);
        table_ = nullptr;
        for (cudaEvent_t* e : {&done_, &copied_, &bodiesCopied_})
            if (*e) cudaEventDestroy(*e), *e = nullptr;
        for (cudaEvent_t e : slotRead_)
            if (e) cudaEventDestroy(e);
        slotRead_.clear();
        if (stream_) cudaStreamDestroy(stream_);
        stream_ = nullptr;
        // A failed call here or in a failed import (cudaImportExternalMemory refused by the driver) leaves
        // its error as the thread's last error, which the solver's next launch check on this thread
        // (CudaExec::forEach's cudaGetLastError) would report as its own: `vbdlab render` would exit instead
        // of falling back to the CPU upload.
        (void)cudaGetLastError();
    }

    bool drained() const {
        return waitBounded([&] { return cudaStreamQuery(stream_) != cudaErrorNotReady; }, kTeardownWait);
    }
    // The renderer has not signalled the frame the stream waits for in kTeardownWait: signal renderDone up to
    // it from here, as the renderer would have. False when there is nothing to signal or the signal failed.
    bool releaseRenderWait() noexcept {
        if (!renderDone_ || lastRenderWait_ == 0) return false;
        std::fprintf(stderr,
                     "vbdlab: interop: the renderer has not signalled frame %llu in %lld ms (a lost Vulkan "
                     "device?): the CUDA writer signals it itself to drain\n",
                     (unsigned long long)lastRenderWait_, (long long)kTeardownWait.count());
        cudaStream_t s = nullptr;
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return false;
        cudaExternalSemaphoreSignalParams sig{};
        sig.params.fence.value = lastRenderWait_;
        const bool ok = cudaSignalExternalSemaphoresAsync(&renderDone_, &sig, 1, s) == cudaSuccess;
        if (ok) (void)waitBounded([&] { return cudaStreamQuery(s) != cudaErrorNotReady; }, kTeardownWait);
        cudaStreamDestroy(s);
        return ok;
    }
    // The stream never drained: forget every handle without freeing it (the stream may still read or write
    // the memory, and destroying a semaphore a stream waits on is undefined), and clear the error state.
    void abandon() noexcept {
        mapped_.clear();
        instances_.clear();
        memory_.clear();
        owned_.clear();
        positions_.clear();
        bodyStates_.clear();
        bodyStateCapacity_.clear();
        slotRead_.clear();
        renderDone_ = simDone_ = nullptr;
        scalar_ = nullptr;
        table_ = nullptr;
        done_ = copied_ = bodiesCopied_ = nullptr;
        stream_ = nullptr;
        abandoned_ = true;
        (void)cudaGetLastError();
    }

    static constexpr std::chrono::milliseconds kTeardownWait = kInteropTeardownWait;
    uint64_t lastRenderWait_ = 0;  // the largest renderDone value a write made the stream wait for
    bool abandoned_ = false;
    int n_;
    VertexLayout layout_;
    int device_;
    // The writer's stream: waits for the renderer, writes the slots, signals simDone.
    cudaStream_t stream_ = nullptr;
    cudaEvent_t done_ = nullptr;    // recorded after each frame's write
    cudaEvent_t copied_ = nullptr;  // the step's stream -> stream_: this frame's positions are in the scratch
    std::vector<cudaEvent_t> slotRead_;  // per slot: its last records and instance kernels are done
    bool written_ = false;
    std::vector<cudaExternalMemory_t> memory_;
    std::vector<void*> mapped_, owned_;
    cudaExternalSemaphore_t renderDone_ = nullptr, simDone_ = nullptr;
    int *offsets_ = nullptr, *incident_ = nullptr;
    std::array<int, 3>* tris_ = nullptr;
    SurfaceAdjacencyView adj_;
    // Per slot: the float positions its records are made from (copied or rounded from the device state on
    // the step's stream, or uploaded from the host for a CPU-stepped frame).
    std::vector<Vec3*> positions_;
    float* scalar_ = nullptr;
    std::vector<float> lastScalar_;
    std::vector<void*> instances_;  // per slot: the mapped BodyInstanceRecord buffer (or none)
    int instanceCapacity_ = 0;
    BodyInstanceShape* table_ = nullptr;  // the last table written, on the device
    std::vector<BodyInstanceShape> lastTable_;
    std::vector<RigidBodyState*> bodyStates_;  // per slot: the rigid states its instances are made from
    std::vector<size_t> bodyStateCapacity_;
    cudaEvent_t bodiesCopied_ = nullptr;  // the rigid step's stream -> stream_: the states are in the scratch
};

}  // namespace

double deviceVertexRecordSeconds(const DeviceParticles& src, const SurfaceAdjacency& adj, int frames) {
    if (!src.x || src.n <= 0 || src.cudaDevice < 0 || size_t(src.n) + 1 != adj.offsets.size())
        throw std::runtime_error("deviceVertexRecordSeconds: no device state matching the adjacency");
    VBD_CUDA(cudaSetDevice(src.cudaDevice));
    const size_t n = size_t(src.n);
    const VertexLayout layout;
    void *offsets = nullptr, *incident = nullptr, *tris = nullptr, *xf = nullptr, *out = nullptr;
    VBD_CUDA(cudaMalloc(&offsets, adj.offsets.size() * sizeof(int)));
    VBD_CUDA(cudaMalloc(&incident, (adj.incident.size() + 1) * sizeof(int)));
    VBD_CUDA(cudaMalloc(&tris, (adj.tris.size() + 1) * sizeof(std::array<int, 3>)));
    VBD_CUDA(cudaMalloc(&xf, n * sizeof(Vec3)));
    VBD_CUDA(cudaMalloc(&out, n * size_t(layout.stride) * sizeof(float)));
    VBD_CUDA(
        cudaMemcpy(offsets, adj.offsets.data(), adj.offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
    VBD_CUDA(
        cudaMemcpy(incident, adj.incident.data(), adj.incident.size() * sizeof(int), cudaMemcpyHostToDevice));
    VBD_CUDA(cudaMemcpy(tris, adj.tris.data(), adj.tris.size() * sizeof(std::array<int, 3>),
                        cudaMemcpyHostToDevice));
    const SurfaceAdjacencyView view{static_cast<const int*>(offsets), static_cast<const int*>(incident),
                                    static_cast<const std::array<int, 3>*>(tris)};
    cudaStream_t s = static_cast<cudaStream_t>(src.stream);
    cudaEvent_t a = nullptr, b = nullptr;
    VBD_CUDA(cudaEventCreate(&a));
    VBD_CUDA(cudaEventCreate(&b));
    VBD_CUDA(cudaEventRecord(a, s));
    for (int f = 0; f < frames; ++f) {  // as a window frame: the double state rounded first
        const Vec3* x = static_cast<const Vec3*>(src.x);
        if (src.doublePrecision) {
            roundToFloat(static_cast<const Vec3d*>(src.x), src.n, static_cast<Vec3*>(xf), s);
            x = static_cast<const Vec3*>(xf);
        }
        issueRecords(x, src.n, view, nullptr, 0, static_cast<float*>(out), layout, s);
    }
    VBD_CUDA(cudaEventRecord(b, s));
    VBD_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    VBD_CUDA(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    for (void* p : {offsets, incident, tris, xf, out}) cudaFree(p);
    return double(ms) * 1e-3 / double(frames > 0 ? frames : 1);
}

std::vector<BodyInstanceRecord> deviceBodyInstanceRecords(const DeviceRigidBodies& bodies,
                                                          const std::vector<BodyInstanceShape>& table) {
    if (!bodies.current || !bodies.state || bodies.cudaDevice < 0)
        throw std::runtime_error("deviceBodyInstanceRecords: no current device rigid states");
    for (const BodyInstanceShape& t : table)
        if (t.body < 0 || t.body >= bodies.n)
            throw std::runtime_error("deviceBodyInstanceRecords: the table names a body the states lack");
    std::vector<BodyInstanceRecord> out(table.size());
    if (table.empty()) return out;
    VBD_CUDA(cudaSetDevice(bodies.cudaDevice));
    cudaStream_t s = static_cast<cudaStream_t>(bodies.stream);
    void *shapes = nullptr, *records = nullptr;
    VBD_CUDA(cudaMalloc(&shapes, table.size() * sizeof(BodyInstanceShape)));
    VBD_CUDA(cudaMalloc(&records, table.size() * sizeof(BodyInstanceRecord)));
    VBD_CUDA(cudaMemcpyAsync(shapes, table.data(), table.size() * sizeof(BodyInstanceShape),
                             cudaMemcpyHostToDevice, s));
    const int n = int(table.size());
    forEachKernel<<<blocksFor(n), kBlockSize, 0, s>>>(
        BodyInstanceStage{bodies.state, static_cast<const BodyInstanceShape*>(shapes),
                          static_cast<BodyInstanceRecord*>(records)},
        n);
    VBD_CUDA(cudaGetLastError());
    VBD_CUDA(cudaMemcpyAsync(out.data(), records, out.size() * sizeof(BodyInstanceRecord),
                             cudaMemcpyDeviceToHost, s));
    VBD_CUDA(cudaStreamSynchronize(s));
    cudaFree(shapes);
    cudaFree(records);
    return out;
}

std::unique_ptr<ExternalVertexWriter> importExternalVertexTarget(ExternalVertexTarget target, int numVertices,
                                                                 const SurfaceAdjacency& adj,
                                                                 const VertexLayout& layout) {
    return std::make_unique<CudaVertexWriter>(target, numVertices, adj, layout);
}

}  // namespace vbd
