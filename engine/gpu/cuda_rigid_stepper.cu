// The device rigid step (gpu/rigid_pipeline.h) and narrow phase (gpu/narrow_pipeline.h) on CUDA: the stages
// of gpu/rigid_stages.h as kernels of CudaExec, over the shared per-body code of rigid/body_block.h and the
// narrow phase of rigid/narrow_phase.h.
#include <cstdlib>

#include "gpu/backend_choice.h"
#include "gpu/broad_pipeline.h"
#include "gpu/cuda_exec.cuh"
#include "gpu/narrow_pipeline.h"
#include "gpu/rigid_pipeline.h"

namespace vbd {

std::unique_ptr<RigidStepper> makeCudaRigidStepper() {
    const CudaProbe& probe = probeCuda();
    if (probe.devices <= 0) throw std::runtime_error("no CUDA device: " + probe.error);
    auto stepper = std::make_unique<RigidPipeline<CudaExec>>();
    // The narrow phase and the contact matching on the device (RigidStepper::setDeviceContacts) are off until
    // a device has measured them: VBD_CUDA_DEVICE_CONTACTS=1 turns them on for the World (tests/gpu/
    // device_check.sh runs the rigid scene both ways; bench_gpu BM_GpuRigidPile/contacts compares them).
    const char* env = std::getenv("VBD_CUDA_DEVICE_CONTACTS");
    stepper->setDeviceContacts(env && env[0] == '1');
    // With them, the grid broad phase there too (VBD_CUDA_DEVICE_BROAD=1; BM_GpuRigidPile/broad compares).
    const char* broad = std::getenv("VBD_CUDA_DEVICE_BROAD");
    stepper->setDeviceBroadPhase(broad && broad[0] == '1');
    return stepper;
}

std::unique_ptr<BroadPhaseRunner> makeCudaBroadPhase() {
    const CudaProbe& probe = probeCuda();
    if (probe.devices <= 0) throw std::runtime_error("no CUDA device: " + probe.error);
    return std::make_unique<BroadPhaseOn<CudaExec>>();
}

std::unique_ptr<NarrowPhaseRunner> makeCudaNarrowPhase() {
    const CudaProbe& probe = probeCuda();
    if (probe.devices <= 0) throw std::runtime_error("no CUDA device: " + probe.error);
    return std::make_unique<NarrowPipeline<CudaExec>>();
}

}  // namespace vbd
