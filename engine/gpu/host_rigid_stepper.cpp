// The device rigid step's orchestration and narrow phase on the host executor (gpu/host_exec.h), for the
// CPU-side tests, and what the device rigid step refuses.
#include "gpu/broad_pipeline.h"
#include "gpu/host_exec.h"
#include "gpu/narrow_pipeline.h"
#include "gpu/rigid_pipeline.h"

namespace vbd {

std::string rigidDeviceStepUnsupported(const RigidSolver& solver) {
    if (solver.hasExternalBlocks())
        return "rigid bodies coupled to particles are solved on the CPU (world/coupling.h)";
    return "";
}

std::unique_ptr<RigidStepper> makeHostRigidStepper() { return std::make_unique<RigidPipeline<HostExec>>(); }

std::unique_ptr<BroadPhaseRunner> makeHostBroadPhase() { return std::make_unique<BroadPhaseOn<HostExec>>(); }

std::unique_ptr<NarrowPhaseRunner> makeHostNarrowPhase() {
    return std::make_unique<NarrowPipeline<HostExec>>();
}

}  // namespace vbd
