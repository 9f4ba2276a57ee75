#pragma once
// VBD_HD marks functions usable on host and device. Every per-vertex, per-element and per-body kernel
// body is a VBD_HD function on plain structs, called by the CPU backend and by thin CUDA wrappers.
#if defined(__CUDACC__)
#define VBD_HD __host__ __device__ __forceinline__
#else
#define VBD_HD inline
#endif

// VBD_HD_NOINLINE: a VBD_HD function kept out of line on the host, so that every host caller runs the same
// instructions. GCC may vectorize a loop whose body it inlined and contract the vector body's a * b + c into
// FMAs differently from the scalar iterations it peels for alignment; which iterations are peeled depends on
// where the output array was allocated, so results would change in the last bit from run to run. noclone too:
// without it GCC may still specialize the function per translation unit (IPA-SRA's `.isra` clones, which pass
// the parts of a reference argument by value), and each unit's clone is compiled apart, with its own
// contractions: the narrow phase's capsule-ground points differed in the last bit between the test's call of
// collidePlane and the device stage's (test_gpu_rigid_host NarrowPhaseIsTheSolversBitForBit). With both
// attributes every caller calls the one comdat body the linker keeps. Under nvcc the function is inlined
// (device code, and host code that no CPU path calls).
#if defined(__CUDACC__)
#define VBD_HD_NOINLINE __host__ __device__ __forceinline__
#elif defined(__clang__)
#define VBD_HD_NOINLINE [[gnu::noinline]] inline  // clang has no noclone (and no IPA-SRA)
#else
#define VBD_HD_NOINLINE [[gnu::noinline, gnu::noclone]] inline
#endif
