// vbdlab's command-line contract (DESIGN.md): sim outputs with the exact headers, and bad input refused
// with exit code 2, a message naming the file and key, and nothing written to the output folder.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "file_util.h"

namespace fs = std::filesystem;

namespace {

struct Result {
    int code;
    std::string err;
};

using vbdtest::slurp;

std::string tempDir(const std::string& name) { return vbdtest::freshTempDir("vbdlab_test", name); }

Result run(const std::string& args, std::string* out = nullptr) {
    const std::string d = tempDir("io");
    const std::string cmd =
        std::string(VBD_BINARY_DIR) + "/bin/vbdlab " + args + " 2> " + d + "/err.txt > " + d + "/out.txt";
    const int status = std::system(cmd.c_str());
    if (out) *out = slurp(d + "/out.txt");
    Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(d + "/err.txt")};
    fs::remove_all(d);
    return r;
}

std::string writeFile(const std::string& dir, const std::string& name, const std::string& text) {
    const std::string p = dir + "/" + name;
    std::ofstream(p) << text;
    return p;
}

const char* kGood = R"({
  "name": "t", "dt": 0.0166667,
  "solver": { "iterations": 5 },
  "soft_bodies": [ { "type": "box_grid", "min": [0,1,0], "max": [1,2,1], "cells": [2,2,2],
                     "material": { "youngs": 1e5, "poisson": 0.3, "density": 1000 } } ]
})";

std::string firstLine(const std::string& path) {
    std::ifstream f(path);
    std::string l;
    std::getline(f, l);
    return l;
}

}  // namespace

TEST(Cli, SimWritesTheThreeFilesWithExactHeaders) {
    const std::string dir = tempDir("sim");
    const std::string scene = writeFile(dir, "scene.json", kGood);
    Result r = run("sim " + scene + " --frames 3 --out " + dir + "/out");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(firstLine(dir + "/out/metrics.csv"),
              "frame,time,iterations,residual_initial,residual_final,energy,kinetic_energy,com_x,com_y,com_z,"
              "min_volume_ratio,max_speed,step_ms,total_energy,residual_floor");
    EXPECT_EQ(firstLine(dir + "/out/convergence.csv"), "frame,iteration,residual,energy");
    std::ifstream js(dir + "/out/final_state.json");
    nlohmann::json j = nlohmann::json::parse(js);
    EXPECT_EQ(j["particles"].size(), 27u);  // 3x3x3 grid vertices
    EXPECT_TRUE(j["bodies"].is_array());
    // 3 frames -> 3 metric rows; 5 iterations + the initial guess per frame -> 18 convergence rows.
    std::ifstream m(dir + "/out/metrics.csv"), c(dir + "/out/convergence.csv");
    int rows = 0, crow = 0;
    for (std::string l; std::getline(m, l);) rows++;
    for (std::string l; std::getline(c, l);) crow++;
    EXPECT_EQ(rows, 4);
    EXPECT_EQ(crow, 19);
    fs::remove_all(dir);
}

TEST(Cli, SetOverridesAScenekey) {
    const std::string dir = tempDir("set");
    const std::string scene = writeFile(dir, "scene.json", kGood);
    Result r = run("sim " + scene + " --frames 1 --out " + dir + "/out --set solver.iterations=2");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream c(dir + "/out/convergence.csv");
    int crow = 0;
    for (std::string l; std::getline(c, l);) crow++;
    EXPECT_EQ(crow, 1 + 3);  // header + initial + 2 iterations
    fs::remove_all(dir);
}

struct BadCase {
    const char* name;
    std::string from, to;  // replacement applied to kGood
    const char* key;       // must appear in the message
    std::string extraArgs = "";
};

TEST(Cli, BadInputExitsTwoNamingFileAndKeyAndWritesNothing) {
    const std::string dir = tempDir("bad");
    // A degenerate (zero-volume) rest tet in a TetGen mesh: four coplanar nodes.
    writeFile(dir, "flat.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 1 0\n");
    writeFile(dir, "flat.ele", "1 4 0\n0 0 1 2 3\n");
    const std::string meshBody =
        R"({ "type": "mesh", "path": "flat.node", "material": { "density": 1000 } })";
    const std::vector<BadCase> cases = {
        {"malformed JSON", "\"solver\":", "\"solver\" ", "line"},
        {"unknown key", "\"iterations\": 5", "\"iterations\": 5, \"iteratoins\": 3", "solver.iteratoins"},
        {"missing mesh", "{ \"type\": \"box_grid\"", "{ \"type\": \"mesh\", \"path\": \"nope.obj\"",
         "soft_bodies[0].path"},
        {"zero density", "\"density\": 1000", "\"density\": 0", "soft_bodies[0].material.density"},
        {"negative density", "\"density\": 1000", "\"density\": -5", "soft_bodies[0].material.density"},
        {"poisson 0.5", "\"poisson\": 0.3", "\"poisson\": 0.5", "soft_bodies[0].material.poisson"},
        {"dt zero", "\"dt\": 0.0166667", "\"dt\": 0", "dt"},
        {"dt negative", "\"dt\": 0.0166667", "\"dt\": -1", "dt"},
        {"NaN literal", "\"youngs\": 1e5", "\"youngs\": NaN", "line"},
        {"overflow to inf", "\"youngs\": 1e5", "\"youngs\": 1e999", "bad.json: line 5, column 46: unusable"},
        {"degenerate tet",
         "{ \"type\": \"box_grid\", \"min\": [0,1,0], \"max\": [1,2,1], \"cells\": [2,2,2],\n                "
         "     \"material\": { \"youngs\": 1e5, \"poisson\": 0.3, \"density\": 1000 } }",
         meshBody, "bad.json: soft_bodies[0].path: "},
        {"bad --set", "\"dt\"", "\"dt\"", "solver.iterations", " --set solver.iterations=-3"},
        // Issue 12: finite as doubles, but not in the solver's float (each once wrote NaN with exit 0).
        {"dt below the minimum", "\"dt\": 0.0166667", "\"dt\": 1e-320", "dt: must be >= 1e-06 s"},
        {"youngs beyond float", "\"youngs\": 1e5", "\"youngs\": 1e39", "soft_bodies[0].material.youngs"},
        {"regions multiply beyond float", "\"density\": 1000 }",
         "\"density\": 1000 }, \"regions\": [ { \"min\": [0,0,0], \"max\": [2,3,2], \"youngs_scale\": 1e10 "
         "}, "
         "{ \"min\": [0,0,0], \"max\": [2,3,2], \"youngs_scale\": 1e10 }, { \"min\": [0,0,0], \"max\": "
         "[2,3,2], "
         "\"youngs_scale\": 1e10 } ]",
         "soft_bodies[0].regions"},
        {"rigid density * volume", "\"soft_bodies\"",
         "\"rigid_bodies\": [ { \"shape\": \"box\", \"density\": 1e308 } ], \"soft_bodies\"",
         "rigid_bodies[0].density"},
        {"gravity * dt^2", "\"dt\"", "\"dt\"", "gravity", " --set gravity=[0,-1e10,0]"},
        // Found by CI's fuzzer: a --set number beyond a double threw out of the parser (abort).
        {"--set overflow", "\"dt\"", "\"dt\"", "solver.iterations: value \"1e999\" is not a finite",
         " --set solver.iterations=1e999"},
        {"1e9 cells", "\"cells\": [2,2,2]", "\"cells\": [1000,1000,1000]", "soft_bodies[0].cells"},
        {"mesh scaled beyond float",
         "{ \"type\": \"box_grid\", \"min\": [0,1,0], \"max\": [1,2,1], \"cells\": [2,2,2],\n                "
         "     \"material\": { \"youngs\": 1e5, \"poisson\": 0.3, \"density\": 1000 } }",
         std::string(R"({ "type": "mesh", "path": ")") + VBD_SOURCE_DIR +
             R"(/assets/meshes/cube5.node", "scale": 1e30 })",
         "soft_bodies[0].scale"},
    };
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.name);
        std::string text = kGood;
        const size_t p = text.find(c.from);
        ASSERT_NE(p, std::string::npos);
        text.replace(p, c.from.size(), c.to);
        const std::string scene = writeFile(dir, "bad.json", text);
        const std::string out = dir + "/out";
        fs::create_directories(out);
        writeFile(out, "keep.txt", "already here");
        Result r = run("sim " + scene + " --frames 2 --out " + out + c.extraArgs);
        EXPECT_EQ(r.code, 2) << r.err;
        EXPECT_NE(r.err.find(c.key), std::string::npos) << r.err;
        const bool namesFile =
            r.err.find("bad.json") != std::string::npos || r.err.find("flat.") != std::string::npos;
        EXPECT_TRUE(namesFile) << r.err;
        int files = 0;
        for (auto it = fs::directory_iterator(out); it != fs::directory_iterator(); ++it) ++files;
        EXPECT_EQ(files, 1) << "output folder was written to";
    }
    fs::remove_all(dir);
}

// A command-line value is refused as a scene's key is ("vbdlab: error: --frames: must be >= 0"), before the
// run says anything else; CLI11's own refusals read the same. Before: "<input>: --frames", after the backend
// line, and CLI11's "scene: File does not exist" without the prefix.
TEST(Cli, CommandLineErrorsReadAsEveryOtherRefusal) {
    const std::string dir = tempDir("args");
    const std::string scene = writeFile(dir, "scene.json", kGood);
    Result r = run("sim " + scene + " --frames -1 --out " + dir + "/out");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "vbdlab: error: --frames: must be >= 0\n");
    r = run("sim " + dir + "/none.json --out " + dir + "/out");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("vbdlab: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("none.json"), std::string::npos) << r.err;
    r = run("sim " + scene + " --out " + dir + "/out --threads -3");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.rfind("vbdlab: error: --threads", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(dir + "/out"));
    fs::remove_all(dir);
}

// final_state.json keeps the state's digits: a double run's positions are not the published floats widened
// (the audit found every coordinate exactly a float), a float run's are.
TEST(Cli, FinalStateKeepsTheDoubleStatesDigits) {
    const std::string dir = tempDir("digits");
    const std::string scene = writeFile(dir, "scene.json", kGood);
    for (const char* precision : {"double", "float"}) {
        SCOPED_TRACE(precision);
        const std::string out = dir + "/" + precision;
        Result r = run("sim " + scene + " --frames 3 --out " + out + " --set solver.precision=" + precision);
        ASSERT_EQ(r.code, 0) << r.err;
        std::ifstream js(out + "/final_state.json");
        const nlohmann::json j = nlohmann::json::parse(js);
        int notFloat = 0, n = 0;
        for (const auto& p : j["particles"]) {
            for (const auto& c : p) {
                const double d = c.get<double>();
                notFloat += double(float(d)) != d;
                ++n;
            }
        }
        ASSERT_EQ(n, 81);
        // 27 falling vertices: every coordinate that moved carries digits below float (y of all 27 at least).
        if (std::string(precision) == "double") {
            EXPECT_GE(notFloat, 27);
        } else {
            EXPECT_EQ(notFloat, 0);
        }
    }
    fs::remove_all(dir);
}

// An --out that cannot become a folder (a file, or a path under one) was a filesystem error after the run
// (exit 1, "filesystem error: cannot create directories"): now exit 2 naming the path and --out, before any
// work, the file untouched.
TEST(Cli, AnOutputFolderThatCannotBeMadeIsBadInput) {
    const std::string dir = tempDir("badout");
    const std::string file = writeFile(dir, "afile", "mine");
    const std::string scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/cube_drop.json";
    const struct {
        std::string args, says;
    } cases[] = {
        {"sim " + scene + " --frames 1 --out " + file, "afile: --out: is a file, not a folder"},
        {"sim " + scene + " --frames 1 --out " + file + "/sub", "is a file, not a folder"},
        {"sim " + scene + " --frames 1 --out ''", "--out: must name a folder"},
        {"export " + scene + " --out " + file + "/model.json", "--out: is a file, not a folder"},
        {"lab --kappa 10 --angle 30 --method bcd --iters 3 --out " + file + "/sub",
         "is a file, not a folder"},
        // An output file that is a folder, or empty (both failed after the run: exit 1, "cannot write "; a
        // folder DIR/metrics.csv with a raw filesystem error, the other outputs half written).
        {"export " + scene + " --out " + dir, "--out: is a folder, not a file"},
        {"export " + scene + " --out ''", "--out: must name a file"},
        {"sim " + scene + " --frames 1 --out " + dir + "/run", "run/metrics.csv is a folder, not a file"},
    };
    fs::create_directories(dir + "/run/metrics.csv");
    for (const auto& c : cases) {
        Result r = run(c.args);
        EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    }
    EXPECT_FALSE(fs::exists(dir + "/run/final_state.json"));
    std::ifstream in(file);
    std::string kept;
    std::getline(in, kept);
    EXPECT_EQ(kept, "mine");
    fs::remove_all(dir);
}

// An experiment refuses the options it does not read: `truncation --scene mine.json` wrote the built-in
// bar's results as the scene's, and `float-floor --quick` ran the full study.
TEST(Cli, AnExperimentRefusesOptionsItDoesNotRead) {
    const std::string dir = tempDir("expopts");
    const struct {
        std::string args, says;
    } cases[] = {
        {"experiment truncation --scene x.json --frames 5",
         "--scene: experiment truncation does not take it"},
        {"experiment float-floor --quick",
         "--quick: experiment float-floor does not take it (it takes --out)"},
        {"experiment coarse --quick --frames 5", "--frames: experiment coarse does not take it"},
    };
    for (const auto& c : cases) {
        Result r = run(c.args + " --out " + dir + "/out");
        EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_FALSE(fs::exists(dir + "/out")) << c.args;
    }
    fs::remove_all(dir);
}

TEST(Cli, HelpForEveryCommand) {
    for (const char* c : {"sim", "lab", "render", "experiment"}) {
        std::string out;
        Result r = run(std::string(c) + " --help", &out);
        EXPECT_EQ(r.code, 0) << c;
        // the subcommand's own usage line, not the root help
        EXPECT_NE(out.find(std::string("vbdlab ") + c), std::string::npos) << out;
    }
    std::string out;
    EXPECT_EQ(run("--help", &out).code, 0);
    EXPECT_NE(out.find("sim"), std::string::npos);
    Result r = run("frobnicate");
    EXPECT_EQ(r.code, 2);
}

TEST(Cli, SimWritesRigidBodyVelocities) {
    // final_state.json carries each rigid body's velocity and angular velocity (DESIGN.md), not
    // zeros. A box in free fall, no ground, spinning about a principal axis (no gyroscopic torque):
    // BDF1 reproduces v = g t exactly for free fall (the converged pose is the inertial target
    // x + h v + h^2 g), so after 20 frames v_y = -9.81 * 20 * 0.0166667 = -3.2700 m/s up to the
    // float state's rounding (~1e-6 m/s); the spin stays 4 rad/s about y.
    const std::string dir = tempDir("rigidvel");
    const std::string scene = writeFile(dir, "scene.json", R"({
  "name": "falling box", "dt": 0.0166667, "gravity": [0, -9.81, 0],
  "ground": { "enabled": false },
  "rigid_bodies": [ { "shape": "box", "size": [0.5, 0.5, 0.5], "density": 1000,
                      "position": [0, 5, 0], "angular_velocity": [0, 4, 0] } ]
})");
    Result r = run("sim " + scene + " --frames 20 --out " + dir + "/out");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream js(dir + "/out/final_state.json");
    nlohmann::json j = nlohmann::json::parse(js);
    ASSERT_EQ(j["bodies"].size(), 1u);
    const auto& b = j["bodies"][0];
    const double t = 20 * 0.0166667;
    EXPECT_NEAR(b["velocity"][0].get<double>(), 0.0, 1e-6);
    EXPECT_NEAR(b["velocity"][1].get<double>(), -9.81 * t, 1e-5);
    EXPECT_NEAR(b["velocity"][2].get<double>(), 0.0, 1e-6);
    EXPECT_NEAR(b["angular_velocity"][0].get<double>(), 0.0, 1e-6);
    EXPECT_NEAR(b["angular_velocity"][1].get<double>(), 4.0, 1e-5);
    EXPECT_NEAR(b["angular_velocity"][2].get<double>(), 0.0, 1e-6);
    // And the position is the matching free-fall drop, y0 - g t^2 / 2 - g h t / 2 for BDF1.
    const double h = 0.0166667;
    EXPECT_NEAR(b["position"][1].get<double>(), 5.0 - 0.5 * 9.81 * t * t - 0.5 * 9.81 * h * t, 1e-5);
    fs::remove_all(dir);
}

// A run that passes validation but diverges stops with exit 1 and a message naming the frame and what went
// non-finite, and writes no metrics or state (issue 12: never NaN in final_state.json or metrics.csv).
TEST(Cli, DivergingRunStopsWithExitOneAndWritesNoNaN) {
    const std::string dir = tempDir("diverge");
    const std::string scene = std::string(VBD_SOURCE_DIR) + "/assets/scenes/beam_sag.json";
    Result r = run("sim " + scene + " --frames 5 --out " + dir +
                   "/out --set soft_bodies.0.material.youngs=1e25 --set solver.precision=float");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("beam_sag.json: frame 1: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not finite"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir + "/out/metrics.csv"));
    EXPECT_FALSE(fs::exists(dir + "/out/final_state.json"));
    fs::remove_all(dir);
}

// Mesh errors name the scene file and the body's key, then the mesh file (issue 12, item 7); a file that
// crashes assimp itself is refused the same way (the reader runs in a child process); assimp's own log
// never reaches stderr.
TEST(Cli, MeshErrorsNameTheSceneKeyAndAssimpCrashesAreContained) {
    const std::string dir = tempDir("mesh");
    const std::string models = "/usr/share/assimp/models/";
    const std::string crash = models + "RAW/WithColor.raw",
                      utf16 = models + "ASE/ThreeCubesGreen_UTF16LE.ASE";
    if (!fs::exists(crash)) GTEST_SKIP() << "assimp-testmodels not installed";
    const std::string open = std::string(VBD_SOURCE_DIR) + "/assets/meshes/open_quad.obj";
    const std::string scene = writeFile(dir, "scene.json",
                                        R"({ "soft_bodies": [
        { "type": "box_grid" }, { "type": "mesh", "path": ")" +
                                            open + R"(" },
        { "type": "mesh", "path": ")" + crash +
                                            R"(" }, { "type": "mesh", "path": ")" + utf16 + R"(" } ] })");
    struct Case {
        std::string set;  // --set making body 1 the mesh under test
        std::string expect;
    };
    const std::vector<Case> cases = {
        {"", "scene.json: soft_bodies[1].path: " + open + ": open surface"},
        {" --set soft_bodies.1.path=" + crash, "scene.json: soft_bodies[1].path: " + crash + ": "},
        {" --set soft_bodies.1.path=" + utf16,
         "scene.json: soft_bodies[1].path: " + utf16 + ": the file is UTF-16 LE"},
    };
    for (const Case& c : cases) {
        Result r = run("sim " + scene + " --frames 1 --out " + dir + "/out" + c.set);
        EXPECT_EQ(r.code, 2) << r.err;
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line on stderr:\n" << r.err;
        EXPECT_FALSE(fs::exists(dir + "/out"));
    }
    fs::remove_all(dir);
}
