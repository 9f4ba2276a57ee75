// What is drawn and how the heat map's colour scale is set: the field, log10, automatic / set / locked
// range (per side; shared across a side-by-side run by default).
#include "gui/core/axis.h"
#include "gui/core/heat_scale.h"
#include "gui/panels.h"
#include "gui/widgets.h"

namespace vbdgui {

namespace {

const char* const kFields[] = {"none",  "colour group",    "residual |grad_i G|",
                               "det F", "dominance (max)", "dominance (sum)"};

void fieldWidget(Lab& l) {
    DrawOptions& d = l.draw;
    int f = int(d.field);
    if (ImGui::Combo("##field", &f, kFields, 6)) {
        d.field = vbd::ScalarField(f);
        d.logScale = d.field == vbd::ScalarField::Residual;
        d.autoRange = true;
    }
}

// Auto range, or the range typed in / locked from what is shown now (in the field's units).
void rangeWidget(Lab& l) {
    DrawOptions& d = l.draw;
    if (d.field == vbd::ScalarField::None || d.field == vbd::ScalarField::Color) {
        ImGui::TextDisabled("-");
        return;
    }
    const bool wasLog = d.logScale;
    if (ImGui::Checkbox("log10", &d.logScale) && !d.autoRange)
        rescaleRange(d.rangeMin, d.rangeMax, wasLog, d.logScale);  // the typed range keeps its values
    ImGui::SameLine();
    bool locked = !d.autoRange;
    if (ImGui::Checkbox("fixed", &locked)) {
        d.autoRange = !locked;
        if (locked && l.legend.valid) d.rangeMin = l.legend.lo, d.rangeMax = l.legend.hi;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Keep the colour scale where it is now (then type a range); off: min to max of each frame.");
    if (!d.autoRange) {
        ImGui::SetNextItemWidth(-FLT_MIN);
        ImGui::DragFloatRange2("##range", &d.rangeMin, &d.rangeMax, 0.01f, 0, 0,
                               d.logScale ? "1e%.2f" : "%.4g", d.logScale ? "1e%.2f" : "%.4g");
    }
}

void flagsWidget(Lab& l) {
    DrawOptions& d = l.draw;
    CheckboxFlow flow;
    flow("surfaces", &d.surfaces);
    flow("bodies", &d.bodies);
    flow("grid", &d.grid);
    flow("wireframe", &d.wireframe);
    flow("contacts", &d.contacts);
    flow("fixed", &d.fixedVertices);
    flow("joints", &d.joints);
    flow("shadows", &d.shadows);
    flow("regions", &d.regions);
}

}  // namespace

void drawingSection(AppState& app) {
    SettingsTable t("drawing", app);
    t.row(
        "heat map",
        "Per-vertex field drawn as colours: the vertex colour group; the last iteration's residual "
        "|grad_i G|; the mean det F of incident tets; ||D_i|| / max_j ||H_ij||; or ||D_i|| / sum_j ||H_ij|| "
        "(below 1 the block row is not diagonally dominant). Computed when chosen, also while paused.",
        fieldWidget);
    t.row("colour scale", nullptr, rangeWidget);
    t.row(
        "show",
        "grid: the ground's grid lines (the ground itself stays). contacts: the rigid bodies' contact points "
        "(between "
        "bodies and with the ground; soft-body and cloth contacts are not drawn). Stiffer / softer material "
        "regions are tinted (steel blue / pale yellow) when no heat map is shown.",
        flagsWidget);
}

}  // namespace vbdgui
