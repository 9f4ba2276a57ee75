// Scenes and Worlds: what the panels and actions ask for (load, settings, reset, side by side, thrown
// boxes, timeline) handed to the simulation thread, and what it publishes picked up for drawing.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "gui/app.h"
#include "math/error.h"
#include "render/world_source.h"
#include "scene/scene.h"

namespace vbdgui {

namespace {

// Leave one hardware thread to the renderer (lavapipe rasterises on the CPU too) unless the scene sets a
// thread count itself: on two cores this made both the frame rate and the step faster (less contention).
vbd::SolverDesc guiSolver(vbd::SolverDesc s) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    if (s.threads == 0) s.threads = int(hw > 1 ? hw - 1 : 1);
    return s;
}

vbd::SceneDesc guiDesc(vbd::SceneDesc d) {
    d.solver = guiSolver(d.solver);
    return d;
}

int sceneIndexOf(const std::vector<std::string>& files, const std::string& path) {
    std::error_code ec;
    for (size_t i = 0; i < files.size() && !path.empty(); ++i)
        if (std::filesystem::equivalent(files[i], path, ec)) return int(i);
    return -1;
}

}  // namespace

// A scene that fails to load shows its error in the panel and the built-in scene runs instead; in a scripted
// run it is bad input: exit code 2 (so is one that loads but whose World is refused: handleEvent).
bool GuiApp::loadInitialScene() {
    app_.sceneFiles = listScenes();
    const std::string path = opt_.scene.empty() ? defaultScenePath() : opt_.scene;
    Lab& lab = app_.labs[0];
    lab.desc = defaultScene();
    if (!path.empty()) {
        try {
            lab.desc = vbd::loadSceneFile(path);
            lab.scene = SceneSettings(path);
            app_.scenePath = path;
        } catch (const vbd::InputError& e) {
            std::fprintf(stderr, "vbdlab: error: %s\n", e.what());
            if (scripted()) return false;
            app_.sceneError = e.what();
            app_.sceneErrorLabel = "scene error";
            lab.desc = defaultScene();
            keepSceneError_ = true;
        }
    }
    app_.sceneIndex = sceneIndexOf(app_.sceneFiles, app_.scenePath);
    applySceneView(lab.desc, app_.camera);
    lab.rebuild = Lab::Rebuild::Restart;
    app_.labs[1].label = "right";
    return true;
}

bool GuiApp::loadSceneFile(const std::string& path, std::string& error) {
    SceneSettings s(path);
    vbd::SceneDesc desc = defaultScene();
    if (!path.empty()) {
        try {
            desc = s.resolve();
            // A body below the ground, a quaternion normalized: said as `vbdlab sim` says them.
            for (const auto& w : vbd::lastSceneWarnings())
                std::fprintf(stderr, "vbdlab: warning: %s\n", w.c_str());
        } catch (const vbd::InputError& e) {
            error = e.what();
            app_.sceneError = error;  // the current scene keeps running
            app_.sceneErrorLabel = "scene error";
            std::fprintf(stderr, "vbdlab: %s (keeping the current scene)\n", error.c_str());
            return false;
        }
    }
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        Lab& lab = app_.labs[l];
        lab.scene = s;
        lab.desc = desc;
        lab.thrown.clear();
        lab.throwAfterBuild.clear();
        lab.rebuild = Lab::Rebuild::Restart;
    }
    pendingScene_ = path;
    pendingLoadTicket_ = ~std::uint64_t(0);  // set to lab 0's ticket by rebuildLabs
    app_.frameRequest = true;
    app_.frameInitialState = true;
    applySceneView(desc, app_.camera);
    app_.inspectParticle = -1;
    return true;
}

bool GuiApp::applySettings(int which, const std::vector<std::pair<std::string, std::string>>& kv,
                           std::string& error) {
    for (int l = 0; l < 2; ++l) {
        if ((which == 0 && l == 1) || (which == 1 && l == 0) || (l == 1 && !app_.compare)) continue;
        Lab& lab = app_.labs[l];
        SceneSettings s = lab.scene;
        bool rebuild = false;
        for (const auto& [key, value] : kv) {
            const std::string base = fileValue(s.file(), key);
            s.set(key, value, base);
            rebuild |= needsRebuild(key);
        }
        try {
            lab.desc = s.resolve();  // the engine's --set machinery: every panel edit is a setting too
            for (const auto& b : lab.thrown) lab.desc.rigidBodies.push_back(b);
        } catch (const vbd::InputError& e) {
            error = e.what();
            return false;
        }
        lab.scene = s;
        if (rebuild)
            lab.rebuild = Lab::Rebuild::Carry;
        else
            lab.solverDirty = true;
    }
    return true;
}

void GuiApp::setCompare(bool on) {
    app_.compare = on;
    Lab &a = app_.labs[0], &b = app_.labs[1];
    if (on) {
        // The right side starts as a copy of the left; both restart so that they step in lockstep.
        b.scene = a.scene;
        b.desc = a.desc;
        b.thrown = a.thrown;
        b.draw = a.draw;
        a.rebuild = b.rebuild = Lab::Rebuild::Restart;
        app_.frameRequest = true;
        app_.frameInitialState = true;
    } else {
        lastTicket_ = sim_.setWorld(1, nullptr);
        b.world.reset();
        dropLabGpu(1);
        b.gpuGeneration = 0;
    }
}

void GuiApp::applyRequests() {
    if (app_.loadRequest) {
        app_.loadRequest = false;
        std::string err;
        loadSceneFile(app_.loadPath, err);
    }
    if (app_.compareRequest) {
        app_.compareRequest = false;
        setCompare(app_.compare);
    }
    if (app_.timeline.resetRequest) {
        app_.timeline.resetRequest = false;
        for (int l = 0; l < (app_.compare ? 2 : 1); ++l) app_.labs[l].rebuild = Lab::Rebuild::Restart;
    }
    throwBoxes();
    rebuildLabs();
    applyTimeline();
    if (app_.frameRequest && app_.labs[0].world && !worldsSettling()) {
        glm::vec3 lo, hi;
        const WorldSnapshot& w = *app_.labs[0].world;
        if (app_.frameInitialState)
            sceneBounds(w.fixedData().initialPositions, w.fixedData().initialBodies, w.desc(), lo, hi);
        else
            sceneBounds(w, lo, hi);
        app_.frameInitialState = false;
        frameBox(lo, hi);
        app_.frameRequest = false;
        app_.framing.framesLeft = 4;
    } else if (app_.framing.framesLeft > 0 && !app_.framing.confirmed) {
        AppState::Framing& f = app_.framing;
        const OrbitCamera& c = app_.camera;
        const bool untouched = c.target == f.camera.target && c.distance == f.camera.distance &&
                               c.yaw == f.camera.yaw && c.pitch == f.camera.pitch;
        if (untouched) {
            --f.framesLeft;
            frameBox(f.lo, f.hi);
        } else {
            f.framesLeft = 0;  // the user's camera now
        }
    }
}

void GuiApp::frameBox(const glm::vec3& lo, const glm::vec3& hi) {
    const Layout& l = app_.layout;
    app_.camera.frame(lo, hi, l.viewW / float(app_.compare ? 2 : 1) / std::max(l.viewH, 1.0f),
                      app_.overlayBottom / std::max(l.viewH, 1.0f),
                      app_.overlayTop / std::max(l.viewH, 1.0f));
    const int left = app_.framing.framesLeft;
    app_.framing = {left, false, app_.camera, lo, hi, app_.overlayBottom, app_.overlayTop};
}

// A box thrown from the camera joins the running World (World::addRigidBody, applied by the simulation
// thread before its next step), leaving along the view direction at 8 m/s. Boxes thrown in one frame (the
// `throw` action's n) leave side by side across the view, 0.6 m apart, not inside each other.
void GuiApp::throwBoxes() {
    const int n = app_.throwRequests;
    for (; app_.throwRequests > 0; --app_.throwRequests) {
        const glm::vec3 eye = app_.camera.eye(), dir = glm::normalize(app_.camera.target - eye);
        glm::vec3 across = glm::cross(dir, glm::vec3(0, 1, 0));
        across = glm::length(across) > 1e-6f ? glm::normalize(across) : glm::vec3(1, 0, 0);  // looking down
        const float slot = float(n - app_.throwRequests) - 0.5f * float(n - 1);
        vbd::RigidBodyDesc b;
        b.key = "rigid_bodies[" + std::to_string(app_.labs[0].desc.rigidBodies.size()) + "]";
        b.size = {0.4f, 0.4f, 0.4f};
        glm::vec3 p = eye + 0.6f * app_.camera.distance * dir + 0.6f * slot * across;
        b.position = {p.x, p.y, p.z};
        b.velocity = {8 * dir.x, 8 * dir.y, 8 * dir.z};
        for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
            Lab& lab = app_.labs[l];
            lab.desc.rigidBodies.push_back(b);  // so that a reset keeps it
            lab.thrown.push_back(b);
            if (!lab.world)
                lab.rebuild = Lab::Rebuild::Restart;
            else if (postedBuildTicket_[l] > seenTicket_)
                lab.throwAfterBuild.push_back(b);  // the World in flight lacks it (Lab::throwAfterBuild)
            else
                lab.world->addRigidBody(b);
        }
    }
}

// Every lab's rebuild in one command with the lab count (SimRunner::rebuild): side by side, the two Worlds
// are installed before any step and stay in lockstep. Labs not rebuilt go along as Keep, with the desc a
// restart would build (a carry on one side that does not take restarts both).
void GuiApp::rebuildLabs() {
    const int labs = app_.compare ? 2 : 1;
    std::vector<LabBuild> builds;
    bool any = false;
    for (int l = 0; l < labs; ++l) {
        Lab& lab = app_.labs[l];
        LabBuild b;
        b.lab = l;
        b.desc = guiDesc(lab.desc);
        b.mode = lab.rebuild == Lab::Rebuild::None    ? LabBuild::Keep
                 : lab.rebuild == Lab::Rebuild::Carry ? LabBuild::Carry
                                                      : LabBuild::Restart;
        any |= b.mode != LabBuild::Keep;
        builds.push_back(std::move(b));
    }
    if (!any) return;
    // A restarted run is recorded from its frame 0 (recordCaptureDue): held before the rebuild is posted.
    if (app_.rec.on) sim_.setGate(Gate::Recorder, 0);
    lastTicket_ = sim_.rebuild(std::move(builds), labs);
    if (app_.rec.on) app_.rec.await(lastTicket_, false);
    if (app_.labs[0].rebuild != Lab::Rebuild::None && pendingLoadTicket_ == ~std::uint64_t(0))
        pendingLoadTicket_ = lastTicket_;
    for (int l = 0; l < labs; ++l) {
        Lab& lab = app_.labs[l];
        if (lab.rebuild == Lab::Rebuild::None) continue;
        postedBuildTicket_[l] = lastTicket_;
        postedBuildScene_[l] = lab.scene;
        lab.rebuild = Lab::Rebuild::None;
        lab.solverDirty = false;  // the new World is built with the current solver settings
    }
}

void GuiApp::applyTimeline() {
    TimelineState& t = app_.timeline;
    const int labs = app_.compare ? 2 : 1;
    sim_.setActive(labs);
    // A take is held at its frame until the restored frame is shown (recordCaptureDue): a replay plays on
    // from the oldest frame at once, and those frames would be lost to it.
    if (app_.rec.on && (t.restoreRequest >= 0 || t.replayRequest)) sim_.setGate(Gate::Recorder, 0);
    if (t.restoreRequest >= 0) {
        lastTicket_ = sim_.restore(t.restoreRequest);
        t.restoreRequest = -1;
        t.playing = false;  // scrubbing shows a frame; play goes on from it
        if (app_.rec.on) app_.rec.await(lastTicket_, true);
    }
    if (t.replayRequest) {
        t.replayRequest = false;
        lastTicket_ = sim_.restore(t.info.oldest);
        t.playing = true;
        if (app_.rec.on) app_.rec.await(lastTicket_, true);
    }
    if (t.budgetDirty) {
        t.budgetDirty = false;
        lastTicket_ = sim_.setHistoryBudget(size_t(std::max(t.historyMB, 16)) << 20);
    }
    sim_.setPlaying(t.playing);
    sim_.setSpeed(t.speed);
    if (t.stepRequests > 0) sim_.requestSteps(t.stepRequests);
    t.stepRequests = 0;
    if (postedInspect_ != app_.inspectParticle) {
        lastTicket_ = sim_.inspect(app_.inspectParticle);
        postedInspect_ = app_.inspectParticle;
    }
    for (int l = 0; l < labs; ++l) {
        if (postedContacts_[l] == app_.labs[l].draw.contacts) continue;
        lastTicket_ = sim_.showContacts(l, app_.labs[l].draw.contacts);
        postedContacts_[l] = app_.labs[l].draw.contacts;
    }
    for (int l = 0; l < labs; ++l) {
        Lab& lab = app_.labs[l];
        if (lab.solverDirty && lab.world) {
            lab.world->setSolver(guiSolver(lab.desc.solver));  // queued for the worker's next step
            lab.solverDirty = false;
        }
        if (postedField_[l] != lab.draw.field) {
            lastTicket_ = sim_.setField(l, lab.draw.field);  // computed now, also while paused
            postedField_[l] = lab.draw.field;
        }
    }
}

// The lab's buffers for its current snapshot's World, with the window's interop when the World steps the
// soft bodies on the CUDA device the window draws with (else the reason is in vertexLine()).
void GuiApp::makeLabGpu(int l) {
    Lab& lab = app_.labs[l];
    dropLabGpu(l);
    lab.gpu = std::make_unique<SceneGpu>(*ctx_, *lab.world, kFramesInFlight, true, true);
    lab.gpuGeneration = lab.world->generation();
    lab.gpuBackend = lab.world->backendLine();
    if (lab.gpu->vertexLine() != lab.vertexLine) {  // the status line shows it too; stderr for scripted runs
        lab.vertexLine = lab.gpu->vertexLine();
        std::fprintf(stderr, "vbdlab: window (%s): %s\n", lab.label.c_str(), lab.vertexLine.c_str());
    }
    if (auto writer = lab.gpu->windowWriter()) {
        lab.link = std::make_shared<WindowVertexLink>(lab.gpuGeneration, std::move(writer),
                                                      int(kWindowInteropSlots));
        sim_.setVertexLink(l, lab.link);
    }
}

// The simulation thread stops writing (detach: under the link's mutex) before the writer and the Vulkan
// buffers it writes go (SceneGpu's destructor: CUDA's imports first, then Vulkan waits idle).
void GuiApp::dropLabGpu(int l) {
    Lab& lab = app_.labs[l];
    sim_.setVertexLink(l, nullptr);
    if (lab.link) lab.link->detach();
    lab.link.reset();
    lab.gpu.reset();
}

// Boxes thrown while the lab's rebuild was in flight join the World its answer left (installed or kept): the
// lab's commands queued now reach that World's next step.
void GuiApp::addThrownAfterBuild(Lab& lab) {
    for (const auto& b : lab.throwAfterBuild)
        if (lab.world) lab.world->addRigidBody(b);
    lab.throwAfterBuild.clear();
}

void GuiApp::pollSimulation() {
    // Snapshots are published before their request's ticket is marked applied: read the ticket first, and
    // the snapshots taken next reflect at least that much.
    seenTicket_ = sim_.appliedTicket();
    for (int l = 0; l < 2; ++l) {
        Lab& lab = app_.labs[l];
        auto snap = sim_.snapshot(l);
        if (!snap || (l == 1 && !app_.compare)) continue;
        if (lab.world && lab.world != snap) {
            ++snapshotsShown_;
            snapshotsRead_ += lab.world->positionsRead();
        }
        if (snap->generation() != lab.gpuGeneration) {
            lab.world = snap;
            makeLabGpu(l);
            lab.recent.clear();
            lab.shownFrame = -1;
        } else if (snap->backendLine() != lab.gpuBackend) {
            lab.world = snap;  // solver.backend or precision changed: the interop's checks again
            makeLabGpu(l);
        }
        lab.world = snap;
        // The slot of the frame drawn next is kept from the writer until that draw: the render thread blocks
        // in the swapchain's acquire in between (gui/core/interop_slots.h).
        if (lab.link) lab.link->slots().take(snap->interopFrame());
        lab.stepMs = sim_.lastStepMs(l);
        if (snap->frame() != lab.shownFrame) {
            if (snap->frame() < lab.shownFrame) lab.recent.clear();  // went back in time
            lab.shownFrame = snap->frame();
            if (!snap->lastConvergence().empty()) lab.recent.push_back(snap->lastConvergence());
            while (lab.recent.size() > size_t(kRecentFrames)) lab.recent.pop_front();
        }
    }
    for (const SimEvent& e : sim_.takeEvents()) handleEvent(e);
    app_.timeline.info = sim_.timeline();
    app_.timeline.realTime = sim_.realTimeRatio();
    app_.timing.simMs = sim_.lastTickMs();
    app_.timing.simHostMs = sim_.lastHostMs();
}

void GuiApp::handleEvent(const SimEvent& e) {
    Lab& lab = app_.labs[e.lab];
    switch (e.kind) {
        case SimEvent::WorldReady:
            lab.note = e.message;
            if (app_.rec.on && !e.carried) app_.rec.restarted = true;  // a new run: a new take
            if (e.ticket == postedBuildTicket_[e.lab]) {
                lab.builtScene = postedBuildScene_[e.lab];
                lab.builtSceneValid = true;
                addThrownAfterBuild(lab);
            }
            if (e.ticket == pendingLoadTicket_) {
                app_.scenePath = pendingScene_;
                app_.sceneIndex = sceneIndexOf(app_.sceneFiles, app_.scenePath);
                pendingLoadTicket_ = 0;
            }
            if (!keepSceneError_) app_.sceneError.clear();
            keepSceneError_ = false;
            break;
        case SimEvent::WorldRefused:
            if (scripted() && !e.secondary) ++refusedInScript_;
            // The previous World keeps running; its description is what the panels show again. A secondary
            // refusal (the other side's World was refused) keeps that one's reason on the panel.
            if (!e.secondary) app_.sceneError = e.message, app_.sceneErrorLabel = "scene error";
            std::fprintf(stderr, "vbdlab: %s%s\n", e.message.c_str(),
                         lab.world ? " (keeping the current scene)" : "");
            if (lab.world) {
                lab.desc = lab.world->desc();
                // The settings go back to the running World's: its build's, with the solver settings edited
                // since (they steer the World without a rebuild) but the refused one. Kept, the refused edit
                // stayed in the lab's settings: every later rebuild carried it, and the exit line named it.
                if (lab.builtSceneValid) {
                    SceneSettings back = lab.builtScene;
                    if (lab.scene.file() ==
                        back.file())  // not a refused load: its settings are of another file
                        for (const Setting& st : lab.scene.all())
                            if (st.key.rfind("solver.", 0) == 0 && st.key != e.key)
                                back.set(st.key, st.value, st.base);
                    lab.scene = back;
                }
            }
            if (e.ticket == postedBuildTicket_[e.lab]) addThrownAfterBuild(lab);  // into the World kept
            if (e.ticket == pendingLoadTicket_) pendingLoadTicket_ = 0;
            if (e.lab == 0 && !lab.world) {
                // The first scene loaded but its World was refused (a mesh TetGen cannot fill, a backend
                // that cannot run): nothing runs. A scripted run would wait for frames that never come (it
                // spun for ever): bad input, exit code 2. Interactively the built-in scene runs instead, as
                // for a scene that does not load, with the reason on the panel.
                if (scripted()) {
                    std::fprintf(stderr, "vbdlab: error: the scene cannot run (exit code 2)\n");
                    quit(2);
                    break;
                }
                if (keepSceneError_) break;  // the built-in scene itself was refused: nothing else to try
                lab.scene = SceneSettings();
                lab.desc = defaultScene();
                lab.rebuild = Lab::Rebuild::Restart;
                app_.scenePath.clear();
                app_.sceneIndex = -1;
                keepSceneError_ = true;
                break;
            }
            if (e.lab == 1 && !lab.world && app_.compare) {
                // Side by side was turned on and its right World refused: one side, as before (waiting for
                // a right World that never comes kept the UI settling, and a script waiting, for ever).
                std::fprintf(stderr, "vbdlab: side by side is off again\n");
                setCompare(false);
            }
            break;
        case SimEvent::SettingsRefused:
            if (scripted()) ++refusedInScript_;
            // The World kept its settings and goes on: the panels show them again, and the lab's settings no
            // longer hold the refused value (every later rebuild of the lab would be refused for it).
            app_.sceneError = e.message;
            app_.sceneErrorLabel = "setting refused";
            std::fprintf(stderr, "vbdlab: %s (keeping the current settings)\n", e.message.c_str());
            if (lab.world) {
                lab.desc.solver = lab.world->desc().solver;
                lab.scene.revertRefused(e.key, lab.desc.solver);
            }
            break;
        case SimEvent::StepFailed:
            app_.sceneError = e.message;
            app_.sceneErrorLabel = "step failed";
            app_.timeline.playing = false;
            std::fprintf(stderr, "vbdlab: error: %s (paused)\n", e.message.c_str());
            if (lab.world) lab.desc.solver = lab.world->desc().solver;  // the World kept its settings
            // A scripted run would wait for frames that no longer come: it ends here (exit code 1).
            if (actions_ || opt_.autoplay) quit(1);
            break;
    }
}

// This frame's drawing options: one colour scale for both sides of a side-by-side run (the union of their
// ranges) unless the user set or locked a range, so that one colour means one value in both views.
void GuiApp::prepareDrawOptions() {
    const int labs = app_.compare ? 2 : 1;
    for (int l = 0; l < labs; ++l) {
        Lab& lab = app_.labs[l];
        effectiveDraw_[l] = lab.draw;
        effectiveDraw_[l].highlightParticle = app_.pick.active ? app_.pick.particle : app_.inspectParticle;
        if (lab.world) {
            // The particles read one by one (World::particlePosition): watched, so that a device World
            // gathers them instead of the window bringing every position to the host for them.
            std::vector<int> watch;
            if (app_.pick.active && app_.pick.lab == l && app_.pick.particle >= 0)
                watch.push_back(app_.pick.particle);
            if (app_.inspectParticle >= 0) watch.push_back(app_.inspectParticle);
            for (const Mark& m : app_.marks)
                if (m.kind == Mark::Kind::Vertex && m.vertex >= 0 && (m.lab < 0 || m.lab == l))
                    watch.push_back(m.vertex);
            if (lab.draw.regions && lab.draw.field == vbd::ScalarField::None)  // overlay.cpp regionLabels
                for (int anchor : lab.world->fixedData().regionAnchors)
                    if (anchor >= 0) watch.push_back(anchor);
            lab.world->watch(watch);
            lab.world->castRay(hoverRay_[l]);
            if (!hoverRay_[l]) sentRays_[l].clear();  // a hit of an earlier hover is not this one's
        }
        lab.range = {};
        if (lab.world && lab.draw.field != vbd::ScalarField::None &&
            lab.draw.field != vbd::ScalarField::Color) {
            lab.range = fieldRange(lab.world->fieldValues(), lab.draw.logScale);
        }
    }
    const Lab &a = app_.labs[0], &b = app_.labs[1];
    app_.sharedScaleOn = false;
    if (labs == 2 && app_.sharedScale && a.draw.field == b.draw.field && a.draw.logScale == b.draw.logScale &&
        a.draw.autoRange && b.draw.autoRange && a.range.valid && b.range.valid) {
        app_.sharedScaleOn = true;
        for (auto& d : effectiveDraw_) {
            d.autoRange = false;
            d.rangeMin = std::min(a.range.lo, b.range.lo);
            d.rangeMax = std::max(a.range.hi, b.range.hi);
        }
    }
    // The legend's range, of this frame's snapshot and options (the buffers' range is of the last update,
    // which runs after the UI is built: a frame behind, and none for buffers made this frame).
    for (int l = 0; l < labs; ++l) {
        Lab& lab = app_.labs[l];
        const DrawOptions& d = effectiveDraw_[l];
        lab.legend = {};
        if (!lab.world || d.field == vbd::ScalarField::None || lab.world->fieldValues().empty()) continue;
        lab.legend = heatRange(
            lab.range, {d.field, d.logScale, d.autoRange, d.rangeMin, d.rangeMax, lab.world->numColors()});
    }
}

int GuiApp::shownFrame() const {
    if (!app_.labs[0].world) return -1;
    const int f = app_.labs[0].world->frame();
    if (app_.compare && (!app_.labs[1].world || app_.labs[1].world->frame() != f)) return -1;
    return f;
}

bool GuiApp::settling() const {
    return worldsSettling() || app_.frameRequest || (app_.framing.framesLeft > 0 && !app_.framing.confirmed);
}

bool GuiApp::worldsSettling() const {
    if (seenTicket_ < lastTicket_) return true;
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l) {
        const Lab& lab = app_.labs[l];
        if (lab.rebuild != Lab::Rebuild::None || !lab.world) return true;
        if (lab.world->generation() != lab.gpuGeneration || lab.world->field() != lab.draw.field) return true;
    }
    return false;
}

}  // namespace vbdgui
