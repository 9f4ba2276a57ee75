#include "render/world_source.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "math/error.h"
#include "scene/scene.h"

namespace vbdgui {

bool loadScene(const std::string& path, const std::vector<std::string>& overrides, vbd::SceneDesc& out,
               std::string& error) {
    try {
        out = vbd::loadSceneFile(path, overrides);
        return true;
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
}

bool hostExecutorFromEnv() {
    const char* v = std::getenv("VBD_HOST_EXECUTOR");
    return v && v[0] == '1';
}

std::unique_ptr<vbd::World> createWorld(const vbd::SceneDesc& desc, std::string* note) {
    if (note) note->clear();
    vbd::WorldOptions o;
    o.hostExecutor = hostExecutorFromEnv();
    return vbd::World::create(desc, o);
}

vbd::SceneDesc defaultScene() {
    vbd::SceneDesc d;
    d.name = "Built-in demo: contrast beam, pinned cloth, boxes and a sphere";
    vbd::SoftBodyDesc beam;
    beam.key = "soft_bodies[0]";
    beam.min = {0, 1, 0};
    beam.max = {4, 2, 1};
    beam.cells = {16, 4, 4};
    beam.material.youngs = 1e5;
    beam.regions.push_back({{{2, 1, 0}, {4, 2, 1}}, 100});
    vbd::FixedDesc clamp;
    clamp.box = {{-0.01f, 0.99f, -0.01f}, {0.01f, 2.01f, 1.01f}};
    beam.fixed.push_back(clamp);
    d.softBodies.push_back(beam);
    vbd::ClothDesc cloth;
    cloth.key = "cloths[0]";
    cloth.min = {-2.5f, 2.5f, -0.5f};
    cloth.size = {1.5, 1.5};
    cloth.cells = {24, 24};
    cloth.material.youngs = 1e4;
    cloth.material.density = 200;
    vbd::FixedDesc pin;
    pin.box = {{-2.51f, 2.49f, -0.51f}, {-2.49f, 2.51f, 1.01f}};
    cloth.fixed.push_back(pin);
    d.cloths.push_back(cloth);
    for (int i = 0; i < 2; ++i) {
        vbd::RigidBodyDesc b;
        b.key = "rigid_bodies[" + std::to_string(i) + "]";
        b.size = {0.6f, 0.6f, 0.6f};
        b.position = {1.0f + 1.2f * float(i), 0.3f, 2.0f};
        d.rigidBodies.push_back(b);
    }
    vbd::RigidBodyDesc s;
    s.key = "rigid_bodies[2]";
    s.shape = vbd::ShapeType::Sphere;
    s.radius = 0.35;
    s.position = {1.6f, 1.0f, 2.0f};
    d.rigidBodies.push_back(s);
    return d;
}

std::vector<std::string> listScenes() {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    for (const fs::path& base : {fs::path("assets/scenes"), fs::path(VBD_SOURCE_DIR) / "assets/scenes"}) {
        std::error_code ec;
        if (!fs::is_directory(base, ec)) continue;
        for (const auto& e : fs::directory_iterator(base, ec))
            if (e.path().extension() == ".json") out.push_back(e.path().string());
        if (!out.empty()) break;
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string defaultScenePath() {
    namespace fs = std::filesystem;
    for (const auto& f : listScenes())
        if (fs::path(f).filename() == "default.json") return f;
    return "";
}

}  // namespace vbdgui
