#pragma once
// The one warp-tile reduction of the device sweeps (gpu/step_stages.h SweepTileStage, gpu/rigid_stages.h
// RigidSweepTileStage).
#include "math/hd.h"

namespace vbd {

// Sum over a tile of kLanes consecutive lanes of a warp (kLanes a power of two <= 32), into the tile's first
// lane (device); the identity on the host, where the tile's first lane evaluates the lanes' shares one after
// another and sums them with tileSumOfLanes. Every lane of the warp takes part (full mask); shfl_down with
// width kLanes reads only inside the tile.
template <int kLanes, typename T>
VBD_HD T tileSum(T v) {
#ifdef __CUDA_ARCH__
    for (int off = kLanes / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off, kLanes);
#endif
    return v;
}

// The host's image of tileSum over a whole tile: lane l's value at p[l], summed in the shuffle's order into
// p[0]. At each offset off = kLanes/2, ..., 1 every lane l < off adds lane l + off's value (the lanes at or
// past off compute sums lane 0 never reads), so p[0] = ((p0 + p4) + (p2 + p6)) + ((p1 + p5) + (p3 + p7)) for
// 8 lanes. add(a, b): a += b entry by entry, as the device sums each entry on its own.
template <int kLanes, typename T, class Add>
void tileSumOfLanes(T* p, Add add) {
    for (int off = kLanes / 2; off > 0; off >>= 1)
        for (int l = 0; l < off; ++l) add(p[l], p[l + off]);
}

}  // namespace vbd
