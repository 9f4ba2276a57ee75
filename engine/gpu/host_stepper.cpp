// The device step's orchestration on the host executor (gpu/host_exec.h), for the CPU-side tests.
#include "gpu/host_exec.h"
#include "gpu/pipeline.h"

namespace vbd {

std::unique_ptr<SoftStepper> makeHostPipelineStepper(Precision p) {
    if (p == Precision::Double) return std::make_unique<PipelineStepper<double, HostExec>>();
    return std::make_unique<PipelineStepper<float, HostExec>>();
}

}  // namespace vbd
