#pragma once
// The heat map's scale: a field's values (World::scalarField) to the [0, 1] scalars the particle vertex
// records carry, and the range the legend shows. One source for the two places that make the records'
// scalars: the render thread for a frame it uploads (render/renderer.cpp SceneGpu::update), and the
// simulation thread for a frame the interop writes right after its step (gui/core/interop_slots.h
// WindowVertexLink), which must map that frame's own field: with the render thread's scalars it drew the
// field of an earlier frame, and a paused or held scene kept the heat map of the frame before the one shown.
#include <vector>

#include "views/views.h"

namespace vbdgui {

// Range the heat map used this frame (for the legend), in the field's units (log10 if logScale).
struct FieldRange {
    float lo = 0, hi = 1;
    bool valid = false;
};

// Range of a field for the heat map: log10 is applied to values in place when logScale (zeros, e.g.
// fixed vertices' residuals, become -inf and sit below the range instead of stretching it).
FieldRange measureField(std::vector<float>& values, bool logScale);
// The same range without changing the values (a reader that only wants the range: no copy of the field).
FieldRange fieldRange(const std::vector<float>& values, bool logScale);

// How a field is drawn: which one, and the draw options' scale.
struct HeatScale {
    vbd::ScalarField field = vbd::ScalarField::None;
    bool logScale = false;
    bool autoRange = true;  // else [rangeMin, rangeMax]
    float rangeMin = 0, rangeMax = 1;
    int numColors = 0;  // ScalarField::Color: the colour groups (categorical, passed through)
};

// A value of the field in the scale's units (log10 when logScale) for a range typed in the field's units:
// values <= 0 have no logarithm and go to log10(kLogRangeFloor).
constexpr double kLogRangeFloor = 1e-30;
float rangeUnit(double value, bool logScale);
// A fixed range [lo, hi] (in the scale's units) when the scale goes from fromLog to toLog: the same values in
// the new units. Without it a range of [0, 50] set before "log10" was read as exponents: 1 to 1e+50.
void rescaleRange(float& lo, float& hi, bool fromLog, bool toLog);

// Whether a and b map a field alike (the range matters only when fixed).
bool sameHeatScale(const HeatScale& a, const HeatScale& b);

// The range a field of measured range `measured` is drawn with under scale (the legend's): the measured one
// or the fixed one; for Color 0 to numColors - 1. Invalid when measured is and the range is automatic.
FieldRange heatRange(const FieldRange& measured, const HeatScale& scale);

// values (the field's, consumed: log10 is applied in place) to out01: continuous fields mapped affinely from
// the range [lo, hi] to [0, 1] (non-finite values to 0 below, 1 above), colour groups passed through. Returns
// the range (for Color: 0 to numColors - 1).
FieldRange heatScalars(std::vector<float>& values, const HeatScale& scale, std::vector<float>& out01);

}  // namespace vbdgui
