// `vbdlab export` (tests/peer's model exporter): the file holds the model our solver builds (counts,
// masses, rest shapes, materials, fixed vertices, color groups), and bad input exits 2 with nothing written.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "file_util.h"

namespace fs = std::filesystem;

namespace {

using vbdtest::slurp;

std::string tempDir(const std::string& name) { return vbdtest::freshTempDir("vbdlab_export", name); }

// Runs vbdlab with args; returns the exit code and stderr.
int run(const std::string& dir, const std::string& args, std::string* err) {
    const std::string cmd = std::string(VBD_BINARY_DIR) + "/bin/vbdlab " + args + " 2> " + dir + "/err.txt";
    const int status = std::system(cmd.c_str());
    *err = slurp(dir + "/err.txt");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double det3(const nlohmann::json& d) {
    auto a = [&](int r, int c) { return d[size_t(3 * r + c)].get<double>(); };
    return a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) -
           a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
           a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
}

// A 1 m cube of 2x2x2 cells (5 tets each), E 1e5, nu 0.3, density 1000, its x = 0 face fixed, on the ground.
const char* kCube = R"({
  "name": "export cube", "dt": 0.01,
  "ground": { "height": 0, "stiffness": 1e5, "friction": 0.4 },
  "soft_bodies": [ { "type": "box_grid", "min": [0,1,0], "max": [1,2,1], "cells": [2,2,2],
                     "material": { "youngs": 1e5, "poisson": 0.3, "density": 1000, "damping": 0.02 },
                     "fixed": [ { "min": [-0.01,0.99,-0.01], "max": [0.01,2.01,1.01] } ] } ]
})";

TEST(CliExport, TetModelIsTheSolversModel) {
    const std::string d = tempDir("cube");
    std::ofstream(d + "/cube.json") << kCube;
    std::string err;
    ASSERT_EQ(run(d, "export " + d + "/cube.json --out " + d + "/m.json", &err), 0) << err;
    const auto m = nlohmann::json::parse(slurp(d + "/m.json"));
    const auto& p = m["particles"];
    const auto& t = m["tets"];
    ASSERT_EQ(p["x"].size(), 27u);        // 3^3 grid vertices
    ASSERT_EQ(t["indices"].size(), 40u);  // 2^3 cells of 5 tets (the default layout)
    // Lumped masses add up to density * volume (float sums of 40 tets: 1e-4 relative is far above rounding).
    double mass = 0;
    for (const auto& v : p["mass"]) mass += v.get<double>();
    EXPECT_NEAR(mass, 1000.0, 0.1);
    // DmInv is the inverse rest shape: 1 / (6 det DmInv) is each tet's rest volume, and they fill the cube.
    double vol = 0;
    for (size_t e = 0; e < t["DmInv"].size(); ++e) {
        const double v = 1.0 / (6.0 * det3(t["DmInv"][e]));
        EXPECT_NEAR(v, t["volume"][e].get<double>(), 1e-6 * v);
        vol += v;
    }
    EXPECT_NEAR(vol, 1.0, 1e-5);
    // Materials as the solver uses them: mu = E / (2 (1 + nu)), lambda_nh = lambda_Lame + mu.
    const double mu = 1e5 / 2.6, lam = 1e5 * 0.3 / (1.3 * 0.4);
    EXPECT_NEAR(t["mu"][0].get<double>(), mu, 1e-6 * mu);
    EXPECT_NEAR(t["lambda_nh"][0].get<double>() - t["mu"][0].get<double>(), lam, 1e-5 * lam);
    EXPECT_FLOAT_EQ(t["kd"][0].get<float>(), 0.02f);
    // The x = 0 face: 9 fixed vertices; the color groups hold every other vertex exactly once.
    int fixed = 0;
    for (const auto& f : p["fixed"]) fixed += f.get<int>();
    EXPECT_EQ(fixed, 9);
    std::set<int> seen;
    size_t listed = 0;
    for (const auto& g : m["color_groups"])
        for (const auto& v : g) {
            seen.insert(v.get<int>());
            ++listed;
            EXPECT_EQ(p["fixed"][v.get<size_t>()].get<int>(), 0);
        }
    EXPECT_EQ(listed, 18u);
    EXPECT_EQ(seen.size(), 18u);
    ASSERT_EQ(m["colliders"].size(), 1u);
    EXPECT_EQ(m["colliders"][0]["type"], "plane");
    EXPECT_FLOAT_EQ(m["colliders"][0]["friction"].get<float>(), 0.4f);
    fs::remove_all(d);
}

TEST(CliExport, ClothTrianglesAndHinges) {
    const std::string d = tempDir("cloth");
    std::ofstream(d + "/cloth.json") << R"({
      "name": "export cloth", "dt": 0.01, "ground": { "enabled": false },
      "cloths": [ { "type": "grid", "min": [0,1,0], "size": [1,1], "cells": [4,4],
                    "material": { "youngs": 1e4, "poisson": 0.3, "density": 200, "thickness": 0.002,
                                  "bending": 1e-4 } } ]
    })";
    std::string err;
    ASSERT_EQ(run(d, "export " + d + "/cloth.json --out " + d + "/m.json --set cloths.0.cells=[3,3]", &err),
              0)
        << err;
    const auto m = nlohmann::json::parse(slurp(d + "/m.json"));
    const int n = 3;  // the --set applies: 3x3 cells
    EXPECT_EQ(m["particles"]["x"].size(), size_t((n + 1) * (n + 1)));
    EXPECT_EQ(m["triangles"]["indices"].size(), size_t(2 * n * n));
    // Interior edges of an n x n grid with one diagonal per cell: 3n^2 + 2n edges, 4n of them on the border.
    EXPECT_EQ(m["hinges"]["indices"].size(), size_t(3 * n * n - 2 * n));
    double area = 0, mass = 0;
    for (size_t k = 0; k < m["triangles"]["area"].size(); ++k) {
        const double a = m["triangles"]["area"][k].get<double>();
        EXPECT_NEAR(m["triangles"]["volume"][k].get<double>(), a * 0.002, 1e-6 * a);
        area += a;
    }
    for (const auto& v : m["particles"]["mass"]) mass += v.get<double>();
    EXPECT_NEAR(area, 1.0, 1e-5);
    EXPECT_NEAR(mass, 200 * 0.002 * 1.0, 1e-6);  // density * thickness * area
    fs::remove_all(d);
}

TEST(CliExport, BadInputWritesNothing) {
    const std::string d = tempDir("bad");
    std::ofstream(d + "/cube.json") << kCube;
    std::string err;
    const std::string out = d + "/out/m.json";
    EXPECT_EQ(
        run(d, "export " + d + "/cube.json --out " + out + " --set soft_bodies.0.material.poisson=0.5", &err),
        2);
    EXPECT_NE(err.find("cube.json"), std::string::npos) << err;
    EXPECT_NE(err.find("poisson"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(d + "/out"));
    EXPECT_EQ(run(d, "export " + d + "/cube.json --out " + out + " --set solver.bogus=1", &err), 2);
    EXPECT_NE(err.find("bogus"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(d + "/out"));
    fs::remove_all(d);
}

}  // namespace
