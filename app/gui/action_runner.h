#pragma once
// Runs an ActionScript against the app, frame exact: the simulation thread is gated at the next action's
// frame (SimRunner::setGate), so an action at frame 30 acts on the state of frame 30 before frame 31 is
// computed. After an action that changes what is shown (a scene, a setting, a heat map, the camera, ...)
// the runner waits until the simulation thread has applied it and two frames were drawn with it, so
// that a following screenshot or recorded frame shows the change.
#include "gui/core/actions.h"

namespace vbdgui {

class GuiApp;

class ActionRunner {
  public:
    explicit ActionRunner(ActionScript script)
        : script_(std::move(script)), next_(0), end_(script_.actions.size()), unattended_(true) {}
    // Runs actions [first, first + count) only (one step of a lesson).
    ActionRunner(ActionScript script, int first, int count)
        : script_(std::move(script)), next_(size_t(first)), end_(size_t(first + count)) {}
    // Runs the actions that are due (called once per UI frame, before the UI is built).
    void update(GuiApp& app);
    bool done() const { return next_ >= end_; }
    bool failed() const { return failed_; }
    // Keep the simulation held at the last action's frame when the list is done (the caller lifts the
    // gate, e.g. after a screenshot of that frame).
    void keepGateAtEnd(bool on) { keepGate_ = on; }

  private:
    // False (with a message printed and exit code 2 set) when the action cannot be carried out.
    bool execute(GuiApp& app, const Action& a);
    void applyView(GuiApp& app, const Action& a);
    bool fail(GuiApp& app, const Action& a, const std::string& what);
    bool holding(GuiApp& app, int shown, int frame);
    void reportDone(GuiApp& app, const char* why);

    ActionScript script_;
    size_t next_ = 0, end_ = 0;
    double pauseUntil_ = 0;      // a `pause` action holds until this wall time (glfwGetTime seconds)
    int holdUntilRendered_ = 0;  // wait for this many rendered frames (the UI shows the last change)
    int waitFrame_ = -1;         // a `step` action waits for this frame
    bool restarted_ = false;  // a load, reset, compare or edit ran and the new World's count is not yet seen
    // The frame seen when the last action ran (-1 after a load, reset or compare: the count restarts). A
    // frame below it later means an edit restarted the World (other shapes: the state could not be carried).
    int frameAtLast_ = -1;
    size_t lastAction_ = 0;
    bool unattended_ = false;  // a scripted run (--actions), not a lesson's step: nobody will press play
    int windowW_ = 0, windowH_ = 0, windowWait_ = 0;  // a `window` action waits for the new size
    bool failed_ = false, finished_ = false, keepGate_ = false;
};

}  // namespace vbdgui
