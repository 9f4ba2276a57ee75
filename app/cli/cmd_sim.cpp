// `vbdlab sim SCENE.json --frames N --out DIR [--set key.path=value]...`: headless run writing
// metrics.csv, convergence.csv and final_state.json (DESIGN.md "Outputs of vbdlab sim").
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "math/error.h"
#include "scene/scene.h"
#include "world/world.h"

namespace vbdcli {

namespace fs = std::filesystem;

struct SimRun {
    std::string scene;
    int frames = 120;
    std::string out;
    std::vector<std::string> sets;
    int threads = -1;
};

static void writeFinalState(const std::string& path, const vbd::World& w) {
    nlohmann::json j;
    j["particles"] = nlohmann::json::array();
    for (const auto& p : w.positions()) j["particles"].push_back({p.x, p.y, p.z});
    j["bodies"] = nlohmann::json::array();
    for (const auto& b : w.bodies()) {
        nlohmann::json o;
        o["position"] = {b.position.x, b.position.y, b.position.z};
        o["rotation"] = {b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w};
        o["velocity"] = {b.velocity.x, b.velocity.y, b.velocity.z};
        o["angular_velocity"] = {b.angularVelocity.x, b.angularVelocity.y, b.angularVelocity.z};
        j["bodies"].push_back(o);
    }
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << j.dump(1) << "\n";
}

int runSim(const SimRun& r) {
    // Everything that can be refused is checked before the output folder is touched.
    vbd::SceneDesc desc = vbd::loadSceneFile(r.scene, r.sets);
    for (const auto& w : vbd::lastSceneWarnings()) std::fprintf(stderr, "vbdlab: warning: %s\n", w.c_str());
    if (r.threads >= 0) desc.solver.threads = r.threads;
    std::unique_ptr<vbd::World> world = vbd::World::create(desc);
    if (r.frames < 0) throw vbd::InputError("", "--frames", "must be >= 0");
    fs::create_directories(r.out);

    // Rows are written as frames complete: nothing kept per frame, so memory stays flat however
    // long the run (the World keeps a bounded history).
    auto open = [&](const char* name, const char* header) {
        const std::string p = (fs::path(r.out) / name).string();
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(p.c_str(), "w"), &std::fclose);
        if (!f) throw std::runtime_error("cannot write " + p);
        std::fprintf(f.get(), "%s\n", header);
        return f;
    };
    auto metrics = open("metrics.csv", vbd::kMetricsHeader),
         conv = open("convergence.csv", vbd::kConvergenceHeader);
    double ms = 0;
    Progress progress("sim " + desc.name, r.frames);
    for (int f = 0; f < r.frames; ++f) {
        world->step();
        vbd::writeMetricsRow(metrics.get(), world->history().back());
        vbd::writeConvergenceRows(conv.get(), world->lastConvergence());
        ms += world->history().back().stepMs;
        progress.update(f + 1);
    }
    progress.finish();
    writeFinalState((fs::path(r.out) / "final_state.json").string(), *world);
    std::fprintf(stderr,
                 "vbdlab: %d frames of \"%s\" (%d particles, %zu bodies) in %.2f s; wrote "
                 "%s/{metrics.csv,convergence.csv,final_state.json}\n",
                 r.frames, desc.name.c_str(), int(world->positions().size()), world->bodies().size(),
                 ms / 1000.0, r.out.c_str());
    return 0;
}

int runDefaultHeadless(const std::string& scene, int frames) {
    SimRun r;
    r.scene = scene.empty() ? assetPath("scenes/default.json") : scene;
    r.frames = frames;
    r.out = "out/default";
    return runSim(r);
}

static Command addSimCommand(CLI::App& root) {
    auto run = std::make_shared<SimRun>();
    CLI::App* sub = root.add_subcommand(
        "sim", "Simulate a scene headless and write metrics.csv, convergence.csv, final_state.json");
    sub->add_option("scene", run->scene, "Scene file (JSON)")->required()->check(CLI::ExistingFile);
    sub->add_option("--frames", run->frames, "Frames to simulate (each of the scene's dt)")
        ->capture_default_str();
    sub->add_option("--out", run->out, "Output folder (created)")->required();
    sub->add_option("--set", run->sets, "Override a scene key: --set solver.iterations=20 (repeatable)");
    sub->add_option("--threads", run->threads,
                    "Worker threads (0 = all; default: the scene's solver.threads)");
    sub->footer("Exit codes: 0 ok, 2 bad input (the message names file and key), 1 other error.");
    return {sub, [run]() { return runSim(*run); }};
}

static Registrar reg(&addSimCommand);

}  // namespace vbdcli
