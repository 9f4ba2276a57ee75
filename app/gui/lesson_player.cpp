#include "gui/lesson_player.h"

#include <cstdio>
#include <filesystem>

#include "gui/action_runner.h"
#include "gui/app.h"
#include "math/error.h"

namespace vbdgui {

LessonPlayer::LessonPlayer(Lesson lesson, bool autoplay, std::string screenshotDir, double stepPause)
    : lesson_(std::move(lesson)),
      autoplay_(autoplay),
      shotDir_(std::move(screenshotDir)),
      stepPause_(stepPause) {}

LessonPlayer::~LessonPlayer() = default;

// A step starts from a clean view: no marks, caption or inspected vertex of the step before.
void LessonPlayer::startStep(GuiApp& app, int k) {
    AppState& s = app.state();
    const ActionStep& st = lesson_.script.steps[size_t(k)];
    s.marks.clear();
    s.caption.clear();
    s.inspectParticle = -1;
    step_ = k;
    runner_ = std::make_unique<ActionRunner>(lesson_.script, st.first, st.count);
    runner_->keepGateAtEnd(autoplay_ || !shotDir_.empty());
    phase_ = Phase::Running;
    s.lesson.current = k;
    s.lesson.running = true;
    std::fprintf(stderr, "vbdlab: lesson %s, step %d of %zu: %s\n", lesson_.name.c_str(), k + 1,
                 lesson_.steps.size(), lesson_.steps[size_t(k)].title.c_str());
}

// The step's actions are done: its screenshot once the last one is drawn, then (autoplay) a pause.
void LessonPlayer::finishStep(GuiApp& app) {
    AppState& s = app.state();
    switch (phase_) {
        case Phase::Settle:
            if (app.settling() || app.renderedFrames() < settleUntil_ || !s.screenshotRequest.empty()) return;
            if (!shotDir_.empty()) {
                std::error_code ec;
                std::filesystem::create_directories(shotDir_, ec);
                s.screenshotRequest =
                    (std::filesystem::path(shotDir_) / stepScreenshotName(lesson_, step_)).string();
                s.screenshotCapture = Capture::Window;
            }
            phase_ = Phase::Shot;
            return;
        case Phase::Shot:
            if (!s.screenshotRequest.empty()) return;
            app.sim().setGate(Gate::Actions, -1);
            s.lesson.running = false;
            phase_ = autoplay_ ? Phase::Pause : Phase::Idle;
            pauseUntil_ = wallSeconds() + stepPause_;
            return;
        case Phase::Pause:
            if (wallSeconds() < pauseUntil_) return;
            if (step_ + 1 < int(lesson_.steps.size())) {
                startStep(app, step_ + 1);
            } else {
                std::fprintf(stderr, "vbdlab: lesson %s done (%zu steps)\n", lesson_.name.c_str(),
                             lesson_.steps.size());
                phase_ = Phase::Idle;
                app.quit(0);
            }
            return;
        default:
            return;
    }
}

void LessonPlayer::update(GuiApp& app) {
    LessonView& v = app.state().lesson;
    if (v.goTo >= 0 && v.goTo < int(lesson_.steps.size())) startStep(app, v.goTo);
    v.goTo = -1;
    if (step_ < 0) startStep(app, 0);
    if (phase_ == Phase::Running) {
        runner_->update(app);
        if (runner_->failed()) {
            phase_ = Phase::Idle;
            v.running = false;
            return;
        }
        if (!runner_->done()) return;
        if (!autoplay_ && shotDir_.empty()) {
            phase_ = Phase::Idle;
            v.running = false;
            return;
        }
        phase_ = Phase::Settle;
        settleUntil_ = app.renderedFrames() + 2;
    }
    finishStep(app);
}

void GuiApp::updateLesson() {
    openLesson();
    if (lesson_) lesson_->update(*this);
}

// Opens the lesson the panel or --lesson asked for; a lesson that fails its checks is refused with its
// message (exit code 2 when it came from the command line).
void GuiApp::openLesson() {
    LessonView& v = app_.lesson;
    if (v.available.empty())
        for (const std::string& d : listLessons(lessonsRoot())) v.available.push_back(d);
    if (v.close) {
        lesson_.reset();
        app_.marks.clear();
        app_.caption.clear();
        v.active = false, v.close = false, v.running = false;
        sim_.setGate(Gate::Actions, -1);
    }
    if (!v.openRequest.empty() && actions_ && !actions_->done()) {
        v.openRequest.clear();
        v.error = "a scripted run (--actions) is playing; open the lesson after it";
    }
    if (!v.openRequest.empty()) {
        const std::string name = v.openRequest;
        v.openRequest.clear();
        try {
            ActionContext ctx;
            ctx.scene = app_.scenePath;
            ctx.paused = !app_.timeline.playing;
            Lesson L = loadLesson(name, ctx);
            v.active = true;
            v.name = L.name, v.title = L.title, v.error.clear();
            v.steps.clear();
            for (const LessonStep& st : L.steps) v.steps.push_back({st.title, plainText(st.text), st.look});
            v.current = -1, v.goTo = -1;
            v.autoplay = opt_.autoplay;
            lesson_ = std::make_unique<LessonPlayer>(std::move(L), opt_.autoplay, opt_.screenshotDir,
                                                     opt_.stepPause);
        } catch (const vbd::InputError& e) {
            v.error = e.what();
            std::fprintf(stderr, "vbdlab: error: %s\n", e.what());
            if (!opt_.lesson.empty()) quit(2);
        }
    }
}

}  // namespace vbdgui
