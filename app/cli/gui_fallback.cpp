// Used when the GUI is not compiled in (VBD_BUILD_APP=OFF or its libraries are missing).
#include "gui/gui.h"

#ifndef VBD_HAVE_GUI
namespace vbdgui {
bool available() { return false; }
bool checkOptions(const GuiOptions& opt, std::string& error) {
    if (opt.actions.empty()) return true;
    error = opt.actions + ": scripted runs need the GUI, which this vbdlab was built without";
    return false;
}
int runGui(const GuiOptions&) { return 2; }
}  // namespace vbdgui
#endif
