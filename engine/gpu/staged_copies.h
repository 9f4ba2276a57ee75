#pragma once
// Host-device copies through a page-locked staging area (the CUDA executor's transfers, gpu/cuda_exec.cuh).
//
// A cudaMemcpyAsync from pageable memory copies through the driver's own small pinned buffer with one host
// thread and returns only when the source is consumed (to pageable memory: when the copy is done): the rigid
// pile's 11 MB of contacts a step and the soft state's publishing moved at the speed of one memcpy in chunks.
// Staged, an upload is a parallel memcpy into the area and an asynchronous DMA at the bus's speed; a download
// is a DMA into the area, copied out (in parallel) once the stream is idle. The callers' contract stays that
// of the direct copy: an upload's source may change as soon as upload() returns; a download's destination is
// valid after the executor's sync().
//
// The area is handed out front to back and reset only when the stream is idle, so no region is written
// before the DMA that reads it (an upload's) or the copy out of it (a download's) is done. When it is full
// the stream is waited for first; a request larger than the area replaces it (twice the size, or the
// request's). Copies under kStagedBytes, copies issued while the stream is captured into a graph (a graph
// must not hold the area's addresses) and a disabled stager go direct.
//
// Off unless VBD_CUDA_STAGED=1 (gpu/cuda_exec.cuh), until a device has measured it.
//
// Ops (the CUDA runtime on the executor's stream; a fake in test_staged_copies): allocPinned(bytes) /
// freePinned(p); toDevice(dst, src, bytes) and toHost(dst, src, bytes), asynchronous on the stream; wait(),
// the stream idle (throws on an error); capturing().
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "backend/parallel.h"

namespace vbd {

inline constexpr size_t kStagedBytes = size_t(64) << 10;

template <class Ops>
class StagedCopies {
  public:
    StagedCopies(Ops ops, bool enabled) : ops_(std::move(ops)), enabled_(enabled) {}
    StagedCopies(StagedCopies&& o) noexcept
        : ops_(std::move(o.ops_)),
          enabled_(o.enabled_),
          area_(o.area_),
          cap_(o.cap_),
          used_(o.used_),
          pending_(std::move(o.pending_)) {
        o.area_ = nullptr;
        o.cap_ = o.used_ = 0;
    }
    StagedCopies(const StagedCopies&) = delete;
    StagedCopies& operator=(const StagedCopies&) = delete;
    StagedCopies& operator=(StagedCopies&&) = delete;
    // The owner waits for its stream first (the area must not be freed under a DMA).
    ~StagedCopies() {
        if (area_) ops_.freePinned(area_);
    }

    void upload(void* dst, const void* src, size_t bytes) {
        if (!bytes) return;
        if (direct(bytes)) {
            ops_.toDevice(dst, src, bytes);
            return;
        }
        char* a = take(bytes);
        hostCopy(a, src, bytes);
        ops_.toDevice(dst, a, bytes);
    }
    void download(void* dst, const void* src, size_t bytes) {
        if (!bytes) return;
        if (direct(bytes)) {
            ops_.toHost(dst, src, bytes);
            return;
        }
        char* a = take(bytes);
        ops_.toHost(a, src, bytes);
        pending_.push_back({dst, a, bytes});
    }
    // The stream is idle (the owner waited for it): the downloads' regions hold their data; copy it out and
    // hand the area out from the front again.
    void idle() noexcept {
        for (const Pending& d : pending_) hostCopy(d.dst, d.area, d.bytes);
        pending_.clear();
        used_ = 0;
    }
    // The wait for the stream failed (a device error: its copies may not have run): the pending downloads are
    // dropped, not copied out -- their destinations may be gone by the next idle() (the arrays of a solver
    // the error unwound) -- and the area is handed out from the front again.
    void discard() noexcept {
        pending_.clear();
        used_ = 0;
    }

    size_t capacity() const { return cap_; }
    size_t pendingDownloads() const { return pending_.size(); }

  private:
    struct Pending {
        void* dst;
        const char* area;
        size_t bytes;
    };
    bool direct(size_t bytes) const { return !enabled_ || bytes < kStagedBytes || ops_.capturing(); }
    char* take(size_t bytes) {
        const size_t need = (bytes + 255) & ~size_t(255);
        if (used_ + need > cap_) {
            try {
                ops_.wait();
            } catch (...) {
                discard();
                throw;
            }
            idle();
            if (need > cap_) {
                const size_t cap = std::max({need, 2 * cap_, size_t(8) << 20});
                if (area_) ops_.freePinned(area_);
                area_ = nullptr;
                cap_ = 0;
                area_ = static_cast<char*>(ops_.allocPinned(cap));
                cap_ = cap;
            }
        }
        char* p = area_ + used_;
        used_ += need;
        return p;
    }
    // memcpy in 256 KiB chunks on the caller's threads (parallelFor: the solver's ThreadLimit applies).
    static void hostCopy(void* dst, const void* src, size_t bytes) noexcept {
        constexpr size_t kChunk = size_t(256) << 10;
        char* d = static_cast<char*>(dst);
        const char* s = static_cast<const char*>(src);
        const size_t chunks = (bytes + kChunk - 1) / kChunk;
        if (chunks <= 1) {
            std::memcpy(d, s, bytes);
            return;
        }
        parallelFor(
            chunks,
            [&](size_t c) {
                const size_t o = c * kChunk;
                std::memcpy(d + o, s + o, std::min(kChunk, bytes - o));
            },
            1);
    }

    Ops ops_;
    bool enabled_;
    char* area_ = nullptr;
    size_t cap_ = 0, used_ = 0;
    std::vector<Pending> pending_;
};

}  // namespace vbd
