#pragma once
// Entry point of the interactive app (owned by app/gui). Returns the process exit code.
#include <string>

namespace vbdgui {

struct GuiOptions {
    std::string scene;       // scene file ("" = default scene)
    int frames = -1;         // run N frames then exit (with screenshot); -1 = interactive
    std::string screenshot;  // save the window (scene + panels) to this PNG after `frames`
    int width = 1600, height = 900;
    std::string actions;  // scripted run: a JSON list of timed actions (gui/core/actions.h)
    bool paused = false;  // start paused
    // Guided lessons (gui/core/lesson.h): `--lesson NAME` opens one at its first step; `--autoplay` plays
    // every step, holding `stepPause` seconds between them, and exits 0 after the last; with
    // `--screenshot-dir DIR` each step's end is saved as DIR/NN-name-stepK.png.
    std::string lesson;
    bool autoplay = false;
    std::string screenshotDir;
    double stepPause = 1.5;
    // No window: the same frames rendered into images that are read back but never shown (gui/app.h), for a
    // machine without a display (scripted runs, recordings, the device check). Needs a run that ends by
    // itself: --actions, --screenshot, --frames or --lesson with --autoplay.
    bool headless = false;
};

// True if the GUI was compiled in.
bool available();
// Checks what can be checked before a window opens (the actions file against its scenes); false with a
// "file: key: what" message for bad input (exit code 2).
bool checkOptions(const GuiOptions& opt, std::string& error);
int runGui(const GuiOptions& opt);

}  // namespace vbdgui
