#pragma once
// Tick positions and labels for the plots: nice steps (1, 2, 5 x 10^k) whose labels carry just enough
// digits to differ from their neighbours (never four "0.534"), decades on log axes (with 2 and 5 inside a
// decade when the range is short), and one number format for everything the app prints.
#include <string>
#include <vector>

namespace vbdgui {

struct Tick {
    double value = 0;  // in axis units (the exponent on a log axis)
    std::string label;
};

struct AxisTicks {
    std::vector<Tick> ticks;
    // Linear axes whose span is tiny next to their values (1e6 .. 1e6 + 3): labels are offsets from this
    // base, which the plot prints once ("+1e6"); "" when labels are the values themselves.
    std::string offset;
};

// About `target` ticks inside [lo, hi] (lo < hi), at least minStep apart (1 for frame or iteration counts).
AxisTicks linearTicks(double lo, double hi, int target, double minStep = 0);
// Ticks of a log10 axis over exponents [lo, hi] (lo < hi): at most about `target` of them.
AxisTicks logTicks(double lo, double hi, int target);

// Short human form with `sig` significant digits: 0.5, 2.28, 1.23e6, 4.1e-5, 1e30 (no "e+", no leading
// exponent zeros); "inf" / "-inf" / "nan" as such.
std::string formatNumber(double v, int sig = 3);

}  // namespace vbdgui
