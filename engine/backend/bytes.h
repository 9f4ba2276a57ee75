#pragma once
// The heap bytes a vector holds (its room, which a copy allocates to its size): what the timeline's saves
// count against their budget (world/world_state.cpp, RigidSolver::copyBytes).
#include <cstddef>
#include <vector>

namespace vbd {

template <typename T>
size_t heapBytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

}  // namespace vbd
