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
// where the output array was allocated, so results would change in the last bit from run to run. Under nvcc
// the function is inlined (device code, and host code that no CPU path calls).
#if defined(__CUDACC__)
#define VBD_HD_NOINLINE __host__ __device__ __forceinline__
#else
#define VBD_HD_NOINLINE [[gnu::noinline]] inline
#endif
