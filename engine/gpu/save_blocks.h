#pragma once
// The memory of a stepper's device saves (SoftStepper::saveOnDevice), kept for its next save when a save is
// dropped. The app's timeline saves every frame and drops its oldest save as it does: a cudaMalloc and a
// cudaFree a frame (27.6 MB each for the 230k-vertex scene in double), and cudaFree waits for the whole
// device, on whichever thread drops the last reference (the simulation thread's ring, or the render thread's
// snapshot). Kept here, a dropped save's block is the next save's, in steady state without either call.
//
// Every block has the size of the last take (a change of vertex count or of the residual field frees the
// kept ones); at most kKeep are kept, and none once the stepper is gone (retire). Reuse is safe: a block is
// given back only when no save refers to it, and every read of a save is complete when it returns (the
// restore's copies are waited for, WorldState::particles copies synchronously). Shared by the saves (a save
// outlives its stepper) and locked: a save may be dropped on another thread.
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace vbd {

template <class Exec>
class SaveBlocks {
  public:
    static constexpr size_t kKeep = 3;
    SaveBlocks() { kept_.reserve(kKeep); }  // give() keeps without allocating (it runs in destructors)
    SaveBlocks(const SaveBlocks&) = delete;
    SaveBlocks& operator=(const SaveBlocks&) = delete;
    ~SaveBlocks() {
        for (void* p : kept_) Exec::freeMemory(p);
    }
    // A block of `bytes`: a kept one, else allocated by ex (which throws when the device has no memory left).
    void* take(Exec& ex, size_t bytes) {
        std::vector<void*> stale;
        {
            std::lock_guard<std::mutex> lk(m_);
            if (bytes != bytes_) {
                stale.swap(kept_);
                kept_.reserve(kKeep);
                bytes_ = bytes;
            } else if (!kept_.empty()) {
                void* p = kept_.back();
                kept_.pop_back();
                return p;
            }
        }
        for (void* p : stale) Exec::freeMemory(p);
        return ex.template alloc<unsigned char>(bytes);
    }
    // p (a block of `bytes` from take) is no longer used: kept for the next take, or freed.
    void give(void* p, size_t bytes) {
        if (!p) return;
        {
            std::lock_guard<std::mutex> lk(m_);
            if (!retired_ && bytes == bytes_ && kept_.size() < kKeep) {
                kept_.push_back(p);
                return;
            }
        }
        Exec::freeMemory(p);
    }
    // The stepper is gone: the kept blocks are freed, and so is every block given back from now on.
    void retire() {
        std::vector<void*> kept;
        {
            std::lock_guard<std::mutex> lk(m_);
            kept.swap(kept_);
            bytes_ = 0;
            retired_ = true;
        }
        for (void* p : kept) Exec::freeMemory(p);
    }
    size_t kept() const {
        std::lock_guard<std::mutex> lk(m_);
        return kept_.size();
    }

  private:
    mutable std::mutex m_;
    size_t bytes_ = 0;
    bool retired_ = false;
    std::vector<void*> kept_;
};

// Blocks of varying size, for saves whose size changes every step (a rigid step's contact records kept on the
// device for a copy of the solver: the pile's count changes as it settles). take(bytes) gives the smallest
// kept block with room for bytes, else a new one with half again as much room (so that a slowly growing count
// does not allocate every frame); at most kKeep are kept, the largest, and none once the stepper is gone
// (retire). Reuse is safe as in SaveBlocks: a block comes back only when nothing refers to it, and every read
// of it is complete when it returns.
template <class Exec>
class RoomBlocks {
  public:
    struct Block {
        void* p = nullptr;
        size_t room = 0;
    };
    static constexpr size_t kKeep = 3;
    RoomBlocks() { kept_.reserve(kKeep); }
    RoomBlocks(const RoomBlocks&) = delete;
    RoomBlocks& operator=(const RoomBlocks&) = delete;
    ~RoomBlocks() {
        for (const Block& b : kept_) Exec::freeMemory(b.p);
    }
    Block take(Exec& ex, size_t bytes) {
        {
            std::lock_guard<std::mutex> lk(m_);
            size_t best = kept_.size();  // the smallest with room
            for (size_t k = 0; k < kept_.size(); ++k)
                if (kept_[k].room >= bytes && (best == kept_.size() || kept_[k].room < kept_[best].room))
                    best = k;
            if (best < kept_.size()) {
                const Block b = kept_[best];
                kept_.erase(kept_.begin() + std::ptrdiff_t(best));
                return b;
            }
        }
        const size_t room = bytes + bytes / 2;
        return {ex.template alloc<unsigned char>(room), room};
    }
    void give(const Block& b) {
        if (!b.p) return;
        void* freed = b.p;
        {
            std::lock_guard<std::mutex> lk(m_);
            if (!retired_) {
                if (kept_.size() < kKeep) {
                    kept_.push_back(b);
                    return;
                }
                // Full: the smallest of the kept and b goes.
                size_t small = 0;
                for (size_t k = 1; k < kept_.size(); ++k)
                    if (kept_[k].room < kept_[small].room) small = k;
                if (kept_[small].room < b.room) {
                    freed = kept_[small].p;
                    kept_[small] = b;
                }
            }
        }
        Exec::freeMemory(freed);
    }
    void retire() {
        std::vector<Block> kept;
        {
            std::lock_guard<std::mutex> lk(m_);
            kept.swap(kept_);
            retired_ = true;
        }
        for (const Block& b : kept) Exec::freeMemory(b.p);
    }
    size_t kept() const {
        std::lock_guard<std::mutex> lk(m_);
        return kept_.size();
    }

  private:
    mutable std::mutex m_;
    bool retired_ = false;
    std::vector<Block> kept_;
};

}  // namespace vbd
