#include "gui/core/takes.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace vbdgui {

namespace fs = std::filesystem;

std::string nextTakeFolder(const std::string& dir) {
    int highest = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("take_", 0) != 0 || name.size() <= 5) continue;
        char* end = nullptr;
        const long n = std::strtol(name.c_str() + 5, &end, 10);
        if (*end == '\0' && n > highest) highest = int(n);
    }
    char take[32];
    std::snprintf(take, sizeof take, "take_%03d", highest + 1);
    return (fs::absolute(dir) / take).lexically_normal().string();
}

std::string takeImageName(int frame) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%06d.png", frame);
    return name;
}

}  // namespace vbdgui
