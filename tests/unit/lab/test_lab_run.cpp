// The `vbdlab lab` command's logic (lab_run.h): exact file headers and summary keys, and bad input
// refused with InputError naming the option and nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/lab_run.h"
#include "math/error.h"

using namespace vbd::lab;
namespace fs = std::filesystem;

namespace {

fs::path tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("vbd_lab_test_" + name);
    fs::remove_all(d);
    return d;
}

std::vector<std::string> lines(const fs::path& p) {
    std::ifstream f(p);
    std::vector<std::string> out;
    for (std::string l; std::getline(f, l);) out.push_back(l);
    return out;
}

std::string badKey(const LabOptions& o) {
    try {
        computeLab(o);
    } catch (const vbd::InputError& e) {
        return e.key();
    }
    return "";
}

}  // namespace

TEST(LabRun, Writes2dTraceAndSummary) {
    LabOptions o;
    o.kappa = 25;
    o.angle = 45;
    o.angleSet = true;
    o.method = "bcd";
    o.iters = 5;
    o.tol = 1e-6;
    o.out = tempDir("2d").string();
    ASSERT_EQ(runLab(o), 0);
    const auto tr = lines(fs::path(o.out) / "trace.csv");
    ASSERT_EQ(tr.size(), 1u + 1u + 5u * 2u);  // header, start, 2 coordinate steps per sweep
    EXPECT_EQ(tr[0], "iteration,x0,x1,energy");
    EXPECT_EQ(tr[1].rfind("0,", 0), 0u);
    EXPECT_EQ(tr.back().rfind("10,", 0), 0u);
    // Row 0 is x0 = 2 u1 + (2/5) u2 at 45 degrees, energy 4.
    double it, x0, x1, e;
    char c;
    std::istringstream(tr[1]) >> it >> c >> x0 >> c >> x1 >> c >> e;
    EXPECT_NEAR(x0, (2.0 - 0.4) / std::sqrt(2.0), 1e-14);
    EXPECT_NEAR(x1, (2.0 + 0.4) / std::sqrt(2.0), 1e-14);
    EXPECT_NEAR(e, 4.0, 1e-13);

    std::ifstream sf(fs::path(o.out) / "summary.json");
    const nlohmann::json j = nlohmann::json::parse(sf);
    for (const char* k : {"kappa", "rho_gs", "cg_factor", "iterations_to_tol", "method", "angle",
                          "final_energy", "dominance", "predicted_iterations", "steps_per_sweep"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["method"], "bcd");
    EXPECT_NEAR(j["kappa"].get<double>(), 25.0, 1e-12);
    EXPECT_NEAR(j["rho_gs"].get<double>(), std::pow(24.0 / 26.0, 2), 1e-14);
    EXPECT_NEAR(j["cg_factor"].get<double>(), 2.0 / 3.0, 1e-15);
    EXPECT_TRUE(j["iterations_to_tol"].is_null());  // 5 sweeps at rho 0.85 do not reach 1e-6
    EXPECT_EQ(j["predicted_iterations"].get<int>(), 87);
    EXPECT_EQ(j["steps_per_sweep"].get<int>(), 2);
    fs::remove_all(o.out);
}

TEST(LabRun, WritesNdTraceAndCountsIterations) {
    LabOptions o;
    o.kappa = 100;
    o.method = "cg";
    o.iters = 30;
    o.tol = 1e-8;
    o.dim = 12;
    o.dimSet = true;
    o.block = 3;
    o.dominance = 0.5;
    o.seed = 4;
    o.out = tempDir("nd").string();
    const LabResult r = computeLab(o);
    writeLab(r);
    const auto tr = lines(fs::path(o.out) / "trace.csv");
    EXPECT_EQ(tr[0], "iteration,x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,energy");
    EXPECT_EQ(tr.size(), 32u);
    // The generator hit kappa, and CG reached 1e-8 within n + a few steps (finite termination).
    EXPECT_NEAR(r.kappa, 100, 1e-8 * 100);
    ASSERT_GT(r.iterationsToTol, 0);
    EXPECT_LE(r.iterationsToTol, 16);
    std::ifstream sf(fs::path(o.out) / "summary.json");
    const nlohmann::json j = nlohmann::json::parse(sf);
    EXPECT_EQ(j["iterations_to_tol"].get<int>(), r.iterationsToTol);
    EXPECT_EQ(j["mode"], "nd");
    EXPECT_TRUE(j["angle"].is_null());
    EXPECT_NEAR(j["dominance_knob"].get<double>(), 0.5, 0);
    fs::remove_all(o.out);
}

TEST(LabRun, BadInputNamesTheOptionAndWritesNothing) {
    LabOptions good;
    good.out = tempDir("bad").string();
    auto with = [&](auto f) {
        LabOptions o = good;
        f(o);
        return o;
    };
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.kappa = 0.5; })), "--kappa");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.kappa = std::nan(""); })), "--kappa");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.method = "newton"; })), "--method");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.iters = 0; })), "--iters");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.tol = 0; })), "--tol");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.out = ""; })), "--out");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.localModes = "x"; })), "--local-modes");
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.localModesSet = true; })), "--local-modes");  // method bcd
    EXPECT_EQ(badKey(with([](LabOptions& o) { o.dominanceSet = true; })), "--dominance");     // 2-D mode
    auto nd = [](LabOptions& o) {
        o.dimSet = true;
        o.dim = 12;
        o.block = 3;
    };
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.dim = 13; })), "--dim");
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.dim = 100000; })), "--dim");
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.block = 0; })), "--block");
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.dominance = 1.0; })), "--dominance");
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.angleSet = true; })), "--angle");
    // kappa below what the coupling allows (kappa(I + 0.9 S) ~ 16 here) is refused up front.
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.dominance = 0.9, o.kappa = 2; })), "--kappa");
    EXPECT_EQ(badKey(with([&](LabOptions& o) { nd(o), o.dim = 24, o.block = 1, o.iters = 100000; })),
              "--iters");  // trace too large
    // The messages name the command and the option.
    try {
        computeLab(with([](LabOptions& o) { o.kappa = 0.5; }));
        FAIL() << "no error";
    } catch (const vbd::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("vbdlab lab: --kappa: must be a number >= 1"), std::string::npos)
            << e.what();
    }
    // runLab throws before creating anything.
    EXPECT_THROW(runLab(with([](LabOptions& o) { o.iters = -3; })), vbd::InputError);
    EXPECT_FALSE(fs::exists(good.out));
    // A file where the directory should go is refused too.
    { std::ofstream(good.out) << "x"; }
    EXPECT_EQ(badKey(good), "--out");
    fs::remove(good.out);
}
