// Scene limits (scene/scene_limits.h): every built-in scene is inside them, and every quantity that would
// overflow, underflow or lose its digits in the solver's float is refused at the key that sets it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "math/error.h"
#include "scene/scene.h"
#include "scene/scene_limits.h"

namespace vbd {
namespace {

const char* kBase = R"({
  "dt": 0.0166667,
  "soft_bodies": [ { "type": "box_grid", "min": [0,1,0], "max": [1,2,1], "cells": [2,2,2],
                     "material": { "youngs": 1e5, "poisson": 0.3, "density": 1000 } } ],
  "cloths": [ { "min": [0,3,0], "size": [1,1], "cells": [4,4] } ],
  "rigid_bodies": [ { "shape": "box", "size": [1,1,1], "position": [3,1,0] } ]
})";

// Expects parseScene(kBase with the overrides) to throw InputError at `key` with `needle` in the text.
void expectRefused(const std::vector<std::string>& sets, const std::string& key, const std::string& needle) {
    SCOPED_TRACE(sets.empty() ? std::string("(none)") : sets.front());
    try {
        parseScene(kBase, "scene.json", sets);
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "scene.json");
        EXPECT_EQ(e.key(), key) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(SceneLimits, EveryBuiltInSceneIsInsideTheLimitsAndSmall) {
    int n = 0;
    for (const auto& f :
         std::filesystem::directory_iterator(std::string(VBD_SOURCE_DIR) + "/assets/scenes")) {
        if (f.path().extension() != ".json") continue;
        SCOPED_TRACE(f.path().string());
        const SceneDesc s = loadSceneFile(f.path().string());  // throws if a limit is violated
        // The largest built-in scene (the 210-box pyramid, 64^2 cloths) needs well under 1 GB.
        EXPECT_LT(estimateSceneMemory(s).bytes, 1e9);
        ++n;
    }
    EXPECT_GE(n, 20);
}

TEST(SceneLimits, StepSizeHasADocumentedMinimum) {
    expectRefused({"dt=1e-320"}, "dt", ">= 1e-06 s");  // passes "> 0" as a double
    expectRefused({"dt=1e-3", "substeps=10000"}, "substeps", "below the smallest step 1e-06 s");
    expectRefused({"dt=1e5"}, "dt", "above the largest step");
    EXPECT_NO_THROW(parseScene(kBase, "scene.json", {"dt=1e-6"}));  // the minimum itself is allowed
}

TEST(SceneLimits, ValuesBeyondFloatAreRefusedWhereTheyAreSet) {
    // 1e39 is a finite double but float(1e39) is inf.
    expectRefused({"soft_bodies.0.material.youngs=1e39"}, "soft_bodies[0].material.youngs",
                  "outside [1e-30, 1e+30]");
    expectRefused({"soft_bodies.0.material.youngs=1e-40"}, "soft_bodies[0].material.youngs",
                  "Young's modulus");
    expectRefused({"gravity=[0,-1e39,0]"}, "gravity", "beyond float range");
    // Lambda overflows through the Poisson ratio next to 0.5: named as the Poisson ratio's fault.
    expectRefused({"soft_bodies.0.material.youngs=1e25", "soft_bodies.0.material.poisson=0.49999999"},
                  "soft_bodies[0].material.poisson", "lambda");
    expectRefused({"soft_bodies.0.material.density=1e300"}, "soft_bodies[0].material.density", "density");
    expectRefused({"cloths.0.collision_stiffness=1e35"}, "cloths[0].collision_stiffness",
                  "collision_stiffness");
    expectRefused({"ground={\"stiffness\": 1e36}"}, "ground.stiffness", "stiffness");
}

TEST(SceneLimits, DerivedProductsAreChecked) {
    // gravity * h^2: 1e10 m/s^2 falls 2.8e6 m in one 1/60 s step.
    expectRefused({"gravity=[0,-1e10,0]"}, "gravity", "|gravity| h^2");
    // Rigid density * volume: finite factors, mass 1e308 * 1 m^3 ... and a 1e-12 m box of 1e3 kg/m^3.
    expectRefused({"rigid_bodies.0.density=1e308"}, "rigid_bodies[0].density", "mass (density * volume)");
    expectRefused({"rigid_bodies.0.size=[1e-12,1e-12,1e-12]"}, "rigid_bodies[0].density", "mass");
    // A mesh scale below float range; box cells below float resolution at their coordinates.
    const std::string mesh = std::string(R"({ "soft_bodies": [ { "type": "mesh", "path": ")") +
                             VBD_SOURCE_DIR + R"(/assets/meshes/cube5.node", "scale": 1e-40 } ] })";
    try {
        parseScene(mesh, "scene.json");
        ADD_FAILURE() << "mesh scale 1e-40 accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.key(), "soft_bodies[0].scale") << e.what();
    }
    // Edges of 1/4096 m at x = 1e5 m (float spacing 0.008 m there).
    expectRefused({"soft_bodies.0.min=[100000,0,0]", "soft_bodies.0.max=[100001,1,1]",
                   "soft_bodies.0.cells=[4096,1,1]"},
                  "soft_bodies[0].cells", "below float resolution");
    expectRefused({"soft_bodies.0.min=[0,2e6,0]", "soft_bodies.0.max=[1,2000001,1]"}, "soft_bodies[0].min",
                  "beyond 1e+06 m");
}

TEST(SceneLimits, SizeIsEstimatedBeforeAnythingIsAllocated) {
    // 1e9 cells: past the index range and any machine's memory; named at the key that makes it big.
    expectRefused({"soft_bodies.0.cells=[1000,1000,1000]"}, "soft_bodies[0].cells", "index range");
    // Against a 16 GB machine, whatever this one has: 384M tets (~170 GB), a 4096 x 4096 cloth (~42 GB).
    ::setenv("VBD_MEMORY_LIMIT_MB", "16000", 1);
    expectRefused({"soft_bodies.0.cells=[400,400,400]"}, "soft_bodies[0].cells", "of memory");
    expectRefused({"cloths.0.cells=[4096,4096]"}, "cloths[0].cells", "more than this machine's 16.0 GB");
    ::unsetenv("VBD_MEMORY_LIMIT_MB");
    // The estimate grows with the counts and names the biggest contributor.
    const SceneDesc a = parseScene(kBase, "s.json", {"soft_bodies.0.cells=[10,10,10]"});
    const SceneDesc b = parseScene(kBase, "s.json", {"soft_bodies.0.cells=[20,20,20]"});
    const MemoryEstimate ea = estimateSceneMemory(a), eb = estimateSceneMemory(b);
    EXPECT_EQ(eb.key, "soft_bodies[0].cells");
    EXPECT_EQ(eb.tets, 5.0 * 8000);                 // the default 5-tet cells
    EXPECT_EQ(eb.vertices, 21.0 * 21 * 21 + 25);    // + the 5 x 5 cloth
    EXPECT_GT(eb.bytes - ea.bytes, 35000 * 415.0);  // 35,000 more tets at >= the measured 415 B each
}

}  // namespace
}  // namespace vbd
