#pragma once
// The one warp-tile reduction of the device sweeps (gpu/step_stages.h SweepTileStage, gpu/rigid_stages.h
// RigidSweepTileStage).
#include "math/hd.h"

namespace vbd {

// Sum over a tile of kLanes consecutive lanes of a warp (kLanes a power of two <= 32), into the tile's first
// lane (device); the identity on the host, where the tile's first lane alone evaluates the whole vertex or
// body. Every lane of the warp takes part (full mask); shfl_down with width kLanes reads only inside the
// tile.
template <int kLanes, typename T>
VBD_HD T tileSum(T v) {
#ifdef __CUDA_ARCH__
    for (int off = kLanes / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off, kLanes);
#endif
    return v;
}

}  // namespace vbd
