#pragma once
// File helpers of the CLI and corpus tests: a fresh per-process temporary folder and a whole-file read.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vbdtest {

// An empty folder TMP/PREFIX_NAME_PID (removed first if a previous run left it).
inline std::string freshTempDir(const std::string& prefix, const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path p = fs::temp_directory_path() / (prefix + "_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
}

// The file's whole content ("" if it cannot be read).
inline std::string slurp(const std::filesystem::path& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace vbdtest
