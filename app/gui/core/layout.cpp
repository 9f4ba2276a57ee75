#include "gui/core/layout.h"

#include <algorithm>

namespace vbdgui {

Layout computeLayout(float width, float height, bool compare, bool showRight, const PanelState& panels) {
    Layout l;
    const float leftPref = compare ? kLeftWCompare : kLeftW, leftMin = compare ? kLeftMinWCompare : kLeftMinW;
    l.leftCollapsed = !panels.leftOpen;
    l.rightCollapsed = showRight && !panels.rightOpen;
    auto leftW = [&] { return l.leftCollapsed ? kCollapsedW : leftPref; };
    auto rightW = [&] { return !showRight ? 0.0f : (l.rightCollapsed ? kCollapsedW : kRightW); };
    l.leftW = leftW();
    l.rightW = rightW();
    // Too narrow: shrink the open columns to their minimum widths (the plots first: they scale, the
    // controls' labels do not), then collapse the one the user did not open last.
    const float minView = compare && !panels.asked ? 2 * kMinSideW : kMinViewW;
    float excess = l.leftW + l.rightW + minView - width;
    if (excess > 0 && showRight && !l.rightCollapsed) {
        const float d = std::min(excess, kRightW - kRightMinW);
        l.rightW -= d;
        excess -= d;
    }
    if (excess > 0 && !l.leftCollapsed) {
        const float d = std::min(excess, leftPref - leftMin);
        l.leftW -= d;
        excess -= d;
    }
    for (int pass = 0; pass < 2 && excess > 0; ++pass) {
        const bool collapseRight = showRight && !l.rightCollapsed && (pass == 0 ? !panels.keepRight : true);
        if (collapseRight) {
            excess -= l.rightW - kCollapsedW;
            l.rightW = kCollapsedW;
            l.rightCollapsed = true;
        } else if (!l.leftCollapsed) {
            excess -= l.leftW - kCollapsedW;
            l.leftW = kCollapsedW;
            l.leftCollapsed = true;
        }
    }
    l.viewX = l.leftW;
    l.viewY = 0;
    l.viewW = std::max(1.0f, width - l.leftW - l.rightW);
    l.viewH = std::max(1.0f, height);
    return l;
}

}  // namespace vbdgui
