#pragma once
// SharedRecords<T>: a step's array of records that copies of its owner share until one of them writes, and
// whose storage goes back to the owner that made it once the last holder lets go.
//
// Why: the app's timeline copies the rigid solver every frame (World::saveState). A landed 10,000-box pile
// holds 56,800 contacts of 200 bytes: copying them was 11.4 MB of the 17 MB the copy moved, ~0.8 ms a frame
// (bench_rigid BM_PileSolverCopy). Each step writes a new list (the matching reads last step's while it
// writes the next), so the saved frame's list is never written again: a copy can hold it instead of
// copying it. The storage of a new list must not be fresh memory, though: a new 15 MB vector faults its pages
// in and value-initializes every record (what the solver's spare buffer was made to avoid). So a list's
// storage remembers the pool of the owner that took it, and returns there when the last holder (the solver,
// or the timeline's oldest frame as it is dropped) lets go; the owner's next take() reuses it.
//
// Rules: a copy shares; reads (get) never copy; edit() copies first where the records are shared
// (stats() counts those, which the solver's steps never need: a test holds them to zero); take() gives a
// vector whose contents are dead (its old size and records: the caller sizes it and writes every record).
// The pool is not copied: a copy makes its own on its first take(). Storage may be released on any thread
// (a snapshot dropped by the render thread), so the pool locks.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace vbd {

// What an owner's lists cost beyond their records: writes that copied shared records (edit()), and new
// storage take() allocated because its pool held none.
struct RecordStats {
    size_t copies = 0, allocations = 0;
    RecordStats& operator+=(const RecordStats& o) {
        copies += o.copies;
        allocations += o.allocations;
        return *this;
    }
};

template <class T>
class SharedRecords {
  public:
    using Records = std::vector<T>;

    SharedRecords() = default;
    SharedRecords(const SharedRecords& o) : records_(o.records_) {}
    SharedRecords& operator=(const SharedRecords& o) {
        records_ = o.records_;  // the pool stays this owner's
        return *this;
    }
    SharedRecords(SharedRecords&&) noexcept = default;
    SharedRecords& operator=(SharedRecords&&) noexcept = default;
    ~SharedRecords() = default;

    size_t size() const { return records_ ? records_->size() : 0; }
    bool empty() const { return size() == 0; }
    size_t bytes() const { return size() * sizeof(T); }  // the records' (not the storage's room)
    const T* data() const { return records_ ? records_->data() : nullptr; }
    const T& operator[](size_t i) const { return (*records_)[i]; }
    const Records& get() const { return records_ ? *records_ : empty_(); }
    // The records for writing in place: copied first where another holder shares them.
    Records& edit() {
        if (!records_) {
            records_ = take();
            records_->clear();
        } else if (!soleHolder()) {
            std::shared_ptr<Records> own = take();
            *own = *records_;
            records_ = std::move(own);
            ++stats_.copies;
        }
        return *records_;
    }
    // Storage for a new list, contents dead: recycled from this owner's pool where it holds one.
    std::shared_ptr<Records> take() {
        if (!pool_) pool_ = std::make_shared<Pool>();
        std::unique_ptr<Records> r = pool_->pop();
        if (!r) {
            r = std::make_unique<Records>();
            ++stats_.allocations;
        }
        std::weak_ptr<Pool> home = pool_;
        return std::shared_ptr<Records>(r.release(), [home](Records* p) {
            std::unique_ptr<Records> owned(p);
            if (std::shared_ptr<Pool> pool = home.lock()) pool->push(std::move(owned));
        });
    }
    // No list (its storage goes back to its pool once no copy holds it); this owner's pool stays.
    void release() { records_.reset(); }
    // Makes next (from take()) the list; the old one goes back to its pool once no copy holds it.
    void replace(std::shared_ptr<Records> next) { records_ = std::move(next); }
    // The list for a writer that rewrites every record, contents dead: its own storage where no copy shares
    // it, else storage from the pool.
    Records& overwrite() {
        if (!records_ || !soleHolder()) records_ = take();
        return *records_;
    }
    // Reserves room for n records in the list and in one spare storage of the pool (address space: pages are
    // backed when first written).
    void reserve(size_t n) {
        overwrite().reserve(n);
        take()->reserve(n);  // released at once: the pool keeps it
    }
    bool shared() const { return records_ && records_.use_count() > 1; }
    RecordStats stats() const { return stats_; }  // this owner's (a copy starts at zero)

  private:
    // Whether this owner holds the records alone, so that it may write them in place. A copy let go on
    // another thread (a snapshot the render thread dropped) read them before its release decrement;
    // use_count() is a relaxed load, and the acquire fence orders this owner's writes after those reads (the
    // pattern of a reference count's last holder).
    bool soleHolder() const {
        if (records_.use_count() > 1) return false;
        std::atomic_thread_fence(std::memory_order_acquire);
        return true;
    }
    // Storage no list holds. One spare is what a step needs (the next list is written while the last is
    // read); more are freed.
    class Pool {
      public:
        std::unique_ptr<Records> pop() {
            std::lock_guard<std::mutex> lock(m_);
            if (!spare_) return nullptr;
            return std::move(spare_);
        }
        void push(std::unique_ptr<Records> r) {
            std::unique_ptr<Records> dropped;  // freed outside the lock
            std::lock_guard<std::mutex> lock(m_);
            if (!spare_ || spare_->capacity() < r->capacity()) {
                dropped = std::move(spare_);
                spare_ = std::move(r);
            } else {
                dropped = std::move(r);
            }
        }

      private:
        std::mutex m_;
        std::unique_ptr<Records> spare_;
    };
    static const Records& empty_() {
        static const Records none;
        return none;
    }

    std::shared_ptr<Records> records_;
    std::shared_ptr<Pool> pool_;
    RecordStats stats_;
};

}  // namespace vbd
