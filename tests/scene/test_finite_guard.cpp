// The two NaN guards of world/finite_guard.h and the hostile inputs of issue 12 that used to write NaN:
// overlapping youngs_scale regions whose product overflows float, a mesh scaled beyond float positions, a
// run that diverges (stopped with NonFiniteError, nothing appended), a cloth under huge gravity (once
// undefined behaviour in the collision hash grid), and a sheet started inside a large collider (once
// quadratic in the sheet's size).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "math/error.h"
#include "scene_util.h"
#include "world/finite_guard.h"

namespace vbd {
namespace {

using vbdtest::loadScene;

const char* kBar = R"({
  "dt": 0.0166667,
  "soft_bodies": [ { "type": "box_grid", "min": [0,1,0], "max": [1,2,1], "cells": [2,2,2],
                     "material": { "youngs": 1e5, "poisson": 0.3, "density": 1000 } } ],
  "cloths": [ { "min": [0,3,0], "size": [1,1], "cells": [4,4] } ]
})";

std::string inputErrorKey(const SceneDesc& s) {
    try {
        World::create(s);
    } catch (const InputError& e) {
        return e.key() + " | " + e.what();
    }
    return "(accepted)";
}

TEST(FiniteGuard, OverlappingRegionsWhoseScalesMultiplyBeyondFloatAreRefused) {
    // Each region alone gives E = 1e15 (inside the limits); the three overlap everywhere: E = 1e35.
    const std::string r = R"({ "min": [-1,0,-1], "max": [2,3,2], "youngs_scale": 1e10 })";
    SceneDesc s = parseScene(kBar, "scene.json", {"soft_bodies.0.regions=[" + r + "," + r + "," + r + "]"});
    const std::string k = inputErrorKey(s);
    EXPECT_EQ(k.rfind("soft_bodies[0].regions | scene.json: soft_bodies[0].regions: ", 0), 0u) << k;
    EXPECT_NE(k.find("product of the youngs_scale"), std::string::npos) << k;
    // Two of them (E = 1e25) are fine.
    s = parseScene(kBar, "scene.json", {"soft_bodies.0.regions=[" + r + "," + r + "]"});
    EXPECT_NO_THROW(World::create(s));
}

TEST(FiniteGuard, MeshScaledBeyondFloatPositionsIsRefusedAtItsScale) {
    const std::string text = std::string(R"({ "soft_bodies": [ { "type": "mesh", "path": ")") +
                             VBD_SOURCE_DIR + R"(/assets/meshes/cube5.node", "scale": 1e30 } ] })";
    const std::string k = inputErrorKey(parseScene(text, "scene.json"));
    EXPECT_EQ(k.rfind("soft_bodies[0].scale | ", 0), 0u) << k;
}

TEST(FiniteGuard, NamesTheFirstNonFiniteParticleBodyOrMetric) {
    const SceneDesc s = parseScene(kBar, "scene.json");
    SoftSolver solver;
    solver.build(s);
    SoftModel m = solver.model();
    FrameMetrics f;
    f.frame = 3;
    EXPECT_NO_THROW(guardFrame(s, m, {}, f));
    // The box grid has 27 vertices; particle 30 is vertex 3 of the cloth.
    m.v[30].y = std::numeric_limits<float>::quiet_NaN();
    try {
        guardFrame(s, m, {}, f);
        ADD_FAILURE() << "NaN velocity passed";
    } catch (const NonFiniteError& e) {
        const std::string w = e.what();
        EXPECT_NE(w.find("scene.json: frame 3: particle 30 (vertex 3 of cloths[0])"), std::string::npos) << w;
    }
    m = solver.model();
    std::vector<RigidBodyView> bodies(2);
    bodies[1].angularVelocity.z = std::numeric_limits<float>::infinity();
    EXPECT_THROW(guardFrame(s, m, bodies, f), NonFiniteError);
    try {
        guardFrame(s, m, bodies, f);
    } catch (const NonFiniteError& e) {
        EXPECT_NE(std::string(e.what()).find("rigid body rigid_bodies[1]"), std::string::npos) << e.what();
    }
    f.energy = std::numeric_limits<double>::quiet_NaN();
    try {
        guardFrame(s, m, {}, f);
        ADD_FAILURE() << "NaN energy passed";
    } catch (const NonFiniteError& e) {
        EXPECT_NE(std::string(e.what()).find("metric energy"), std::string::npos) << e.what();
    }
    f.energy = 0;
    std::vector<IterationRecord> its(3);
    its[1].iteration = 1;
    its[1].residual = std::numeric_limits<double>::infinity();
    try {
        guardFrame(s, m, {}, f, its);
        ADD_FAILURE() << "infinite iteration residual passed";
    } catch (const NonFiniteError& e) {
        EXPECT_NE(std::string(e.what()).find("iteration 1: residual inf"), std::string::npos) << e.what();
    }
}

TEST(FiniteGuard, ADivergingRunStopsBeforeItsFrameIsRecorded) {
    // E = 1e25 Pa is inside the limits, but with the float state the sagging cantilever's forces overflow
    // float's squared norms: the step's residual is infinite. The World throws and keeps only the frames
    // before. (The double state, the CPU default, copes with this bar.)
    auto w = World::create(
        loadScene("beam_sag.json", {"soft_bodies.0.material.youngs=1e25", "solver.precision=float"}));
    bool stopped = false;
    for (int i = 0; i < 5 && !stopped; ++i) {
        try {
            w->step();
        } catch (const NonFiniteError& e) {
            stopped = true;
            EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos);
        }
    }
    ASSERT_TRUE(stopped)
        << "expected the 1e25 Pa bar to diverge (if the solver now copes, pick a harder case)";
    for (const FrameMetrics& f : w->history()) {
        EXPECT_TRUE(std::isfinite(f.residualFinal));
        EXPECT_TRUE(std::isfinite(f.energy));
    }
}

TEST(FiniteGuard, ClothUnderHugeGravityNeverProducesNonFiniteOutput) {
    // gravity -123456789 m/s^2 (issue 12): once NaN written with exit 0, and UBSan reported NaN -> int and
    // INT_MIN - 1 in the collision grid. Now every frame is finite or the run stops with NonFiniteError.
    auto w = World::create(loadScene("cloth_hanging.json", {"gravity=[0,-123456789,0]"}));
    try {
        for (int i = 0; i < 10; ++i) {
            w->step();
            for (const Vec3& p : w->positions()) ASSERT_TRUE(isFinite(p));
        }
    } catch (const NonFiniteError&) {
    }
    for (const FrameMetrics& f : w->history()) EXPECT_TRUE(std::isfinite(f.kineticEnergy));
    // A free sheet falling at 1e9 m/s^2 is 3.5e8 m down after 50 frames: 2.8e9 collision-grid cells of
    // 0.125 m, past int. The unclamped cell index was undefined behaviour there (UBSan, float-cast-overflow,
    // at frame 44); the sanitizer stage runs this. The fall itself is exact: every frame stays finite.
    const SceneDesc fall = parseScene(R"({ "dt": 0.0166667, "substeps": 2, "gravity": [0, -1e9, 0],
        "ground": { "enabled": false }, "cloths": [ { "min": [0, 1, 0], "size": [1, 1], "cells": [16, 16] } ] })",
                                      "fall.json");
    auto f = World::create(fall);
    for (int i = 0; i < 50; ++i) f->step();
    EXPECT_LT(f->history().back().com.y, -3e8);
}

TEST(FiniteGuard, SheetInsideALargeColliderKeepsTheCollisionSearchLocal) {
    // The drape scene's sheet starts inside the sphere when its radius is 1e3 m: every reference is pushed
    // ~1e3 m out. The candidate pairs within the query radius must stay local, i.e. grow linearly with the
    // sheet (they were every pair of the sheet: 300 MB and 15x the time for one frame of 32 x 32).
    auto pairs = [](int cells) {
        SoftSolver solver;
        const std::string c = std::to_string(cells);
        const SceneDesc s = loadScene("cloth_drape.json",
                                      {"rigid_bodies.0.radius=1000", "cloths.0.cells=[" + c + "," + c + "]"});
        solver.build(s);
        solver.step(float(s.dt / s.substeps), s.gravity);
        return double(solver.model().collision.numPairs);
    };
    const double small = pairs(16), large = pairs(32);
    // 4x the vertices: ~4x the pairs if local (measured 40k -> 174k, 4.3x), 16x if every pair is a candidate.
    EXPECT_GT(small, 0);
    EXPECT_LT(large / small, 6) << small << " -> " << large;
    // Per vertex: the neighbourhood within the capped query radius (two cells), not the sheet.
    EXPECT_LT(large / (33.0 * 33.0), 400) << large;
}

}  // namespace
}  // namespace vbd
