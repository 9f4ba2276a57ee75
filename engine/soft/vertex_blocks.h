#pragma once
// The CPU sweep's per-vertex force and block (the SIMD vertex path): vertexForceHessian (vertex_kernel.h)
// with the tet terms from SoftModel::tetBlocks (soft/tet_blocks.h) and the cloth terms from
// SoftModel::clothBlocks (soft/cloth_blocks.h), evaluated W incidences at a time.
//
// Order of the sums: inertia, the tets (per lane, lanes pairwise), the cloth (per lane, lanes pairwise),
// then vertexContactTerms -- the scalar kernel's order with each element kind's sum regrouped by lanes.
//
// CPU only (backend/simd.h); CUDA runs the scalar kernel.
#include "soft/cloth_blocks.h"
#include "soft/tet_blocks.h"

namespace vbd {

// The model's blocks and the state's per-step C_prev lanes (SoftState::CprevLanes).
template <typename T>
struct VertexBlocks {
    const TetBlocks& tets;
    const T* cprevLanes;
    const ClothBlocks& cloth;
};

template <typename T, bool Inc>
VBD_SIMD_INLINE void elementBlocksSum(const SoftViewT<T>& s, const VertexBlocks<T>& vb, int i, Vec3T<T>& f,
                                      Mat33T<T>& H) {
    tetBlocksSumOf<T, Inc>(s, vb.tets, vb.cprevLanes, i, f, H);
    clothTermsOf<T, Inc>(s, vb.cloth, i, f, H);
}

template <typename T>
VBD_SIMD_INLINE bool vertexForceHessianBlocks(const SoftViewT<T>& s, const VertexBlocks<T>& vb, int i,
                                              Vec3T<T>& f, Mat33T<T>& H) {
    vertexInertia(s, i, f, H);
    if (incrementForm(s))  // float states only: the double instantiation never compiles the Inc path
        elementBlocksSum<T, sizeof(T) == sizeof(float)>(s, vb, i, f, H);
    else
        elementBlocksSum<T, false>(s, vb, i, f, H);
    return vertexContactTerms(s, i, f, H);
}

// vertexForceHessianBlocks with the tet terms' force fTets summed elsewhere (the residual's per-tet pass,
// soft/tet_residual.h) in their place in the order; H holds every block but the tets'.
template <typename T>
VBD_SIMD_INLINE bool vertexForceBlocksTetsGiven(const SoftViewT<T>& s, const ClothBlocks& cloth, int i,
                                                const Vec3T<T>& fTets, Vec3T<T>& f, Mat33T<T>& H) {
    vertexInertia(s, i, f, H);
    f += fTets;
    if (incrementForm(s))
        clothTermsOf<T, sizeof(T) == sizeof(float)>(s, cloth, i, f, H);
    else
        clothTermsOf<T, false>(s, cloth, i, f, H);
    return vertexContactTerms(s, i, f, H);
}

}  // namespace vbd
