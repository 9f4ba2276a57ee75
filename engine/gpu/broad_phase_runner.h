#pragma once
// The rigid broad phase on an executor (gpu/broad_pipeline.h), alone: for the tests (the CPU's broadPhase
// list, pair for pair) and bench_gpu (BM_GpuRigidBroad). No CUDA types: the tests include it.
#include <memory>
#include <utility>
#include <vector>

#include "rigid/collision.h"

namespace vbd {

class BroadPhaseRunner {
  public:
    virtual ~BroadPhaseRunner() = default;
    // pairs <- broadPhase(boxes): the pairs (i < j) whose boxes overlap, sorted, unique.
    virtual void find(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs) = 0;
};

// On the host executor (tests).
std::unique_ptr<BroadPhaseRunner> makeHostBroadPhase();
// On CUDA device 0. Throws std::runtime_error when CUDA is not compiled in or there is no device.
std::unique_ptr<BroadPhaseRunner> makeCudaBroadPhase();

}  // namespace vbd
