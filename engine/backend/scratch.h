#pragma once
// Scratch<T>: a working buffer that its owner keeps between calls (a fresh one would fault its pages in
// again every time) but whose contents are rebuilt before they are read. A copy of the owner starts with an
// empty one, and copy-assigning keeps the target's: copying what is about to be overwritten only costs. The
// RigidSolver's detection buffers are 60% of a landed 10,000-box pile's solver, which the World copies every
// frame for the app's timeline (bench_rigid BM_PileSolverCopy).
#include <utility>

namespace vbd {

template <typename T>
struct Scratch : T {
    Scratch() = default;
    Scratch(const Scratch&) : T() {}
    Scratch& operator=(const Scratch&) { return *this; }  // NOLINT(cert-oop54-cpp): nothing is copied
    Scratch(Scratch&&) noexcept = default;
    Scratch& operator=(Scratch&&) noexcept = default;
    ~Scratch() = default;
};

}  // namespace vbd
