// Scene parsing helpers shared by several keys: the line/column of a JSON syntax error, grid cell counts
// (soft box grids and cloth grids), and the rigid-body index of a joint. Each refusal names its key.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "math/error.h"
#include "scene/scene.h"

namespace vbd {
namespace {

// Expects parseScene(text) to throw InputError at `key` with `needle` in the message.
void expectRefused(const std::string& text, const std::string& key, const std::string& needle) {
    SCOPED_TRACE(text);
    try {
        parseScene(text, "scene.json");
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), key) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(SceneParse, TextPositionCountsLinesAndColumnsFromOne) {
    const std::string t = "ab\ncd";
    EXPECT_EQ(textPosition(t, 0), "line 1, column 1");
    EXPECT_EQ(textPosition(t, 2), "line 1, column 3");  // byte 2 is the newline itself
    EXPECT_EQ(textPosition(t, 3), "line 2, column 1");  // first byte after it
    EXPECT_EQ(textPosition(t, 5), "line 2, column 3");
    EXPECT_EQ(textPosition(t, 99), "line 2, column 3");  // an offset past the end stops at the end
}

TEST(SceneParse, MalformedJsonIsReportedAtItsLine) {
    // The parser stops at the ',' on line 3 (nlohmann reports the offset of the byte it rejected).
    const std::string text = "{\n  \"dt\": 0.01,\n  \"substeps\": ,\n}";
    try {
        parseScene(text, "scene.json");
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key().rfind("line 3, column ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
    }
}

// A directory opens as a stream that reads nothing: it was reported as malformed JSON at line 1.
TEST(SceneParse, OnlyARegularFileIsOpened) {
    const std::string dir = std::string(VBD_SOURCE_DIR) + "/assets/scenes";
    try {
        loadSceneFile(dir);
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), dir);
        EXPECT_NE(std::string(e.what()).find("is a directory, not a file"), std::string::npos) << e.what();
    }
    // A FIFO blocked the open for ever and /dev/zero was read until memory ran out: refused by a stat.
    const std::string fifo = ::testing::TempDir() + "vbd_scene_fifo.json";
    const std::string zero = ::testing::TempDir() + "vbd_scene_zero.json";
    std::filesystem::remove(fifo);
    std::filesystem::remove(zero);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::filesystem::create_symlink("/dev/zero", zero);
    for (const std::string& p : {fifo, zero}) {
        try {
            loadSceneFile(p);
            ADD_FAILURE() << "accepted " << p;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
        }
        std::filesystem::remove(p);
    }
}

// A body that starts deep in the ground is thrown out at speed by the ground's penalty (a cube 2 m deep
// left at 119 m/s): warned. One resting on the ground, or 1% of its height in it, is not.
TEST(SceneParse, ABodyStartingBelowTheGroundIsWarnedAbout) {
    auto warnings = [](const std::string& bodies) {
        parseScene("{" + bodies + "}", "g.json");
        std::string all;
        for (const auto& w : lastSceneWarnings()) all += w + "\n";
        return all;
    };
    EXPECT_NE(warnings(R"("soft_bodies": [{"min": [0, -2, 0], "max": [1, -1, 1]}])")
                  .find("g.json: soft_bodies[0]: starts 2 m below the ground (height 0)"),
              std::string::npos);
    EXPECT_EQ(warnings(R"("soft_bodies": [{"min": [0, -0.005, 0], "max": [1, 1, 1]}])"), "");
    // A unit box turned 135 degrees about x ([x, y, z, w]) reaches sqrt(2)/2 = 0.707 m down: at y = 0.6 it is
    // 0.107 m in.
    const std::string turned =
        R"("rigid_bodies": [{"shape": "box", "size": [1, 1, 1], "position": [0, 0.6, 0],
            "rotation": [0.9238795, 0, 0, 0.3826834]}])";
    EXPECT_NE(warnings(turned).find("rigid_bodies[0]: starts 0.107 m below"), std::string::npos)
        << warnings(turned);
    EXPECT_EQ(warnings(R"("rigid_bodies": [{"shape": "box", "size": [1, 1, 1], "position": [0, 0.6, 0]}])"),
              "");
    EXPECT_EQ(warnings(R"("rigid_bodies": [{"shape": "sphere", "radius": 1, "position": [0, -3, 0],
                           "fixed": true}])"),
              "");  // a fixed body is not moved by the ground
    EXPECT_EQ(warnings(R"("ground": false, "soft_bodies": [{"min": [0, -2, 0], "max": [1, -1, 1]}])"), "");
}

// A number beyond a double (out_of_range 406) carries no offset: the refusal finds the number it quotes.
TEST(SceneParse, ANumberBeyondADoubleIsReportedAtItsLine) {
    expectRefused("{\n  \"dt\": 0.01,\n  \"gravity\": [0, 1e400, 0]\n}", "line 3, column 18",
                  "number overflow parsing '1e400'");
    // The number, not the same characters in a string or inside a longer number before it.
    expectRefused("{\"name\": \"test 1e999\", \"x\": \"21e999\",\n \"dt\": 1e999}", "line 2, column 8",
                  "number overflow parsing '1e999'");
}

// Textbook Lame parameters (DESIGN: "Young's modulus and Poisson ratio (or textbook Lame)") become the E and
// nu they stand for: mu = E / (2 (1 + nu)) and lambda = E nu / ((1 + nu) (1 - 2 nu)) give them back.
TEST(SceneParse, LameParametersStandForTheirYoungsModulusAndPoissonRatio) {
    for (const auto& [mu, lambda] : {std::pair{1e5, 2e5}, std::pair{3e6, 0.0}, std::pair{1e4, -5e3}}) {
        const SceneDesc s = parseScene(R"({"soft_bodies": [{"material": {"mu": )" + std::to_string(mu) +
                                           R"(, "lambda": )" + std::to_string(lambda) + "}}]}",
                                       "");
        const double E = s.softBodies[0].material.youngs, nu = s.softBodies[0].material.poisson;
        EXPECT_NEAR(E / (2 * (1 + nu)), mu, 1e-12 * mu);
        EXPECT_NEAR(E * nu / ((1 + nu) * (1 - 2 * nu)), lambda, 1e-12 * mu);
    }
    // mu = lambda: nu = 1/4, E = 5/2 mu.
    const SceneDesc q = parseScene(R"({"soft_bodies": [{"material": {"mu": 2e5, "lambda": 2e5}}]})", "");
    EXPECT_DOUBLE_EQ(q.softBodies[0].material.poisson, 0.25);
    EXPECT_DOUBLE_EQ(q.softBodies[0].material.youngs, 5e5);
    const std::string m = R"({"soft_bodies": [{"material": )";
    expectRefused(m + R"({"youngs": 1e5, "mu": 1e5, "lambda": 1e5}}]})", "soft_bodies[0].material.youngs",
                  "not both");
    expectRefused(m + R"({"lambda": 1e5, "poisson": 0.3}}]})", "soft_bodies[0].material.poisson", "not both");
    expectRefused(m + R"({"lambda": 1e5}}]})", "soft_bodies[0].material.mu", "go together");
    expectRefused(m + R"({"mu": 1e5}}]})", "soft_bodies[0].material.lambda", "go together");
    expectRefused(m + R"({"mu": 0, "lambda": 1e5}}]})", "soft_bodies[0].material.mu", "must be > 0");
    // A bulk modulus lambda + 2 mu / 3 of zero or less is nu <= -1.
    expectRefused(m + R"({"mu": 3, "lambda": -2}}]})", "soft_bodies[0].material.lambda", "bulk modulus");
    // Said in the keys given: nu rounding to 0.5, E beyond a double.
    expectRefused(m + R"({"mu": 1, "lambda": 1e20}}]})", "soft_bodies[0].material.lambda", "rounds to 0.5");
    expectRefused(m + R"({"mu": 1e200, "lambda": 1e200}}]})", "soft_bodies[0].material.mu",
                  "beyond a double");
    // An override of the other form rewrites the material in it (the app's Young's modulus slider on a scene
    // written with mu and lambda), and the other way round: the values it does not set carry over.
    const std::string lame = m + R"({"mu": 1e5, "lambda": 2e5}}]})";
    const SceneDesc e = parseScene(lame, "", {"soft_bodies.0.material.youngs=5e5"});
    EXPECT_DOUBLE_EQ(e.softBodies[0].material.youngs, 5e5);
    EXPECT_NEAR(e.softBodies[0].material.poisson, 1.0 / 3, 1e-15);  // lambda / (2 (lambda + mu))
    // E = 2.6e5, nu = 0.3 is mu = 1e5, lambda = 1.5e5; mu set to 2e5 keeps lambda: nu = 1.5 / 7, E = 2e5 8.5
    // / 3.5.
    const SceneDesc l =
        parseScene(m + R"({"youngs": 2.6e5, "poisson": 0.3}}]})", "", {"soft_bodies.0.material.mu=2e5"});
    EXPECT_NEAR(l.softBodies[0].material.poisson, 1.5 / 7, 1e-12);
    EXPECT_NEAR(l.softBodies[0].material.youngs, 2e5 * 8.5 / 3.5, 1e-6);
}

// "view": the angles a viewer opens the scene at (data for the app; the simulation never reads it).
TEST(SceneParse, AViewGivesTheCamerasAnglesInDegrees) {
    EXPECT_FALSE(parseScene("{}", "").view.given);
    const SceneDesc s = parseScene(R"({"view": {"yaw": 30, "pitch": 55}})", "");
    EXPECT_TRUE(s.view.given);
    EXPECT_EQ(s.view.yawDeg, 30);
    EXPECT_EQ(s.view.pitchDeg, 55);
    expectRefused(R"({"view": {"pitch": 89}})", "view.pitch", "[-88, 88]");
    expectRefused(R"({"view": {"roll": 3}})", "view.roll", "unknown key");
}

TEST(SceneParse, GridCellsAreWholeNumbersFromOneTo4096) {
    const SceneDesc s = parseScene(
        R"({"soft_bodies": [{"type": "box_grid", "cells": [3, 4, 5]}], "cloths": [{"cells": [6, 7]}]})", "");
    EXPECT_EQ(s.softBodies[0].cells, (std::array<int, 3>{3, 4, 5}));
    EXPECT_EQ(s.cloths[0].cells, (std::array<int, 2>{6, 7}));
    for (const char* bad : {"[2, 0, 2]", "[2, 2.5, 2]", "[4097, 1, 1]", "[-1, 1, 1]"})
        expectRefused(std::string(R"({"soft_bodies": [{"type": "box_grid", "cells": )") + bad + "}]}",
                      "soft_bodies[0].cells", "must be 3 integers from 1 to 4096");
    for (const char* bad : {"[0, 4]", "[4, 1.5]", "[4097, 4]"})
        expectRefused(std::string(R"({"cloths": [{"cells": )") + bad + "}]}", "cloths[0].cells",
                      "must be 2 integers from 1 to 4096");
    expectRefused(R"({"cloths": [{"cells": [4, 4, 4]}]})", "cloths[0].cells", "array of 2 numbers");
}

TEST(SceneParse, JointBodiesMustExist) {
    const std::string body = R"({"rigid_bodies": [{"shape": "box"}], "joints": [)";
    expectRefused(body + R"({"body_a": 1, "body_b": 0}]})", "joints[0].body_a",
                  "no rigid body 1 (scene has 1)");
    expectRefused(body + R"({"body_a": -1, "body_b": 3}]})", "joints[0].body_b",
                  "no rigid body 3 (scene has 1)");
    // body_a is checked first when both are wrong.
    expectRefused(body + R"({"body_a": 2, "body_b": 3}]})", "joints[0].body_a", "no rigid body 2");
    const SceneDesc s = parseScene(body + R"({"body_a": -1, "body_b": 0}]})", "");
    EXPECT_EQ(s.joints[0].bodyA, -1);
    EXPECT_EQ(s.joints[0].bodyB, 0);
}

// Every part of an override's key path names something: a trailing dot was dropped (solver.iterations.=5
// set solver.iterations) and a leading one set a key "" that the refusal could not name.
TEST(SceneParse, AnOverrideKeyWithAnEmptyPartIsRefusedNamingIt) {
    for (const char* ov : {"solver.iterations.=5", ".solver=1", "solver..iterations=5"}) {
        SCOPED_TRACE(ov);
        try {
            parseScene("{}", "scene.json", {ov});
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            const std::string key = std::string(ov).substr(0, std::string(ov).find('='));
            EXPECT_EQ(e.key(), key) << e.what();
            EXPECT_NE(std::string(e.what()).find("empty part in the key path"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(parseScene("{}", "scene.json", {"solver.iterations=5"}).solver.iterations, 5);
}

}  // namespace
}  // namespace vbd
