#pragma once
// How the tile sweep (gpu/step_stages.h SweepTileStage) reads the tet of each incidence (entry j of the
// vertex-tet lists, SoftModel::vertexTets, item 4 e + a): the layouts a device run chooses between by
// benchmark (bench_gpu BM_GpuSoftStepRecords, docs/gpu.md).
//
// Why (docs/gpu.md, Nsight Compute on the H200): the sweep is latency-bound on its gathers. With the tet
// arrays (TetLayout::Arrays) an incidence reads the item, then at e the tet's indices (16 bytes), Dm^-1 (36),
// V, mu, lambda, k_d (four arrays of 4 bytes) and C_prev (36 bytes in float, 72 in double, of which the
// damping reads the upper triangle): about ten 32-byte sectors in scattered places per incidence, and 104
// bytes per tet in float (140 in double) that every launch reads once (a tet has one vertex of each of 4
// colors): 73 MB a launch for the 703k-tet paper mesh, more than the H200's 50 MB of L2.
//
// The records put a tet's indices, Dm^-1, V, mu and lambda in one aligned 64-byte TetRecord (two sectors,
// four 16-byte loads), k_d beside them (4 bytes; none when every tet has the same k_d) and take no stored
// C_prev: the sweep computes C_prev = F_prev^T F_prev from the four x_prev it already gathers (in float's
// increment form every position is x_prev + dx) where the damping reads it (soft/vertex_kernel.h
// tetVertexTermsAtPrev), 54 multiply-adds for 36 or 72 bytes. 64-68 bytes per tet a launch: 45-48 MB.
//   - TetLayout::TetRecords: one record per tet, read at e after the item (the arrays' dependent loads,
//     two sectors instead of ten).
//   - TetLayout::IncidenceRecords: one record per incidence, in the lists' order: the tile's lanes read
//     consecutive records, coalesced and independent of the item (one dependent load fewer); each tet's
//     record four times in memory (256 bytes per tet; 180 MB for the paper mesh).
// The values are the model's own and C_prev is computed by the function the step's C_prev pass stores it
// with (energy/damping.h tetCprev), so every layout gives the arrays' result bit for bit on the host
// executor (test_gpu_host_pipeline TetLayoutsGiveTheTetArraysResult); on a device up to the compiler's
// contractions.
#include <cstddef>
#include <cstring>
#include <vector>

#include "math/hd.h"
#include "math/mat33.h"
#include "math/vec3.h"
#include "soft/soft_model.h"

namespace vbd {

enum class TetLayout { Arrays, IncidenceRecords, TetRecords };

const char* tetLayoutName(TetLayout layout);

struct alignas(16) TetRecord {
    int tet[4];   // SoftModel::tets[e]
    Mat33 DmInv;  // SoftModel::DmInv[e]
    float volume, mu, lambda;
};
static_assert(sizeof(TetRecord) == 64, "four 16-byte loads");
static_assert(sizeof(Mat33) == 36 && offsetof(TetRecord, DmInv) == 16 && offsetof(TetRecord, volume) == 52 &&
                  offsetof(TetRecord, lambda) == 60,
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
VBD_HD TetRecord recordFromWords(const float (&w)[16]) {
    TetRecord r;
    for (int k = 0; k < 4; ++k) r.tet[k] = intBits(w[k]);
    for (int k = 0; k < 9; ++k) r.DmInv.m[k / 3][k % 3] = w[4 + k];
    r.volume = w[13];
    r.mu = w[14];
    r.lambda = w[15];
    return r;
}

// Record j in one load per 16 bytes: on the device four read-only vector loads (the struct copy is not
// guaranteed to vectorize); on the host a copy.
VBD_HD TetRecord loadTetRecord(const TetRecord* p) {
#ifdef __CUDA_ARCH__
    const float4* q = reinterpret_cast<const float4*>(p);
    const float4 a = __ldg(q), b = __ldg(q + 1), c = __ldg(q + 2), d = __ldg(q + 3);
    const float w[16] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w, d.x, d.y, d.z, d.w};
    return recordFromWords(w);
#else
    return *p;
#endif
}

// Tet e's record.
TetRecord tetRecordOf(const SoftModel& m, size_t e);

// The records of `layout` (not Arrays) in the order the sweep reads them -- per tet, or per entry of
// m.vertexTets -- and their k_d in the same order, or, when every tet has the same k_d, kd empty and that
// value in kdAll.
void buildTetRecords(const SoftModel& m, TetLayout layout, std::vector<TetRecord>& records,
                     std::vector<float>& kd, float& kdAll);

}  // namespace vbd
