#include "backend/thread_team.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace vbd {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

thread_local bool tlInLoop = false;

// How long an idle worker spins before it sleeps. Loops of one step follow each other within a few µs
// (a color's sweep, the next color's, the acceleration); between steps, or around a serial stage of a
// millisecond (the rigid step's contact matching), the workers sleep and the next loop pays a wake-up
// (tens of µs) only if it comes later than this. 100 µs of spin per idle period is at most 10 % of a
// core for a program that publishes a loop every millisecond.
constexpr auto kSpin = std::chrono::microseconds(100);

// The protocol. state_ is (epoch << 1 | open). The caller, alone on the team (busy_), writes the loop's
// fields and the shares, then opens a new epoch. A worker that sees an open epoch it has not served
// stores that state in its `joined` word and re-reads state_; both are sequentially consistent, so
// either the caller's final read of `joined` sees it (and the caller waits for the worker's `finished`)
// or the worker's re-read sees the closed state and it leaves without touching the fields. The caller
// closes the epoch only after every index has been claimed, so the fields are never rewritten under
// a worker that still reads them.
//
// Cost: a loop round trip is a few cache-line transfers between cores (~0.2 µs each on the 2-core build
// machine): the header (state and fields, one line) to each worker, each worker's line (its share and
// its flags) to it and back. The flags sit on the worker's own line, not on one shared counter, so
// that a worker's registration does not take a line the caller is polling.
class Team {
  public:
    static Team& get() {
        static Team team;
        return team;
    }

    int size() const { return int(workers_.size()) + 1; }

    bool run(size_t n, size_t minChunk, int participants, ChunkFn fn, const void* ctx) {
        if (n >> 32) return false;  // shares hold 32-bit bounds
        bool expected = false;
        if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
        tlInLoop = true;
        fn_ = fn;
        ctx_ = ctx;
        minChunk_ = std::max<size_t>(minChunk, 1);
        participants_ = std::clamp(participants, 1, size());
        error_ = nullptr;
        for (int q = 0; q < participants_; ++q)
            lanes_[size_t(q)].share.store(
                pack(n * size_t(q) / size_t(participants_), n * size_t(q + 1) / size_t(participants_)),
                std::memory_order_relaxed);
        epoch_ += 1;
        state_.store(epoch_ << 1 | 1, std::memory_order_seq_cst);
        if (sleepers_.load(std::memory_order_seq_cst) > 0) {
            std::lock_guard<std::mutex> lock(mutex_);
            wake_.notify_all();
        }
        work(0);
        const uint64_t open = epoch_ << 1 | 1;
        state_.store(epoch_ << 1, std::memory_order_seq_cst);
        for (size_t q = 1; q < lanes_.size(); ++q)
            if (lanes_[q].joined.load(std::memory_order_seq_cst) == open)
                for (int k = 0; lanes_[q].finished.load(std::memory_order_acquire) != open; ++k) {
                    // A chunk takes µs; a much longer wait means the worker lost its core (more runnable
                    // threads than cores: ctest -j, other programs): give it the caller's.
                    if (k < 4096)
                        cpuRelax();
                    else
                        std::this_thread::yield();
                }
        std::exception_ptr error = error_;
        tlInLoop = false;
        busy_.store(false, std::memory_order_release);
        if (error) std::rethrow_exception(error);
        return true;
    }

  private:
    Team() {
        const unsigned hw = std::thread::hardware_concurrency();
        const int workers = hw > 1 ? int(std::min(hw, 256u)) - 1 : 0;
        lanes_ = std::vector<Lane>(size_t(workers) + 1);
        for (int i = 0; i < workers; ++i) workers_.emplace_back([this, i] { serve(i); });
    }

    ~Team() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            shutdown_.store(true, std::memory_order_seq_cst);
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

    Team(const Team&) = delete;
    Team& operator=(const Team&) = delete;

    // A participant's line: its share of the loop, [begin, end) packed in one word so that its owner
    // (taking from the front) and a thief (taking from the back) claim with one compare-and-swap each,
    // and (workers) the open state it joined and the one it finished.
    struct alignas(64) Lane {
        std::atomic<uint64_t> share{0};
        std::atomic<uint64_t> joined{0};
        std::atomic<uint64_t> finished{0};
    };
    static uint64_t pack(size_t begin, size_t end) { return uint64_t(begin) | uint64_t(end) << 32; }
    static size_t first(uint64_t r) { return size_t(r & 0xffffffffu); }
    static size_t last(uint64_t r) { return size_t(r >> 32); }

    // Participant p owns the p-th contiguous share of the loop. Loops of one step index the same
    // vertices, bodies or tets in the same order, so a thread keeps working on the same part of the
    // model from one loop to the next and the neighbours it reads were mostly written by itself (a
    // dynamic partition made each color's sweep fetch its neighbours from the other core's cache:
    // 30 % more time per vertex on the hanging bar). A participant that finishes its share takes half
    // of the largest share left, from its end: a late or descheduled thread costs the others only
    // what it has claimed.
    void work(int p) {
        const size_t minChunk = minChunk_;
        std::atomic<uint64_t>& own = lanes_[size_t(p)].share;
        uint64_t r = own.load(std::memory_order_relaxed);
        while (first(r) < last(r)) {
            const size_t begin = first(r), left = last(r) - begin;
            const size_t count = std::min(left, std::max(minChunk, left / 4));
            if (!own.compare_exchange_weak(r, pack(begin + count, last(r)), std::memory_order_relaxed))
                continue;
            if (!runChunk(begin, begin + count)) return;
            r = own.load(std::memory_order_relaxed);
        }
        for (;;) {
            int victim = -1;
            size_t most = 0;
            for (int q = 0; q < participants_; ++q) {
                const uint64_t v = lanes_[size_t(q)].share.load(std::memory_order_relaxed);
                const size_t left = last(v) > first(v) ? last(v) - first(v) : 0;
                if (left > most) most = left, victim = q;
            }
            if (victim < 0) return;
            std::atomic<uint64_t>& share = lanes_[size_t(victim)].share;
            uint64_t v = share.load(std::memory_order_relaxed);
            const size_t left = last(v) > first(v) ? last(v) - first(v) : 0;
            if (left == 0) continue;
            const size_t count = std::min(left, std::max(minChunk, left / 2));
            const size_t end = last(v);
            if (!share.compare_exchange_strong(v, pack(first(v), end - count), std::memory_order_relaxed))
                continue;
            if (!runChunk(end - count, end)) return;
        }
    }

    // Runs one chunk; on an exception, keeps the first, empties every share and returns false.
    bool runChunk(size_t begin, size_t end) {
        try {
            fn_(ctx_, begin, end);
            return true;
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            for (int q = 0; q < participants_; ++q)
                lanes_[size_t(q)].share.store(0, std::memory_order_relaxed);
            return false;
        }
    }

    // Waits for an open epoch other than `seen`; false on shutdown.
    bool await(uint64_t seen, uint64_t& state) {
        const auto until = std::chrono::steady_clock::now() + kSpin;
        for (int k = 0;; ++k) {
            state = state_.load(std::memory_order_acquire);
            if ((state & 1) && state != seen) return true;
            if (shutdown_.load(std::memory_order_relaxed)) return false;
            cpuRelax();
            if ((k & 255) == 255 && std::chrono::steady_clock::now() > until) break;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        for (;;) {
            state = state_.load(std::memory_order_seq_cst);
            if ((state & 1) && state != seen) break;
            if (shutdown_.load(std::memory_order_relaxed)) {
                sleepers_.fetch_sub(1, std::memory_order_relaxed);
                return false;
            }
            wake_.wait(lock);
        }
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
        return true;
    }

    void serve(int index) {
        tlInLoop = true;
        uint64_t seen = 0;
        for (;;) {
            uint64_t state = 0;
            if (!await(seen, state)) return;
            seen = state;
            Lane& lane = lanes_[size_t(index) + 1];
            lane.joined.store(state, std::memory_order_seq_cst);
            if (state_.load(std::memory_order_seq_cst) == state && index + 1 < participants_) work(index + 1);
            lane.finished.store(state, std::memory_order_release);
        }
    }

    // The header, one cache line: what a worker reads to join a loop. The fields are written by the
    // caller while no worker is registered in an open epoch.
    alignas(64) std::atomic<uint64_t> state_{0};
    ChunkFn fn_ = nullptr;
    const void* ctx_ = nullptr;
    size_t minChunk_ = 1;
    int participants_ = 1;
    std::atomic<bool> busy_{false};
    uint64_t epoch_ = 0;
    // Rarely written: sleeping and shutting down.
    alignas(64) std::atomic<int> sleepers_{0};
    std::atomic<bool> shutdown_{false};
    std::vector<Lane> lanes_;
    std::exception_ptr error_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<std::thread> workers_;
};

}  // namespace

bool teamRun(size_t n, size_t minChunk, int participants, ChunkFn fn, const void* ctx) {
    if (tlInLoop) return false;
    return Team::get().run(n, minChunk, participants, fn, ctx);
}

int teamSize() { return Team::get().size(); }

bool insideTeamLoop() { return tlInLoop; }

}  // namespace vbd
