#pragma once
#include <string>

#include "render/targets.h"

namespace vbdgui {
// Writes RGBA8 pixels as PNG (stb_image_write); throws std::runtime_error naming the path on failure.
void writePng(const std::string& path, const Pixels& px);
}  // namespace vbdgui
