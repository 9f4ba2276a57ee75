// Recording takes. A take is frame exact: it holds one image per simulation frame (or per `every` frames),
// because the recorder gates the simulation thread at the next frame it must capture (SimRunner::setGate)
// and captures that frame's snapshot, however slowly the images are written. Each take goes into a new
// numbered folder (recording/take_003/) as a PNG per frame named by its simulation frame, or as an MP4
// piped through ffmpeg at a fixed output rate (real time by default: 1 / (dt x every)); take.json says
// what it holds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "gui/app.h"
#include "gui/core/takes.h"
#include "render/image_io.h"

namespace vbdgui {

namespace fs = std::filesystem;

namespace {

bool ffmpegOnPath() { return std::system("command -v ffmpeg > /dev/null 2>&1") == 0; }

// Nearest-neighbour resample (an MP4 keeps the size of its first frame if the window is resized).
Pixels resized(const Pixels& p, uint32_t w, uint32_t h) {
    Pixels out;
    out.width = w;
    out.height = h;
    out.rgba.resize(size_t(w) * h * 4);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const uint8_t* s =
                p.at(uint32_t(uint64_t(x) * p.width / w), uint32_t(uint64_t(y) * p.height / h));
            std::copy(s, s + 4, &out.rgba[(size_t(y) * w + x) * 4]);
        }
    return out;
}

double outputFps(const RecordState& rec, double dt) {
    if (rec.settings.fps > 0) return rec.settings.fps;
    return dt > 0 ? 1.0 / (dt * rec.settings.every) : 60.0;
}

}  // namespace

void GuiApp::startRecording(int fromFrame) {
    RecordState& rec = app_.rec;
    const RecordSettings& s = rec.settings;
    if (rec.ffmpeg < 0) rec.ffmpeg = ffmpegOnPath() ? 1 : 0;
    rec.mp4 = s.format == VideoFormat::Mp4 || (s.format == VideoFormat::Auto && rec.ffmpeg == 1);
    if (rec.mp4 && rec.ffmpeg != 1) {
        rec.mp4 = false;
        std::fprintf(stderr, "vbdlab: ffmpeg is not on PATH: recording PNG images instead of MP4\n");
    }
    rec.takeDir = nextTakeFolder(s.dir);
    std::error_code ec;
    fs::create_directories(rec.takeDir, ec);
    if (ec) {
        rec.status = "cannot create " + rec.takeDir + ": " + ec.message();
        std::fprintf(stderr, "vbdlab: %s\n", rec.status.c_str());
        return;
    }
    rec.on = true;
    rec.reveal = true;
    rec.nextFrame = fromFrame >= 0 ? fromFrame : sim_.frame();
    rec.written = 0;
    rec.firstFrame = rec.lastFrame = -1;
    rec.scene = app_.scenePath;
    rec.dt = app_.labs[0].desc.dt;
    rec.viewAspect = app_.layout.viewW / float(app_.compare ? 2 : 1) / std::max(app_.layout.viewH, 1.0f);
    sim_.setGate(Gate::Recorder, rec.nextFrame);
    rec.status = "recording into " + rec.takeDir;
    std::fprintf(stderr, "vbdlab: recording from frame %d into %s\n", rec.nextFrame, rec.takeDir.c_str());
}

void GuiApp::stopRecording() {
    RecordState& rec = app_.rec;
    if (!rec.on) return;
    rec.on = false;
    rec.reveal = true;
    sim_.setGate(Gate::Recorder, -1);
    if (rec.pipe) {
        pclose(rec.pipe);
        rec.pipe = nullptr;
    }
    writeTakeInfo();
    char buf[160];
    std::snprintf(buf, sizeof buf, "%d images of frames %d-%d (every %d) in ", rec.written, rec.firstFrame,
                  rec.lastFrame, rec.settings.every);
    rec.status = std::string(buf) + rec.takeDir + (rec.mp4 ? "/take.mp4" : "");
    std::fprintf(stderr, "vbdlab: recorded %s\n", rec.status.c_str());
}

void GuiApp::writeTakeInfo() {
    const RecordState& rec = app_.rec;
    const double dt = rec.dt;
    nlohmann::json j;
    j["scene"] = rec.scene;
    j["first_frame"] = rec.firstFrame;
    j["last_frame"] = rec.lastFrame;
    j["images"] = rec.written;
    j["every"] = rec.settings.every;
    j["dt"] = dt;
    j["fps"] = outputFps(rec, dt);
    j["format"] = rec.mp4 ? "mp4" : "png";
    j["capture"] = rec.settings.capture == Capture::View ? "view" : "window";
    std::ofstream(fs::path(rec.takeDir) / "take.json") << j.dump(1) << "\n";
}

// Due when every shown lab is at the frame the take needs next and the view shows what was asked for.
//
// A take holds one run: images named by frame, in increasing order, of one scene. A new run (a World that
// did not carry the state over: a load, a reset, an edit that restarts it, side by side turned on) or a
// restored frame not after the last image closes the take, and a new one goes on from the frame the run is
// at. Before, the take waited for the old frame number and then held the new run's later frames (another
// scene's, after a load) under the first take's name.
bool GuiApp::recordCaptureDue() {
    RecordState& rec = app_.rec;
    if (!rec.on) return false;
    bool lift = false;  // the gate that held the run while its World was rebuilt or its frame restored
    if (rec.awaitTicket != 0) {
        // Held at its frame (rebuildLabs, applyTimeline) until the snapshots show the result (they are
        // published before the ticket is marked applied, and pollSimulation reads the ticket first).
        if (seenTicket_ < rec.awaitTicket) return false;
        rec.awaitTicket = 0;
        lift = true;
    }
    // The frame shown, not the simulation thread's count, which is published apart from the new World's
    // snapshot. Each branch moves the gate only after reading it: lifted first, the run could step on.
    const int shown = app_.labs[0].world ? app_.labs[0].world->frame() : sim_.frame();
    const bool newRun =
        rec.restarted || (lift && rec.restoring && rec.lastFrame >= 0 && shown <= rec.lastFrame);
    rec.restarted = false;
    if (lift) rec.restoring = false;
    if (newRun && rec.lastFrame >= 0) {
        stopRecording();
        std::fprintf(stderr, "vbdlab: a new run from frame %d: a new take\n", shown);
        startRecording(shown);
        if (!rec.on) return false;
    } else if (newRun || (rec.lastFrame < 0 && shown < rec.nextFrame)) {
        // Nothing recorded yet: the take starts where the run now is, with its scene.
        rec.nextFrame = shown;
        rec.scene = app_.scenePath;
        rec.dt = app_.labs[0].desc.dt;
        sim_.setGate(Gate::Recorder, rec.nextFrame);
    } else if (lift) {
        sim_.setGate(Gate::Recorder, rec.nextFrame);
    }
    if (shown > rec.nextFrame) {
        // The timeline jumped forward (scrubber): the take goes on from the frame shown.
        rec.nextFrame = shown;
        sim_.setGate(Gate::Recorder, rec.nextFrame);
    }
    for (int l = 0; l < (app_.compare ? 2 : 1); ++l)
        if (!app_.labs[l].world || app_.labs[l].world->frame() != rec.nextFrame) return false;
    return !settling();
}

CaptureRequest GuiApp::recordCaptureRequest() const {
    const RecordSettings& s = app_.rec.settings;
    CaptureRequest c;
    if (s.capture == Capture::View && s.width > 0 && s.height > 0) {
        c.offscreenW = s.width, c.offscreenH = s.height;
    } else {
        c.window = true;
    }
    return c;
}

Pixels GuiApp::cropToView(const Pixels& window) const {
    const Layout& l = app_.layout;
    const uint32_t x0 = uint32_t(std::max(0.0f, l.viewX)), y0 = uint32_t(std::max(0.0f, l.viewY));
    const uint32_t x1 = std::min(window.width, uint32_t(l.viewX + l.viewW));
    const uint32_t y1 = std::min(window.height, uint32_t(l.viewY + l.viewH));
    Pixels out;
    if (x1 <= x0 || y1 <= y0) return out;
    out.width = x1 - x0;
    out.height = y1 - y0;
    out.rgba.resize(size_t(out.width) * out.height * 4);
    for (uint32_t y = 0; y < out.height; ++y)
        std::copy(window.at(x0, y0 + y), window.at(x0, y0 + y) + size_t(out.width) * 4,
                  &out.rgba[size_t(y) * out.width * 4]);
    return out;
}

void GuiApp::recordFrame(const CaptureResult& cap) {
    RecordState& rec = app_.rec;
    const RecordSettings& s = rec.settings;
    Pixels px = s.capture == Capture::Window
                    ? cap.window
                    : (s.width > 0 && s.height > 0 ? cap.offscreen : cropToView(cap.window));
    if (px.rgba.empty()) return;  // no image this frame (surface not readable): try again next frame
    if (rec.mp4) {
        if (!rec.pipe) {
            // Even sizes for yuv420p; the first frame fixes the size of the whole take.
            const double fps = outputFps(rec, app_.labs[0].desc.dt);
            char cmd[1024];
            std::snprintf(cmd, sizeof cmd,
                          "ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgba -s %ux%u -r %.6g -i - "
                          "-pix_fmt yuv420p -vf \"pad=ceil(iw/2)*2:ceil(ih/2)*2\" \"%s/take.mp4\"",
                          px.width, px.height, fps, rec.takeDir.c_str());
            rec.pipe = popen(cmd, "w");
            if (!rec.pipe) {
                rec.status = "cannot start ffmpeg";
                stopRecording();
                return;
            }
            rec.firstWidth = px.width, rec.firstHeight = px.height;
        }
        if (px.width != rec.firstWidth || px.height != rec.firstHeight)
            px = resized(px, rec.firstWidth, rec.firstHeight);
        std::fwrite(px.rgba.data(), 1, px.rgba.size(), rec.pipe);
    } else {
        writePng((fs::path(rec.takeDir) / takeImageName(rec.nextFrame)).string(), px);
    }
    if (rec.firstFrame < 0) rec.firstFrame = rec.nextFrame;
    rec.lastFrame = rec.nextFrame;
    ++rec.written;
    rec.nextFrame += s.every;
    sim_.setGate(Gate::Recorder, rec.nextFrame);
    char buf[96];
    std::snprintf(buf, sizeof buf, "recording: %d images (frames %d-%d) into ", rec.written, rec.firstFrame,
                  rec.lastFrame);
    rec.status = buf + rec.takeDir;
}

}  // namespace vbdgui
