// Keys and mouse over the 3D view: play/pause/step/reset, camera orbit/pan/zoom, shift-drag picking with a
// spring, and the heat-map value of the vertex under the mouse.
#include <algorithm>

#include <imgui.h>

#include "gui/app.h"
#include "render/picking.h"

namespace vbdgui {

namespace {

vbd::Vec3 toVec(const glm::vec3& v) { return {v.x, v.y, v.z}; }

}  // namespace

void GuiApp::handleKeys() {
    if (ImGui::GetIO().WantCaptureKeyboard) return;
    TimelineState& t = app_.timeline;
    if (ImGui::IsKeyPressed(GLFW_KEY_SPACE)) t.playing = !t.playing;
    if (ImGui::IsKeyPressed(GLFW_KEY_N) || ImGui::IsKeyPressed(GLFW_KEY_S))
        t.stepRequests++, t.playing = false;
    if (ImGui::IsKeyPressed(GLFW_KEY_R)) t.resetRequest = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_F)) app_.frameRequest = true;
    if (ImGui::IsKeyPressed(GLFW_KEY_B)) app_.throwRequests++;
    if (ImGui::IsKeyPressed(GLFW_KEY_V)) app_.rec.toggleRequest = true;
    // Back / forward one frame through the history.
    if (ImGui::IsKeyPressed(GLFW_KEY_LEFT) && sim_.frame() > t.info.oldest)
        t.restoreRequest = sim_.frame() - 1;
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT) && sim_.frame() < t.info.newest)
        t.restoreRequest = sim_.frame() + 1;
}

void GuiApp::handleInput() {
    handleKeys();
    if (app_.rec.toggleRequest) {
        app_.rec.toggleRequest = false;
        if (app_.rec.on)
            stopRecording();
        else
            startRecording();
    }
    ImGuiIO& io = ImGui::GetIO();
    const Layout& lay = app_.layout;
    const float mx = io.MousePos.x, my = io.MousePos.y;
    const bool inView =
        mx >= lay.viewX && mx < lay.viewX + lay.viewW && my >= lay.viewY && my < lay.viewY + lay.viewH;
    const int labs = app_.compare ? 2 : 1;
    const float subW = lay.viewW / float(labs);
    const int labUnder = std::clamp(int((mx - lay.viewX) / subW), 0, labs - 1);
    app_.hover = {};
    hoverRay_[0] = hoverRay_[1] = std::nullopt;
    if (!io.WantCaptureMouse && inView) {
        if (io.MouseWheel != 0) app_.camera.zoom(io.MouseWheel);
        if (ImGui::IsMouseClicked(0) && io.KeyShift) handlePick(labUnder, mx, my);
        if (!app_.pick.active) updateHover(labUnder, mx, my);
    }
    if (app_.pick.active) {
        updateDrag(mx, my);
        return;
    }
    if (!io.WantCaptureMouse && inView) {
        if (ImGui::IsMouseDragging(0) && !io.KeyShift)
            app_.camera.orbit(-io.MouseDelta.x * 0.008f, io.MouseDelta.y * 0.008f);
        if (ImGui::IsMouseDragging(1) || ImGui::IsMouseDragging(2))
            app_.camera.pan(io.MouseDelta.x, io.MouseDelta.y, lay.viewH);
    }
}

// The picked vertex or body follows the cursor with a spring until the button is released.
void GuiApp::updateDrag(float mx, float my) {
    PickState& pk = app_.pick;
    Lab& lab = app_.labs[pk.lab];
    if (!ImGui::IsMouseDown(0) || !lab.world) {
        if (lab.world) {
            if (pk.particle >= 0) lab.world->setDrag(-1, {}, 0);
            if (pk.body >= 0) lab.world->setBodyDrag(-1, {}, {}, 0);
        }
        pk.active = false;
        lab.draw.drag = false;
        return;
    }
    // The target stays at the grab depth along the current cursor ray (a plane facing the camera).
    const Layout& lay = app_.layout;
    const float subW = lay.viewW / float(app_.compare ? 2 : 1);
    const Ray r = app_.camera.ray(mx - lay.viewX - subW * float(pk.lab), my - lay.viewY, subW, lay.viewH);
    pk.target = r.origin + pk.depth * r.dir;
    glm::vec3 from;
    if (pk.particle >= 0) {
        if (size_t(pk.particle) >= lab.world->numParticles()) {  // the World was replaced mid-drag
            pk.active = false;
            lab.draw.drag = false;
            return;
        }
        lab.world->setDrag(pk.particle, toVec(pk.target), pk.stiffness);
        const vbd::Vec3 x = lab.world->particlePosition(pk.particle);
        from = {x.x, x.y, x.z};
    } else {
        if (size_t(pk.body) >= lab.world->numBodies()) {  // the World was replaced mid-drag
            pk.active = false;
            lab.draw.drag = false;
            return;
        }
        lab.world->setBodyDrag(pk.body, toVec(pk.grabLocal), toVec(pk.target), pk.stiffness);
        auto b = lab.world->bodies()[size_t(pk.body)];
        vbd::Vec3 w = b.position + vbd::rotate(b.rotation, toVec(pk.grabLocal));
        from = {w.x, w.y, w.z};
    }
    lab.draw.drag = true;
    lab.draw.dragFrom = from;
    lab.draw.dragTo = pk.target;
}

void GuiApp::handlePick(int labUnder, float mx, float my) {
    Lab& lab = app_.labs[labUnder];
    if (!lab.world) return;
    const Layout& lay = app_.layout;
    const float subW = lay.viewW / float(app_.compare ? 2 : 1);
    const Ray ray = app_.camera.ray(mx - lay.viewX - subW * float(labUnder), my - lay.viewY, subW, lay.viewH);
    const PickHit hit = pick(*lab.world, ray);
    if (hit.particle < 0 && hit.body < 0) return;
    PickState& pk = app_.pick;
    pk.active = true;
    pk.lab = labUnder;
    pk.particle = hit.particle;
    if (hit.particle >= 0) app_.inspectParticle = hit.particle;
    pk.body = hit.body;
    pk.depth = hit.t;
    pk.anchor = pk.target = hit.point;
    if (hit.body >= 0) {
        auto b = lab.world->bodies()[size_t(hit.body)];
        const vbd::Vec3 local = vbd::rotateInv(b.rotation, toVec(hit.point) - b.position);
        pk.grabLocal = {local.x, local.y, local.z};
    }
}

// The vertex under the mouse and its heat-map value (the raw field, not the colour).
void GuiApp::updateHover(int labUnder, float mx, float my) {
    const Lab& lab = app_.labs[labUnder];
    if (!lab.world || lab.draw.field == vbd::ScalarField::None) return;
    const Layout& lay = app_.layout;
    const float subW = lay.viewW / float(app_.compare ? 2 : 1);
    const Ray ray = app_.camera.ray(mx - lay.viewX - subW * float(labUnder), my - lay.viewY, subW, lay.viewH);
    // A World stepping on the device casts the ray where its state is, with each step (World::setSurfaceRay),
    // and the snapshot carries the hit: the readout of a cursor over a playing scene reads no positions. The
    // ray goes to the simulation thread with this frame's commands, so a snapshot's hit is of a ray sent a
    // frame or more ago: it is taken when it is this frame's ray, or, while the scene plays, when the frame
    // is new and its ray one of the last few sent (a moving cursor's readout trails it by a frame). Over a
    // scene playing on the device the readout otherwise waits for the next frame's cast, up to kHoverRepick
    // or four of the lab's last step times, whichever is longer (a run held at a scripted action's frame
    // steps no further; a heavy scene, or a loaded machine, steps slowly, and its cast comes with its next
    // frame). Otherwise the pick casts the ray over every position (on a device World they come to the host
    // for it, once per snapshot): when the ray or the World changed, and for a cursor resting over a scene
    // playing on the CPU at most every kHoverRepick (the vertex's value follows the field every frame
    // meanwhile; the scene moves little under the cursor in a quarter of a second).
    constexpr std::chrono::milliseconds kHoverRepick(250);
    constexpr size_t kRaysKept = 8;
    const vbd::SurfaceRay sent = surfaceRay(ray);
    hoverRay_[labUnder] = sent;
    std::vector<vbd::SurfaceRay>& rays = sentRays_[labUnder];
    if (rays.empty() || rays.back() != sent) rays.push_back(sent);
    if (rays.size() > kRaysKept) rays.erase(rays.begin());
    HoverPick& last = hoverPick_;
    const auto now = Clock::now();
    const std::uint64_t generation = lab.world->generation();
    const int frame = lab.world->frame();
    const bool playing = app_.timeline.playing;
    const bool sameTarget = labUnder == last.lab && generation == last.generation;
    const bool answered = !last.pending && sameTarget && ray.origin == last.origin && ray.dir == last.dir &&
                          (frame == last.frame || now - last.at < kHoverRepick);
    const auto cast = lab.world->castSurfaceHit();
    const bool castNow = cast && cast->ray == sent;
    const bool castRecent = cast && playing && sameTarget && frame != last.frame &&
                            std::find(rays.begin(), rays.end(), cast->ray) != rays.end();
    if (castNow || castRecent) {
        last = {ray.origin, ray.dir, labUnder, pick(*lab.world, rayOf(cast->ray), cast->hit).particle,
                generation, frame,   now};
    } else if (answered) {
        // The readout stands.
    } else if (lab.world->deviceParticles().x && playing &&
               (!last.pending ||
                now - last.waitFrom <
                    std::max<Clock::duration>(
                        kHoverRepick, std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double, std::milli>(4 * lab.stepMs))))) {
        // The next frame's snapshot brings the hit. Meanwhile the readout stays, unless it was of another
        // World or lab.
        if (!sameTarget) last = {ray.origin, ray.dir, labUnder, -1, generation, frame, now};
        if (!last.pending) last.waitFrom = now;
        last.pending = true;
    } else {
        ++hoverHostCasts_;  // no cast of this ray in the snapshot: pick() casts it over the positions
        last = {ray.origin, ray.dir, labUnder, pick(*lab.world, ray).particle, generation, frame, now};
    }
    if (last.particle < 0 || size_t(last.particle) >= lab.world->numParticles()) return;
    app_.hover.lab = labUnder;
    app_.hover.particle = last.particle;
    const auto& values = lab.world->fieldValues();
    if (size_t(last.particle) < values.size()) {
        app_.hover.value = values[size_t(last.particle)];
        app_.hover.hasValue = true;
    }
}

}  // namespace vbdgui
