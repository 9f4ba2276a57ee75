#pragma once
// Recording takes: each recording goes into a new numbered folder (recording/take_001, take_002, ...),
// so a second take never overwrites or mixes with an earlier one.
#include <string>

namespace vbdgui {

// Absolute path of the next take folder under dir: one past the highest take_NNN there (take_001 when
// none). Creates nothing.
std::string nextTakeFolder(const std::string& dir);
// File name of the image of simulation frame f in a take (frame numbers, not image counters, so that a
// take's files say which frames they show).
std::string takeImageName(int frame);

}  // namespace vbdgui
