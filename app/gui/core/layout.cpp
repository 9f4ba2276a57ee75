#include "gui/core/layout.h"

#include <algorithm>

namespace vbdgui {

Layout computeLayout(float width, float height, bool compare, bool showRight, const PanelState& panels) {
    Layout l;
    const float leftPref = compare ? kLeftWCompare : kLeftW, leftMin = compare ? kLeftMinWCompare : kLeftMinW;
    l.leftCollapsed = !panels.leftOpen;
    l.rightCollapsed = showRight && !panels.rightOpen;
    // A column's width, at its least or its preferred.
    auto leftW = [&](bool least) { return l.leftCollapsed ? kCollapsedW : (least ? leftMin : leftPref); };
    auto rightW = [&](bool least) {
        return !showRight ? 0.0f : (l.rightCollapsed ? kCollapsedW : (least ? kRightMinW : kRightW));
    };
    // Too narrow: collapse columns until the open ones at their minimum widths leave the view its minimum,
    // first the one the user did not open last; the one the user opened (a click on its bar, the `panels`
    // action) stays open down to kMinViewW of view, side by side too (the controls hold the side-by-side
    // switch: below 1116 pixels they collapsed at once and side by side could not be left). Side by side
    // the other column collapses before a side narrows below kMinSideW (the plots asked for by a lesson in
    // a 1280-pixel window left each side 200 pixels, the bars cut at the divider).
    const float minView = compare ? 2 * kMinSideW : kMinViewW;
    // The column to keep: the one opened last while it is open, else the other (closing the plots the user
    // had opened collapsed the controls too, side by side below 1116 pixels).
    const bool keepRight = showRight && (panels.keepRight ? panels.rightOpen : !panels.leftOpen);
    auto minNeed = [&] { return leftW(true) + rightW(true); };
    auto collapse = [&](bool right) {
        if (right)
            l.rightCollapsed = showRight;
        else
            l.leftCollapsed = true;
    };
    const bool crowded = minNeed() + minView > width;
    if (crowded) collapse(!keepRight);
    if (minNeed() + minView > width && (!panels.asked || minNeed() + kMinViewW > width)) collapse(keepRight);
    // Where a column had to collapse, the one left open keeps its minimum and the view the rest; else the
    // open columns shrink towards their minimum widths as needed, the plots first (they scale, the
    // controls' labels do not).
    l.leftW = leftW(crowded);
    l.rightW = rightW(crowded);
    float excess = crowded ? 0.0f : l.leftW + l.rightW + minView - width;
    if (excess > 0 && showRight && !l.rightCollapsed) {
        const float d = std::min(excess, kRightW - kRightMinW);
        l.rightW -= d;
        excess -= d;
    }
    if (excess > 0 && !l.leftCollapsed) l.leftW -= std::min(excess, leftPref - leftMin);
    l.viewX = l.leftW;
    l.viewY = 0;
    l.viewW = std::max(1.0f, width - l.leftW - l.rightW);
    l.viewH = std::max(1.0f, height);
    return l;
}

}  // namespace vbdgui
