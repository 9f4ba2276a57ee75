#pragma once
// Plays a lesson (gui/core/lesson.h) in the app: each step runs its group of actions through an
// ActionRunner, frame exact like `--actions`. Next / Prev / Re-run (the Lessons panel) start a step's
// group from its first action, so a step is re-runnable when its group begins with a `load`. With
// --autoplay the steps follow each other: when a step's actions are done and drawn, its screenshot is
// saved (--screenshot-dir), the run holds --step-pause seconds, then the next step starts; after the
// last one the app exits 0.
#include <memory>
#include <string>

#include "gui/core/lesson.h"

namespace vbdgui {

class ActionRunner;
class GuiApp;

class LessonPlayer {
  public:
    LessonPlayer(Lesson lesson, bool autoplay, std::string screenshotDir, double stepPause);
    ~LessonPlayer();
    // Called once per UI frame before the UI is built; acts on the panel's requests.
    void update(GuiApp& app);
    const Lesson& lesson() const { return lesson_; }

  private:
    void startStep(GuiApp& app, int k);
    void finishStep(GuiApp& app);

    enum class Phase { Running, Settle, Shot, Pause, Idle };
    Lesson lesson_;
    bool autoplay_;
    std::string shotDir_;
    double stepPause_;
    std::unique_ptr<ActionRunner> runner_;
    int step_ = -1;
    Phase phase_ = Phase::Idle;
    int settleUntil_ = 0;    // rendered-frame count to wait for before the screenshot
    double pauseUntil_ = 0;  // wall time (glfwGetTime) the autoplay pause ends
};

}  // namespace vbdgui
