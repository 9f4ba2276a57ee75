#pragma once
// Scene files (DESIGN.md "Scene files"): parse, apply --set overrides, validate. Every error is an
// InputError "file: key.path: what is wrong"; unknown keys are errors.
#include <string>
#include <vector>

#include "scene/scene_desc.h"

namespace vbd {

// overrides: "key.path=value" (value parsed as JSON, else taken as a string), e.g.
// "solver.iterations=20", "solver.damping=naive", "soft_bodies.0.material.youngs=1e6".
SceneDesc loadSceneFile(const std::string& path, const std::vector<std::string>& overrides = {});
SceneDesc parseScene(const std::string& jsonText, const std::string& file,
                     const std::vector<std::string>& overrides = {});

// Warnings produced while parsing (e.g. a non-unit quaternion that was normalized).
const std::vector<std::string>& lastSceneWarnings();

}  // namespace vbd
