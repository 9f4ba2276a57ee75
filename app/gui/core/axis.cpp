#include "gui/core/axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vbdgui {

namespace {

double niceStep(double span, int target) {
    const double raw = span / std::max(target, 1);
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw * (1 - 1e-9)) return m * p;
    return 10 * p;
}

// "1.20e+06" -> "1.2e6", "4.10e-05" -> "4.1e-5".
std::string tidyExponent(const char* s) {
    std::string out = s;
    const size_t e = out.find('e');
    if (e == std::string::npos) return out;
    std::string mant = out.substr(0, e), ex = out.substr(e + 1);
    if (mant.find('.') != std::string::npos) {
        while (!mant.empty() && mant.back() == '0') mant.pop_back();
        if (!mant.empty() && mant.back() == '.') mant.pop_back();
    }
    const bool neg = !ex.empty() && ex[0] == '-';
    if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) ex = ex.substr(1);
    while (ex.size() > 1 && ex[0] == '0') ex = ex.substr(1);
    return mant + "e" + (neg ? "-" : "") + ex;
}

// Fixed decimals for a step (0.0002 -> 4), or -1 where scientific notation reads better.
int decimalsFor(double step, double maxAbs) {
    if (maxAbs >= 1e5 || step < 1e-4) return -1;
    return std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
}

std::string fixedOrScientific(double v, double step, double maxAbs) {
    char buf[48];
    const int d = decimalsFor(step, maxAbs);
    if (std::fabs(v) < step * 1e-6) v = 0;  // no "-0" or "1e-17" at the zero tick
    if (d >= 0) {
        std::snprintf(buf, sizeof buf, "%.*f", d, v);
        return buf;
    }
    // Scientific with enough mantissa digits for the step: digits = exponent(v) - exponent(step) + 1.
    if (v == 0) return "0";
    const int ev = int(std::floor(std::log10(std::fabs(v)))), es = int(std::floor(std::log10(step) + 1e-9));
    std::snprintf(buf, sizeof buf, "%.*e", std::clamp(ev - es, 0, 8), v);
    return tidyExponent(buf);
}

// m x 10^d on a log axis, one notation for all ticks: 1, 10, 100, 1e3, 2e-5 (plain from 0.01 to 100).
std::string decadeLabel(int m, int d) {
    if (d >= -2 && d <= 2) return formatNumber(m * std::pow(10.0, d), 3);
    return std::to_string(m) + "e" + std::to_string(d);
}

}  // namespace

std::string formatNumber(double v, int sig) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[48];
    const double a = std::fabs(v);
    if (a == 0 || (a >= 1e-3 && a < 1e5)) {
        std::snprintf(buf, sizeof buf, "%.*g", sig, v);
        return tidyExponent(buf);  // %g of 10000 with 2 digits is "1e+04"
    }
    std::snprintf(buf, sizeof buf, "%.*e", std::max(sig - 1, 0), v);
    return tidyExponent(buf);
}

AxisTicks linearTicks(double lo, double hi, int target, double minStep) {
    AxisTicks t;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return t;
    const double step = std::max(niceStep(hi - lo, target), minStep);
    double base = 0;
    const double maxAbs = std::max(std::fabs(lo), std::fabs(hi));
    if (maxAbs / step > 1e4) {
        // Labels relative to a round base below lo, so that they stay short and distinct.
        const double unit = step * 10;
        base = std::floor(lo / unit) * unit;
        t.offset = "+" + formatNumber(base, 6);
    }
    const double spanMax = std::max(std::fabs(lo - base), std::fabs(hi - base));
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
        const double v = k * step;
        t.ticks.push_back({v, fixedOrScientific(v - base, step, spanMax)});
    }
    return t;
}

AxisTicks logTicks(double lo, double hi, int target) {
    AxisTicks t;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return t;
    const int d0 = int(std::ceil(lo - 1e-9)), d1 = int(std::floor(hi + 1e-9));
    const int decades = d1 - d0 + 1;
    if (hi - lo < 2.0) {
        // A short range: 1, 2, 5 in each decade (or every mantissa when even that gives too few).
        const std::vector<int> mantissas =
            hi - lo < 0.7 ? std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9} : std::vector<int>{1, 2, 5};
        for (int d = int(std::floor(lo)); d <= int(std::ceil(hi)); ++d)
            for (int m : mantissas) {
                const double e = d + std::log10(double(m));
                if (e >= lo - 1e-9 && e <= hi + 1e-9) t.ticks.push_back({e, decadeLabel(m, d)});
            }
        return t;
    }
    const int stride = std::max(1, (decades + target - 1) / std::max(target, 1));
    for (int d = d0; d <= d1; ++d)
        if ((d - d0) % stride == 0) t.ticks.push_back({double(d), decadeLabel(1, d)});
    return t;
}

}  // namespace vbdgui
