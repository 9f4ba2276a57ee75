#pragma once
// dst[i] = src[i] within the executor's memory: the device saves' copies (a soft step's state,
// gpu/soft_stepper.h DeviceStateCopy; a rigid step's contact records kept for a copy of the solver,
// gpu/rigid_pipeline.h).
#include "math/hd.h"

namespace vbd {

template <typename U>
struct CopyStage {
    U* dst;
    const U* src;
    VBD_HD void operator()(int i) const { dst[i] = src[i]; }
};

}  // namespace vbd
