#pragma once
// The renderer's per-particle vertex record (position, smooth normal, heat-map scalar), one source for the
// CPU vertex source (app/render/vertex_source.cpp, host memory mapped by Vulkan) and the CUDA-Vulkan interop
// kernel (gpu/interop_cuda.cu, device memory exported by Vulkan). The engine knows the record only as a
// layout in float words (VertexLayout), so that it includes no app or Vulkan type.
//
// Smooth normal of vertex i: n_i = normalize(sum over the surface triangles t incident to i of
// (x1 - x0) x (x2 - x0)); the cross product's length is twice t's area, which weights the average. The sum is
// a gather over a CSR of incident triangles (SurfaceAdjacency) instead of a scatter over triangles: no
// atomics on the device, and a fixed order -- triangles in draw order (surface by surface, triangle by
// triangle), the order in which a scatter over the triangles adds into n_i -- so that every thread and the
// CPU round alike.
#include <array>
#include <cstddef>
#include <vector>

#include "math/hd.h"
#include "math/vec3.h"

namespace vbd {

// Where the fields of one record sit, in float words (the app's ParticleVertex: stride 8, pos 0, scalar 3,
// normal 4; checked there with static_asserts). Words of the record that no field covers are written as 0.
struct VertexLayout {
    int stride = 8;
    int pos = 0;     // 3 words
    int scalar = 3;  // 1 word
    int normal = 4;  // 3 words
};

// Incident triangles of every vertex: tris of vertex i are incident[offsets[i] .. offsets[i + 1]), indices
// into `tris` (three vertex indices per triangle), in draw order.
struct SurfaceAdjacency {
    std::vector<int> offsets;   // numVertices + 1
    std::vector<int> incident;  // 3 per triangle in all
    std::vector<std::array<int, 3>> tris;
};

// The CSR of `tris` (all surfaces' triangles in draw order) over numVertices vertices. Vertices on no
// triangle get an empty range (normal 0, as the scatter leaves them). Throws std::invalid_argument for an
// index outside [0, numVertices).
SurfaceAdjacency buildSurfaceAdjacency(int numVertices, const std::vector<std::array<int, 3>>& tris);

// The adjacency as raw pointers of one memory space (host vectors or device copies).
struct SurfaceAdjacencyView {
    const int* offsets = nullptr;
    const int* incident = nullptr;
    const std::array<int, 3>* tris = nullptr;
};

// Positions rounded to float: the device state (double or float) before the records, what publishing does
// for the CPU path. The records are then computed from floats by one instantiation of one functor on both
// paths: two instantiations over double and float positions were seen to round the normals differently on
// the host (g++ contracts the cross products into FMAs differently in each), which would break the
// byte-for-byte equality of the host run with the CPU path.
template <typename T>
struct ToFloatStage {
    const Vec3T<T>* x = nullptr;
    Vec3* out = nullptr;
    VBD_HD void operator()(int i) const { out[i] = Vec3(x[i]); }
};

// Area-weighted smooth normal of vertex i.
VBD_HD Vec3 smoothNormalAt(int i, const Vec3* x, const SurfaceAdjacencyView& adj) {
    Vec3 n(0.0f);
    for (int k = adj.offsets[i]; k < adj.offsets[i + 1]; ++k) {
        const std::array<int, 3>& t = adj.tris[adj.incident[k]];
        n += cross(x[t[1]] - x[t[0]], x[t[2]] - x[t[0]]);
    }
    return normalized(n);
}

// One record per vertex: functor over [0, n) for an executor's forEach (gpu/host_exec.h, gpu/cuda_exec.cuh).
// scalar: numScalars per-vertex heat-map values (vertices past the end get 0, as with no field at all).
struct VertexRecordStage {
    const Vec3* x = nullptr;
    SurfaceAdjacencyView adj;
    const float* scalar = nullptr;
    int numScalars = 0;
    float* out = nullptr;  // n * layout.stride words
    VertexLayout layout;

    VBD_HD void operator()(int i) const {
        float* r = out + ptrdiff_t(i) * layout.stride;
        for (int w = 0; w < layout.stride; ++w) r[w] = 0.0f;
        const Vec3 p = x[i];
        const Vec3 n = smoothNormalAt(i, x, adj);
        r[layout.pos] = p.x, r[layout.pos + 1] = p.y, r[layout.pos + 2] = p.z;
        r[layout.normal] = n.x, r[layout.normal + 1] = n.y, r[layout.normal + 2] = n.z;
        r[layout.scalar] = i < numScalars ? scalar[i] : 0.0f;
    }
};

// The records on the host executor: n records of positions x into out (host memory, n * layout.stride
// words), in parallel over vertices. The CPU vertex source's fill, and the host run of the interop kernel.
void fillVertexRecords(const Vec3* x, int n, const SurfaceAdjacency& adj, const float* scalar, int numScalars,
                       const VertexLayout& layout, float* out);

}  // namespace vbd
