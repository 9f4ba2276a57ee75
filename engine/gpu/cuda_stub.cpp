// A build without CUDA: the probe says so and the device step cannot be made.
#include "gpu/backend_choice.h"
#include "gpu/broad_phase_runner.h"
#include "gpu/narrow_phase_runner.h"
#include "gpu/rigid_stepper.h"
#include "gpu/soft_stepper.h"

#ifndef VBD_HAVE_CUDA
#include <stdexcept>

namespace vbd {

const CudaProbe& probeCuda() {
    static const CudaProbe probe{};  // compiled = false
    return probe;
}

double deviceCopySeconds(size_t) {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

std::unique_ptr<SoftStepper> makeCudaStepper(Precision) {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

std::unique_ptr<RigidStepper> makeCudaRigidStepper() {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

std::unique_ptr<BroadPhaseRunner> makeCudaBroadPhase() {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

std::unique_ptr<NarrowPhaseRunner> makeCudaNarrowPhase() {
    throw std::runtime_error("built without CUDA (nvcc was not found at configure time)");
}

}  // namespace vbd
#endif
