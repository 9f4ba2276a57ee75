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
    // The narrow phase and the contact matching on the device (RigidStepper::setDeviceContacts), and with
    // them the broad phase, are off until a device has measured them (gpu/backend_choice.h
    // rigidDetectionFromEnv; tests/gpu/device_check.sh runs the rigid scene both ways; bench_gpu
    // BM_GpuRigidPile compares them).
    const RigidDetection d = rigidDetectionFromEnv();
    stepper->setDeviceContacts(d.contacts);
    stepper->setDeviceBroadPhase(d.broad);
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
