// The CUDA half of the interop (gpu/interop_cuda.h).
//
// Teardown order (the reverse of the import): wait for the device, cudaFree every mapped pointer, then
// cudaDestroyExternalMemory and cudaDestroyExternalSemaphore -- all before Vulkan frees the memory and
// destroys the semaphores, which the app guarantees by destroying this writer first.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

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

// The records of n vertices from x (Vec3d when dbl, else Vec3) into out on stream s; xf: n float positions
// of scratch (the double state rounded to float first, as publishing does for the CPU path).
void issueRecords(const void* x, bool dbl, int n, Vec3* xf, const SurfaceAdjacencyView& adj,
                  const float* scalar, int numScalars, float* out, const VertexLayout& layout,
                  cudaStream_t s) {
    if (n <= 0) return;
    if (dbl) {
        forEachKernel<<<blocksFor(n), kBlockSize, 0, s>>>(
            ToFloatStage<double>{static_cast<const Vec3d*>(x), xf}, n);
        VBD_CUDA(cudaGetLastError());
        x = xf;
    }
    forEachKernel<<<blocksFor(n), kBlockSize, 0, s>>>(
        VertexRecordStage{static_cast<const Vec3*>(x), adj, scalar, numScalars, out, layout}, n);
    VBD_CUDA(cudaGetLastError());
}

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

    bool write(const DeviceParticles& src, const Vec3* hostPositions, const float* scalar, int numScalars,
               const BodyInstanceFrame* bodies, uint32_t slot, uint64_t waitRenderDone,
               uint64_t frame) override {
        if (slot >= mapped_.size())
            throw std::out_of_range("interop: no vertex buffer slot " + std::to_string(slot));
        VBD_CUDA(cudaSetDevice(device_));
        const bool onDevice = src.current && src.x && src.n == n_ && src.cudaDevice == device_;
        cudaStream_t s = onDevice && src.stream ? static_cast<cudaStream_t>(src.stream) : stream_;
        // The scratch arrays below are shared by all frames: a frame on another stream than the last one
        // starts after it.
        if (s != last_ && written_) VBD_CUDA(cudaStreamWaitEvent(s, done_, 0));
        last_ = s;
        const void* x = src.x;
        // This frame's positions are only in the published state (a rigid-only World has none).
        if (!onDevice && n_ > 0) {
            VBD_CUDA(
                cudaMemcpyAsync(xf_, hostPositions, size_t(n_) * sizeof(Vec3), cudaMemcpyHostToDevice, s));
            x = xf_;
        }
        if (numScalars > 0) {
            const size_t m = size_t(numScalars < n_ ? numScalars : n_);
            if (lastScalar_.size() != m || std::memcmp(lastScalar_.data(), scalar, m * sizeof(float)) != 0) {
                lastScalar_.assign(scalar, scalar + m);
                VBD_CUDA(cudaMemcpyAsync(scalar_, lastScalar_.data(), m * sizeof(float),
                                         cudaMemcpyHostToDevice, s));
            }
        }
        if (waitRenderDone > 0) {
            cudaExternalSemaphoreWaitParams w{};
            w.params.fence.value = waitRenderDone;
            VBD_CUDA(cudaWaitExternalSemaphoresAsync(&renderDone_, &w, 1, s));
        }
        const int m = numScalars > 0 ? (numScalars < n_ ? numScalars : n_) : 0;
        float* out = static_cast<float*>(mapped_[slot]);
        issueRecords(x, onDevice && src.doublePrecision, n_, xf_, adj_, scalar_, m, out, layout_, s);
        const bool wroteBodies =
            bodyInstancesWritable(bodies, instanceCapacity_, device_) && writeBodies(*bodies, slot, s);
        cudaExternalSemaphoreSignalParams sig{};
        sig.params.fence.value = frame;
        VBD_CUDA(cudaSignalExternalSemaphoresAsync(&simDone_, &sig, 1, s));
        VBD_CUDA(cudaEventRecord(done_, s));
        written_ = true;
        return wroteBodies;
    }

    int instanceCapacity() const override { return instanceCapacity_; }

    void finish() override {
        VBD_CUDA(cudaSetDevice(device_));
        if (written_) VBD_CUDA(cudaEventSynchronize(done_));
    }

  private:
    // The slot's body instances on stream s (after the renderDone wait, before the simDone signal). The
    // rigid step's stream must not overwrite the states (next step's upload) before the kernel has read
    // them: it waits for the kernel; the kernel waits for the rigid step's last work.
    bool writeBodies(const BodyInstanceFrame& b, uint32_t slot, cudaStream_t s) {
        const size_t count = size_t(b.count);
        if (lastTable_.size() != count ||
            std::memcmp(static_cast<const void*>(lastTable_.data()), static_cast<const void*>(b.table),
                        count * sizeof(BodyInstanceShape)) != 0) {
            lastTable_.assign(b.table, b.table + count);
            VBD_CUDA(cudaMemcpyAsync(table_, lastTable_.data(), count * sizeof(BodyInstanceShape),
                                     cudaMemcpyHostToDevice, s));
        }
        cudaStream_t rigid = static_cast<cudaStream_t>(b.bodies.stream);
        if (rigid && rigid != s) {
            VBD_CUDA(cudaEventRecord(bodiesReady_, rigid));
            VBD_CUDA(cudaStreamWaitEvent(s, bodiesReady_, 0));
        }
        forEachKernel<<<blocksFor(b.count), kBlockSize, 0, s>>>(
            BodyInstanceStage{b.bodies.state, table_, static_cast<BodyInstanceRecord*>(instances_[slot])},
            b.count);
        VBD_CUDA(cudaGetLastError());
        if (rigid && rigid != s) {
            VBD_CUDA(cudaEventRecord(bodiesRead_, s));
            VBD_CUDA(cudaStreamWaitEvent(rigid, bodiesRead_, 0));
        }
        return true;
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
        const size_t recordBytes = size_t(n_) * size_t(layout_.stride) * sizeof(float);
        for (ExternalMemoryFd& slot : t.slots) mapped_.push_back(mapSlot(slot, recordBytes));
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
            VBD_CUDA(cudaEventCreateWithFlags(&bodiesReady_, cudaEventDisableTiming));
            VBD_CUDA(cudaEventCreateWithFlags(&bodiesRead_, cudaEventDisableTiming));
        }
        renderDone_ = importTimeline(t.renderDoneFd);
        simDone_ = importTimeline(t.simDoneFd);
        offsets_ = upload(adj.offsets.data(), adj.offsets.size());
        incident_ = upload(adj.incident.data(), adj.incident.size());
        tris_ = upload(adj.tris.data(), adj.tris.size());
        adj_ = {offsets_, incident_, tris_};
        VBD_CUDA(cudaMalloc(&xf_, size_t(n_ > 0 ? n_ : 1) * sizeof(Vec3)));
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
        cudaSetDevice(device_);
        cudaDeviceSynchronize();  // every write (any stream) done before the memory goes
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
        if (xf_) cudaFree(xf_);
        if (scalar_) cudaFree(scalar_);
        xf_ = nullptr, scalar_ = nullptr;
        if (table_) cudaFree(table_);
        table_ = nullptr;
        for (cudaEvent_t* e : {&done_, &bodiesReady_, &bodiesRead_})
            if (*e) cudaEventDestroy(*e), *e = nullptr;
        if (stream_) cudaStreamDestroy(stream_);
        stream_ = nullptr;
        // A failed call here or in a failed import (cudaImportExternalMemory refused by the driver) leaves
        // its error as the thread's last error, which the solver's next launch check on this thread
        // (CudaExec::forEach's cudaGetLastError) would report as its own: `vbdlab render` would exit instead
        // of falling back to the CPU upload.
        (void)cudaGetLastError();
    }

    int n_;
    VertexLayout layout_;
    int device_;
    cudaStream_t stream_ = nullptr, last_ = nullptr;
    cudaEvent_t done_ = nullptr;  // recorded after each frame's write
    bool written_ = false;
    std::vector<cudaExternalMemory_t> memory_;
    std::vector<void*> mapped_, owned_;
    cudaExternalSemaphore_t renderDone_ = nullptr, simDone_ = nullptr;
    int *offsets_ = nullptr, *incident_ = nullptr;
    std::array<int, 3>* tris_ = nullptr;
    SurfaceAdjacencyView adj_;
    Vec3* xf_ = nullptr;  // float positions: uploaded (a CPU-stepped frame) or rounded from the double state
    float* scalar_ = nullptr;
    std::vector<float> lastScalar_;
    std::vector<void*> instances_;  // per slot: the mapped BodyInstanceRecord buffer (or none)
    int instanceCapacity_ = 0;
    BodyInstanceShape* table_ = nullptr;  // the last table written, on the device
    std::vector<BodyInstanceShape> lastTable_;
    cudaEvent_t bodiesReady_ = nullptr, bodiesRead_ = nullptr;  // the rigid step's stream <-> s
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
    for (int f = 0; f < frames; ++f)
        issueRecords(src.x, src.doublePrecision, src.n, static_cast<Vec3*>(xf), view, nullptr, 0,
                     static_cast<float*>(out), layout, s);
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
