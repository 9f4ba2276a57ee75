#pragma once
// Each vbdlab command lives in its own file app/cli/cmd_<name>.cpp and registers itself here:
// add<Name>Command declares its options on a CLI11 subcommand and returns the function that runs it
// after parsing. Exit codes: 0 ok, 2 bad input (vbd::InputError, CLI parse errors), 1 other error.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace vbdcli {

struct Command {
    CLI::App* sub = nullptr;
    std::function<int()> run;
};

using CommandFactory = Command (*)(CLI::App& root);

// Commands register themselves at static-initialisation time (one line at the end of each
// cmd_<name>.cpp: `static vbdcli::Registrar reg(&addLabCommand);`), so no file lists them all.
std::vector<CommandFactory>& commandRegistry();
struct Registrar {
    explicit Registrar(CommandFactory f) { commandRegistry().push_back(f); }
};

// Resolves a path relative to the source tree's assets/ (for built-in scenes and meshes).
std::string assetPath(const std::string& rel);
// An output folder given as `key` (--out): checkOutputFolder refuses, before any work, a path that cannot
// become a folder (empty, an existing file, or under one), creating nothing; makeOutputFolder creates it.
// Both throw InputError(dir, key, ...) (exit code 2) rather than a filesystem error (exit code 1).
void checkOutputFolder(const std::string& dir, const std::string& key = "--out");
void makeOutputFolder(const std::string& dir, const std::string& key = "--out");
// An output file given as `key`: refused before any work where it is empty, an existing folder, or under a
// file (InputError, exit code 2: before, these failed after the run with exit code 1 and "cannot write").
// With make, its folder is created (as the screenshot action's is), so that one that cannot be is refused
// up front too.
void checkOutputFile(const std::string& file, const std::string& key, bool make = false);
// Files a command writes into an output folder: none may be an existing folder (sim --out DIR with a folder
// DIR/metrics.csv failed at the end with a raw filesystem error, its other outputs half written).
void checkOutputNames(const std::string& dir, const std::vector<std::string>& names,
                      const std::string& key = "--out");
// The warnings of the scene just read (vbd::lastSceneWarnings) on stderr, "vbdlab: warning: ...".
void printSceneWarnings();
// Exit code for an exception escaping a command: 2 for InputError / CLI errors, else 1; prints it.
int reportError(const std::exception& e);

// Progress line on stderr ("\r[label] 12/100 ...") shown once a run has taken longer than a second.
class Progress {
  public:
    Progress(std::string label, int total);
    void update(int done);
    void finish();

  private:
    std::string label_;
    int total_;
    double start_;
    bool shown_ = false;
    double lastPrint_ = 0;
};

}  // namespace vbdcli
