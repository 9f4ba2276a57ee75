#pragma once
// A lab's scene as a file plus settings in the `--set` language (key.path = JSON value, DESIGN.md
// "Command line"). Scripted `set` actions and the panels' edits both land here, so a lab's description
// is always vbd::loadSceneFile(file, overrides()) -- the engine's own override machinery, no second
// parser -- and what differs between the two labs of a side-by-side run is named by its keys.
#include <string>
#include <vector>

#include "scene/scene_desc.h"

namespace vbdgui {

struct Setting {
    std::string key;    // "solver.iterations", "soft_bodies.0.regions.0.youngs_scale"
    std::string value;  // JSON text: 60, true, "naive"
    std::string base;   // the value before the first change ("" = not known: the file's or the default)
};

class SceneSettings {
  public:
    SceneSettings() = default;
    explicit SceneSettings(std::string file) : file_(std::move(file)) {}
    const std::string& file() const { return file_; }  // "" = the built-in demo (nothing to re-parse)
    // Records key = value (JSON text); base is kept from the first time the key is set.
    void set(const std::string& key, const std::string& value, const std::string& base = "");
    const Setting* find(const std::string& key) const;
    void erase(const std::string& key);  // the file's value (or the default) again
    // After the running World refused key (World::setSolver keeps its settings): key takes the World's value
    // from its solver `running`, or goes when that is the value without it (no spurious side-by-side
    // difference). Keys a World can refuse: solver.backend, solver.precision; any other is erased.
    void revertRefused(const std::string& key, const vbd::SolverDesc& running);
    const std::vector<Setting>& all() const { return settings_; }
    std::vector<std::string> overrides() const;  // "key=value" for vbd::loadSceneFile
    // The description of file with every setting applied; throws vbd::InputError (the scene parser's
    // message, naming file and key) for a setting the scene refuses.
    vbd::SceneDesc resolve() const;

  private:
    std::string file_;
    std::vector<Setting> settings_;
};

// JSON text of a number, bool or string as a setting value.
std::string settingValue(double v);
std::string settingValue(int v);
std::string settingValue(bool v);
std::string settingValue(const char* s);

// The JSON text at key.path in the scene file, or "" when the file does not set it.
std::string fileValue(const std::string& file, const std::string& key);

// The JSON text of the solver's value of key ("solver.backend": "\"cpu\""), for the keys a running World can
// refuse (solver.backend, solver.precision); "" for any other.
std::string solverSettingText(const vbd::SolverDesc& s, const std::string& key);

// The JSON text of the solver's value of any "solver." key of the scene format ("solver.coarse.enabled":
// "false"); "" for a key it does not know.
std::string solverValueText(const vbd::SolverDesc& s, const std::string& key);

// Keys under "solver." steer a running World (World::setSolver); every other key rebuilds it.
bool needsRebuild(const std::string& key);

struct SettingDifference {
    std::string key, left, right;
};
// Settings whose values differ between two labs of the same scene (both started as copies), with each
// side's value: where neither a setting nor the file gives one, the side's solver's (leftSolver,
// rightSolver: each lab's resolved solver) for a solver key, else "default".
std::vector<SettingDifference> differences(const SceneSettings& left, const SceneSettings& right,
                                           const vbd::SolverDesc* leftSolver = nullptr,
                                           const vbd::SolverDesc* rightSolver = nullptr);

}  // namespace vbdgui
