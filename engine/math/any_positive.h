#pragma once
// A branch on a per-element value ("damping on") in math templated on its scalar: for a scalar, x > 0. SIMD
// packs overload it (backend/simd.h: any lane > 0), so a pack takes the branch when one of its lanes needs
// it and the lanes that do not add exact zeros.
#include "math/hd.h"

namespace vbd {

VBD_HD bool anyPositive(float x) { return x > 0.f; }
VBD_HD bool anyPositive(double x) { return x > 0.0; }

}  // namespace vbd
