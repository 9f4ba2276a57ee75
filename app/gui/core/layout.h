#pragma once
// Window layout: the controls column on the left, the plots column on the right, the 3D view(s) in
// between. Columns shrink to their minimum widths and then collapse to a thin bar (with a button to
// open them again) so that the view keeps at least kMinView pixels; the window itself is never smaller
// than kMinWindow (glfwSetWindowSizeLimits), so every layout the app allows keeps a usable view.
namespace vbdgui {

inline constexpr float kMinWindowW = 800, kMinWindowH = 500;
inline constexpr float kMinViewW = 400;  // the view never gets narrower than this at any allowed size
// Side by side, each view keeps this much (its caption of settings, the region labels; at 200 pixels a side
// the bars were cut at the divider and the labels collided): both columns collapse before a side narrows.
inline constexpr float kMinSideW = 360;
inline constexpr float kCollapsedW = 26;  // a collapsed column: a bar with its open button
inline constexpr float kLeftW = 370, kLeftWCompare = 560, kLeftMinW = 290, kLeftMinWCompare = 370;
inline constexpr float kRightW = 430, kRightMinW = 300;

// What the user chose: a column they collapsed stays collapsed; `keep` is the column to keep open
// when only one fits (the one opened last).
struct PanelState {
    bool leftOpen = true, rightOpen = true;
    bool keepRight = false;
    // A column was opened by the user (its bar's button, the `panels` action): side by side then keeps it
    // open down to kMinViewW of view rather than kMinSideW a side (below 1116 pixels the controls, which
    // hold the side-by-side switch, could not be opened again).
    bool asked = false;
};

struct Layout {
    float leftW = kLeftW, rightW = kRightW;
    bool leftCollapsed = false, rightCollapsed = false;
    float viewX = 0, viewY = 0, viewW = 1, viewH = 1;  // the 3D view(s), window pixels
};

// showRight: the plots column is enabled at all (it is 0 wide otherwise).
Layout computeLayout(float width, float height, bool compare, bool showRight, const PanelState& panels);

}  // namespace vbdgui
