#include "gui/core/heat_scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vbdgui {

namespace {

// A field value on the heat map's scale: log10 when asked (zeros and negatives to -inf, below any range).
float scaled(float v, bool logScale) {
    return !logScale ? v : v > 0 ? std::log10(v) : -std::numeric_limits<float>::infinity();
}

}  // namespace

FieldRange fieldRange(const std::vector<float>& values, bool logScale) {
    float lo = std::numeric_limits<float>::max(), hi = -lo;
    for (float v : values) {
        v = scaled(v, logScale);
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (lo > hi) return {};
    return {lo, hi, true};
}

FieldRange measureField(std::vector<float>& values, bool logScale) {
    for (float& v : values) v = scaled(v, logScale);
    return fieldRange(values, false);
}

float rangeUnit(double value, bool logScale) {
    return float(logScale ? std::log10(std::max(value, kLogRangeFloor)) : value);
}

void rescaleRange(float& lo, float& hi, bool fromLog, bool toLog) {
    if (fromLog == toLog) return;
    auto value = [&](float x) { return fromLog ? std::pow(10.0, double(x)) : double(x); };
    const double a = value(lo), b = value(hi);
    lo = rangeUnit(a, toLog);
    hi = rangeUnit(b, toLog);
}

bool sameHeatScale(const HeatScale& a, const HeatScale& b) {
    return a.field == b.field && a.logScale == b.logScale && a.autoRange == b.autoRange &&
           a.numColors == b.numColors &&
           (a.autoRange || (a.rangeMin == b.rangeMin && a.rangeMax == b.rangeMax));
}

FieldRange heatRange(const FieldRange& measured, const HeatScale& scale) {
    if (scale.field == vbd::ScalarField::Color) return {0.0f, float(std::max(scale.numColors - 1, 0)), true};
    float lo = measured.lo, hi = measured.hi;
    if (!scale.autoRange) lo = scale.rangeMin, hi = scale.rangeMax;
    if (!(hi > lo)) hi = lo + std::max(1e-6f, 1e-6f * std::fabs(lo));
    return {lo, hi, measured.valid || !scale.autoRange};
}

FieldRange heatScalars(std::vector<float>& values, const HeatScale& scale, std::vector<float>& out01) {
    out01.resize(values.size());
    if (scale.field == vbd::ScalarField::Color) {
        std::copy(values.begin(), values.end(), out01.begin());
        return heatRange({}, scale);
    }
    const FieldRange r = heatRange(measureField(values, scale.logScale), scale);
    for (size_t i = 0; i < values.size(); ++i)
        out01[i] =
            std::isfinite(values[i]) ? (values[i] - r.lo) / (r.hi - r.lo) : (values[i] < 0 ? 0.0f : 1.0f);
    return r;
}

}  // namespace vbdgui
