// The left column: scene picker and side-by-side, the timeline (play, pace, history scrubber), recording,
// then the settings, drawing, inspector sections and the timing summary. It collapses to a bar.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "gui/core/axis.h"
#include "gui/fit_text.h"
#include "gui/panels.h"
#include "gui/widgets.h"

namespace vbdgui {

namespace {

constexpr ImGuiWindowFlags kColumnFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;

void sceneSection(AppState& app) {
    std::string current =
        app.sceneIndex >= 0
            ? std::filesystem::path(app.sceneFiles[size_t(app.sceneIndex)]).filename().string()
            : (app.scenePath.empty() ? "built-in demo" : app.scenePath);
    ImGui::SetNextItemWidth(-60);
    if (ImGui::BeginCombo("##scene", current.c_str())) {
        if (ImGui::Selectable("built-in demo", app.scenePath.empty()))
            app.loadRequest = true, app.loadPath.clear();
        for (size_t i = 0; i < app.sceneFiles.size(); ++i) {
            std::string name = std::filesystem::path(app.sceneFiles[i]).filename().string();
            if (ImGui::Selectable(name.c_str(), int(i) == app.sceneIndex))
                app.loadRequest = true, app.loadPath = app.sceneFiles[i];
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("reload")) app.loadRequest = true, app.loadPath = app.scenePath;
    if (ImGui::Checkbox("side-by-side", &app.compare)) app.compareRequest = true;
    helpMarker(
        "Runs a second World of the same scene next to the first, each with its own settings column; both "
        "step in lockstep, their curves are overlaid and the captions name the settings that differ.");
    if (app.compare) {
        ImGui::SameLine();
        ImGui::Checkbox("one colour scale", &app.sharedScale);
        helpMarker("Both views map the same values to the same colours (the union of their ranges).");
    }
}

const char* const kSpeedNames[] = {"x0.1", "x0.25", "x0.5", "real time", "x2", "x4", "max"};
const double kSpeeds[] = {0.1, 0.25, 0.5, 1, 2, 4, 0};

void timelineSection(AppState& app) {
    TimelineState& t = app.timeline;
    if (ImGui::Button(t.playing ? "Pause (space)" : "Play (space)")) t.playing = !t.playing;
    ImGui::SameLine();
    if (ImGui::Button("Step (N)")) t.stepRequests++, t.playing = false;
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) t.resetRequest = true;
    int speed = 3;
    for (int i = 0; i < 7; ++i)
        if (std::fabs(kSpeeds[i] - t.speed) < 1e-9) speed = i;
    ImGui::SetNextItemWidth(110);
    if (ImGui::Combo("speed", &speed, kSpeedNames, 7)) t.speed = kSpeeds[speed];
    helpMarker(
        "Simulated time per wall-clock time. When the solver is slower than asked, the status line says "
        "which fraction of real time it reaches; 'max' steps as fast as the solver goes.");
    const Lab& lab = app.labs[0];
    if (lab.world) {
        ImGui::Text("frame %d, t = %.3f s", lab.world->frame(), lab.world->time());
        if (t.playing && t.realTime > 0 && t.speed > 0 && t.realTime < 0.95 * t.speed) {
            ImGui::SameLine();
            ImGui::TextColored(ImVec4(1, 0.75f, 0.3f, 1), "x%.2f real time", t.realTime);
        }
    }
    const TimelineInfo& h = t.info;
    if (h.newest > h.oldest && lab.world) {
        int f = lab.world->frame();
        ImGui::SetNextItemWidth(-FLT_MIN);
        if (ImGui::SliderInt("##history", &f, h.oldest, h.newest, "history: frame %d")) t.restoreRequest = f;
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip(
                "Drag to go back to an earlier frame (left/right arrow keys: one frame). Playing "
                "or stepping from there starts a new branch; so does any edit.");
    }
    ImGui::TextDisabled("%zu states, %s of %d MB", h.states,
                        (formatNumber(double(h.bytes) / (1 << 20), 3) + " MB").c_str(), t.historyMB);
    ImGui::SameLine();
    if (ImGui::SmallButton("replay")) t.replayRequest = true;
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::SliderInt("##budget", &t.historyMB, 64, 8192, "history budget %d MB",
                         ImGuiSliderFlags_Logarithmic))
        t.budgetDirty = true;
}

const char* const kCaptureNames[] = {"whole window", "3D view(s) only"};
const char* const kSizeNames[] = {"as in the window", "960 x 540", "1280 x 720", "1920 x 1080",
                                  "3840 x 2160"};
const int kSizes[][2] = {{0, 0}, {960, 540}, {1280, 720}, {1920, 1080}, {3840, 2160}};
const char* const kFormatNames[] = {"MP4 if ffmpeg, else PNG", "PNG images", "MP4 (ffmpeg)"};

void recordingSection(AppState& app) {
    RecordState& rec = app.rec;
    RecordSettings& s = rec.settings;
    if (ImGui::Button(rec.on ? "Stop recording (V)" : "Record (V)")) rec.toggleRequest = true;
    ImGui::BeginDisabled(rec.on);
    ImGui::SetNextItemWidth(120);
    ImGui::SliderInt("every N frames", &s.every, 1, 20);
    helpMarker(
        "One image per N simulation frames; every simulation frame is captured exactly (the simulation "
        "waits for the recorder).");
    double fps = s.fps;
    ImGui::SetNextItemWidth(120);
    if (ImGui::InputDouble("output fps", &fps, 0, 0, fps > 0 ? "%.1f" : "real time"))
        s.fps = std::clamp(fps, 0.0, 240.0);
    helpMarker("Frame rate of the video; 0 = real time (1 / (dt x N)).");
    int capture = int(s.capture);
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::Combo("##capture", &capture, kCaptureNames, 2)) s.capture = Capture(capture);
    if (s.capture == Capture::View) {
        int size = 0;
        for (int i = 0; i < 4; ++i)
            if (s.width == kSizes[i][0] && s.height == kSizes[i][1]) size = i;
        ImGui::SetNextItemWidth(-FLT_MIN);
        if (ImGui::Combo("##size", &size, kSizeNames, 4))
            s.width = kSizes[size][0], s.height = kSizes[size][1];
    }
    int format = int(s.format);
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::Combo("##format", &format, kFormatNames, 3)) s.format = VideoFormat(format);
    ImGui::EndDisabled();
    if (!rec.status.empty()) textWords("%s", rec.status.c_str());
}

void timingSection(const AppState& app) {
    const Lab& lab = app.labs[0];
    if (!lab.world) return;
    // Wrapped at words: a narrow column cut "render 9.9 ms" to "render 9.9 m".
    textWords("step %.1f ms, frame %.1f ms (%.0f FPS)", lab.stepMs, app.timing.frameMs, app.timing.fps);
    textWords("sim %.1f ms, upload %.2f ms, render %.1f ms", app.timing.simMs, app.timing.uploadMs,
              app.timing.renderMs);
    // Which backend steps the scene: the status bar's backend line up to its reasons ("CPU backend", "CUDA
    // backend on NVIDIA H200"); the host threads work for either (a CUDA step's collision detection, the
    // coupling).
    std::string backend = lab.world->backendLine();
    backend = backend.substr(0, std::min(backend.find(" ("), backend.find(':')));
    const int threads = lab.world->desc().solver.threads;
    textWords("%s, %s", backend.c_str(),
              threads == 0   ? "host threads: all cores"
              : threads == 1 ? "1 host thread"
                             : (std::to_string(threads) + " host threads").c_str());
}

// A collapsed column: a bar with the button that opens it again.
bool collapsedBar(const char* id, float x, float height, const char* arrow) {
    ImGui::SetNextWindowPos(ImVec2(x, 0));
    ImGui::SetNextWindowSize(ImVec2(kCollapsedW, height));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(2, 6));
    ImGui::Begin(id, nullptr, kColumnFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
    const bool open = ImGui::Button(arrow, ImVec2(kCollapsedW - 4, 40));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("open this column");
    ImGui::End();
    ImGui::PopStyleVar();
    return open;
}

}  // namespace

void controlPanel(AppState& app, float height) {
    const Layout& l = app.layout;
    if (l.leftCollapsed) {
        if (collapsedBar("##controls", 0, height, ">"))
            app.panels.leftOpen = true, app.panels.keepRight = false, app.panels.asked = true;
        return;
    }
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(l.leftW, height));
    ImGui::Begin("VBD Lab", nullptr, kColumnFlags);
    if (ImGui::SmallButton("<")) app.panels.leftOpen = false;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("collapse this column");
    ImGui::SameLine();
    const Lab& lab = app.labs[0];
    textWords("%s", lab.desc.name.c_str());
    if (!lab.note.empty()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", lab.note.c_str());
    if (!app.sceneError.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.35f, 0.3f, 1));
        textWords("%s: %s", app.sceneErrorLabel.c_str(), app.sceneError.c_str());
        ImGui::PopStyleColor();
    }
    lessonStepSection(app);
    if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) sceneSection(app);
    if (ImGui::CollapsingHeader("Lessons")) lessonsSection(app);
    if (ImGui::CollapsingHeader("Timeline", ImGuiTreeNodeFlags_DefaultOpen)) timelineSection(app);
    if (ImGui::CollapsingHeader("Time step")) timeStepSection(app);
    if (ImGui::CollapsingHeader("Solver", ImGuiTreeNodeFlags_DefaultOpen)) solverSection(app);
    if (ImGui::CollapsingHeader("Material")) materialSection(app);
    if (ImGui::CollapsingHeader("Drawing and colour map", ImGuiTreeNodeFlags_DefaultOpen))
        drawingSection(app);
    if (app.inspectParticle >= 0) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
    if (ImGui::CollapsingHeader("Inspector")) inspectorSection(app);
    if (app.rec.reveal) ImGui::SetNextItemOpen(true, ImGuiCond_Always), app.rec.reveal = false;
    if (ImGui::CollapsingHeader("Recording")) recordingSection(app);
    ImGui::Checkbox("plots", &app.showPlots);
    ImGui::SameLine();
    ImGui::Checkbox("energy ellipse", &app.showEllipse);
    ImGui::Separator();
    timingSection(app);
    ImGui::End();
}

void plotsColumnBar(AppState& app, float x, float height) {
    if (collapsedBar("##plots", x, height, "<"))
        app.panels.rightOpen = true, app.panels.keepRight = true, app.panels.asked = true;
}

}  // namespace vbdgui
