#pragma once
// The coarse-space correction as the SoftSolver's sweep hook (the World creates it when
// solver.coarse.enabled). The concrete class is CoarseCorrection in coarse/coarse_correction.h.
#include <memory>

#include "scene/scene_desc.h"
#include "soft/sweep_hook.h"

namespace vbd {

class CoarseHook : public SweepHook {
  public:
    virtual void configure(const CoarseDesc& desc) = 0;
};

std::unique_ptr<CoarseHook> makeCoarseHook();

}  // namespace vbd
