#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "math/error.h"
#include "scene/scene.h"

namespace vbdcli {

std::vector<CommandFactory>& commandRegistry() {
    static std::vector<CommandFactory> r;
    return r;
}

void checkOutputFolder(const std::string& dir, const std::string& key) {
    namespace fs = std::filesystem;
    if (dir.empty()) throw vbd::InputError("", key, "must name a folder");
    std::error_code ec;
    // The nearest part of the path that exists must be a folder: the rest is created under it.
    for (fs::path p = fs::absolute(dir, ec); !p.empty(); p = p.parent_path()) {
        const fs::file_status st = fs::status(p, ec);
        if (!fs::exists(st)) {
            if (p == p.parent_path()) break;
            continue;
        }
        if (!fs::is_directory(st))
            throw vbd::InputError(dir, key,
                                  (p == fs::absolute(dir, ec) ? std::string("is a file, not a folder")
                                                              : p.string() + " is a file, not a folder"));
        return;
    }
}

void makeOutputFolder(const std::string& dir, const std::string& key) {
    checkOutputFolder(dir, key);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw vbd::InputError(dir, key, "cannot create the folder: " + ec.message());
}

void checkOutputFile(const std::string& file, const std::string& key, bool make) {
    namespace fs = std::filesystem;
    if (file.empty()) throw vbd::InputError("", key, "must name a file");
    std::error_code ec;
    if (fs::is_directory(file, ec)) throw vbd::InputError(file, key, "is a folder, not a file");
    const fs::path parent = fs::path(file).parent_path();
    if (parent.empty()) return;
    if (make)
        makeOutputFolder(parent.string(), key);
    else
        checkOutputFolder(parent.string(), key);
}

void checkOutputNames(const std::string& dir, const std::vector<std::string>& names, const std::string& key) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const std::string& n : names)
        if (fs::is_directory(fs::path(dir) / n, ec))
            throw vbd::InputError(dir, key, (fs::path(dir) / n).string() + " is a folder, not a file");
}

void printSceneWarnings() {
    for (const auto& w : vbd::lastSceneWarnings()) std::fprintf(stderr, "vbdlab: warning: %s\n", w.c_str());
}

std::string assetPath(const std::string& rel) {
    namespace fs = std::filesystem;
    for (const fs::path& base : {fs::path("assets"), fs::path(VBD_SOURCE_DIR) / "assets"}) {
        fs::path p = base / rel;
        if (fs::exists(p)) return p.string();
    }
    return (fs::path(VBD_SOURCE_DIR) / "assets" / rel).string();
}

int reportError(const std::exception& e) {
    std::fprintf(stderr, "vbdlab: error: %s\n", e.what());
    return dynamic_cast<const vbd::InputError*>(&e) ? 2 : 1;
}

static double nowSeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(std::string label, int total)
    : label_(std::move(label)), total_(total), start_(nowSeconds()) {}

void Progress::update(int done) {
    double el = nowSeconds() - start_;
    if (el < 1.0 && !shown_) return;
    if (shown_ && done < total_ && el - lastPrint_ < 0.2) return;  // ~5 updates a second
    lastPrint_ = el;
    shown_ = true;
    double eta = done > 0 ? el * (total_ - done) / done : 0;
    int width = 30, fill = total_ > 0 ? width * done / total_ : width;
    std::string bar(size_t(fill), '#');
    bar.resize(size_t(width), '.');
    std::fprintf(stderr, "\r[%s] [%s] %d/%d  %.1fs elapsed, ~%.1fs left ", label_.c_str(), bar.c_str(), done,
                 total_, el, eta);
    std::fflush(stderr);
}

void Progress::finish() {
    if (shown_) std::fprintf(stderr, "\n");
}

}  // namespace vbdcli
