// The device step on CUDA in float state (one translation unit per precision: they compile in parallel).
#include "gpu/cuda_exec.cuh"
#include "gpu/pipeline.h"

namespace vbd {

std::unique_ptr<SoftStepper> makeCudaStepperFloat() {
    return std::make_unique<PipelineStepper<float, CudaExec>>();
}

}  // namespace vbd
