#pragma once
// VBD_HD marks functions usable on host and device. Every per-vertex, per-element and per-body kernel
// body is a VBD_HD function on plain structs, called by the CPU backend and by thin CUDA wrappers.
#if defined(__CUDACC__)
#define VBD_HD __host__ __device__ __forceinline__
#else
#define VBD_HD inline
#endif
