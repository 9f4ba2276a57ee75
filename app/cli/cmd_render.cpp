// `vbdlab render SCENE.json --frames N --out DIR [--width W --height H]`: simulates the scene and writes
// one offscreen-rendered PNG per frame (DIR/frame_00001.png ...), with no window. Needs a Vulkan device
// (Mesa's lavapipe runs on the CPU); `vbdlab sim` is the headless alternative without one.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "math/error.h"
#include "scene/scene.h"

#ifdef VBD_HAVE_GUI
#include "render/device_choice.h"
#include "render/image_io.h"
#include "render/renderer.h"
#include "render/targets.h"
#include "render/world_source.h"
#endif

namespace vbdcli {

namespace fs = std::filesystem;

struct RenderRun {
    std::string scene;
    int frames = 60;
    std::string out;
    int width = 1280, height = 720;
    std::vector<std::string> sets;
    std::string field = "none";
    bool wireframe = false;
    std::string backend;            // --backend: solver.backend (cpu | cuda | auto)
    std::string vertices = "auto";  // --vertices: auto | cpu | interop (render/vertex_source.h)
    int threads = -1;               // --threads: solver.threads (-1: the scene's)
};

#ifdef VBD_HAVE_GUI
static vbd::ScalarField parseField(const std::string& s) {
    if (s == "none") return vbd::ScalarField::None;
    if (s == "color") return vbd::ScalarField::Color;
    if (s == "residual") return vbd::ScalarField::Residual;
    if (s == "det_f") return vbd::ScalarField::VolumeRatio;
    if (s == "dominance") return vbd::ScalarField::DiagonalDominance;
    if (s == "dominance_sum") return vbd::ScalarField::DominanceSum;
    throw vbd::InputError("", "--field",
                          "'" + s + "' is not one of none, color, residual, det_f, dominance, dominance_sum");
}

static int runRender(const RenderRun& r) {
    checkOutputFolder(r.out);
    if (r.frames < 0) throw vbd::InputError("", "--frames", "must be >= 0");
    if (r.width < 16 || r.height < 16 || r.width > 8192 || r.height > 8192)
        throw vbd::InputError("", "--width/--height", "must be between 16 and 8192 pixels");
    if (r.vertices != "auto" && r.vertices != "cpu" && r.vertices != "interop")
        throw vbd::InputError("", "--vertices", "'" + r.vertices + "' is not one of auto, cpu, interop");
    const vbd::ScalarField field = parseField(r.field);  // a command-line value, before anything is said
    std::vector<std::string> sets = r.sets;
    if (!r.backend.empty()) sets.push_back("solver.backend=" + r.backend);  // validated with the scene
    vbd::SceneDesc desc = vbd::loadSceneFile(r.scene, sets);                // InputError -> exit code 2
    printSceneWarnings();
    if (r.threads >= 0) desc.solver.threads = r.threads;
    std::unique_ptr<vbd::World> world;
    try {
        world = vbdgui::createWorld(desc);
    } catch (const vbd::InputError& e) {
        throw vbd::namingFile(e, r.scene);  // e.g. solver.backend: cuda without a device
    }
    std::fprintf(stderr, "vbdlab: %s\n", world->backendLine().c_str());
    vbdgui::DrawOptions opt;
    opt.field = field;
    opt.logScale = opt.field == vbd::ScalarField::Residual;
    world->setWantedField(opt.field);  // every frame draws it (the CUDA backend then downloads the residual)
    opt.wireframe = r.wireframe;

    std::unique_ptr<vbdgui::Context> ctx;
    try {
        vbdgui::ContextOptions co;
        co.validation = vbdgui::validationRequested();
        co.preferUuid = vbdgui::cudaStepDeviceUuid();  // the interop needs the solver's GPU
        ctx = std::make_unique<vbdgui::Context>(co);
    } catch (const vbdgui::VulkanError& e) {
        std::fprintf(
            stderr,
            "vbdlab render: no Vulkan device (%s).\n  `vbdlab sim %s --frames %d --out DIR` runs the "
            "same scene headless without one.\n",
            e.what(), r.scene.c_str(), r.frames);
        return 2;
    }
    {
        vbdgui::OffscreenTarget target(*ctx, uint32_t(r.width), uint32_t(r.height));
        vbdgui::Renderer renderer(*ctx, target.pass());
        vbdgui::SceneGpu gpu(*ctx, *world, 1, r.vertices != "cpu");
        std::fprintf(stderr, "vbdlab: %s\n", gpu.vertexLine().c_str());
        if (r.vertices == "interop" && !gpu.interopVertices())
            throw vbd::InputError(
                "", "--vertices",
                "interop is not available here (" + gpu.vertexLine() + ")");  // before writing anything
        makeOutputFolder(r.out);
        // One camera for the whole clip, framed on the initial scene.
        vbdgui::OrbitCamera cam;
        vbdgui::applySceneView(desc, cam);  // the scene's own angles, as the app opens it
        glm::vec3 lo, hi;
        vbdgui::sceneBounds(*world, lo, hi);
        cam.frame(lo, hi, float(r.width) / float(r.height));
        Progress progress("render " + desc.name, r.frames);
        double updateMs = 0;
        for (int f = 1; f <= r.frames; ++f) {
            world->step();
            gpu.update(*world, opt, 0);
            updateMs += gpu.lastUploadMs;
            vbdgui::Pixels px = target.render(
                vbdgui::kClearColor,
                [&](VkCommandBuffer cb) {
                    renderer.draw(cb, gpu, 0, cam, VkRect2D{{0, 0}, {uint32_t(r.width), uint32_t(r.height)}},
                                  opt);
                },
                gpu.frameSync(0));
            char name[32];
            std::snprintf(name, sizeof name, "frame_%05d.png", f);
            vbdgui::writePng((fs::path(r.out) / name).string(), px);
            progress.update(f);
        }
        progress.finish();
        // Frames of an earlier, longer run in the same folder are left alone (they are the user's), but said:
        // a clip assembled from frame_*.png would run on into the old scene.
        int stale = 0;
        for (int f = r.frames + 1;; ++f) {
            char name[32];
            std::snprintf(name, sizeof name, "frame_%05d.png", f);
            std::error_code ec;
            if (!fs::exists(fs::path(r.out) / name, ec)) break;
            ++stale;
        }
        if (stale > 0)
            std::fprintf(
                stderr,
                "vbdlab: warning: %s also holds frame_%05d.png to frame_%05d.png from an earlier run "
                "(not removed)\n",
                r.out.c_str(), r.frames + 1, r.frames + stale);
        // Host time per frame between the solver and the renderer: vertex records (interop: only issued),
        // heat map, body instances, shadows, markers (docs/gpu.md "Interop": the < 0.5 ms target).
        if (r.frames > 0)
            std::fprintf(stderr, "vbdlab: scene update %.3f ms per frame\n", updateMs / r.frames);
    }
    std::fprintf(stderr, "vbdlab: rendered %d frames of \"%s\" (%dx%d, %s) to %s/frame_NNNNN.png\n", r.frames,
                 desc.name.c_str(), r.width, r.height, ctx->deviceName().c_str(), r.out.c_str());
    if (ctx->validationMessages() > 0) {
        std::fprintf(stderr, "vbdlab: %d Vulkan validation messages\n", ctx->validationMessages());
        return 1;
    }
    return 0;
}
#else
static int runRender(const RenderRun&) {
    std::fprintf(stderr,
                 "vbdlab render: this vbdlab was built without Vulkan (VBD_BUILD_APP=OFF or missing "
                 "libraries); `vbdlab sim` runs scenes headless.\n");
    return 1;
}
#endif

static Command addRenderCommand(CLI::App& root) {
    auto run = std::make_shared<RenderRun>();
    CLI::App* sub =
        root.add_subcommand("render", "Simulate a scene and write offscreen-rendered PNG frames (no window)");
    sub->add_option("scene", run->scene, "Scene file (JSON)")->required()->check(CLI::ExistingFile);
    sub->add_option("--frames", run->frames, "Frames to simulate and render")->capture_default_str();
    sub->add_option("--out", run->out, "Output folder (created): frame_00001.png, ...")->required();
    sub->add_option("--width", run->width, "Image width in pixels (16 to 8192)")->capture_default_str();
    sub->add_option("--height", run->height, "Image height in pixels (16 to 8192)")->capture_default_str();
    sub->add_option("--set", run->sets, "Override a scene key: --set solver.iterations=20 (repeatable)");
    sub->add_option("--field", run->field, "Heat map: none, color, residual, det_f, dominance, dominance_sum")
        ->capture_default_str();
    sub->add_flag("--wireframe", run->wireframe, "Draw surface edges");
    sub->add_option("--backend", run->backend, "Soft-body step: cpu | cuda | auto (solver.backend)");
    sub->add_option("--threads", run->threads,
                    "Worker threads (0 = all; default: the scene's solver.threads)")
        ->check(CLI::Range(0, 1024));  // as solver.threads
    sub->add_option(
           "--vertices", run->vertices,
           "Particle vertex buffer (and the rigid body instance buffer): auto (CUDA-Vulkan interop when the "
           "soft step, or a rigid-only scene's rigid step, runs on a CUDA device that is the Vulkan device), "
           "cpu "
           "(upload), interop (required: exit 2 without it)")
        ->capture_default_str();
    sub->footer(
        "Needs a Vulkan device (lavapipe works on the CPU). Exit codes: 0 ok, 2 bad input or no Vulkan "
        "device, 1 other error.");
    return {sub, [run]() { return runRender(*run); }};
}

static Registrar reg(&addRenderCommand);

}  // namespace vbdcli
