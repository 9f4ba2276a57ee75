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
#include <cstddef>
#include <cstring>
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
static_assert(sizeof(Mat33) == 36 && offsetof(IncidenceRecord, DmInv) == 16 &&
                  offsetof(IncidenceRecord, volume) == 52 && offsetof(IncidenceRecord, lambda) == 60,
              "recordFromWords reads this layout");

// An int's bits in a float word (the records' vertex indices travel in the float loads).
VBD_HD int intBits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_int(f);
#else
    int i;
    std::memcpy(&i, &f, sizeof i);
    return i;
#endif
}

// The record from its 16 words in memory order, as the device's four vector loads deliver them (one source
// for the device's unpacking and the host test that checks it against the struct's layout).
VBD_HD IncidenceRecord recordFromWords(const float (&w)[16]) {
    IncidenceRecord r;
    for (int k = 0; k < 4; ++k) r.tet[k] = intBits(w[k]);
    for (int k = 0; k < 9; ++k) r.DmInv.m[k / 3][k % 3] = w[4 + k];
    r.volume = w[13];
    r.mu = w[14];
    r.lambda = w[15];
    return r;
}

// Record j in one load per 16 bytes: on the device four read-only vector loads (the struct copy is not
// guaranteed to vectorize); on the host a copy.
VBD_HD IncidenceRecord loadIncidenceRecord(const IncidenceRecord* p) {
#ifdef __CUDA_ARCH__
    const float4* q = reinterpret_cast<const float4*>(p);
    const float4 a = __ldg(q), b = __ldg(q + 1), c = __ldg(q + 2), d = __ldg(q + 3);
    const float w[16] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w, d.x, d.y, d.z, d.w};
    return recordFromWords(w);
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
