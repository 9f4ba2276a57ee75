// vbdlab: the interactive VBD / AVBD laboratory and its headless commands (DESIGN.md "Command line").
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli/commands.h"
#include "gui/core/png_path.h"
#include "gui/gui.h"

namespace vbdcli {
int runDefaultHeadless(const std::string& scene, int frames);  // cmd_sim.cpp
}

int main(int argc, char** argv) {
    CLI::App root{
        "VBD Lab: Vertex Block Descent soft bodies and AVBD rigid bodies, interactive and headless."};
    root.name("vbdlab");
    root.require_subcommand(0, 1);
    vbdgui::GuiOptions gui;
    root.add_option("--scene", gui.scene, "Scene file to open in the GUI")->check(CLI::ExistingFile);
    root.add_option("--frames", gui.frames, "Run N frames, then exit (use with --screenshot)")
        ->check(CLI::Range(0, 100000000));
    const auto nonEmpty = [](const std::string& p) -> std::string {
        return p.empty() ? "must name a folder" : "";
    };
    root.add_option("--screenshot", gui.screenshot, "Save the window with its panels to this PNG and exit")
        ->check(vbdgui::pngPathProblem);
    // As the `window` action: at most 8192 (a larger one fails in the driver); a smaller one than the app's
    // least is raised to it.
    root.add_option("--width", gui.width, "Window width")->check(CLI::Range(1, 8192));
    root.add_option("--height", gui.height, "Window height")->check(CLI::Range(1, 8192));
    root.add_option(
            "--actions", gui.actions,
            "Scripted run: a JSON list of timed actions (load, set key.path, heat, record, screenshot, "
            "quit, ...; see README)")
        ->check(CLI::ExistingFile);
    root.add_flag("--paused", gui.paused, "Start paused (space plays)");
    root.add_option("--lesson", gui.lesson,
                    "Open a guided lesson: a folder of assets/lessons/ by name (02-dominance, dominance, 2) "
                    "or path");
    root.add_flag("--autoplay", gui.autoplay,
                  "With --lesson: play every step, pausing between them, then exit 0 (tests, lecture clips)");
    root.add_option("--step-pause", gui.stepPause, "Seconds between steps with --autoplay (default 1.5)")
        ->check(CLI::Range(0.0, 600.0))
        ->check([](const std::string& v) -> std::string {  // Range lets nan through
            return std::isfinite(std::strtod(v.c_str(), nullptr)) ? "" : "must be a number of seconds";
        });
    root.add_option("--screenshot-dir", gui.screenshotDir,
                    "With --lesson: save the window at the end of each step as DIR/NN-name-stepK.png")
        ->check(nonEmpty);
    root.add_flag("--headless", gui.headless,
                  "No window: render the same frames into images that are never shown (needs --actions, "
                  "--screenshot, --frames or --lesson with --autoplay; works without a display)");
    root.footer(
        "Without a command vbdlab opens the GUI; with no display it runs the scene headless and says where\n"
        "it wrote the output. Exit codes: 0 ok, 2 bad input, 1 other error.");

    // A command-line error reads as every other refusal ("vbdlab: error: what"), then where help is.
    root.failure_message([](const CLI::App* app, const CLI::Error& e) {
        std::string help = app->get_name();
        for (const CLI::App* sub : app->get_subcommands()) help += " " + sub->get_name();  // the one given
        return "vbdlab: error: " + std::string(e.what()) + "\nRun `" + help +
               " --help` for more information.\n";
    });

    std::vector<vbdcli::Command> cmds;
    for (auto f : vbdcli::commandRegistry()) cmds.push_back(f(root));

    try {
        root.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = root.exit(e);
        return rc == 0 ? 0 : 2;
    }
    try {
        for (auto& c : cmds)
            if (c.sub->parsed()) return c.run();
        std::string bad;
        if (!vbdgui::checkOptions(gui, bad)) {  // bad actions: exit 2 before any window opens
            std::fprintf(stderr, "vbdlab: error: %s\n", bad.c_str());
            return 2;
        }
        const char* display = std::getenv("DISPLAY");
        const char* wayland = std::getenv("WAYLAND_DISPLAY");
        const bool haveDisplay = (display && *display) || (wayland && *wayland);
        if (vbdgui::available() && (haveDisplay || gui.headless)) {
            // Where the images go is checked (and made) before the window opens, as the screenshot action's
            // folder is: a path that cannot be written failed after the run, exit code 1, without a reason.
            if (!gui.screenshot.empty()) vbdcli::checkOutputFile(gui.screenshot, "--screenshot", true);
            if (!gui.screenshotDir.empty()) vbdcli::makeOutputFolder(gui.screenshotDir, "--screenshot-dir");
            return vbdgui::runGui(gui);
        }
        if (!gui.screenshot.empty() || !gui.actions.empty() || !gui.lesson.empty()) {
            std::fprintf(stderr,
                         "vbdlab: no display (%s): --screenshot, --actions and --lesson need a window; add "
                         "--headless (the same frames without one), or use `vbdlab render` for offscreen "
                         "frames or `vbdlab sim` for headless runs\n",
                         vbdgui::available() ? "DISPLAY is not set" : "GUI not compiled in");
            return 2;
        }
        std::fprintf(
            stderr,
            "vbdlab: %s; running the scene headless (see `vbdlab sim --help`, `vbdlab render --help`)\n",
            vbdgui::available() ? "no display" : "GUI not compiled in");
        return vbdcli::runDefaultHeadless(gui.scene, gui.frames > 0 ? gui.frames : 120);
    } catch (const std::exception& e) {
        return vbdcli::reportError(e);
    }
}
