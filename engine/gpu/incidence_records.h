#pragma once
// The tile sweep's streamed incidence records (gpu/step_stages.h SweepTileStage, kRecords): for entry j of
// the vertex-tet lists (SoftModel::vertexTets, items 4 e + a), a copy of tet e's vertex indices and
// constants.
//
// Why (docs/gpu.md, Nsight Compute on the H200): the sweep is latency-bound on its gathers. Per incidence it
// read the item, then the tet's indices and constants at e, then the four positions: three dependent loads,
// and the tet arrays gathered in the order of the color's vertices (L2 hit rate 48%). A launch reads every
// tet once (a tet has one vertex of each of 4 colors), so copies in the lists' order cost no extra bytes per
// launch: the tile's lanes read consecutive records (coalesced, no padding: 64 bytes, four 16-byte loads),
// independently of the item, and the positions follow one level sooner. The price is memory: each tet's
// data four times (68 bytes per incidence, and C_prev's copy: 36 bytes in float, 72 in double; 290 MB in
// float for the 703k-tet paper mesh).
//
// C_prev (written every step) gets the same treatment: the step's C_prev pass writes each tet's into its four
// incidences' copies (cprevSlot), so that the sweep reads it in the lists' order as well; the per-tet array
// stays for the residual and G. The values are the model's own, so the terms are the same bit for bit
// (soft/vertex_kernel.h tetVertexTermsOf).
#include <vector>

#include "math/hd.h"
#include "math/mat33.h"
#include "math/vec3.h"
#include "soft/soft_model.h"

namespace vbd {

struct alignas(16) IncidenceRecord {
    int tet[4];   // SoftModel::tets[e]
    Mat33 DmInv;  // SoftModel::DmInv[e]
    float volume, mu, lambda;
};
static_assert(sizeof(IncidenceRecord) == 64, "four 16-byte loads");

// Record j in one load per 16 bytes: on the device four read-only vector loads (the struct copy is not
// guaranteed to vectorize); on the host a copy.
VBD_HD IncidenceRecord loadIncidenceRecord(const IncidenceRecord* p) {
#ifdef __CUDA_ARCH__
    const float4* q = reinterpret_cast<const float4*>(p);
    const float4 a = __ldg(q), b = __ldg(q + 1), c = __ldg(q + 2), d = __ldg(q + 3);
    IncidenceRecord r;
    r.tet[0] = __float_as_int(a.x);
    r.tet[1] = __float_as_int(a.y);
    r.tet[2] = __float_as_int(a.z);
    r.tet[3] = __float_as_int(a.w);
    r.DmInv.m[0][0] = b.x;
    r.DmInv.m[0][1] = b.y;
    r.DmInv.m[0][2] = b.z;
    r.DmInv.m[1][0] = b.w;
    r.DmInv.m[1][1] = c.x;
    r.DmInv.m[1][2] = c.y;
    r.DmInv.m[2][0] = c.z;
    r.DmInv.m[2][1] = c.w;
    r.DmInv.m[2][2] = d.x;
    r.volume = d.y;
    r.mu = d.z;
    r.lambda = d.w;
    return r;
#else
    return *p;
#endif
}

// The records and the damping coefficients k_d (one per entry, apart: 4 more bytes would pad the record to
// 80) of every entry of m.vertexTets, in its order; cprevSlot[4 e + a]: the entry of tet e's local vertex a,
// or -1 when no list holds it.
void buildIncidenceRecords(const SoftModel& m, std::vector<IncidenceRecord>& records, std::vector<float>& kd,
                           std::vector<int>& cprevSlot);

}  // namespace vbd
