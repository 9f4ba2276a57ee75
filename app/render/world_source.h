#pragma once
// How the app and `vbdlab render` obtain scenes and Worlds: the engine's parser (engine/scene/scene.h) and
// World::create.
#include <memory>
#include <string>
#include <vector>

#include "world/world.h"

namespace vbdgui {

// Parses and validates a scene file; on failure returns false and the parser's message in error.
bool loadScene(const std::string& path, const std::vector<std::string>& overrides, vbd::SceneDesc& out,
               std::string& error);
// The engine's World for desc (note: a line for the status bar, empty today). Throws vbd::InputError for a
// scene the engine refuses. Under VBD_HOST_EXECUTOR=1 the World's device steps run on the host executor
// (WorldOptions::hostExecutor: solver.backend cuda and auto take it as a device named "host executor"), and
// the window's interop on its stand-in writer (render/interop_host.h): the app's device paths, tested without
// a GPU. For tests; the product never sets it.
bool hostExecutorFromEnv();
std::unique_ptr<vbd::World> createWorld(const vbd::SceneDesc& desc, std::string* note = nullptr);

// Built-in scene used when no file is given and assets/scenes/ has none: a stiffness-contrast beam
// fixed at one end, two boxes, a sphere and a cloth pinned at two corners.
vbd::SceneDesc defaultScene();
// Scene files under assets/scenes/ (sorted).
std::vector<std::string> listScenes();
// assets/scenes/default.json (the GUI's and the headless fallback's first scene), "" if there is none.
std::string defaultScenePath();

}  // namespace vbdgui
