#include "gui/core/scene_settings.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "math/error.h"
#include "scene/enum_names.h"
#include "scene/scene.h"

namespace vbdgui {

using json = nlohmann::json;

void SceneSettings::set(const std::string& key, const std::string& value, const std::string& base) {
    for (auto& s : settings_)
        if (s.key == key) {
            s.value = value;
            return;
        }
    settings_.push_back({key, value, base});
}

const Setting* SceneSettings::find(const std::string& key) const {
    for (const auto& s : settings_)
        if (s.key == key) return &s;
    return nullptr;
}

void SceneSettings::erase(const std::string& key) {
    settings_.erase(
        std::remove_if(settings_.begin(), settings_.end(), [&](const Setting& s) { return s.key == key; }),
        settings_.end());
}

void SceneSettings::revertRefused(const std::string& key, const vbd::SolverDesc& running) {
    if (!find(key)) return;
    const std::string text = solverSettingText(running, key);
    SceneSettings without = *this;
    without.erase(key);
    std::string plain;
    try {
        plain = solverSettingText(without.resolve().solver, key);
    } catch (const vbd::InputError&) {
        plain.clear();  // another setting is refused too: keep the running value explicit
    }
    if (text.empty() || text == plain)
        erase(key);
    else
        set(key, text);
}

std::string solverSettingText(const vbd::SolverDesc& s, const std::string& key) {
    return key == "solver.backend" || key == "solver.precision" ? solverValueText(s, key) : "";
}

std::string solverValueText(const vbd::SolverDesc& s, const std::string& key) {
    if (key.rfind("solver.", 0) != 0) return "";
    const std::string k = key.substr(7);
    const vbd::CoarseDesc& c = s.coarse;
    // The scene format's keys (engine/scene/scene.cpp parseSolver).
    if (k == "iterations") return json(s.iterations).dump();
    if (k == "damping") return json(vbd::enumName(s.damping)).dump();
    if (k == "chebyshev_rho") return json(s.chebyshevRho).dump();
    if (k == "beta") return json(s.beta).dump();
    if (k == "gamma") return json(s.gamma).dump();
    if (k == "alpha") return json(s.alpha).dump();
    if (k == "k_start") return json(s.kStart).dump();
    if (k == "k_max") return json(s.kMax).dump();
    if (k == "contact_damping") return json(s.contactDamping).dump();
    if (k == "friction_epsilon") return json(s.frictionEpsilon).dump();
    if (k == "threads") return json(s.threads).dump();
    if (k == "diagnostics") return json(s.diagnostics).dump();
    if (k == "initial_guess") return json(s.adaptiveInit ? "adaptive" : "inertial").dump();
    if (k == "precision") return json(vbd::enumName(s.precision)).dump();
    if (k == "backend") return json(vbd::enumName(s.backend)).dump();
    if (k == "tolerance") return json(s.tolerance).dump();
    if (k == "coarse.enabled") return json(c.enabled).dump();
    if (k == "coarse.basis") return json(vbd::enumName(c.basis)).dump();
    if (k == "coarse.modes_per_element") return json(c.modesPerElement).dump();
    if (k == "coarse.filter") return json(vbd::enumName(c.filter)).dump();
    if (k == "coarse.contrast_threshold") return json(c.contrastThreshold).dump();
    if (k == "coarse.patch_size") return json(c.patchSize).dump();
    if (k == "coarse.aggregate_size") return json(c.aggregateSize).dump();
    if (k == "coarse.matrix") return json(vbd::enumName(c.matrix)).dump();
    return "";
}

std::vector<std::string> SceneSettings::overrides() const {
    std::vector<std::string> out;
    for (const auto& s : settings_) out.push_back(s.key + "=" + s.value);
    return out;
}

vbd::SceneDesc SceneSettings::resolve() const {
    if (file_.empty())
        throw vbd::InputError("built-in scene", settings_.empty() ? "" : settings_.back().key,
                              "settings need a scene file (load one first)");
    return vbd::loadSceneFile(file_, overrides());
}

std::string settingValue(double v) { return json(v).dump(); }
std::string settingValue(int v) { return json(v).dump(); }
std::string settingValue(bool v) { return v ? "true" : "false"; }
std::string settingValue(const char* s) { return json(std::string(s)).dump(); }

std::string fileValue(const std::string& file, const std::string& key) {
    if (file.empty()) return "";
    std::ifstream in(file);
    json j;
    try {
        j = json::parse(in);
    } catch (const json::exception&) {
        return "";
    }
    const json* cur = &j;
    std::stringstream ss(key);
    std::string part;
    while (std::getline(ss, part, '.')) {
        if (cur->is_array()) {
            char* end = nullptr;
            const long i = std::strtol(part.c_str(), &end, 10);
            if (*end || i < 0 || size_t(i) >= cur->size()) return "";
            cur = &(*cur)[size_t(i)];
        } else if (cur->is_object() && cur->contains(part)) {
            cur = &(*cur)[part];
        } else {
            return "";
        }
    }
    return cur->dump();
}

bool needsRebuild(const std::string& key) { return key.rfind("solver.", 0) != 0; }

std::vector<SettingDifference> differences(const SceneSettings& left, const SceneSettings& right,
                                           const vbd::SolverDesc* leftSolver,
                                           const vbd::SolverDesc* rightSolver) {
    std::vector<std::string> keys;
    for (const auto* side : {&left, &right})
        for (const auto& s : side->all())
            if (std::find(keys.begin(), keys.end(), s.key) == keys.end()) keys.push_back(s.key);
    // A side without the key still has the value both started from: the other side's base, else the
    // file's, else the format's default -- as its solver runs it, where that is given (a caption said
    // "solver.precision = default" against the other side's "float").
    auto valueOf = [](const SceneSettings& self, const SceneSettings& other, const vbd::SolverDesc* solver,
                      const std::string& k) {
        if (const Setting* s = self.find(k)) return s->value;
        if (const Setting* s = other.find(k); s && !s->base.empty()) return s->base;
        const std::string f = fileValue(self.file(), k);
        if (!f.empty()) return f;
        const std::string d = solver ? solverValueText(*solver, k) : "";
        return d.empty() ? std::string("default") : d;
    };
    std::vector<SettingDifference> out;
    // Values compared as JSON (the solver's 100000.0 is the setting's 100000); "default" as text.
    auto same = [](const std::string& a, const std::string& b) {
        if (a == b) return true;
        const json ja = json::parse(a, nullptr, false), jb = json::parse(b, nullptr, false);
        return !ja.is_discarded() && !jb.is_discarded() && ja == jb;
    };
    for (const auto& k : keys) {
        const std::string l = valueOf(left, right, leftSolver, k), r = valueOf(right, left, rightSolver, k);
        if (!same(l, r)) out.push_back({k, l, r});
    }
    return out;
}

}  // namespace vbdgui
