#pragma once
// Opening a user's file safely: only a regular file of a sane size is opened. A FIFO blocks the open for
// ever, and a device (/dev/zero) or an endless stream is read until memory runs out; both are refused by a
// stat, before any open, with "file: key: what" (exit code 2). Next to InputError, which every reader of
// user data throws.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "math/error.h"

namespace vbd {

// The largest scene or actions file read (a scene of 200,000 rigid bodies is ~20 MB) and the largest TetGen
// .node / .ele file (2 million tets: ~60 MB).
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t(256) << 20;
inline constexpr std::uintmax_t kMaxMeshFileBytes = std::uintmax_t(4) << 30;

// Throws InputError(path, key, ...) unless `path` names a regular file (symbolic links followed) of at most
// `limit` bytes.
inline void requireRegularFile(const std::string& path, const std::string& key, std::uintmax_t limit) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!fs::exists(st)) throw InputError(path, key, "file not found");
    if (fs::is_directory(st)) throw InputError(path, key, "is a directory, not a file");
    if (!fs::is_regular_file(st))
        throw InputError(path, key, "not a regular file (a FIFO, socket or device is never opened)");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) throw InputError(path, key, "cannot read file: " + ec.message());
    if (size > limit)
        throw InputError(path, key,
                         "file too large (" + std::to_string(size >> 20) + " MiB; at most " +
                             std::to_string(limit >> 20) + " MiB)");
}

// The whole content of a regular file of at most `limit` bytes.
inline std::string readInputFile(const std::string& path, const std::string& key, std::uintmax_t limit) {
    requireRegularFile(path, key, limit);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, key, "cannot read file");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace vbd
