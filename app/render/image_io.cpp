#include "render/image_io.h"

#include <stdexcept>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace vbdgui {

void writePng(const std::string& path, const Pixels& px) {
    if (!stbi_write_png(path.c_str(), int(px.width), int(px.height), 4, px.rgba.data(), int(px.width) * 4))
        throw std::runtime_error(path + ": cannot write PNG");
}

}  // namespace vbdgui
