// The CUDA sweep runs the same vertex kernel as the CPU: after identical sweeps from an identical state
// the positions agree. Skips (with the reason) where no CUDA device exists.
#include <gtest/gtest.h>

#include "gpu/cuda_soft.h"

using namespace vbd;

TEST(CudaParity, SweepMatchesCpu) {
    std::string why;
    if (!CudaSoftSweeper::available(&why)) GTEST_SKIP() << why;
    SceneDesc s;
    s.solver.precision = Precision::Float;  // the CUDA sweep runs the float state
    s.ground.height = 0.9;
    SoftBodyDesc b;
    b.min = Vec3(0, 1, 0);
    b.max = Vec3(2, 1.5f, 0.5f);
    b.cells = {16, 4, 4};
    b.material.damping = 0.01;
    s.softBodies.push_back(b);
    SoftSolver cpu, gpu;
    cpu.build(s);
    gpu.build(s);
    cpu.setParams(s.solver);
    for (SoftSolver* sv : {&cpu, &gpu}) sv->step(1.f / 60.f, Vec3(0, -9.81f, 0));
    CudaSoftSweeper cuda;
    cuda.upload(gpu);
    for (int k = 0; k < 5; ++k) {
        cpu.sweep();
        cuda.sweep();
    }
    cuda.download(gpu);
    double worst = 0;
    for (int i = 0; i < cpu.model().numVertices(); ++i)
        worst = std::max(worst, double(norm(cpu.model().x[size_t(i)] - gpu.model().x[size_t(i)])));
    // Same operations in the same order per vertex; nvcc may contract a*b+c into FMA, so allow a few
    // float ulps of the 1 m coordinates per sweep: 5 sweeps * ~1e-6 m.
    EXPECT_LT(worst, 1e-5);
}
