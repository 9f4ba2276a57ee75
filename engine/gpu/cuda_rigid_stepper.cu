// The device rigid step (gpu/rigid_pipeline.h) on CUDA: the stages of gpu/rigid_stages.h as kernels of
// CudaExec, over the shared per-body code of rigid/body_block.h.
#include "gpu/backend_choice.h"
#include "gpu/cuda_exec.cuh"
#include "gpu/rigid_pipeline.h"

namespace vbd {

std::unique_ptr<RigidStepper> makeCudaRigidStepper() {
    const CudaProbe& probe = probeCuda();
    if (probe.devices <= 0) throw std::runtime_error("no CUDA device: " + probe.error);
    return std::make_unique<RigidPipeline<CudaExec>>();
}

}  // namespace vbd
