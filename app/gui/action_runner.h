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
    explicit ActionRunner(ActionScript script) : script_(std::move(script)) {}
    // Runs the actions that are due (called once per UI frame, before the UI is built).
    void update(GuiApp& app);
    bool done() const { return next_ >= script_.actions.size(); }

  private:
    // False (with a message printed and exit code 2 set) when the action cannot be carried out.
    bool execute(GuiApp& app, const Action& a);
    void applyView(GuiApp& app, const Action& a);
    bool fail(GuiApp& app, const Action& a, const std::string& what);

    ActionScript script_;
    size_t next_ = 0;
    int holdUntilRendered_ = 0;  // wait for this many rendered frames (the UI shows the last change)
    int waitFrame_ = -1;         // a `step` action waits for this frame
    bool restarted_ = false;     // a load or reset ran and the new World's count has not been seen yet
    int windowW_ = 0, windowH_ = 0, windowWait_ = 0;  // a `window` action waits for the new size
    bool failed_ = false, finished_ = false;
};

}  // namespace vbdgui
