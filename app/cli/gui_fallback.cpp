// Used when the GUI is not compiled in (VBD_BUILD_APP=OFF or its libraries are missing).
#include "gui/gui.h"

#ifndef VBD_HAVE_GUI
namespace vbdgui {
bool available() { return false; }
int runGui(const GuiOptions&) { return 2; }
}  // namespace vbdgui
#endif
