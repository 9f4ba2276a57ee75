#pragma once
// The volume ratio J = det F of the published state, per tet (the metrics' min_volume_ratio) and per vertex
// as the mean over the vertex's tets (the heat map). One source for the host (soft/soft_fields.cpp) and the
// device (gpu/frame_measure_stages.h, gpu/field_stages.h): x(v) returns vertex v's position as published
// (rounded to float), so a device state of either precision gives the host's values bit for bit.
#include <array>

#include "energy/neo_hookean.h"
#include "math/hd.h"

namespace vbd {

template <class X>
VBD_HD float publishedTetJ(const std::array<int, 4>& t, const Mat33& DmInv, const X& x) {
    return tetDeformationGradient(x(t[0]), x(t[1]), x(t[2]), x(t[3]), DmInv).det();
}

// Mean J over the tets incident to vertex i (the vertex-tet lists: items carry tet << 2 | corner), summed in
// double in list order; 1 where there are none.
template <class X>
VBD_HD float vertexVolumeRatio(const int* offsets, const int* items, const std::array<int, 4>* tets,
                               const Mat33* DmInv, const X& x, int i) {
    double s = 0;
    int c = 0;
    for (int k = offsets[i]; k < offsets[i + 1]; ++k) {
        const int e = items[k] >> 2;
        s += publishedTetJ(tets[e], DmInv[e], x);
        ++c;
    }
    return c ? float(s / c) : 1.f;
}

}  // namespace vbd
