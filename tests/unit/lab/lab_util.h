#pragma once
// Shared by the lab's unit tests: the n-D block system of quadratic.h from its five knobs.
#include <cstdint>

#include "lab/quadratic.h"

namespace vbd::lab {

inline BlockSystemParams params(int blocks, int bs, double kappa, double coupling, std::uint64_t seed) {
    BlockSystemParams p;
    p.blocks = blocks;
    p.blockSize = bs;
    p.kappa = kappa;
    p.coupling = coupling;
    p.seed = seed;
    return p;
}

}  // namespace vbd::lab
