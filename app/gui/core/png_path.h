#pragma once
// What is wrong with a path a PNG is to be written to ("" when nothing): one rule for --screenshot and the
// screenshot action. Header only: main.cpp checks --screenshot where the GUI is not built too.
#include <filesystem>
#include <string>

namespace vbdgui {

// The image is a PNG whatever the name says (x.jpg held PNG data); an empty path was silently ignored.
inline std::string pngPathProblem(const std::string& path) {
    if (path.empty()) return "must name a file";
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext != ".png" && ext != ".PNG") return "must end in .png (the image is written as a PNG)";
    return "";
}

}  // namespace vbdgui
