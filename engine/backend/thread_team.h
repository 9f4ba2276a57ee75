#pragma once
// A persistent team of worker threads for parallelFor's loops.
//
// Why not one TBB parallel_for per loop: a VBD step is a chain of short loops (one per color and
// iteration: the hanging bar runs ~170 of ~120 vertices per step, ~15 µs each on one thread), and a TBB
// fork and join costs several µs on top of a partition that cannot be finer than its task grain, so
// two threads gained nothing there (docs/peers.md). The team's workers stay awake between loops (a short
// spin, then they sleep) and a loop is published by one atomic store. Participant p owns the p-th
// contiguous share of the indices and claims it from the front in chunks; a participant that is done
// takes half of the largest share left from its back, so the threads finish within one chunk of each
// other and a worker that has not started costs the caller nothing (thread_team.cpp says why the
// shares are contiguous).
//
// Determinism is parallelFor's contract, not the team's: every index writes only its own outputs, so
// the result does not depend on which thread ran which chunk.
#include <cstddef>

namespace vbd {

// The body of a chunked loop: runs indices [begin, end) of the loop described by ctx.
using ChunkFn = void (*)(const void* ctx, size_t begin, size_t end);

// Runs fn over [0, n) on up to `participants` threads (the caller included), in chunks of at least
// minChunk. Returns false without running anything when the team cannot take the loop because another
// thread's loop is running on it (the caller then runs the loop another way). An exception thrown by fn
// stops further claims and is rethrown here once every started chunk has finished.
bool teamRun(size_t n, size_t minChunk, int participants, ChunkFn fn, const void* ctx);

// Threads a loop can use: the workers and the caller (the hardware's threads; 1 without workers).
int teamSize();

// True on a team worker and on a caller inside teamRun: a nested loop runs serially there.
bool insideTeamLoop();

}  // namespace vbd
