#pragma once
// The render tests' fixture scene: one soft box grid over [lo, hi]^3 with n cells a side.
#include "scene/scene_desc.h"

namespace vbdtest {

inline vbd::SoftBodyDesc cubeBody(float lo, float hi, int n) {
    vbd::SoftBodyDesc sb;
    sb.min = {lo, lo, lo};
    sb.max = {hi, hi, hi};
    sb.cells = {n, n, n};
    return sb;
}

}  // namespace vbdtest
