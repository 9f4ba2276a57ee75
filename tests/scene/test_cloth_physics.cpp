// Cloth physics against theory: ballistic free fall with internal damping (and the naive model's drag),
// pinned vertices, the stable Neo-Hookean uniaxial area ratio, and bad cloth input.
#include <gtest/gtest.h>

#include <cmath>

#include "energy/membrane.h"
#include "math/error.h"
#include "scene_util.h"
#include "soft/cloth_build.h"

using namespace vbd;
using namespace vbdtest;

namespace {

SceneDesc freeFallCloth(DampingModel d) {
    SceneDesc s;
    s.name = "cloth free fall";
    s.ground.enabled = false;
    s.solver.iterations = 10;
    s.solver.damping = d;
    ClothDesc c;
    c.min = Vec3(-0.5f, 10, -0.5f);
    c.size = {1, 1};
    c.cells = {16, 16};
    c.material.youngs = 1e5;
    c.material.density = 200;
    c.material.thickness = 1e-3;
    c.material.bending = 1e-4;
    c.material.damping = 0.1;
    c.material.bendingDamping = 0.1;
    c.selfCollision = true;
    s.cloths.push_back(c);
    return s;
}

}  // namespace

// Implicit Euler from rest: displacement g h^2 n(n+1)/2 after n steps. Internal damping (strain rate and
// dihedral rate) sees no deformation in a rigid fall, and the step bound's common reference motion lets
// the self-colliding sheet fall freely, so the sheet must stay flat and ballistic.
TEST(ClothFreeFall, StaysFlatAndBallisticWithInternalDamping) {
    SoftSolver solver;
    solver.build(freeFallCloth(DampingModel::Internal));
    const SoftModel& m = solver.model();
    ASSERT_TRUE(m.collision.enabled);
    const std::vector<Vec3> X = m.x;
    const Vec3d c0 = centerOfMass(m);
    const double h = 1.0 / 60.0, g = 9.81;
    const int n = 60;
    for (int i = 0; i < n; ++i) solver.step(float(h), Vec3(0, -9.81f, 0));
    const Vec3d c = centerOfMass(m);
    // float state at |x| ~ 10 m: ulp 1e-6 m per step over 60 steps; 1e-3 m (0.02 %) as the tet test.
    EXPECT_NEAR(c0.y - c.y, g * h * h * n * (n + 1) / 2.0, 1e-3);
    double flat = 0, inPlane = 0;
    for (int i = 0; i < m.numVertices(); ++i) {
        flat = std::max(flat, std::fabs(double(m.x[size_t(i)].y) - c.y));
        inPlane = std::max(inPlane, std::hypot(double(m.x[size_t(i)].x - X[size_t(i)].x),
                                               double(m.x[size_t(i)].z - X[size_t(i)].z)));
    }
    // flat to float resolution at 5 m (4e-7) accumulated over 60 steps: 1e-4 m
    EXPECT_LT(flat, 1e-4);
    EXPECT_LT(inPlane, 1e-4);
}

TEST(ClothFreeFall, NaiveDampingFightsGravity) {
    SoftSolver a, b;
    a.build(freeFallCloth(DampingModel::Internal));
    b.build(freeFallCloth(DampingModel::Naive));
    const double y0 = centerOfMass(a.model()).y;
    for (int i = 0; i < 60; ++i) {
        a.step(1.f / 60.f, Vec3(0, -9.81f, 0));
        b.step(1.f / 60.f, Vec3(0, -9.81f, 0));
    }
    const double fallA = y0 - centerOfMass(a.model()).y, fallB = y0 - centerOfMass(b.model()).y;
    // (k_d/h) K_ii (x_prev - x) with the membrane block K_ii ~ E t = 100 N/m against m/h^2 ~ 1 N/m: a drag
    // on the absolute velocity that must cost far more than the float noise (1e-3 m) of the ballistic fall.
    EXPECT_GT(fallA - fallB, 0.5) << "internal " << fallA << " m, naive " << fallB << " m";
}

TEST(ClothHanging, PinnedVerticesDoNotMoveAndTheSheetHangs) {
    SceneDesc s = loadScene("cloth_hanging.json");
    s.solver.diagnostics = false;
    auto w = World::create(s);
    const std::vector<Vec3> X = w->positions();
    const auto& fixed = w->fixedMask();
    int pinned = 0;
    for (char f : fixed) pinned += f;
    ASSERT_EQ(pinned, 2);
    for (int f = 0; f < 60; ++f) {
        w->step();
        for (size_t i = 0; i < X.size(); ++i)
            if (fixed[i]) {
                ASSERT_EQ(w->positions()[i].x, X[i].x);  // prescribed exactly: bitwise
                ASSERT_EQ(w->positions()[i].y, X[i].y);
                ASSERT_EQ(w->positions()[i].z, X[i].z);
            }
    }
    // It hangs: every free vertex is below the pins, and the sheet's centre of mass has dropped (the
    // membrane stretches and the free corners swing in).
    double top = -1e9, y0 = 0, y1 = 0;
    for (size_t i = 0; i < X.size(); ++i) {
        if (!fixed[i]) top = std::max(top, double(w->positions()[i].y));
        y0 += X[i].y / double(X.size());
        y1 += w->positions()[i].y / double(X.size());
    }
    EXPECT_LT(top, 1.6);
    EXPECT_GT(y0 - y1, 0.02) << "centre of mass drop";
    for (const Vec3& p : w->positions()) ASSERT_TRUE(isFinite(p));
}

// Uniaxial stretch of a strip clamped at both ends: far from the clamps (two widths) the state is
// uniaxial with free lateral contraction, and minimising psi = mu/2 (a^2 + l^2 - 2) + lambda/2 (a l -
// alpha)^2 over the lateral stretch l gives l = lambda a alpha / (mu + lambda a^2): the area ratio J = a l.
TEST(ClothStretch, UniaxialAreaRatioMatchesStableNeoHookean) {
    SceneDesc s;
    s.gravity = Vec3(0, 0, 0);
    s.ground.enabled = false;
    s.dt = 1.0;  // quasi-static: inertia m/h^2 ~ 1e-4 N/m against E t = 10 N/m
    s.solver.iterations = 100;
    s.solver.diagnostics = false;
    ClothDesc c;
    c.min = Vec3(0, 1, 0);
    c.size = {2, 0.5};
    c.cells = {32, 8};
    c.material.youngs = 1e4;
    c.material.poisson = 0.3;
    c.material.bending = 0;
    c.material.damping = 0;
    c.selfCollision = false;
    c.fixed.push_back({Box3{Vec3(-0.01f, 0.99f, -0.01f), Vec3(0.01f, 1.01f, 0.51f)}});
    c.fixed.push_back({Box3{Vec3(1.99f, 0.99f, -0.01f), Vec3(2.01f, 1.01f, 0.51f)}});
    s.cloths.push_back(c);
    SoftSolver solver;
    solver.build(s);
    SoftModel& m = solver.model();
    const double stretch = 1.3;
    const int ramp = 10, hold = 40;
    for (int k = 1; k <= ramp + hold; ++k) {
        for (int i = 0; i < m.numVertices(); ++i)
            if (m.fixed[size_t(i)] && m.x0[size_t(i)].x > 1.f)
                m.x[size_t(i)].x = float(2.0 + 2.0 * (stretch - 1) * std::min(1.0, double(k) / ramp));
        solver.step(float(s.dt), s.gravity);
    }
    auto id = [&](int i, int j) { return size_t(j * 33 + i); };
    const double a = (m.x[id(20, 4)].x - m.x[id(12, 4)].x) / 0.5;  // axial stretch over the middle
    const double l = (m.x[id(16, 8)].z - m.x[id(16, 0)].z) / 0.5;  // lateral stretch at the middle
    const Lame nh = neoHookeanFromLame(planeStressLame(c.material.youngs, c.material.poisson));
    const double alpha = 1 + nh.mu / nh.lambda;
    const double lTheory = nh.lambda * a * alpha / (nh.mu + nh.lambda * a * a);
    // Linear elasticity would give l = 1 - nu (a - 1) = 0.908 at a = 1.305 against stable NH's 0.896 (1.4 %
    // apart); measured agreement is ~1e-5 relative, so 1e-3 (discretisation near the clamps, GS error)
    // resolves the model.
    EXPECT_NEAR(a * l, a * lTheory, 1e-3 * a * lTheory) << "a " << a << " l " << l << " theory " << lTheory;
    EXPECT_GT(a, 1.25);                                   // the middle really is stretched
    for (const Vec3& p : m.x) EXPECT_FLOAT_EQ(p.y, 1.f);  // in-plane forces only: the strip stays flat
}

TEST(ClothInput, BadClothsAreRefusedNamingTheKey) {
    auto expectKey = [](const std::string& json, const std::string& key) {
        try {
            SceneDesc s = parseScene(json, "bad.json");
            SoftSolver solver;
            solver.build(s);
            ADD_FAILURE() << "accepted: " << json;
        } catch (const InputError& e) {
            EXPECT_EQ(e.key(), key) << e.what();
            EXPECT_EQ(e.file(), "bad.json");
        }
    };
    expectKey(R"({"cloths": [{"type": "grid", "cells": [0, 4]}]})", "cloths[0].cells");
    expectKey(R"({"cloths": [{"type": "grid", "material": {"thickness": -0.001}}]})",
              "cloths[0].material.thickness");
    // zero-area rest triangles: a sheet 1e-12 m wide
    expectKey(R"({"cloths": [{"type": "grid", "size": [1e-12, 1], "cells": [4, 4]}]})", "cloths[0].size");
    EXPECT_THROW(triangleRest(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0), "f", "k"), InputError);
}
