#pragma once
// parallelPhases: a chain of dependent loops, such as the colors of one Gauss-Seidel sweep, in one team loop.
//
//   parallelPhases(phases, size, body, minShare)
//     ==  for (p = 0; p < phases; ++p) parallelFor(size(p), [&](size_t i) { body(p, i); });
//
// Why. A sweep of the 496-vertex hanging bar is ~4 colors of ~120 vertices, ~6 µs of local solves per
// thread on two threads. As separate loops each color costs a publish (the header line to the worker),
// a join (the worker's flags back) and the caller's return and next publish, one after the other: sampled
// with perf, the caller spent 31 % of the step in teamRun and the worker 36 % waiting, and two threads ran
// the bar 1.56x one thread. Here the phases are separated by a barrier instead: each slot (a static share of
// every phase) writes its own line when it has finished a phase and reads the others' lines, one cache-line
// transfer per phase and thread, and nobody returns to publish anything in between.
//
// Shares. Slot s runs the indices [n s / P, n (s + 1) / P) of every phase, the same contiguous shares the
// team gives a loop (thread_team.cpp: the loops of a step index the same vertices, so a thread keeps its part
// of the body in its cache), without stealing: a phase's imbalance is paid at its barrier. A caller whose
// indices cost unequal work passes its own contiguous shares instead: share(p, s, slots, n) = the first index
// of slot s in phase p (EvenShares is the default above).
//
// Progress. A slot is claimed by whichever thread gets to it first; the team loop runs one index per slot.
// A thread waiting before phase 1 for a slot nobody has claimed (its worker is asleep, preempted, or busy
// elsewhere) claims it and runs it itself, from then on together with its own; a slot unclaimed at a later
// wait is impossible (nobody passes the wait of phase 1 before every slot has run phase 0). So the caller
// alone always completes the chain, and a slot that has been claimed is being run (if its thread loses its
// core, the others wait for it: a claimed slot is not taken over).
//
// Early start (split). A slot may begin phase p before the other slots have finished phase p - 1 with the
// indices its caller marks independent of them: split(p, s, slots, b, e) = m says that indices [b, m) of slot
// s's share [b, e) neither read what another slot writes in earlier phases nor are read by another slot (a
// vertex of a sweep whose neighbours all belong to the same slot), so they run first, then the slot waits,
// then [m, e) runs. The barrier's latency and a phase's imbalance then hide behind that work. The default
// split (m = b) is a plain barrier. The caller's split must be computed for the given slot count.
//
// Determinism: as parallelFor's, every index of a phase writes only its own outputs and reads what earlier
// phases wrote, so the result does not depend on the number of slots. An exception in a body stops every
// slot at its next barrier and is rethrown to the caller.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>

#include "backend/parallel.h"

namespace vbd {

namespace detail {

inline void spinPause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

struct alignas(64) PhaseSlot {
    std::atomic<int> owner{0};       // 0: unclaimed, 1: claimed
    std::atomic<size_t> arrived{0};  // phases completed
};

// The most slots a chain splits into (a fixed array, no allocation per chain); more threads than this
// leave the rest idle during a chain.
constexpr int kMaxPhaseSlots = 32;

template <typename SizeFn, typename BodyFn, typename SplitFn, typename ShareFn>
struct PhaseChain {
    const SizeFn& size;
    const BodyFn& body;
    const SplitFn& split;
    const ShareFn& share;
    size_t phases;
    int slots;
    PhaseSlot slot[kMaxPhaseSlots];
    std::atomic<bool> failed{false};
    std::atomic<bool> errorSet{false};
    std::exception_ptr error;

    PhaseChain(const SizeFn& s, const BodyFn& b, const SplitFn& sp, const ShareFn& sh, size_t phases_,
               int slots_)
        : size(s), body(b), split(sp), share(sh), phases(phases_), slots(slots_) {}

    bool claim(int s) {
        int expected = 0;
        return slot[s].owner.compare_exchange_strong(expected, 1, std::memory_order_acq_rel);
    }

    // The part of slot s's share of phase p that runs before (early) or after the wait for phase p - 1.
    // Phase 0 waits for nothing: all of it is early.
    void runPart(int s, size_t p, bool early) {
        const size_t n = size(p);
        const size_t b = std::min(size_t(share(p, s, slots, n)), n);
        const size_t e = s + 1 == slots ? n : std::clamp(size_t(share(p, s + 1, slots, n)), b, n);
        const size_t m = p == 0 ? e : std::clamp(size_t(split(p, s, slots, b, e)), b, e);
        for (size_t i = early ? b : m, end = early ? m : e; i < end; ++i) body(p, i);
    }

    // Runs slot s (claimed by this thread), and any slot it finds unclaimed at the first wait: nobody
    // passes the wait of phase 1 before every slot has run phase 0, so that is the only place one can be.
    void run(int s) {
        int own[kMaxPhaseSlots];
        int owned = 0;
        own[owned++] = s;
        try {
            for (size_t p = 0; p < phases; ++p) {
                for (int k = 0; k < owned; ++k) runPart(own[k], p, true);
                for (int t = 0; p > 0 && t < slots; ++t) {
                    for (int spins = 0; slot[t].arrived.load(std::memory_order_acquire) < p; ++spins) {
                        if (failed.load(std::memory_order_relaxed)) return;
                        if (p == 1 && slot[t].owner.load(std::memory_order_relaxed) == 0 && claim(t)) {
                            own[owned++] = t;
                            runPart(t, 0, true);
                            slot[t].arrived.store(1, std::memory_order_release);
                            runPart(t, 1, true);
                            break;
                        }
                        // A phase share takes µs; a much longer wait means its thread lost its core.
                        if (spins < 4096)
                            spinPause();
                        else
                            std::this_thread::yield();
                    }
                }
                for (int k = 0; k < owned; ++k) {
                    runPart(own[k], p, false);
                    slot[own[k]].arrived.store(p + 1, std::memory_order_release);
                }
            }
        } catch (...) {
            bool expected = false;
            if (errorSet.compare_exchange_strong(expected, true)) error = std::current_exception();
            failed.store(true, std::memory_order_release);
        }
    }
};

}  // namespace detail

// The plain barrier: nothing of a phase starts before the phase before it has finished everywhere.
struct NoEarlyStart {
    size_t operator()(size_t, int, int, size_t b, size_t) const { return b; }
};

// Equal counts of indices per slot.
struct EvenShares {
    size_t operator()(size_t, int s, int slots, size_t n) const { return n * size_t(s) / size_t(slots); }
};

// The number of slots parallelPhases splits a chain into, for a largest phase of `largest` indices (a
// caller's split is computed for it): the threads allowed, at most kMaxPhaseSlots, and at most one per
// minShare indices of the largest phase; 1 (serial) inside a team loop.
inline int phaseSlots(size_t largest, size_t minShare) {
    if (insideTeamLoop()) return 1;
    const int threads = detail::threadLimit > 0 ? detail::threadLimit : teamSize();
    const size_t share = std::max<size_t>(minShare, 1);
    return int(std::min<size_t>({size_t(std::max(threads, 1)), size_t(detail::kMaxPhaseSlots),
                                 std::max<size_t>(largest / share, 1)}));
}

template <typename SizeFn, typename BodyFn, typename SplitFn = NoEarlyStart, typename ShareFn = EvenShares>
void parallelPhases(size_t phases, const SizeFn& size, const BodyFn& body, size_t minShare = 16,
                    const SplitFn& split = SplitFn(), const ShareFn& shares = ShareFn()) {
    size_t largest = 0;
    for (size_t p = 0; p < phases; ++p) largest = std::max(largest, size_t(size(p)));
    const size_t share = std::max<size_t>(minShare, 1);
    const int slots = phaseSlots(largest, share);
    if (slots <= 1) {
        for (size_t p = 0; p < phases; ++p)
            for (size_t i = 0, n = size(p); i < n; ++i) body(p, i);
        return;
    }
    using Chain = detail::PhaseChain<SizeFn, BodyFn, SplitFn, ShareFn>;
    Chain chain(size, body, split, shares, phases, slots);
    const ChunkFn fn = [](const void* ctx, size_t begin, size_t end) {
        Chain& c = *static_cast<Chain*>(const_cast<void*>(ctx));
        for (size_t s = begin; s < end; ++s)
            if (c.claim(int(s))) c.run(int(s));
    };
    if (!teamRun(size_t(slots), 1, slots, fn, &chain)) {
        // The team runs another thread's loop: one parallelFor per phase (TBB).
        for (size_t p = 0; p < phases; ++p)
            parallelFor(
                size(p), [&](size_t i) { body(p, i); }, share);
        return;
    }
    if (chain.error) std::rethrow_exception(chain.error);
}

}  // namespace vbd
