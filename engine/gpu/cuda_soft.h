#pragma once
// CUDA backend of the VBD particle sweep. It runs the SAME per-vertex kernel as the CPU
// (soft/vertex_kernel.h, VBD_HD functions) with one thread per vertex of a color; this header has no
// CUDA types so the CPU-only build and the app can include it. Without nvcc at build time, or without a
// GPU at run time, available() is false and says why.
#include <memory>
#include <string>

#include "soft/soft_solver.h"

namespace vbd {

// The device kernel runs the float state only; upload() of a solver with solver.precision = double throws
// InputError naming solver.precision with this text.
constexpr const char* kDoubleRefused = "the CUDA sweep runs float state only (use the CPU for double)";

class CudaSoftSweeper {
  public:
    static bool available(std::string* why = nullptr);
    CudaSoftSweeper();
    ~CudaSoftSweeper();
    CudaSoftSweeper(const CudaSoftSweeper&) = delete;
    CudaSoftSweeper& operator=(const CudaSoftSweeper&) = delete;

    // Copies the model (topology, materials, rest data, colliders, state) to the device. Throws InputError
    // for a double-precision solver, std::runtime_error for cloth or collision (gpu/pipeline.h runs those).
    void upload(SoftSolver& solver);
    // One colored Gauss-Seidel sweep on the device (colors in order, one launch each).
    void sweep();
    // Copies positions back into the solver's model.
    void download(SoftSolver& solver) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vbd
