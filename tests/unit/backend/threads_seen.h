#pragma once
// Whether a loop's indices run on more than one thread: the tests that the team's workers take part.
#include <cstddef>
#include <set>
#include <thread>
#include <vector>

namespace vbdtest {

// The number of distinct threads that ran `run(n, mark)`'s n = 256 indices (run calls mark(i) once for
// each i), over up to 200 tries: a worker may sleep through any one loop, and the caller then runs it. Each
// index spins ~2 µs so that a loop lasts long enough for a worker to join it.
template <typename Run>
size_t threadsSeen(const Run& run) {
    std::set<std::thread::id> seen;
    std::vector<std::thread::id> who(256);
    auto mark = [&](size_t i) {
        volatile double s = 0;
        for (int k = 0; k < 2000; ++k) s = s + 1e-3;
        who[i] = std::this_thread::get_id();
    };
    for (int r = 0; r < 200 && seen.size() < 2; ++r) {
        run(who.size(), mark);
        seen.insert(who.begin(), who.end());
    }
    return seen.size();
}

}  // namespace vbdtest
