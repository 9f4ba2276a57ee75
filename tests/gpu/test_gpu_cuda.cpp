// The CUDA step against the host executor running the same pipeline (gpu/pipeline.h), on every built-in
// scene the device step supports. Skips with the reason where there is no CUDA device or no CUDA build.
//
// Tolerance: the kernels are the same source, but nvcc contracts a*b + c into FMA where the host compiler
// may not, and the reductions add in another order. A contraction changes one rounding of a term: per sweep
// about u |term| in a vertex update, and the sweeps of one step and the steps after carry it on damped by
// the solve. Over a few steps this stays within 1e-9 m (double) and a few 1e-5 m on ~1 m coordinates
// (float: u = 6e-8, amplified by the stiffness ratio of the local solve) -- far below the motion of a step.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/parallel.h"
#include "gpu/backend_choice.h"
#include "gpu/soft_stepper.h"
#include "gpu/step_plan.h"
#include "gpu_scenes.h"
#include "world/world.h"

using namespace vbd;

namespace {

// Why the CUDA tests cannot run here ("" when they can).
// Steps `steps` substeps on the CUDA step and the host pipeline; returns the largest position difference.
double compare(const SceneDesc& d, int steps, double* scale, int lanes = 1, int minBlocks = 1,
               TetLayout layout = TetLayout::Arrays) {
    ThreadLimit oneThread(1);  // the host side single-threaded (test_gpu_host_pipeline.cpp says why)
    SoftSolver a, b;
    a.build(d);
    b.build(d);
    a.setParams(d.solver);
    b.setParams(d.solver);
    const auto hookA = vbdtest::installHook(a, d), hookB = vbdtest::installHook(b, d);
    auto host = makeHostPipelineStepper(d.solver.precision);
    auto dev = makeCudaStepper(d.solver.precision);
    host->configure(a);
    dev->configure(b);
    dev->setLanesPerVertex(lanes);  // 1: SweepStage, the host pipeline's order of the terms
    dev->setSweepMinBlocks(minBlocks);
    dev->setTetLayout(layout);  // gpu/tet_records.h: the same values read from another array
    const float h = float(d.dt / d.substeps);
    for (int s = 0; s < steps; ++s) {
        host->step(a, h, d.gravity);
        dev->step(b, h, d.gravity);
    }
    double worst = 0, big = 0;
    for (size_t i = 0; i < a.model().x.size(); ++i) {
        worst = std::max(worst, double(norm(a.model().x[i] - b.model().x[i])));
        big = std::max(big, double(norm(a.model().x[i])));
    }
    *scale = big;
    return worst;
}

}  // namespace

TEST(GpuCuda, ParityOnEverySupportedBuiltInScene) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const auto& sc : vbdtest::builtInSceneSupport()) {
        if (!sc.unsupported.empty()) continue;
        for (Precision prec : {Precision::Double, Precision::Float}) {
            SceneDesc d = loadSceneFile(sc.file, {});
            d.solver.precision = prec;
            double scale = 0;
            const double worst = compare(d, 2 * d.substeps, &scale);
            const double tol = (prec == Precision::Double ? 1e-9 : 5e-5) * std::max(1.0, scale);
            EXPECT_LT(worst, tol) << sc.file << (prec == Precision::Double ? " double" : " float");
            std::printf("  parity %-40s %-6s max |dx| = %.3e m\n", sc.file.c_str(),
                        prec == Precision::Double ? "double" : "float", worst);
        }
    }
}

// Collision while bodies touch (gpu_scenes.h contactCases: cloth on a soft cube, a stacked soft pile,
// re-detection, Chebyshev), detected on the host from the device's positions: the contact terms are C1 in
// the positions (a penalty that vanishes with its slope at d = r) and the bounds continuous, so a rounding
// of the positions moves the result by a rounding, within the parity bounds above; with a thread and with
// the default tile of 8 lanes per vertex.
TEST(GpuCuda, CollisionParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const auto& c : vbdtest::contactCases()) {
        for (Precision prec : {Precision::Double, Precision::Float}) {
            SceneDesc d = c.desc;
            d.solver.precision = prec;
            for (int lanes : {1, 8}) {
                double scale = 0;
                const double worst = compare(d, 4, &scale, lanes);
                const double tol = (prec == Precision::Double ? 1e-9 : 5e-5) * std::max(1.0, scale);
                EXPECT_LT(worst, tol)
                    << c.name << (prec == Precision::Double ? " double " : " float ") << lanes << " lanes";
                std::printf("  collision %-48s %-6s %d lanes max |dx| = %.3e m\n", c.name.c_str(),
                            prec == Precision::Double ? "double" : "float", lanes, worst);
            }
        }
    }
}

// The coarse correction between the device's sweeps (the hook on the host, gpu/pipeline.h) on the
// coarse bar's variants: the correction is a smooth function of the iterate (a Newton step on the coarse
// space from a factorization of the PSD-projected Hessian) except where a decision flips (the line search's
// step, the refactorization rule's threshold), which the 1e-16 relative differences of FMA contraction do
// not reach on these runs; the bounds are the other parity checks'.
TEST(GpuCuda, CoarseHookParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const auto& c : vbdtest::coarseCases()) {
        for (int lanes : {1, 8}) {
            double scale = 0;
            const double worst = compare(c.desc, 4, &scale, lanes);
            const bool dbl = c.desc.solver.precision == Precision::Double;
            EXPECT_LT(worst, (dbl ? 1e-9 : 5e-5) * std::max(1.0, scale))
                << c.name << ", " << lanes << " lanes";
            std::printf("  coarse %-60s %d lanes max |dx| = %.3e m\n", c.name.c_str(), lanes, worst);
        }
    }
}

TEST(GpuCuda, ToleranceAndChebyshevPaths) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* sets : {"solver.tolerance=1e-2", "solver.chebyshev_rho=0.8"}) {
        SceneDesc d =
            vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/beam_twist.json", {sets});
        double scale = 0;
        EXPECT_LT(compare(d, 3, &scale), 1e-9 * std::max(1.0, scale)) << sets;
    }
}

// The L2 persisting window over the positions (SoftStepper::setPersistingPositions) is a cache hint: the
// same kernels on the same data, so the steps are bit for bit those without it, through the captured graph
// (the window set on its kernel nodes) and stage by stage (a tolerance). The H100 and H200 have a persisting
// L2 (sm_80 and later): the window covers the positions there.
TEST(GpuCuda, PersistingWindowChangesNothing) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* sets : {"solver.diagnostics=false", "solver.tolerance=1e-3"}) {
        for (Precision prec : {Precision::Double, Precision::Float}) {
            SceneDesc d =
                vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/beam_sag.json", {sets});
            d.solver.precision = prec;
            SoftSolver a, b;
            a.build(d);
            b.build(d);
            a.setParams(d.solver);
            b.setParams(d.solver);
            auto plain = makeCudaStepper(prec), persisting = makeCudaStepper(prec);
            plain->configure(a);
            persisting->configure(b);
            persisting->setPersistingPositions(true);
            const size_t bytes = a.model().x.size() * (prec == Precision::Double ? 24 : 12);
            if (probeCuda().major >= 8) {
                EXPECT_EQ(persisting->persistingBytes(), bytes) << sets;
            }
            for (int s = 0; s < 4; ++s) {
                plain->step(a, float(d.dt), d.gravity);
                persisting->step(b, float(d.dt), d.gravity);
            }
            for (size_t i = 0; i < a.model().x.size(); ++i)
                ASSERT_EQ(norm(a.model().x[i] - b.model().x[i]), 0.f) << sets << " vertex " << i;
            persisting->setPersistingPositions(false);
            EXPECT_EQ(persisting->persistingBytes(), 0u);
        }
    }
}

// The tile sweeps sum each vertex's tets in 4 to 32 partial sums: the same terms in another order (double
// state: the reordering moves positions by rounding, ~1e-16 relative per step).
TEST(GpuCuda, TilePerVertexParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* scene : {"beam_sag.json", "beam_twist.json", "mesh_drop.json"}) {
        SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {});
        for (int lanes : {4, 8, 16, 32}) {
            double scale = 0;
            EXPECT_LT(compare(d, 3, &scale, lanes), 1e-9 * std::max(1.0, scale))
                << scene << ", " << lanes << " lanes";
        }
        // The register-capped builds of the kernel (setSweepMinBlocks): the same arithmetic, maybe spilled.
        for (int blocks : {2, 3, 4}) {
            double scale = 0;
            EXPECT_LT(compare(d, 3, &scale, 8, blocks), 1e-9 * std::max(1.0, scale))
                << scene << ", " << blocks << " blocks";
            EXPECT_LT(compare(d, 3, &scale, 4, blocks), 1e-9 * std::max(1.0, scale))
                << scene << ", " << blocks << " blocks";
        }
        // The tet records (the host pipeline shows them equal to the tet arrays bit for bit; here the device
        // kernel's loads of them and its C_prev from x_prev, at the widths and budgets the benchmark
        // compares).
        for (TetLayout layout : {TetLayout::IncidenceRecords, TetLayout::TetRecords}) {
            for (int lanes : {4, 8, 16, 32}) {
                for (int blocks : {1, 2}) {
                    if (lanes >= 16 && blocks == 2) continue;  // no capped build at 16 and 32 lanes
                    double scale = 0;
                    EXPECT_LT(compare(d, 3, &scale, lanes, blocks, layout), 1e-9 * std::max(1.0, scale))
                        << scene << ", " << tetLayoutName(layout) << ", " << lanes << " lanes, " << blocks
                        << " blocks";
                }
            }
            // In float (the increment form's positions, C_prev from x_prev as the C_prev pass computes it),
            // bounded as the float parity checks are.
            SceneDesc f = d;
            f.solver.precision = Precision::Float;
            double scale = 0;
            EXPECT_LT(compare(f, 3, &scale, 8, 1, layout), 5e-5 * std::max(1.0, scale))
                << scene << ", " << tetLayoutName(layout) << ", float";
        }
    }
}

// The default width follows the model (gpu/pipeline.h lanesPerVertex): a tile of kDefaultLanesPerVertex where
// the lanes split tets, a thread per vertex for cloth alone (a tile's first lane would do all of its terms).
TEST(GpuCuda, DefaultLanesFollowTheModel) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const auto& [scene, lanes] : {std::pair<const char*, int>{"beam_sag.json", kDefaultLanesPerVertex},
                                       std::pair<const char*, int>{"cloth_hanging.json", 1}}) {
        const SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {});
        SoftSolver solver;
        solver.build(d);
        solver.setParams(d.solver);
        std::unique_ptr<SoftStepper> stepper = makeCudaStepper(d.solver.precision);
        stepper->configure(solver);
        EXPECT_EQ(stepper->lanesPerVertex(), lanes) << scene;
        stepper->setLanesPerVertex(4);
        EXPECT_EQ(stepper->lanesPerVertex(), 4) << scene;
    }
}

// Cloth on the device (self-collision off): float state, FMA contractions in the membrane and bending terms.
TEST(GpuCuda, ClothWithoutSelfCollisionParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* scene : {"cloth_hanging.json", "cloth_drape.json"}) {
        for (Precision prec : {Precision::Double, Precision::Float}) {
            SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {});
            for (auto& c : d.cloths) c.selfCollision = false;
            d.solver.precision = prec;
            double scale = 0;
            const double worst = compare(d, 3, &scale);
            const bool dbl = prec == Precision::Double;
            EXPECT_LT(worst, (dbl ? 1e-9 : 5e-5) * std::max(1.0, scale))
                << scene << (dbl ? " double" : " float");
            std::printf("  parity %-40s %-6s max |dx| = %.3e m\n", scene, dbl ? "double" : "float", worst);
        }
    }
}

// ---- the residual heat map on the device (gpu/soft_stepper.h setResidualField) ---------------------------

namespace {

double fieldNorm(const std::vector<float>& f) {
    double s = 0;
    for (float r : f) s += double(r) * double(r);
    return std::sqrt(s);
}

// The stored field is float(|f_i|) of the evaluation whose sum gave residualFinal: each value is rounded
// once to float (relative 2^-24) after |f_i| in T (float: one more rounding of the dot product), so the two
// norms agree to a few 1e-8 relative; 1e-6 leaves room and still catches a field of another iterate (a sweep
// changes |grad G| by far more).
void expectFieldOfFinalIterate(const std::vector<float>& field, double residualFinal,
                               const std::string& what) {
    EXPECT_NEAR(fieldNorm(field), residualFinal, 1e-6 * residualFinal + 1e-30) << what;
}

}  // namespace

// The CUDA field against the host executor's (which test_gpu_host_pipeline checks bit for bit against the CPU
// solver's). The fields are |grad_i G| at the two final iterates, which differ by the FMA contractions
// (the parity tests above: 1e-9 m in double, 5e-5 m x scale in float). Measured on the host (perturbing the
// state by a given dx and stepping on): beam_sag's field moves by 6e-4 of its norm per 1e-6 m in double, by
// 8e-2 per 5e-5 m in float (its float field is near the state's rounding floor), cloth_hanging's by 3e-2 per
// 5e-5 m. Bounds: 1e-3 relative in double (1e-9 m: thousands of times the expected change), 0.2 in float,
// plus 4x the residual floor for states whose residual is round-off (cube_drop falling: |F| ~ floor).
TEST(GpuCuda, ResidualFieldParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const vbdtest::FieldCase& c : vbdtest::residualFieldCases()) {
        for (const char* sets : {"solver.diagnostics=true", "solver.diagnostics=false"}) {
            std::string what;
            const SceneDesc d = vbdtest::residualFieldScene(c, sets, what);
            ThreadLimit oneThread(1);
            SoftSolver a, b;
            for (SoftSolver* s : {&a, &b}) {
                s->build(d);
                s->setParams(d.solver);
            }
            auto host = makeHostPipelineStepper(c.precision);
            auto dev = makeCudaStepper(c.precision);
            host->setResidualField(true);
            dev->setResidualField(true);
            host->configure(a);
            dev->configure(b);
            const float h = float(d.dt / d.substeps);
            SoftStepStats sh, sd;
            for (int s = 0; s < 2 * d.substeps; ++s) {
                sh = host->step(a, h, d.gravity);
                sd = dev->step(b, h, d.gravity);
            }
            const std::vector<float>&fa = a.vertexResidual(), &fb = b.vertexResidual();
            ASSERT_EQ(fb.size(), size_t(b.model().numVertices())) << what;
            ASSERT_EQ(fa.size(), fb.size()) << what;
            expectFieldOfFinalIterate(fb, sd.residualFinal, what);
            double d2 = 0;
            for (size_t i = 0; i < fa.size(); ++i) d2 += (double(fa[i]) - fb[i]) * (double(fa[i]) - fb[i]);
            const double rel = c.precision == Precision::Double ? 1e-3 : 0.2;
            EXPECT_LE(std::sqrt(d2), rel * fieldNorm(fa) + 4 * sh.residualFloor) << what;
            std::printf("  field %-20s %-26s |F_cuda - F_host| = %.3e of |F| = %.3e (floor %.3e)\n", c.scene,
                        sets, std::sqrt(d2), fieldNorm(fa), sh.residualFloor);
            // Unwanted again: nothing downloaded, the solver's field emptied.
            dev->setResidualField(false);
            dev->step(b, h, d.gravity);
            EXPECT_TRUE(b.vertexResidual().empty()) << what;
        }
    }
}

// Through the World, as the app and `vbdlab render --field residual` ask for it: the wish turned on while
// paused gives the last step's field at once, steps keep it current, and without the wish it reads empty.
TEST(GpuCuda, WorldResidualFieldFollowsTheWish) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/beam_sag.json",
                                     {"solver.backend=cuda"});
    auto w = World::create(d);
    std::vector<float> field;
    for (int f = 0; f < 3; ++f) w->step();
    w->scalarField(ScalarField::Residual, field);
    EXPECT_TRUE(field.empty()) << "device steps without the wish leave no field";
    w->setWantedField(ScalarField::Residual);
    w->scalarField(ScalarField::Residual, field);
    ASSERT_EQ(field.size(), w->positions().size());
    expectFieldOfFinalIterate(field, w->history().back().residualFinal, "wanted while paused");
    for (int f = 0; f < 3; ++f) w->step();
    w->scalarField(ScalarField::Residual, field);
    ASSERT_EQ(field.size(), w->positions().size());
    expectFieldOfFinalIterate(field, w->history().back().residualFinal, "wanted, stepped");
    w->setWantedField(ScalarField::None);
    w->step();
    w->scalarField(ScalarField::Residual, field);
    EXPECT_TRUE(field.empty());
}
