#pragma once
// Running vbdlab under a virtual X server from a test, and reading back the PNGs it writes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include <vector>

#include "gui/core/layout.h"
#include "render/vk_context.h"

namespace vbdtest {

namespace fs = std::filesystem;

struct CommandResult {
    int code = -1;
    std::string output;
};

inline CommandResult runCommand(const std::string& cmd) {
    CommandResult r;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// Runs `inner` under xvfb-run and returns inner's own exit status: xvfb-run sometimes replaces it with its
// own (e.g. 5, "problem while cleaning up temporary directory", when the client exits quickly).
inline CommandResult runUnderXvfb(const std::string& env, const std::string& screen,
                                  const std::string& inner) {
    CommandResult r = runCommand(env + " " + std::string(XVFB_RUN) + " -a -s \"-screen 0 " + screen +
                                 "\" sh -c '" + inner + "; echo vbdlab-exit=$?'");
    const size_t at = r.output.rfind("vbdlab-exit=");
    r.code = at == std::string::npos ? -1 : std::atoi(r.output.c_str() + at + 12);
    return r;
}

inline std::string vbdlabExe() {
    const char* env = std::getenv("VBDLAB");  // lets the test run against an installed binary
    return env && *env ? env : VBDLAB_EXE;
}

inline bool haveVulkanDevice(std::string& why) {
    try {
        vbdgui::ContextOptions o;
        vbdgui::Context ctx(o);
        return true;
    } catch (const vbdgui::VulkanError& e) {
        why = e.what();
        return false;
    }
}

struct Image {
    int w = 0, h = 0;
    std::vector<unsigned char> px;
    const unsigned char* at(int x, int y) const { return &px[(size_t(y) * size_t(w) + size_t(x)) * 4]; }
};

inline Image load(const std::string& path) {
    Image im;
    int comp = 0;
    unsigned char* d = stbi_load(path.c_str(), &im.w, &im.h, &comp, 4);
    if (d) {
        im.px.assign(d, d + size_t(im.w) * size_t(im.h) * 4);
        stbi_image_free(d);
    }
    return im;
}

// Fraction of pixels in [x0, x1) x [y0, y1) that satisfy pred.
template <typename P>
inline double fraction(const Image& im, int x0, int x1, int y0, int y1, P pred) {
    long n = 0, hit = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x, ++n) hit += pred(im.at(x, y)) ? 1 : 0;
    return n ? double(hit) / double(n) : 0;
}

inline void writeFile(const fs::path& p, const std::string& text) {
    std::ofstream f(p);
    f << text;
}

// Skips the calling test when no X server wrapper or no Vulkan device exists.
#define VBD_REQUIRE_XVFB_AND_VULKAN()                                              \
    do {                                                                           \
        if (std::string(XVFB_RUN).empty() || !fs::exists(XVFB_RUN))                \
            GTEST_SKIP() << "xvfb-run is not installed";                           \
        std::string why_;                                                          \
        if (!haveVulkanDevice(why_)) GTEST_SKIP() << "no Vulkan device: " << why_; \
    } while (0)

}  // namespace vbdtest
