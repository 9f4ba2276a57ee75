#include "gui/core/actions.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "gui/core/png_path.h"
#include "gui/core/scene_settings.h"
#include "math/error.h"
#include "math/input_file.h"
#include "scene/scene.h"

namespace vbdgui {

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct VerbInfo {
    const char* name;
    Verb verb;
    bool sided;  // takes _left / _right
};

const VerbInfo kVerbs[] = {
    {"load", Verb::Load, false},
    {"reset", Verb::Reset, false},
    {"set", Verb::Set, true},
    {"compare", Verb::Compare, false},
    {"play", Verb::Play, false},
    {"step", Verb::Step, false},
    {"speed", Verb::Speed, false},
    {"heat", Verb::Heat, true},
    {"range", Verb::Range, true},
    {"log", Verb::Log, true},
    {"shared_scale", Verb::SharedScale, false},
    {"draw", Verb::Draw, true},
    {"camera", Verb::Camera, false},
    {"inspect", Verb::Inspect, false},
    {"panels", Verb::Panels, false},
    {"lab", Verb::Lab, false},
    {"record", Verb::Record, false},
    {"screenshot", Verb::Screenshot, false},
    {"window", Verb::Window, false},
    {"quit", Verb::Quit, false},
    {"mark", Verb::Mark, true},
    {"caption", Verb::Caption, false},
    {"plot", Verb::Plot, false},
    {"pause", Verb::Pause, false},
    {"fault", Verb::Fault, false},
    {"cursor", Verb::Cursor, false},
    {"throw", Verb::Throw, false},
};

const char* const kHeatNames[] = {"none", "color", "residual", "det_f", "dominance", "dominance_sum"};
const char* const kPlotNames[] = {"energy", "total_energy", "com_y", "kinetic"};
const char* const kDrawKeys[] = {"wireframe", "contacts", "surfaces", "bodies", "grid",
                                 "fixed",     "joints",   "shadows",  "regions"};

// The state of the run as the file will drive it, for checks that depend on what came before.
struct Run {
    SceneSettings lab[2];
    bool compare = false, playing = true;
    int frame = 0;  // the frame the scene is known to have reached
};

// The keys an object-valued verb takes, each with its kind and bounds.
enum class Kind { Bool, Number, Int, Vec3, Size, Path, Choice };
struct FieldSpec {
    const char* key;
    Kind kind;
    double lo = 0, hi = 0;
    std::vector<const char*> choices = {};
};

class Checker {
  public:
    Checker(std::string file, const ActionContext& ctx) : file_(std::move(file)) {
        run_.lab[0] = run_.lab[1] = SceneSettings(ctx.scene);
        run_.playing = !ctx.paused;
    }
    // `at` names the action in messages ("actions[3]" or "steps[1].actions[2]").
    Action check(const json& j, int index, int step, const std::string& at);

  private:
    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw vbd::InputError(file_, key, what);
    }
    void needBool(const json& v, const std::string& key) const {
        if (!v.is_boolean()) fail(key, "must be true or false");
    }
    double needNumber(const json& v, const std::string& key, double lo, double hi) const;
    int needInt(const json& v, const std::string& key, int lo, int hi) const;
    void needOneOf(const json& v, const std::string& key, const std::vector<const char*>& names) const;
    std::string resolveScene(const std::string& p) const;
    void checkValue(Action& a);
    void checkSet(Action& a);
    void checkLoad(Action& a);
    void checkRange(const nlohmann::json& v, const std::string& k) const;
    void checkMark(const nlohmann::json& v, const std::string& k) const;
    void checkField(const nlohmann::json& v, const std::string& key, const FieldSpec& f) const;
    void checkFields(const nlohmann::json& v, const std::string& key,
                     const std::vector<FieldSpec>& spec) const;
    void advance(const Action& a);

    std::string file_;
    Run run_;
};

double Checker::needNumber(const json& v, const std::string& key, double lo, double hi) const {
    if (!v.is_number()) fail(key, "must be a number");
    const double d = v.get<double>();
    if (!(d >= lo && d <= hi)) {
        std::ostringstream s;
        s << "must be in [" << lo << ", " << hi << "] (got " << d << ")";
        fail(key, s.str());
    }
    return d;
}

int Checker::needInt(const json& v, const std::string& key, int lo, int hi) const {
    if (!v.is_number_integer()) fail(key, "must be an integer");
    const long long i = v.get<long long>();
    if (i < lo || i > hi)
        fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
                      std::to_string(i) + ")");
    return int(i);
}

void Checker::needOneOf(const json& v, const std::string& key, const std::vector<const char*>& names) const {
    std::string all;
    for (const char* n : names) {
        if (v.is_string() && v.get<std::string>() == n) return;
        all += std::string(all.empty() ? "" : ", ") + n;
    }
    fail(key, "must be one of: " + all);
}

// As given (relative to the working directory), else next to the actions file, else in the source tree
// (so that lessons and examples run from any folder).
std::string Checker::resolveScene(const std::string& p) const {
    const fs::path q(p);
    if (q.is_absolute() || fs::exists(q)) return q.string();
    const fs::path nextTo = fs::path(file_).parent_path() / q;
    if (fs::exists(nextTo)) return nextTo.lexically_normal().string();
    const fs::path src = fs::path(VBD_SOURCE_DIR) / q;
    if (fs::exists(src)) return src.string();
    return q.string();
}

Action Checker::check(const json& j, int index, int step, const std::string& at) {
    if (!j.is_object()) fail(at, "must be an object like {\"frame\": 10, \"heat\": \"residual\"}");
    Action a;
    a.index = index;
    a.step = step;
    a.key = at;
    int verbs = 0;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        if (k == "comment") continue;
        if (k == "frame") {
            a.frame = needInt(it.value(), at + ".frame", 0, 100000000);
            continue;
        }
        std::string base = k;
        Side side = Side::Both;
        for (const auto& [suffix, s] :
             {std::pair<const char*, Side>{"_left", Side::Left}, {"_right", Side::Right}}) {
            const size_t n = std::strlen(suffix);
            if (base.size() > n && base.compare(base.size() - n, n, suffix) == 0) {
                base.resize(base.size() - n);
                side = s;
            }
        }
        const VerbInfo* info = nullptr;
        for (const auto& v : kVerbs)
            if (base == v.name) info = &v;
        if (!info) fail(at + "." + k, "unknown key");
        if (side != Side::Both && !info->sided)
            fail(at + "." + k, std::string(info->name) + " acts on both sides");
        if (++verbs > 1)
            fail(at + "." + k, "one verb per action (this one also has " + a.key.substr(at.size() + 1) + ")");
        a.verb = info->verb;
        a.side = side;
        a.value = it.value();
        a.key = at + "." + k;
    }
    checkValue(a);
    advance(a);
    return a;
}

const std::vector<FieldSpec>& fieldsOf(Verb v) {
    static const std::vector<FieldSpec> draw = [] {
        std::vector<FieldSpec> f;
        for (const char* k : kDrawKeys) f.push_back({k, Kind::Bool});
        return f;
    }();
    static const std::vector<FieldSpec> camera = {{"yaw", Kind::Number, -36000, 36000},
                                                  {"pitch", Kind::Number, -89, 89},
                                                  {"distance", Kind::Number, 1e-3, 1e5},
                                                  {"target", Kind::Vec3},
                                                  {"frame", Kind::Bool}};
    static const std::vector<FieldSpec> panels = {{"controls", Kind::Bool},    {"plots", Kind::Bool},
                                                  {"convergence", Kind::Bool}, {"per_frame", Kind::Bool},
                                                  {"timing", Kind::Bool},      {"ellipse", Kind::Bool}};
    static const std::vector<FieldSpec> lab = {{"pair", Kind::Bool},
                                               {"nd", Kind::Bool},
                                               {"kappa", Kind::Number, 1, 1e6},
                                               {"angle", Kind::Number, 0, 90},
                                               {"sweeps", Kind::Int, 1, 50},
                                               {"nd_kappa", Kind::Number, 1, 1e6},
                                               {"nd_coupling", Kind::Number, 0, 0.95},
                                               {"nd_blocks", Kind::Int, 2, 16},
                                               {"nd_seed", Kind::Int, 1, 100}};
    static const std::vector<FieldSpec> record = {{"every", Kind::Int, 1, 100000},
                                                  {"fps", Kind::Number, 1, 240},
                                                  {"capture", Kind::Choice, 0, 0, {"window", "view"}},
                                                  {"size", Kind::Size, 16, 8192},
                                                  {"format", Kind::Choice, 0, 0, {"auto", "png", "mp4"}},
                                                  {"dir", Kind::Path}};
    static const std::vector<FieldSpec> screenshot = {{"path", Kind::Path},
                                                      {"capture", Kind::Choice, 0, 0, {"window", "view"}}};
    static const std::vector<FieldSpec> none;
    switch (v) {
        case Verb::Draw:
            return draw;
        case Verb::Camera:
            return camera;
        case Verb::Panels:
            return panels;
        case Verb::Lab:
            return lab;
        case Verb::Record:
            return record;
        case Verb::Screenshot:
            return screenshot;
        default:
            return none;
    }
}

void Checker::checkField(const json& v, const std::string& key, const FieldSpec& f) const {
    switch (f.kind) {
        case Kind::Bool:
            return needBool(v, key);
        case Kind::Number:
            needNumber(v, key, f.lo, f.hi);
            return;
        case Kind::Int:
            needInt(v, key, int(f.lo), int(f.hi));
            return;
        case Kind::Vec3:
            if (!v.is_array() || v.size() != 3 ||
                !std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); }))
                fail(key, "must be [x, y, z]");
            return;
        case Kind::Size:
            if (!v.is_array() || v.size() != 2) fail(key, "must be [width, height]");
            needInt(v[0], key + "[0]", int(f.lo), int(f.hi));
            needInt(v[1], key + "[1]", int(f.lo), int(f.hi));
            return;
        case Kind::Path:
            if (!v.is_string() || v.get<std::string>().empty()) fail(key, "must be a file or folder path");
            return;
        case Kind::Choice:
            return needOneOf(v, key, f.choices);
    }
}

void Checker::checkFields(const json& v, const std::string& key, const std::vector<FieldSpec>& spec) const {
    if (!v.is_object()) fail(key, "must be an object");
    for (auto it = v.begin(); it != v.end(); ++it) {
        auto f =
            std::find_if(spec.begin(), spec.end(), [&](const FieldSpec& s) { return it.key() == s.key; });
        if (f == spec.end()) fail(key + "." + it.key(), "unknown key");
        checkField(it.value(), key + "." + it.key(), *f);
    }
}

void Checker::checkLoad(Action& a) {
    if (!a.value.is_string() || a.value.get<std::string>().empty()) fail(a.key, "must be a scene file path");
    const std::string path = resolveScene(a.value.get<std::string>());
    try {
        vbd::loadSceneFile(path);
    } catch (const vbd::InputError& e) {
        fail(a.key, e.what());
    }
    a.value = path;
    run_.lab[0] = run_.lab[1] = SceneSettings(path);
}

void Checker::checkRange(const json& v, const std::string& k) const {
    if (v.is_string() && v.get<std::string>() == "auto") return;
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
        fail(k, "must be \"auto\" or [min, max]");
    const double lo = v[0].get<double>(), hi = v[1].get<double>();
    if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
        fail(k, "min must be below max (both finite)");
}

// One of vertex / region / arrow, with an optional text.
void Checker::checkMark(const json& v, const std::string& k) const {
    if (v.is_string() && v.get<std::string>() == "clear") return;
    if (!v.is_object())
        fail(k,
             "must be {\"vertex\": i} or {\"region\": {\"min\", \"max\"}} or "
             "{\"arrow\": {\"from\", \"to\"}} (with \"text\"), or \"clear\"");
    int what = 0;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string key = k + "." + it.key();
        if (it.key() == "text") {
            if (!it.value().is_string()) fail(key, "must be a string");
        } else if (it.key() == "vertex") {
            needInt(it.value(), key, 0, 1 << 30);
            ++what;
        } else if (it.key() == "region" || it.key() == "arrow") {
            const bool region = it.key() == "region";
            checkFields(it.value(), key,
                        {{region ? "min" : "from", Kind::Vec3}, {region ? "max" : "to", Kind::Vec3}});
            for (const char* end : {region ? "min" : "from", region ? "max" : "to"})
                if (!it.value().contains(end)) fail(key + "." + end, "required");
            ++what;
        } else {
            fail(key, "unknown key");
        }
    }
    if (what != 1) fail(k, "needs exactly one of vertex, region, arrow");
}

void Checker::checkValue(Action& a) {
    const json& v = a.value;
    const std::string& k = a.key;
    if (a.side == Side::Right && !run_.compare)
        fail(k, "side-by-side is off here (add {\"compare\": true} before it)");
    switch (a.verb) {
        case Verb::Wait:
            break;
        case Verb::Load:
            checkLoad(a);
            break;
        case Verb::Reset:
        case Verb::Quit:
            if (v != json(true)) fail(k, "must be true");
            break;
        case Verb::Set:
            checkSet(a);
            break;
        case Verb::Compare:
            needBool(v, k);
            run_.compare = v.get<bool>();
            if (run_.compare) run_.lab[1] = run_.lab[0];  // the right side starts as a copy of the left
            break;
        case Verb::Play:
        case Verb::Log:
        case Verb::SharedScale:
            needBool(v, k);
            break;
        case Verb::Step:
            needInt(v, k, 1, 100000);
            break;
        case Verb::Throw:
            needInt(v, k, 1, 10);
            break;
        case Verb::Speed:
            if (!(v.is_string() && v.get<std::string>() == "max") && !v.is_number())
                fail(k, "must be a factor of real time (e.g. 0.5) or \"max\"");
            if (v.is_number()) needNumber(v, k, 1e-3, 1000);
            break;
        case Verb::Heat:
            needOneOf(v, k, std::vector<const char*>(std::begin(kHeatNames), std::end(kHeatNames)));
            break;
        case Verb::Range:
            checkRange(v, k);
            break;
        case Verb::Inspect:
            needInt(v, k, -1, 1 << 30);
            break;
        case Verb::Window:
            if (!v.is_array() || v.size() != 2) fail(k, "must be [width, height]");
            needInt(v[0], k + "[0]", 800, 8192);
            needInt(v[1], k + "[1]", 500, 8192);
            break;
        case Verb::Record:
            if (v.is_string())
                needOneOf(v, k, {"start", "stop"});
            else
                checkFields(v, k, fieldsOf(a.verb));
            break;
        case Verb::Screenshot: {
            const auto png = [&](const std::string& path, const std::string& key) {
                const std::string problem = pngPathProblem(path);
                if (!problem.empty()) fail(key, problem);
            };
            if (v.is_string()) {
                png(v.get<std::string>(), k);
                break;
            }
            checkFields(v, k, fieldsOf(a.verb));
            if (!v.contains("path")) fail(k + ".path", "required");
            png(v["path"].get<std::string>(), k + ".path");
            break;
        }
        case Verb::Draw:
        case Verb::Camera:
        case Verb::Panels:
        case Verb::Lab:
            checkFields(v, k, fieldsOf(a.verb));
            break;
        case Verb::Mark:
            checkMark(v, k);
            break;
        case Verb::Caption:
            if (!v.is_string()) fail(k, "must be a string (\"\" removes the caption)");
            break;
        case Verb::Plot:
            needOneOf(v, k, std::vector<const char*>(std::begin(kPlotNames), std::end(kPlotNames)));
            break;
        case Verb::Pause:
            needNumber(v, k, 0, 600);
            break;
        case Verb::Fault:
            needOneOf(v, k, {"device_lost", "device_gone"});
            break;
        case Verb::Cursor:
            if (v.is_string() && v.get<std::string>() == "none") break;
            if (!v.is_array() || v.size() != 2) fail(k, "must be [x, y] (window pixels) or \"none\"");
            needNumber(v[0], k + "[0]", 0, 8192);
            needNumber(v[1], k + "[1]", 0, 8192);
            break;
    }
}

// Each key is applied alone, in order, to the scene as the run will have it, so that a refused key is
// the one named.
void Checker::checkSet(Action& a) {
    if (!a.value.is_object() || a.value.empty()) fail(a.key, "must be an object of {\"key.path\": value}");
    for (auto it = a.value.begin(); it != a.value.end(); ++it) {
        const std::string key = a.key + "." + it.key();
        for (int l = 0; l < 2; ++l) {
            if ((a.side == Side::Left && l == 1) || (a.side == Side::Right && l == 0)) continue;
            SceneSettings& s = run_.lab[l];
            if (s.file().empty()) fail(key, "the built-in scene takes no settings (load a scene file first)");
            s.set(it.key(), it.value().dump());
            try {
                s.resolve();
            } catch (const vbd::InputError& e) {
                fail(key, e.detail() + " (in " + fs::path(s.file()).filename().string() + ")");
            }
        }
    }
}

// Tracks the frame the run reaches and whether it plays: an action that waits for a later frame while
// the simulation is paused would wait forever.
void Checker::advance(const Action& a) {
    if (a.frame > run_.frame) {
        if (!run_.playing)
            fail(a.key.substr(0, a.key.rfind(']') + 1) + ".frame",
                 "waits for frame " + std::to_string(a.frame) + " while the simulation is paused (frame " +
                     std::to_string(run_.frame) + "; add {\"play\": true} or {\"step\": n} before it)");
        run_.frame = a.frame;
    }
    switch (a.verb) {
        case Verb::Load:
        case Verb::Reset:
            run_.frame = 0;
            break;
        case Verb::Compare:  // turned on, both sides restart together
            if (a.value.get<bool>()) run_.frame = 0;
            break;
        case Verb::Play:
            run_.playing = a.value.get<bool>();
            break;
        case Verb::Step:
            run_.frame += a.value.get<int>();
            break;
        default:
            break;
    }
}

}  // namespace

const char* verbName(Verb v) {
    for (const auto& i : kVerbs)
        if (i.verb == v) return i.name;
    return "wait";
}

ActionScript parseActions(const std::string& text, const std::string& file, const ActionContext& ctx) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < e.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw vbd::InputError(file, "line " + std::to_string(line) + ", column " + std::to_string(col),
                              "malformed JSON");
    } catch (const json::exception&) {
        // out_of_range.406: valid syntax, but a number beyond a double (1e999); it carries no position.
        throw vbd::InputError(file, "", "a number overflows a double: numbers must be finite");
    }
    ActionScript script;
    script.file = file;
    Checker checker(file, ctx);
    // key: "" for a plain list (actions are named "actions[3]"), "steps[1].actions" in a steps file.
    auto addList = [&](const json& list, const std::string& key, const std::string& title) {
        if (!list.is_array()) throw vbd::InputError(file, key, "must be a list of actions");
        ActionStep st;
        st.title = title;
        st.first = int(script.actions.size());
        for (size_t i = 0; i < list.size(); ++i) {
            const int index = int(script.actions.size());
            const std::string at =
                (key.empty() ? "actions" : key) + "[" + std::to_string(key.empty() ? size_t(index) : i) + "]";
            script.actions.push_back(checker.check(list[i], index, int(script.steps.size()), at));
        }
        st.count = int(script.actions.size()) - st.first;
        script.steps.push_back(st);
    };
    if (root.is_array()) {
        addList(root, "", "");
    } else if (root.is_object() && root.contains("steps") && root.size() == 1) {
        const json& steps = root["steps"];
        if (!steps.is_array()) throw vbd::InputError(file, "steps", "must be a list");
        for (size_t i = 0; i < steps.size(); ++i) {
            const std::string key = "steps[" + std::to_string(i) + "]";
            const json& s = steps[i];
            if (!s.is_object() || !s.contains("actions"))
                throw vbd::InputError(file, key, "must be {\"title\": ..., \"actions\": [...]}");
            for (auto it = s.begin(); it != s.end(); ++it)
                if (it.key() != "title" && it.key() != "actions")
                    throw vbd::InputError(file, key + "." + it.key(), "unknown key");
            const std::string title =
                s.contains("title") && s["title"].is_string() ? s["title"].get<std::string>() : "";
            addList(s["actions"], key + ".actions", title);
        }
    } else {
        throw vbd::InputError(file, "", "must be a list of actions or {\"steps\": [...]}");
    }
    return script;
}

ActionScript loadActions(const std::string& path, const ActionContext& ctx) {
    return parseActions(vbd::readInputFile(path, "", vbd::kMaxJsonFileBytes), path, ctx);
}

}  // namespace vbdgui
