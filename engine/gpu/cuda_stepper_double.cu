// The device step on CUDA in double state, and the factory of both precisions (gpu/soft_stepper.h).
#include "gpu/backend_choice.h"
#include "gpu/cuda_exec.cuh"
#include "gpu/pipeline.h"

namespace vbd {

std::unique_ptr<SoftStepper> makeCudaStepperFloat();  // cuda_stepper_float.cu

std::unique_ptr<SoftStepper> makeCudaStepper(Precision p) {
    const CudaProbe& probe = probeCuda();
    if (probe.devices <= 0) throw std::runtime_error("no CUDA device: " + probe.error);
    if (p == Precision::Double) return std::make_unique<PipelineStepper<double, CudaExec>>();
    return makeCudaStepperFloat();
}

}  // namespace vbd
