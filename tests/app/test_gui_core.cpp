// What the GUI decides without a window: axis ticks, the layout of small windows, take folders, the
// settings that differ between two sides, and the checks of an actions file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "gui/core/actions.h"
#include "gui/core/axis.h"
#include "gui/core/heat_scale.h"
#include "gui/core/layout.h"
#include "gui/core/scene_settings.h"
#include "gui/core/takes.h"
#include "math/error.h"
#include "scene/enum_names.h"

namespace vbdgui {
namespace {

namespace fs = std::filesystem;

void expectDistinctLabelsInside(const AxisTicks& t, double lo, double hi, const char* what) {
    std::set<std::string> labels;
    for (const Tick& k : t.ticks) {
        EXPECT_TRUE(labels.insert(k.label).second) << what << ": repeated label " << k.label;
        EXPECT_GE(k.value, lo - 1e-9 * std::fabs(hi - lo)) << what;
        EXPECT_LE(k.value, hi + 1e-9 * std::fabs(hi - lo)) << what;
    }
    EXPECT_GE(t.ticks.size(), 2u) << what;
    EXPECT_LE(t.ticks.size(), 11u) << what;
}

// The issue's energy axis showed four identical "0.534" ticks.
TEST(AxisTicks, LinearLabelsDifferEvenOnANarrowRange) {
    AxisTicks t = linearTicks(0.5341, 0.5344, 4);
    expectDistinctLabelsInside(t, 0.5341, 0.5344, "energy");
    EXPECT_EQ(t.ticks.front().label, "0.5341");
    expectDistinctLabelsInside(linearTicks(0, 1e-6, 4), 0, 1e-6, "tiny");
    expectDistinctLabelsInside(linearTicks(-3, 7, 4), -3, 7, "signed");
    for (const Tick& k : linearTicks(-0.3, 0.7, 4).ticks) {
        if (std::fabs(k.value) < 1e-12) {
            EXPECT_EQ(k.label, "0.0");  // no "-0.0" or "1e-17" at zero
        }
    }
    // Huge values with a small span: labels are offsets from a base shown once.
    t = linearTicks(1e6, 1e6 + 3, 4);
    expectDistinctLabelsInside(t, 1e6, 1e6 + 3, "offset");
    EXPECT_EQ(t.offset, "+1e6");
    for (const Tick& k : t.ticks) EXPECT_LE(k.label.size(), 4u) << k.label;
}

TEST(AxisTicks, LogAxesUseOneNotation) {
    AxisTicks t = logTicks(-6, 2, 5);
    expectDistinctLabelsInside(t, -6, 2, "decades");
    for (const Tick& k : t.ticks) EXPECT_EQ(k.value, std::round(k.value)) << "decades only on a long range";
    EXPECT_EQ(logTicks(3, 5, 5).ticks.front().label, "1e3");
    // Less than a decade: 2 and 5 (or every mantissa) inside it, never an empty axis.
    t = logTicks(-2.7, -2.2, 4);
    expectDistinctLabelsInside(t, -2.7, -2.2, "short");
    EXPECT_EQ(formatNumber(1e4, 2), "1e4");
    EXPECT_EQ(formatNumber(1.23e30), "1.23e30");
    EXPECT_EQ(formatNumber(0.5), "0.5");
    EXPECT_EQ(formatNumber(4.1e-5), "4.1e-5");
}

// Every window size the app allows (from kMinWindowW x kMinWindowH) keeps a view at least kMinViewW wide,
// alone or side by side; a wide window shows both columns at their preferred widths.
TEST(Layout, SmallWindowsKeepAUsableView) {
    for (bool compare : {false, true})
        for (float w = kMinWindowW; w <= 2000; w += 50) {
            const Layout l = computeLayout(w, kMinWindowH, compare, true, PanelState{});
            EXPECT_GE(l.viewW, kMinViewW) << w << (compare ? " compare" : "");
            EXPECT_NEAR(l.leftW + l.viewW + l.rightW, w, 1e-3) << w;
            EXPECT_EQ(l.viewH, kMinWindowH);
        }
    const Layout wide = computeLayout(1600, 900, false, true, PanelState{});
    EXPECT_EQ(wide.leftW, kLeftW);
    EXPECT_EQ(wide.rightW, kRightW);
    EXPECT_FALSE(wide.rightCollapsed);
    const Layout small = computeLayout(800, 500, false, true, PanelState{});
    EXPECT_EQ(small.leftW, kLeftMinW);
    EXPECT_TRUE(small.rightCollapsed);
    PanelState keepPlots;
    keepPlots.keepRight = true;  // the user opened the plots last: the controls collapse instead
    const Layout plots = computeLayout(800, 500, false, true, keepPlots);
    EXPECT_TRUE(plots.leftCollapsed);
    EXPECT_FALSE(plots.rightCollapsed);
    EXPECT_GE(plots.viewW, kMinViewW);
    // Side by side each view keeps kMinSideW: at the least window both columns collapse (before, the two
    // views shared 404 pixels there and 400 in a 1280-pixel window).
    for (float w = kMinWindowW; w <= 2000; w += 50) {
        const Layout l = computeLayout(w, kMinWindowH, true, true, PanelState{});
        EXPECT_GE(l.viewW / 2, kMinSideW) << w;
    }
    const Layout least = computeLayout(800, 500, true, true, PanelState{});
    EXPECT_TRUE(least.leftCollapsed && least.rightCollapsed);
    const Layout hd = computeLayout(1280, 720, true, true, PanelState{});
    EXPECT_FALSE(hd.leftCollapsed);  // the controls stay; the plots collapse
    EXPECT_TRUE(hd.rightCollapsed);
    // A column the user opens stays open at every size, side by side too (the controls hold the
    // side-by-side switch: below 1116 pixels they collapsed again at once and side by side could not be
    // left).
    PanelState opened;
    opened.asked = true;
    for (float w = kMinWindowW; w <= 2000; w += 50) {
        const Layout l = computeLayout(w, kMinWindowH, true, true, opened);
        EXPECT_FALSE(l.leftCollapsed) << w;
        EXPECT_GE(l.viewW, kMinViewW) << w;
    }
    opened.keepRight = true;
    EXPECT_FALSE(computeLayout(800, 500, true, true, opened).rightCollapsed);
    // The column not opened collapses before a side narrows below kMinSideW: a lesson asking for the plots
    // side by side in a 1280 x 720 window got both columns open and 200 pixels a side.
    for (bool right : {false, true}) {
        PanelState asked;
        asked.asked = true;
        asked.keepRight = right;
        const Layout l = computeLayout(1280, 720, true, true, asked);
        EXPECT_EQ(l.rightCollapsed, !right);
        EXPECT_EQ(l.leftCollapsed, right);
        EXPECT_GE(l.viewW / 2, kMinSideW) << (right ? "plots" : "controls") << " asked";
    }
    // The plots opened by the user and closed again: the controls stay open (keeping the closed plots, the
    // first collapse took the controls, and side by side could not be left below 1116 pixels).
    PanelState closedAgain;
    closedAgain.asked = true;
    closedAgain.keepRight = true;
    closedAgain.rightOpen = false;
    for (float w = kMinWindowW; w <= 2000; w += 50) {
        const Layout l = computeLayout(w, kMinWindowH, true, true, closedAgain);
        EXPECT_FALSE(l.leftCollapsed) << w;
        EXPECT_TRUE(l.rightCollapsed) << w;
        EXPECT_GE(l.viewW, kMinViewW) << w;
    }
}

TEST(Takes, NumberedFoldersNeverReuseATake) {
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_gui_core_takes";
    fs::remove_all(dir);
    EXPECT_EQ(fs::path(nextTakeFolder(dir.string())).filename(), "take_001");
    fs::create_directories(dir / "take_001");
    fs::create_directories(dir / "take_007");
    fs::create_directories(dir / "take_x");
    EXPECT_EQ(fs::path(nextTakeFolder(dir.string())).filename(), "take_008");
    EXPECT_TRUE(fs::path(nextTakeFolder(dir.string())).is_absolute());
    EXPECT_EQ(takeImageName(42), "frame_000042.png");
}

TEST(SceneSettings, DifferencesNameTheKeysThatDiffer) {
    const std::string file = std::string(VBD_SOURCE_DIR) + "/assets/scenes/contrast_bar.json";
    SceneSettings left(file), right(file);
    right.set("solver.iterations", "60", fileValue(file, "solver.iterations"));
    right.set("solver.coarse.enabled", "true", "false");
    left.set("solver.damping", "\"naive\"", "\"internal\"");
    right.set("solver.damping", "\"naive\"", "\"internal\"");  // the same on both sides: not a difference
    const auto d = differences(left, right);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].key, "solver.iterations");
    EXPECT_EQ(d[0].left, "10");  // the file's value
    EXPECT_EQ(d[0].right, "60");
    EXPECT_EQ(d[1].key, "solver.coarse.enabled");
    EXPECT_EQ(d[1].left, "false");
    EXPECT_EQ(right.resolve().solver.iterations, 60);  // the engine's --set machinery applies them
    EXPECT_TRUE(right.resolve().solver.coarse.enabled);
    EXPECT_FALSE(needsRebuild("solver.iterations"));
    EXPECT_TRUE(needsRebuild("soft_bodies.0.material.youngs"));
}

// A side that never set a key the file does not give either shows the value its solver runs, not
// "default": the caption read "solver.precision = default" against "float", and "solver.tolerance =
// default" against 0.001.
TEST(SceneSettings, ASideWithoutTheKeyShowsItsSolversValue) {
    const std::string file = std::string(VBD_SOURCE_DIR) + "/assets/scenes/contrast_bar.json";
    ASSERT_EQ(fileValue(file, "solver.precision"), "");
    ASSERT_EQ(fileValue(file, "solver.tolerance"), "");
    ASSERT_EQ(fileValue(file, "solver.coarse.aggregate_size"), "");
    SceneSettings left(file), right(file);
    right.set("solver.precision", "\"float\"");
    right.set("solver.tolerance", "0.001");
    right.set("solver.coarse.aggregate_size", "3");
    const vbd::SolverDesc ls = left.resolve().solver, rs = right.resolve().solver;
    const auto d = differences(left, right, &ls, &rs);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].left, "\"double\"");
    EXPECT_EQ(d[1].left, "0.0");
    EXPECT_EQ(d[2].left, "2");
    EXPECT_EQ(differences(left, right)[0].left, "default");  // without the solvers
    // One value written two ways is no difference: the solver's 100000.0 against a setting's 100000.
    ASSERT_EQ(fileValue(file, "solver.beta"), "");
    SceneSettings beta(file);
    beta.set("solver.beta", "100000");
    const vbd::SolverDesc bs = beta.resolve().solver;
    EXPECT_TRUE(differences(left, beta, &ls, &bs).empty());
    // Every solver key the format parses has a text (a key missing here would show "default").
    for (const char* k : {"iterations",
                          "damping",
                          "chebyshev_rho",
                          "beta",
                          "gamma",
                          "alpha",
                          "k_start",
                          "k_max",
                          "contact_damping",
                          "friction_epsilon",
                          "threads",
                          "diagnostics",
                          "initial_guess",
                          "precision",
                          "backend",
                          "tolerance",
                          "coarse.enabled",
                          "coarse.basis",
                          "coarse.modes_per_element",
                          "coarse.filter",
                          "coarse.contrast_threshold",
                          "coarse.patch_size",
                          "coarse.aggregate_size",
                          "coarse.matrix"}) {
        const std::string key = std::string("solver.") + k, text = solverValueText(ls, key);
        EXPECT_FALSE(text.empty()) << key;
        SceneSettings again(file);  // the text is a value the scene format takes back as the same
        again.set(key, text);
        EXPECT_EQ(solverValueText(again.resolve().solver, key), text) << key;
    }
    EXPECT_EQ(solverValueText(ls, "solver.no_such_key"), "");
}

// A fixed range set before the heat map turns log10 keeps its values: [0, 50] becomes [1e-30, 50] (0 has no
// logarithm: the floor), not exponents 0 to 50 (1 to 1e+50 on the legend, as it did); and back again. Float
// logarithms: 1e-6 absolute in exponents, 1e-5 relative in values.
TEST(HeatScale, AFixedRangeKeepsItsValuesWhenTheScaleChangesUnits) {
    float lo = 0, hi = 50;
    rescaleRange(lo, hi, false, true);
    EXPECT_FLOAT_EQ(lo, -30.0f);
    EXPECT_NEAR(hi, std::log10(50.0), 1e-6);
    rescaleRange(lo, hi, true, true);  // no change of units: no change
    EXPECT_NEAR(hi, std::log10(50.0), 1e-6);
    rescaleRange(lo, hi, true, false);
    EXPECT_NEAR(lo, 1e-30, 1e-35);
    EXPECT_NEAR(hi, 50.0, 50.0 * 1e-5);
    EXPECT_FLOAT_EQ(rangeUnit(1e-3, true), -3.0f);
    EXPECT_FLOAT_EQ(rangeUnit(-2, true), -30.0f);
    EXPECT_FLOAT_EQ(rangeUnit(-2, false), -2.0f);
}

// A setting the running World refused (World::setSolver: solver.backend cuda without a device) leaves the
// lab's settings: the World's value where it differs from the scene without the setting, else no setting at
// all (no side-by-side difference). Kept, it made every later rebuild of that side refused.
TEST(SceneSettingsTest, ARefusedSettingTakesTheRunningWorldsValue) {
    const std::string file = std::string(VBD_SOURCE_DIR) + "/assets/scenes/contrast_bar.json";
    vbd::SolverDesc running = SceneSettings(file).resolve().solver;
    ASSERT_EQ(running.backend, vbd::Backend::Cpu);  // the scene leaves the backend to the default (cpu)
    SceneSettings s(file);
    s.set("solver.iterations", "7");
    s.set("solver.backend", "\"cuda\"");
    s.revertRefused("solver.backend", running);  // the World runs the scene's own backend
    EXPECT_EQ(s.find("solver.backend"), nullptr);
    ASSERT_NE(s.find("solver.iterations"), nullptr);  // other settings stay
    running.backend = vbd::Backend::Auto;
    s.set("solver.backend", "\"cuda\"");
    s.revertRefused("solver.backend", running);  // an earlier edit the World took (auto): kept explicit
    ASSERT_NE(s.find("solver.backend"), nullptr);
    EXPECT_EQ(s.find("solver.backend")->value, "\"auto\"");
    EXPECT_EQ(s.resolve().solver.backend, vbd::Backend::Auto);
    EXPECT_EQ(solverSettingText(running, "solver.precision"),
              std::string("\"") + vbd::enumName(running.precision) + "\"");
    EXPECT_EQ(solverSettingText(running, "solver.iterations"), "");
}

ActionScript parse(const std::string& text, bool paused = false) {
    ActionContext c;
    c.scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/contrast_bar.json";
    c.paused = paused;
    return parseActions(text, "a.json", c);
}

std::string errorOf(const std::string& text, bool paused = false) {
    try {
        parse(text, paused);
    } catch (const vbd::InputError& e) {
        return e.what();
    }
    return "";
}

TEST(Actions, ParsesTheIssuesExampleAndStepGroups) {
    const ActionScript s = parse(
        "[{\"frame\": 0, \"set\": {\"solver.coarse.enabled\": true}}, {\"frame\": 30, \"heat\": "
        "\"dominance\"},"
        " {\"frame\": 40, \"load\": \"assets/scenes/contrast_bar.json\"}, {\"frame\": 60, \"record\": "
        "\"start\"},"
        " {\"frame\": 120, \"record\": \"stop\"}, {\"frame\": 121, \"screenshot\": \"out.png\"},"
        " {\"frame\": 122, \"quit\": true}]");
    ASSERT_EQ(s.actions.size(), 7u);
    EXPECT_EQ(s.actions[1].verb, Verb::Heat);
    EXPECT_EQ(s.actions[2].verb, Verb::Load);
    EXPECT_TRUE(fs::exists(s.actions[2].value.get<std::string>()));  // resolved in the source tree
    EXPECT_EQ(s.actions[6].frame, 122);
    const ActionScript g = parse(
        "{\"steps\": [{\"title\": \"pair\", \"actions\": [{\"lab\": {\"pair\": true}}]},"
        " {\"title\": \"side\", \"actions\": [{\"compare\": true}, {\"set_right\": {\"solver.iterations\": "
        "40}}]}]}");
    ASSERT_EQ(g.steps.size(), 2u);
    EXPECT_EQ(g.steps[1].title, "side");
    EXPECT_EQ(g.steps[1].first, 1);
    EXPECT_EQ(g.steps[1].count, 2);
    EXPECT_EQ(g.actions[2].side, Side::Right);
    EXPECT_EQ(g.actions[2].index, 2);
}

TEST(Actions, RefusesWithTheIndexAndKey) {
    EXPECT_NE(errorOf("[{\"frame\": 1}, {\"set\": {\"solver.iterationz\": 3}}]")
                  .find("a.json: actions[1].set.solver.iterationz: unknown key"),
              std::string::npos);
    EXPECT_NE(errorOf("[{\"frame\": 1, \"set_left\": {\"solver.damping\": \"slow\"}}]")
                  .find("actions[0].set_left.solver.damping"),
              std::string::npos);
    // Waiting for a frame while paused would wait forever; stepping gets there.
    EXPECT_NE(errorOf("[{\"frame\": 5, \"quit\": true}]", true).find("actions[0].frame: waits for frame 5"),
              std::string::npos);
    EXPECT_EQ(errorOf("[{\"step\": 5}, {\"frame\": 5, \"quit\": true}]", true), "");
    // A set applies to the scene loaded before it.
    EXPECT_NE(errorOf("[{\"load\": \"assets/scenes/rigid_stack.json\"}, {\"set\": "
                      "{\"soft_bodies.0.material.youngs\": 1}}]")
                  .find("actions[1].set.soft_bodies.0.material.youngs"),
              std::string::npos);
    EXPECT_NE(errorOf("[{\"range\": [2, 1]}]").find("actions[0].range"), std::string::npos);
    EXPECT_NE(
        errorOf("{\"steps\": [{\"actions\": [], \"tittle\": \"x\"}]}").find("steps[0].tittle: unknown key"),
        std::string::npos);
    // A number beyond a double is valid JSON syntax that nlohmann refuses with out_of_range, not
    // parse_error: it must be a refusal naming the file, not an exception out of the parser.
    EXPECT_NE(errorOf("[{\"frame\": 1e999}]").find("a.json: "), std::string::npos);
    EXPECT_NE(errorOf("[{\"set\": {\"solver.damping\": 1e999}}]").find("must be finite"), std::string::npos);
}

}  // namespace
}  // namespace vbdgui
