// The device step on CUDA: the pipeline (gpu/pipeline.h) over CudaExec (gpu/cuda_exec.cuh), both precisions.
#include "gpu/backend_choice.h"
#include "gpu/cuda_exec.cuh"
#include "gpu/pipeline.h"

namespace vbd {

std::unique_ptr<SoftStepper> makeCudaStepper(Precision p) {
    const CudaProbe& probe = probeCuda();
    if (probe.devices <= 0) throw std::runtime_error("no CUDA device: " + probe.error);
    if (p == Precision::Double) return std::make_unique<PipelineStepper<double, CudaExec>>();
    return std::make_unique<PipelineStepper<float, CudaExec>>();
}

}  // namespace vbd
