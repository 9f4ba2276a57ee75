#include "gui/action_runner.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "gui/app.h"
#include "gui/core/heat_scale.h"

namespace vbdgui {

namespace {

using json = nlohmann::json;

vbd::ScalarField fieldNamed(const std::string& s) {
    if (s == "color") return vbd::ScalarField::Color;
    if (s == "residual") return vbd::ScalarField::Residual;
    if (s == "det_f") return vbd::ScalarField::VolumeRatio;
    if (s == "dominance") return vbd::ScalarField::DiagonalDominance;
    if (s == "dominance_sum") return vbd::ScalarField::DominanceSum;
    return vbd::ScalarField::None;
}

// Labs an action acts on: both, or one side of a side-by-side run.
std::vector<Lab*> labsOf(AppState& app, Side side) {
    std::vector<Lab*> out;
    if (side != Side::Right) out.push_back(&app.labs[0]);
    if (side != Side::Left) out.push_back(&app.labs[1]);
    return out;
}

int labIndex(Side side) { return side == Side::Left ? 0 : (side == Side::Right ? 1 : -1); }

void applyDraw(DrawOptions& d, const json& v) {
    for (auto it = v.begin(); it != v.end(); ++it) {
        const bool b = it.value().get<bool>();
        const std::string& k = it.key();
        if (k == "wireframe") d.wireframe = b;
        if (k == "contacts") d.contacts = b;
        if (k == "surfaces") d.surfaces = b;
        if (k == "bodies") d.bodies = b;
        if (k == "grid") d.grid = b;
        if (k == "fixed") d.fixedVertices = b;
        if (k == "joints") d.joints = b;
        if (k == "shadows") d.shadows = b;
        if (k == "regions") d.regions = b;
    }
}

void applyRecordSettings(RecordSettings& s, const json& v) {
    if (v.contains("every")) s.every = v["every"].get<int>();
    if (v.contains("fps")) s.fps = v["fps"].get<double>();
    if (v.contains("capture")) s.capture = v["capture"] == "view" ? Capture::View : Capture::Window;
    if (v.contains("size")) s.width = v["size"][0].get<int>(), s.height = v["size"][1].get<int>();
    if (v.contains("format"))
        s.format = v["format"] == "png" ? VideoFormat::Png
                                        : (v["format"] == "mp4" ? VideoFormat::Mp4 : VideoFormat::Auto);
    if (v.contains("dir")) s.dir = v["dir"].get<std::string>();
}

void applyCamera(AppState& app, const json& v) {
    constexpr float kDeg = 3.14159265f / 180.0f;
    OrbitCamera& c = app.camera;
    if (v.contains("yaw")) c.yaw = v["yaw"].get<float>() * kDeg;
    if (v.contains("pitch")) c.pitch = v["pitch"].get<float>() * kDeg;
    if (v.contains("distance")) c.distance = v["distance"].get<float>();
    if (v.contains("target")) {
        c.target = {v["target"][0].get<float>(), v["target"][1].get<float>(), v["target"][2].get<float>()};
        c.fitShift =
            glm::vec3(0.0f);  // a target given is where the view looks, not a framing's shifted centre
    }
    if (v.value("frame", false)) app.frameRequest = true;
}

void applyPanels(AppState& s, const json& v) {
    if (v.contains("controls")) s.panels.leftOpen = v["controls"].get<bool>();
    if (v.contains("plots")) s.panels.rightOpen = v["plots"].get<bool>();
    // Asked for by name: kept open as a click on its bar keeps it (layout.h PanelState::asked).
    // The one named open is kept when only one fits (a lesson asking for the plots gets them, the controls
    // collapsing, its text floating over the view).
    const bool controls = v.value("controls", false), plots = v.value("plots", false);
    if (controls || plots) s.panels.asked = true;
    if (controls != plots) s.panels.keepRight = plots;
    PlotSections& p = s.plotSections;
    p.convergence = v.value("convergence", p.convergence);
    p.perFrame = v.value("per_frame", p.perFrame);
    p.timing = v.value("timing", p.timing);
    p.ellipse = v.value("ellipse", p.ellipse);
    p.apply = true;
}

void applyLab(EllipseState& e, const json& v) {
    if (v.contains("pair")) e.pair = v["pair"].get<bool>();
    if (v.contains("nd")) e.nd = v["nd"].get<bool>();
    if (v.contains("kappa")) e.kappa = v["kappa"].get<float>();
    if (v.contains("angle")) e.angleDeg = v["angle"].get<float>();
    if (v.contains("sweeps")) e.sweeps = v["sweeps"].get<int>();
    if (v.contains("nd_kappa")) e.ndKappa = v["nd_kappa"].get<float>();
    if (v.contains("nd_coupling")) e.ndCoupling = v["nd_coupling"].get<float>();
    if (v.contains("nd_blocks")) e.ndBlocks = v["nd_blocks"].get<int>();
    if (v.contains("nd_seed")) e.ndSeed = v["nd_seed"].get<int>();
}

glm::vec3 vec3Of(const json& v) { return {v[0].get<float>(), v[1].get<float>(), v[2].get<float>()}; }

void applyMark(AppState& s, const json& v, Side side) {
    if (v.is_string()) {  // "clear"
        s.marks.clear();
        return;
    }
    Mark m;
    m.lab = labIndex(side);
    m.text = v.value("text", "");
    if (v.contains("vertex")) {
        m.kind = Mark::Kind::Vertex;
        m.vertex = v["vertex"].get<int>();
    } else if (v.contains("region")) {
        m.kind = Mark::Kind::Region;
        m.a = vec3Of(v["region"]["min"]), m.b = vec3Of(v["region"]["max"]);
    } else {
        m.kind = Mark::Kind::Arrow;
        m.a = vec3Of(v["arrow"]["from"]), m.b = vec3Of(v["arrow"]["to"]);
    }
    s.marks.push_back(m);
}

// A vertex index an action names, against the scene shown (its count is known only once the World is built:
// the runner holds until then). An index past it was taken silently and nothing was drawn. Side by side, an
// action for both sides names a vertex of each (the right side may have been reshaped).
bool vertexInScenes(const AppState& s, Side side, int vertex, std::string& err) {
    const int only = labIndex(side);
    for (int lab = 0; lab < (s.compare ? 2 : 1); ++lab) {
        if (only >= 0 && lab != only) continue;
        const auto& w = s.labs[lab].world;
        const size_t n = w ? w->numParticles() : 0;
        if (vertex >= 0 && size_t(vertex) < n) continue;
        const std::string where = s.compare ? (lab == 0 ? " on the left" : " on the right") : "";
        err = "vertex " + std::to_string(vertex) + " is not in the scene" + where + " (" + std::to_string(n) +
              " vertices: 0 to " + std::to_string(n == 0 ? 0 : n - 1) + ")";
        if (n == 0)
            err = "vertex " + std::to_string(vertex) + ": the scene" + where +
                  " has no soft-body or cloth vertices";
        return false;
    }
    return true;
}

PerFramePlot plotNamed(const std::string& s) {
    if (s == "total_energy") return PerFramePlot::TotalEnergy;
    if (s == "com_y") return PerFramePlot::ComY;
    if (s == "kinetic") return PerFramePlot::Kinetic;
    return PerFramePlot::EnergyG;
}

}  // namespace

bool ActionRunner::fail(GuiApp& app, const Action& a, const std::string& what) {
    std::fprintf(stderr, "vbdlab: error: %s: %s: %s\n", script_.file.c_str(), a.key.c_str(), what.c_str());
    failed_ = true;
    app.quit(2);
    return false;
}

// Hold at this frame while the last action takes effect (simulation thread, GPU buffers, a drawn frame, a
// pending screenshot, a window resize, single steps, a pause) or while the labs' snapshots show different
// frames.
bool ActionRunner::holding(GuiApp& app, int shown, int frame) {
    bool hold = app.settling() || shown < 0 || !app.state().screenshotRequest.empty() ||
                app.renderedFrames() < holdUntilRendered_ || wallSeconds() < pauseUntil_;
    if (waitFrame_ >= 0) hold |= frame < waitFrame_;
    if (windowWait_ > 0) {
        int w = 0, h = 0;
        app.framebufferSize(w, h);
        if (w == windowW_ && h == windowH_) windowWait_ = 0;
        hold |= windowWait_-- > 0;
    }
    return hold;
}

// The run's last line: where it ended and the scene as the actions left it.
void ActionRunner::reportDone(GuiApp& app, const char* why) {
    const Lab& lab = app.state().labs[0];
    std::string settings;
    for (const auto& st : lab.scene.all()) settings += " " + st.key + "=" + st.value;
    // Thrown boxes are part of the scene beyond its settings: how many, and the World's body count as last
    // shown (a rebuild that dropped them shows here).
    if (!lab.thrown.empty()) {
        const size_t shown = lab.world ? lab.world->numBodies() : 0;
        settings += "; " + std::to_string(lab.thrown.size()) + " thrown boxes, " + std::to_string(shown) +
                    " rigid bodies in the World";
        // Paused, boxes thrown since the last step join at the next one.
        if (shown < lab.desc.rigidBodies.size())
            settings += " (boxes thrown while paused join at its next step)";
    }
    // Side by side the right lab's settings too (a run of set_right alone said "no settings").
    const Lab& right = app.state().labs[1];
    if (app.state().compare) {
        settings += "; right: ";
        settings += right.scene.all().empty() ? "no settings" : "settings";
        for (const auto& st : right.scene.all()) settings += " " + st.key + "=" + st.value;
    }
    std::fprintf(stderr, "vbdlab: actions done at frame %d (%s, %s%s)%s\n", app.sim().frame(),
                 lab.scene.file().empty() ? "built-in scene"
                                          : std::filesystem::path(lab.scene.file()).filename().c_str(),
                 lab.scene.all().empty() ? "no settings" : "settings", settings.c_str(), why);
}

void ActionRunner::update(GuiApp& app) {
    if (failed_ || finished_) return;
    SimRunner& sim = app.sim();
    while (next_ < end_) {
        // The frame drawn this UI frame (GuiApp::shownFrame), which the simulation thread may be one ahead
        // of.
        const int shown = app.shownFrame();
        const int frame = shown >= 0 ? shown : sim.frame();
        if (holding(app, shown, frame)) {
            // After a load or reset the frame read here may still be the old World's until the new one
            // is in place: keep the new count's gate at 0 meanwhile.
            sim.setGate(Gate::Actions, waitFrame_ >= 0 ? waitFrame_ : (restarted_ ? 0 : frame));
            return;
        }
        waitFrame_ = -1;
        restarted_ = false;
        const Action& a = script_.actions[next_];
        // An edit that gave a World other shapes restarts both sides at frame 0 (their state cannot be
        // carried over): the count restarts with them, as after a reset. (Unattended runs only: in a lesson
        // the user may also scrub the timeline back.)
        const bool restartedByEdit = unattended_ && frameAtLast_ >= 0 && frame < frameAtLast_;
        if (restartedByEdit) {
            std::fprintf(stderr,
                         "vbdlab: %s: %s: the World restarted at frame %d (other shapes: its state could not "
                         "be carried over)\n",
                         script_.file.c_str(), script_.actions[lastAction_].key.c_str(), frame);
            frameAtLast_ = frame;
        }
        if (frame < a.frame) {
            // The checker refuses a script that waits for a frame while paused; a restart it could not
            // foresee would leave this one waiting for ever.
            if (unattended_ && !app.state().timeline.playing) {
                fail(app, a,
                     "waits for frame " + std::to_string(a.frame) +
                         " while the simulation is paused (frame " + std::to_string(frame) +
                         (restartedByEdit ? ": " + script_.actions[lastAction_].key +
                                                " restarted the World, whose shapes it changed"
                                          : "") +
                         "; add {\"play\": true} or {\"step\": n} before it)");
                return;
            }
            sim.setGate(Gate::Actions, a.frame);
            return;
        }
        sim.setGate(Gate::Actions, frame);
        if (!execute(app, a)) return;
        frameAtLast_ = frame;
        lastAction_ = next_;
        // An edit may restart the Worlds at frame 0 (other shapes), which is known only once they are built:
        // until then the gate is at 0 too, which holds a World that kept its frame where it is.
        if (a.verb == Verb::Set) restarted_ = true;
        // A load or reset restarts the count, and so does side by side turned on (both sides restart from
        // the left's settings): hold the new World at frame 0 until the next action is seen, or the
        // simulation thread would run it up to the old frame before this loop runs again.
        if (a.verb == Verb::Load || a.verb == Verb::Reset ||
            (a.verb == Verb::Compare && a.value.get<bool>())) {
            restarted_ = true;
            frameAtLast_ = -1;
            sim.setGate(Gate::Actions, 0);
        }
        ++next_;
        holdUntilRendered_ = app.renderedFrames() + 2;
        if (a.verb == Verb::Quit) {
            finished_ = true;
            return;
        }
    }
    if (unattended_ && app.options().headless) {
        // Nobody can end a headless run but its list: it ends with it, at the last action's frame, once that
        // action's effect is drawn (a screenshot written, a step taken).
        const int shown = app.shownFrame();
        if (holding(app, shown, shown >= 0 ? shown : sim.frame())) return;
        app.stopRecording();
        reportDone(app, "; the list has no quit, and a headless run ends with its list");
        app.quit(0);
        finished_ = true;
        return;
    }
    if (!keepGate_) sim.setGate(Gate::Actions, -1);  // the list is done: the run goes on interactively
    finished_ = true;
}

void ActionRunner::applyView(GuiApp& app, const Action& a) {
    AppState& s = app.state();
    const json& v = a.value;
    for (Lab* lab : labsOf(s, a.side)) {
        DrawOptions& d = lab->draw;
        switch (a.verb) {
            case Verb::Heat:
                d.field = fieldNamed(v.get<std::string>());
                d.logScale = d.field == vbd::ScalarField::Residual;
                d.autoRange = true;
                break;
            case Verb::Range:
                if (v.is_string()) {
                    d.autoRange = true;
                } else {
                    d.autoRange = false;
                    d.rangeMin = rangeUnit(v[0].get<double>(), d.logScale);
                    d.rangeMax = rangeUnit(v[1].get<double>(), d.logScale);
                }
                break;
            case Verb::Log:
                if (!d.autoRange) rescaleRange(d.rangeMin, d.rangeMax, d.logScale, v.get<bool>());
                d.logScale = v.get<bool>();
                break;
            case Verb::Draw:
                applyDraw(d, v);
                break;
            default:
                break;
        }
    }
}

bool ActionRunner::execute(GuiApp& app, const Action& a) {
    AppState& s = app.state();
    const json& v = a.value;
    std::string err;
    switch (a.verb) {
        case Verb::Wait:
            break;
        case Verb::Load:
            if (!app.loadSceneFile(v.get<std::string>(), err)) return fail(app, a, err);
            s.marks.clear();  // marks point into the scene they were made for
            break;
        case Verb::Reset:
            s.timeline.resetRequest = true;
            break;
        case Verb::Set: {
            std::vector<std::pair<std::string, std::string>> kv;
            for (auto it = v.begin(); it != v.end(); ++it) kv.emplace_back(it.key(), it.value().dump());
            if (!app.applySettings(labIndex(a.side), kv, err)) return fail(app, a, err);
            break;
        }
        case Verb::Compare:
            s.compare = v.get<bool>();
            s.compareRequest = true;
            break;
        case Verb::Play:
            s.timeline.playing = v.get<bool>();
            break;
        case Verb::Step:
            s.timeline.stepRequests += v.get<int>();
            waitFrame_ = app.sim().frame() + v.get<int>();
            app.sim().setGate(Gate::Actions, waitFrame_);
            break;
        case Verb::Speed:
            s.timeline.speed = v.is_string() ? 0.0 : v.get<double>();
            break;
        case Verb::Heat:
        case Verb::Range:
        case Verb::Log:
        case Verb::Draw:
            applyView(app, a);
            break;
        case Verb::SharedScale:
            s.sharedScale = v.get<bool>();
            break;
        case Verb::Camera:
            applyCamera(s, v);
            break;
        case Verb::Inspect:
            if (v.get<int>() >= 0 && !vertexInScenes(s, Side::Both, v.get<int>(), err))
                return fail(app, a, err);  // -1: none
            s.inspectParticle = v.get<int>();
            break;
        case Verb::Panels:
            applyPanels(s, v);
            break;
        case Verb::Lab:
            applyLab(s.ellipse, v);
            break;
        case Verb::Record:
            if (v == json("stop")) {
                app.stopRecording();
            } else {
                if (v.is_object()) applyRecordSettings(s.rec.settings, v);
                if (!s.rec.on) app.startRecording();
                if (!s.rec.on) return fail(app, a, s.rec.status);
            }
            break;
        case Verb::Screenshot: {
            // Its folder made as a take's is (a missing one failed only when the image was written, exit
            // code 1, without naming the action).
            const std::string path = v.is_string() ? v.get<std::string>() : v["path"].get<std::string>();
            const std::filesystem::path dir = std::filesystem::path(path).parent_path();
            std::error_code ec;
            if (!dir.empty()) std::filesystem::create_directories(dir, ec);
            if (ec) return fail(app, a, "cannot create " + dir.string() + ": " + ec.message());
            s.screenshotRequest = path;
            s.screenshotCapture =
                v.is_object() && v.value("capture", "window") == "view" ? Capture::View : Capture::Window;
            break;
        }
        case Verb::Window:
            windowW_ = v[0].get<int>(), windowH_ = v[1].get<int>();
            windowWait_ = 60;  // frames to wait for the window manager at most
            app.resizeWindow(windowW_, windowH_);
            break;
        case Verb::Mark:
            if (v.is_object() && v.contains("vertex") &&
                !vertexInScenes(s, a.side, v["vertex"].get<int>(), err))
                return fail(app, a, err);
            applyMark(s, v, a.side);
            break;
        case Verb::Caption:
            s.caption = v.get<std::string>();
            break;
        case Verb::Plot:
            s.perFramePlot = plotNamed(v.get<std::string>());
            break;
        case Verb::Pause:
            pauseUntil_ = wallSeconds() + v.get<double>();
            break;
        case Verb::Fault:
            app.injectDeviceLost(v.get<std::string>() == "device_gone");
            break;
        case Verb::Throw:
            // Thrown boxes join the World before its next step: a playing run's next action (or its end)
            // waits for that step, as after a `step` (held at this frame, they would never join).
            s.throwRequests += v.get<int>();
            if (s.timeline.playing) {
                waitFrame_ = app.sim().frame() + 1;
                app.sim().setGate(Gate::Actions, waitFrame_);
            }
            break;
        case Verb::Cursor:
            if (v.is_string())
                app.setCursor(-FLT_MAX, -FLT_MAX);
            else
                app.setCursor(v[0].get<float>(), v[1].get<float>());
            break;
        case Verb::Quit:
            app.stopRecording();
            reportDone(app, "");
            app.quit(0);
            break;
    }
    return true;
}

}  // namespace vbdgui
