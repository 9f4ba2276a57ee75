#pragma once
// Scripted runs: `vbdlab --scene FILE --actions ACTIONS.json`. An actions file is a JSON list of timed
// actions, or {"steps": [{"title": ..., "actions": [...]}, ...]} where each step groups a list (the
// lessons reuse the format, one group per lesson step):
//
//   [{"frame": 0, "set": {"solver.coarse.enabled": true}},
//    {"frame": 30, "heat": "dominance"},
//    {"frame": 40, "load": "assets/scenes/contrast_bar.json"},
//    {"frame": 60, "record": "start"}, {"frame": 120, "record": "stop"},
//    {"frame": 121, "screenshot": "out.png"}, {"frame": 122, "quit": true}]
//
// Actions run in list order; each waits until the current scene's simulation frame reaches its `frame`
// (default 0: at once). A load or reset restarts the count. An action has one verb besides "frame" and
// an ignored "comment" (none: it only waits). Verbs that act on a lab take a "_left" or "_right" suffix
// to act on one side of a side-by-side run only; without it they act on both. Keys of `set` are the
// `--set` key paths. Every action is checked before the window opens: bad input is an InputError naming
// the file, the action index and the key (exit code 2).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vbdgui {

enum class Verb {
    Wait,
    Load,         // "path.json"
    Reset,        // true
    Set,          // {"key.path": value, ...}
    Compare,      // true | false: side by side
    Play,         // true | false
    Step,         // n single steps
    Speed,        // x real time (> 0) or "max"
    Heat,         // none | color | residual | det_f | dominance | dominance_sum
    Range,        // "auto" | [lo, hi] (the heat map's scale, in the field's units)
    Log,          // true | false: log10 colour scale
    SharedScale,  // true | false: one colour scale for both sides
    Draw,         // {"wireframe": true, "contacts": false, "surfaces", "bodies", "grid", "fixed", "joints",
                  //  "shadows", "regions"}
    Camera,       // {"yaw": deg, "pitch": deg, "distance": m, "target": [x, y, z], "frame": true}
    Inspect,      // vertex index (-1: none)
    Panels,       // {"controls": bool, "plots": bool} (columns open), {"convergence", "per_frame", "timing",
                  //  "ellipse": bool} (sections of the plots column open)
    Lab,          // {"pair": bool, "nd": bool, "kappa": k, "angle": deg, "sweeps": n,
                  //  "nd_kappa": k, "nd_coupling": t, "nd_blocks": n, "nd_seed": s}
    Record,       // "start" | "stop" | {"every": n, "fps": f, "capture": "window" | "view",
                  //  "size": [w, h], "format": "auto" | "png" | "mp4", "dir": "recording"}
    Screenshot,   // "out.png" | {"path": "out.png", "capture": "window" | "view"}
    Window,       // [w, h]
    Quit,         // true
    // Lessons (assets/lessons/): what a step points at and how long it holds.
    Mark,     // {"vertex": i | "region": {"min": [x,y,z], "max": [x,y,z]} | "arrow": {"from", "to"},
              //  "text": "..."}; "clear" removes every mark. A load clears them too. mark_left /
              //  mark_right: in one view of a side-by-side run only.
    Caption,  // "text over the 3D view" ("" removes it)
    Plot,     // the middle per-frame plot: "energy" (G) | "total_energy" | "com_y" | "kinetic"
    Pause,    // seconds of wall time during which the run holds at this frame (a lecture clip's beat)
    Throw,    // n (1-10) boxes thrown from the camera along the view, side by side, as the B key does (they
              //  join the running World and stay through settings edits and resets; a load drops them)
    Cursor,  // [x, y]: the pointer at window pixel (x, y), as if the mouse rested there (the hover readout of
             //  the vertex under it); "none": no pointer. Until the first cursor action the real mouse.
    // Tests of the failure paths: "device_lost" makes the next frame's submit fail as a lost Vulkan device's
    // would (after the frame's upload, so an interop slot's draw is begun and never signalled); the app then
    // makes a new device and goes on. "device_gone": the same, and no new device can be made (exit code 1).
    Fault,
};

enum class Side { Both, Left, Right };

struct Action {
    int index = 0;  // position in the file (all steps counted), for messages
    int step = 0;   // step group
    int frame = 0;
    Verb verb = Verb::Wait;
    Side side = Side::Both;
    nlohmann::json value;  // checked argument (a load path resolved to an existing file)
    std::string key;       // "actions[3].set" (in a steps file "steps[1].actions[2].set") for messages
};

struct ActionStep {
    std::string title;
    int first = 0, count = 0;  // range in ActionScript::actions
};

struct ActionScript {
    std::string file;
    std::vector<Action> actions;
    std::vector<ActionStep> steps;
};

struct ActionContext {
    std::string scene;    // the scene the run starts on ("" = built-in demo)
    bool paused = false;  // --paused
};

// Reads and checks an actions file. `set` keys and values are checked against the scene each applies to
// (the starting one, then each load's), through the engine's scene parser. Throws vbd::InputError.
ActionScript loadActions(const std::string& path, const ActionContext& ctx);
ActionScript parseActions(const std::string& text, const std::string& file, const ActionContext& ctx);

const char* verbName(Verb v);

}  // namespace vbdgui
