// CPU-only build: the CUDA backend is not compiled in.
#include "gpu/cuda_soft.h"

#ifndef VBD_HAVE_CUDA
#include <stdexcept>

#include "math/error.h"

namespace vbd {

struct CudaSoftSweeper::Impl {};

bool CudaSoftSweeper::available(std::string* why) {
    if (why) *why = "built without CUDA (nvcc was not found at configure time)";
    return false;
}
CudaSoftSweeper::CudaSoftSweeper() = default;
CudaSoftSweeper::~CudaSoftSweeper() = default;
void CudaSoftSweeper::upload(SoftSolver& solver) {
    if (solver.doublePrecision()) throw InputError("", "solver.precision", kDoubleRefused);
    throw std::runtime_error("CUDA backend not compiled in");
}
void CudaSoftSweeper::sweep() { throw std::runtime_error("CUDA backend not compiled in"); }
void CudaSoftSweeper::download(SoftSolver&) const {
    throw std::runtime_error("CUDA backend not compiled in");
}

}  // namespace vbd
#endif
