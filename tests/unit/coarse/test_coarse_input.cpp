// solver.coarse.* validation through parseScene, and the experiment command's quick grid.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "coarse_test_util.h"
#include "experiments/coarse_experiment.h"
#include "math/error.h"
#include "scene/scene.h"

using namespace vbd;

namespace {

std::string sceneWithCoarse(const std::string& coarseJson) {
    return R"({"soft_bodies": [{"type": "box_grid"}], "solver": {"coarse": )" + coarseJson + "}}";
}

// The key of the InputError that parsing throws ("" if it does not throw).
std::string errorKey(const std::string& coarseJson) {
    try {
        parseScene(sceneWithCoarse(coarseJson), "test.json");
    } catch (const InputError& e) {
        return e.key();
    }
    return "";
}

}  // namespace

TEST(CoarseInput, GoodValuesParse) {
    const SceneDesc sd = parseScene(
        sceneWithCoarse(
            R"({"enabled": true, "basis": "patch_soft", "modes_per_element": 12, "filter": "patch", "patch_size": 1, "matrix": "rest"})"),
        "test.json");
    EXPECT_TRUE(sd.solver.coarse.enabled);
    EXPECT_EQ(sd.solver.coarse.basis, CoarseBasis::PatchSoft);
    EXPECT_EQ(sd.solver.coarse.modesPerElement, 12);
    EXPECT_EQ(sd.solver.coarse.filter, CoarseFilter::Patch);
    EXPECT_EQ(sd.solver.coarse.patchSize, 1);
    EXPECT_EQ(sd.solver.coarse.matrix, CoarseMatrix::Rest);
}

TEST(CoarseInput, BadValuesNameTheirKey) {
    // InputError is what the CLI maps to exit code 2 (app/cli/common.cpp, reportError).
    EXPECT_EQ(errorKey(R"({"modes_per_element": 0})"), "solver.coarse.modes_per_element");
    EXPECT_EQ(errorKey(R"({"modes_per_element": 13})"), "solver.coarse.modes_per_element");
    EXPECT_EQ(errorKey(R"({"patch_size": 0})"), "solver.coarse.patch_size");
    EXPECT_EQ(errorKey(R"({"basis": "multigrid"})"), "solver.coarse.basis");
    EXPECT_EQ(errorKey(R"({"filter": "sharpest"})"), "solver.coarse.filter");
    EXPECT_EQ(errorKey(R"({"contrast_threshold": 0.5})"), "solver.coarse.contrast_threshold");
    EXPECT_EQ(errorKey(R"({"matrix": "dense"})"), "solver.coarse.matrix");
}

TEST(CoarseExperiment, QuickGridWritesResults) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(VBD_BINARY_DIR) / "test_out" / "coarse_quick";
    fs::remove_all(dir);
    experiments::ExperimentOptions o;
    o.out = dir.string();
    o.scenePath = coarsetest::barPath();
    o.quick = true;
    int calls = 0;
    const auto rows = experiments::runCoarseExperiment(o, [&](int, int) { ++calls; });
    std::ifstream f(dir / "results.csv");
    std::string header;
    std::getline(f, header);
    EXPECT_EQ(
        header,
        "layout,contrast,basis,filter,modes,columns,columns_over_3n,sweeps_to_tol,ms_per_sweep,ms_to_tol,"
        "residual_after_10");
    int lines = 0;
    for (std::string l; std::getline(f, l);) ++lines;
    EXPECT_EQ(lines, int(rows.size()));
    EXPECT_EQ(rows.size(), 8u);  // layers x {1, 1e4} x {none, chebyshev, stiff_rigid, element+contrast}
    EXPECT_GT(calls, 0);
    EXPECT_TRUE(fs::exists(dir / "sweeps_layers.png"));
    // The quick grid already shows the effect: at 1e4 plain VBD does not reach relative residual 1e-5 in
    // 200 sweeps (its tail rate is 0.9998 per sweep: ~57,000 sweeps) while the rigid modes of the stiff
    // layers do (measured: 126 sweeps, on the double state).
    for (const auto& r : rows) {
        if (r.contrast != 1e4) continue;
        if (r.basis == "none") {
            EXPECT_EQ(r.sweepsToTol, -1);
        }
        if (r.basis == "stiff_rigid") {
            EXPECT_GT(r.sweepsToTol, 0);
            EXPECT_LT(r.columnsOver3n, 0.05);
        }
    }
}

TEST(CoarseExperiment, BadOptionsAreInputErrors) {
    experiments::ExperimentOptions o;
    o.scenePath = coarsetest::barPath();
    EXPECT_THROW(experiments::runCoarseExperiment(o), InputError);  // no --out
    o.out = (std::filesystem::path(VBD_BINARY_DIR) / "test_out" / "coarse_bad").string();
    o.tol = 2;
    EXPECT_THROW(experiments::runCoarseExperiment(o), InputError);
    // Each bad option names itself, and nothing is created.
    auto names = [&](experiments::ExperimentOptions bad, const std::string& key) {
        try {
            experiments::runCoarseExperiment(bad);
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
            return;
        }
        ADD_FAILURE() << key << " accepted";
    };
    o.tol = 0;
    o.out = (std::filesystem::path(VBD_BINARY_DIR) / "test_out" / "coarse_bad_options").string();
    std::filesystem::remove_all(o.out);
    experiments::ExperimentOptions b = o;
    b.measure = "energy";
    names(b, "--measure");
    b = o;
    b.precision = "half";
    names(b, "--precision");
    b = o;
    b.layouts = {"diagonal"};
    names(b, "--layouts");
    b = o;
    b.contrasts = {0.5};
    names(b, "--contrasts");
    b.contrasts = {std::numeric_limits<double>::infinity()};  // --contrasts 1e309: inf and NaN rows before
    names(b, "--contrasts");
    b = o;
    b.bases = {"nope"};
    names(b, "--bases");
    EXPECT_FALSE(std::filesystem::exists(o.out));
}

// A scene the experiment cannot run (not a box_grid bar) is refused before anything is written: it had
// truncated the folder's reference.csv from an earlier run to its header.
TEST(CoarseExperiment, ARefusedSceneLeavesAnEarlierRunsFilesAlone) {
    experiments::ExperimentOptions o;
    o.quick = true;
    o.out = (std::filesystem::path(VBD_BINARY_DIR) / "test_out" / "coarse_refused_scene").string();
    std::filesystem::create_directories(o.out);
    const std::string earlier = "layout,contrast\nlayers,1\n";
    for (const char* f : {"reference.csv", "results.csv", "chebyshev.csv"})
        std::ofstream(std::filesystem::path(o.out) / f) << earlier;
    o.scenePath = std::string(VBD_SOURCE_DIR) + "/assets/scenes/cloth_drape.json";
    EXPECT_THROW(experiments::runCoarseExperiment(o), InputError);
    for (const char* f : {"reference.csv", "results.csv", "chebyshev.csv"}) {
        std::ifstream in(std::filesystem::path(o.out) / f);
        const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_EQ(kept, earlier) << f;
    }
}
