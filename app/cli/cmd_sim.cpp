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
    std::string backend;  // --backend: solver.backend (cpu | cuda | auto)
};

static void writeFinalState(const std::string& path, const vbd::World& w) {
    nlohmann::json j;
    j["particles"] = nlohmann::json::array();
    for (const auto& p : w.statePositions()) j["particles"].push_back({p.x, p.y, p.z});  // every digit
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

// An output file streamed as NAME.part and renamed to NAME by commit(); removed if never committed.
class PartFile {
  public:
    PartFile(const std::string& dir, const char* name, const char* header)
        : final_((fs::path(dir) / name).string()), part_(final_ + ".part") {
        f_ = std::fopen(part_.c_str(), "w");
        if (!f_) throw std::runtime_error("cannot write " + part_);
        std::fprintf(f_, "%s\n", header);
    }
    PartFile(const PartFile&) = delete;
    PartFile& operator=(const PartFile&) = delete;
    ~PartFile() {
        if (!f_) return;
        std::fclose(f_);
        std::error_code ec;
        fs::remove(part_, ec);
    }
    std::FILE* get() const { return f_; }
    void commit() {
        const bool ok = std::fclose(f_) == 0;
        f_ = nullptr;
        if (!ok) throw std::runtime_error("cannot write " + part_);
        fs::rename(part_, final_);
    }

  private:
    std::string final_, part_;
    std::FILE* f_ = nullptr;
};

int runSim(const SimRun& r) {
    // Everything that can be refused is checked before the output folder is touched.
    checkOutputFolder(r.out);
    checkOutputNames(r.out, {"metrics.csv", "metrics.csv.part", "convergence.csv", "convergence.csv.part",
                             "final_state.json"});
    if (r.frames < 0) throw vbd::InputError("", "--frames", "must be >= 0");
    std::vector<std::string> sets = r.sets;
    if (!r.backend.empty()) sets.push_back("solver.backend=" + r.backend);  // validated with the scene
    vbd::SceneDesc desc = vbd::loadSceneFile(r.scene, sets);
    printSceneWarnings();
    if (r.threads >= 0) desc.solver.threads = r.threads;
    std::unique_ptr<vbd::World> world;
    try {
        world = vbd::World::create(desc);
    } catch (const vbd::InputError& e) {
        throw vbd::namingFile(e, r.scene);  // e.g. solver.backend: cuda without a device
    }
    std::fprintf(stderr, "vbdlab: %s\n", world->backendLine().c_str());
    // Nothing reads the particles between frames but the metrics, which the device measures where its
    // state is: a device run brings its state to the host once, for final_state.json.
    world->setLazyPublish(true);
    makeOutputFolder(r.out);

    // Rows are written as frames complete: nothing kept per frame, so memory stays flat however
    // long the run (the World keeps a bounded history). They go to NAME.part, renamed when the run
    // ends: a run that stops (a diverged step, exit 1) leaves no partial output behind.
    PartFile metrics(r.out, "metrics.csv", vbd::kMetricsHeader),
        conv(r.out, "convergence.csv", vbd::kConvergenceHeader);
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
    metrics.commit();
    conv.commit();
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
    r.out = "out/" + fs::path(r.scene).stem().string();  // out/default for the default scene
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
                    "Worker threads (0 = all; default: the scene's solver.threads)")
        ->check(CLI::Range(0, 1024));  // as solver.threads
    sub->add_option(
        "--backend", run->backend,
        "Soft-body step: cpu | cuda | auto (solver.backend; cuda without a usable device: exit 2)");
    sub->footer("Exit codes: 0 ok, 2 bad input (the message names file and key), 1 other error.");
    return {sub, [run]() { return runSim(*run); }};
}

static Registrar reg(&addSimCommand);

}  // namespace vbdcli
