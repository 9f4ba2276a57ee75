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

#include "backend/parallel.h"
#include "gpu/backend_choice.h"
#include "gpu/soft_stepper.h"
#include "gpu_scenes.h"

using namespace vbd;

namespace {

// Why the CUDA tests cannot run here ("" when they can).
// Steps `steps` substeps on the CUDA step and the host pipeline; returns the largest position difference.
double compare(const SceneDesc& d, int steps, double* scale, bool warp = false) {
    ThreadLimit oneThread(1);  // the host side single-threaded (test_gpu_host_pipeline.cpp says why)
    SoftSolver a, b;
    a.build(d);
    b.build(d);
    a.setParams(d.solver);
    b.setParams(d.solver);
    auto host = makeHostPipelineStepper(d.solver.precision);
    auto dev = makeCudaStepper(d.solver.precision);
    host->configure(a);
    dev->configure(b);
    dev->setWarpPerVertex(warp);
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

TEST(GpuCuda, ToleranceAndChebyshevPaths) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* sets : {"solver.tolerance=1e-2", "solver.chebyshev_rho=0.8"}) {
        SceneDesc d =
            vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/beam_twist.json", {sets});
        double scale = 0;
        EXPECT_LT(compare(d, 3, &scale), 1e-9 * std::max(1.0, scale)) << sets;
    }
}

// The warp-per-vertex sweep sums each vertex's tets in 32 partial sums: the same terms in another order.
TEST(GpuCuda, WarpPerVertexParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* scene : {"beam_sag.json", "beam_twist.json", "mesh_drop.json"}) {
        SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {});
        double scale = 0;
        EXPECT_LT(compare(d, 3, &scale, true), 1e-9 * std::max(1.0, scale)) << scene;
    }
}

// Cloth on the device (self-collision off): float state, FMA contractions in the membrane and bending terms.
TEST(GpuCuda, ClothWithoutSelfCollisionParity) {
    if (const std::string why = vbdtest::noCudaDevice(); !why.empty()) GTEST_SKIP() << why;
    for (const char* scene : {"cloth_hanging.json", "cloth_drape.json"}) {
        SceneDesc d = vbd::loadSceneFile(std::string(VBD_SOURCE_DIR) + "/assets/scenes/" + scene, {});
        for (auto& c : d.cloths) c.selfCollision = false;
        d.solver.precision = Precision::Float;
        double scale = 0;
        const double worst = compare(d, 3, &scale);
        EXPECT_LT(worst, 5e-5 * std::max(1.0, scale)) << scene;
        std::printf("  parity %-40s %-6s max |dx| = %.3e m\n", scene, "float", worst);
    }
}
