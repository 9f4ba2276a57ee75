#pragma once
// Entry point of the interactive app (owned by app/gui). Returns the process exit code.
#include <string>

namespace vbdgui {

struct GuiOptions {
    std::string scene;       // scene file ("" = default scene)
    int frames = -1;         // run N frames then exit (with screenshot); -1 = interactive
    std::string screenshot;  // save the window (scene + panels) to this PNG after `frames`
    int width = 1600, height = 900;
};

// True if the GUI was compiled in.
bool available();
int runGui(const GuiOptions& opt);

}  // namespace vbdgui
