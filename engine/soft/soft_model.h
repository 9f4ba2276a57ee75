#pragma once
// Structure-of-arrays model of the VBD particle system (tets and cloth elements alongside): topology, rest
// shapes, materials, colliders, coloring, and the published float state (x, v, ...) that the World, the app
// and the tests read and may edit between steps. The solver iterates on its own SoftState<T> (soft_state.h)
// and publishes it here after every step. Every hot array maps 1:1 onto a device buffer; SoftView is the POD
// of raw pointers the kernels take.
#include <array>
#include <cstdint>
#include <vector>

#include "backend/parallel.h"
#include "backend/phases.h"
#include "energy/body_contact.h"
#include "energy/contact.h"
#include "energy/membrane.h"
#include "mesh/tet_mesh.h"
#include "scene/scene_desc.h"
#include "soft/cloth_collision.h"

namespace vbd {

// Prescribed motion of a fixed vertex: rigid rotation about `center` with angular velocity `omega` plus a
// translation velocity (a twisting beam's clamped end). Static when both are zero.
struct KinematicRegion {
    Vec3 center, omega, velocity;
};

// The CPU sweep's copy of the tets, per vertex (soft/tet_blocks.h evaluates it): vertex i's incidences
// (tet e, local index a) with everything one evaluation reads except positions and C_prev, in blocks of
// kLanes incidences stored lane-major (structure of arrays), so that a SIMD pack of any width up to kLanes is
// one contiguous load. A block is 576 bytes, 9 cache lines, 72 bytes per incidence. The blocks are laid out
// in sweep order (color by color, vertices of a color in their group's order), so one color's pass streams
// through one contiguous range. Lanes past a vertex's count are padding whose terms are exact zeros (volume
// 0, finite everything else, vertex indices pointing at the vertex itself).
//
// The per-tet arrays of SoftModel stay the model's description (diagnostics, coarse space, export, CUDA
// read them); this is a derived layout, built once with the model (soft_build.cpp) and never edited.
struct alignas(64) TetBlock {
    static constexpr int kLanes = 8;
    int32_t x3[4][kLanes];   // 3 * index of tet vertex 0..3 (the offset of its x in an xyz array)
    int32_t item[kLanes];    // 4 * tet + local index of the block's vertex in the tet
    float DmInv[9][kLanes];  // row-major Dm^-1
    float volume[kLanes], mu[kLanes], lambda[kLanes], kd[kLanes];
};
static_assert(sizeof(TetBlock) == 18 * TetBlock::kLanes * 4, "TetBlock: no padding between fields");

struct TetBlocks {
    std::vector<TetBlock> blocks;
    std::vector<int> first;  // per vertex: its first block (-1: none, e.g. a fixed vertex)
    std::vector<int> count;  // per vertex: its incidences (blocks: ceil(count / kLanes))
    bool damped = false;     // some tet has k_d > 0
    bool empty() const { return blocks.empty(); }
    // C_prev of every incidence in block order (SoftState::CprevLanes): per block, the upper triangle
    // (00, 01, 02, 11, 12, 22) of each lane's tet's C_prev, entry-major.
    static constexpr int kCprevPerBlock = 6 * TetBlock::kLanes;
    size_t cprevSize() const { return blocks.size() * size_t(kCprevPerBlock); }
};

struct SoftModel;

// Every tet once, for passes that evaluate each tet once and add its four vertex terms into per-vertex sums
// (the residual, soft/tet_residual.h; the coarse correction's tets, coarse/tet_batch.h): blocks of kLanes
// tets, a lane per tet, the tets colored so that no two of one color share a vertex and ordered by color,
// each color padded to whole blocks (padding lanes: volume 0, gathering nothing). soft/tet_lanes.h evaluates
// them and describes why.
struct TetLaneBlock {
    static constexpr int kLanes = 8;
    int32_t x3[4][kLanes];  // 3 x vertex index of the tet's vertices
    uint8_t gathered[4];    // bit l: lane l's vertex a receives its terms (not padding, a gathered vertex)
    float Dinv[9][kLanes];  // Dm^{-1}, row-major
    float V[kLanes], mu[kLanes], lambda[kLanes], kd[kLanes];
};

struct TetLanes {
    std::vector<TetLaneBlock> blocks;
    std::vector<size_t> colorStart;  // blocks of color c: [colorStart[c], colorStart[c + 1])
    std::vector<int32_t> c9;         // per lane: 9 x tet index (the offset of its C_prev; padding: tet 0)
    int tets = 0;
    bool damped = false;  // some tet has k_d > 0
    bool empty() const { return blocks.empty(); }
    // elems: the tets; gathered: the vertices whose sums receive terms (the free ones among them).
    void build(const SoftModel& m, const std::vector<int>& elems, const std::vector<int>& gathered);
    // fn(block index) for every block, color after color, the blocks of a color in parallel: the colors are
    // the phases of one team loop (backend/phases.h), split between threads when the largest has at least two
    // shares of `grain` blocks.
    template <typename Fn>
    void forEachBlock(Fn&& fn, size_t grain = 64) const {
        const size_t colors = colorStart.empty() ? 0 : colorStart.size() - 1;
        parallelPhases(
            colors, [&](size_t c) { return colorStart[c + 1] - colorStart[c]; },
            [&](size_t c, size_t k) { fn(colorStart[c] + k); }, grain);
    }
    // C_prev of every lane when damped (SoftState::CprevTetLanes): per block, the upper triangle (00, 01, 02,
    // 11, 12, 22) of each lane's tet's C_prev, entry-major; nothing when undamped.
    static constexpr int kCprevPerBlock = 6 * TetLaneBlock::kLanes;
    size_t cprevSize() const { return damped ? blocks.size() * size_t(kCprevPerBlock) : 0; }
};

// The CPU sweep's copy of the cloth elements, per vertex (soft/cloth_blocks.h evaluates it), in the layout of
// TetBlock: vertex i's membrane incidences (item = 4 * tri + a) and hinge incidences (item = 4 * hinge + a)
// in lane-major blocks of kLanes, in sweep order, with everything one evaluation reads except positions and
// the per-step references (C_prev of a triangle, theta_prev of a hinge: gathered by item >> 2). Padding lanes
// give exact zeros: a stencil collapsed onto the vertex itself (all offsets 3 i) with zero volume or
// stiffness. A TriBlock is 384 bytes (48 per incidence), a HingeBlock 256 (32 per incidence).
struct alignas(64) TriBlock {
    static constexpr int kLanes = 8;
    int32_t x3[3][kLanes];  // 3 * index of triangle vertex 0..2
    int32_t item[kLanes];   // 4 * tri + local index of the block's vertex
    float d[4][kLanes];     // Dm^-1, row-major 2x2 (TriRest::d)
    float volume[kLanes], mu[kLanes], lambda[kLanes], kd[kLanes];
};
static_assert(sizeof(TriBlock) == 12 * TriBlock::kLanes * 4, "TriBlock: no padding between fields");

struct alignas(64) HingeBlock {
    static constexpr int kLanes = 8;
    int32_t x3[4][kLanes];  // 3 * index of stencil vertex 0..3
    int32_t item[kLanes];   // 4 * hinge + local index of the block's vertex
    float theta0[kLanes], kL[kLanes], kd[kLanes];
};
static_assert(sizeof(HingeBlock) == 8 * HingeBlock::kLanes * 4, "HingeBlock: no padding between fields");

struct ClothBlocks {
    std::vector<TriBlock> tris;
    std::vector<HingeBlock> hinges;
    std::vector<int> triFirst, hingeFirst;  // per vertex: its first block (-1: none)
    std::vector<int> triCount, hingeCount;  // per vertex: its incidences
    bool damped = false;                    // some triangle or hinge has k_d > 0
    bool empty() const { return tris.empty() && hinges.empty(); }
};

// out, per block of L lanes: the upper triangle (00, 01, 02, 11, 12, 22) of C_prev of tet tetOf(b, l) for
// each lane l, entry-major (6 L values per block, the layout both lane loaders read).
template <int L, typename T, typename TetOf>
void cprevUpperBlock(size_t b, const std::vector<Mat33T<T>>& Cprev, T* out, const TetOf& tetOf) {
    T* o = out + b * size_t(6 * L);
    for (int l = 0; l < L; ++l) {
        const Mat33T<T>& C = Cprev[tetOf(b, l)];
        o[0 * L + l] = C.m[0][0];
        o[1 * L + l] = C.m[0][1];
        o[2 * L + l] = C.m[0][2];
        o[3 * L + l] = C.m[1][1];
        o[4 * L + l] = C.m[1][2];
        o[5 * L + l] = C.m[2][2];
    }
}

// Block b of fillCprevLanes (the sweep's blocks: lane l holds the tet of incidence item[l]) and of
// fillCprevTetLanes (the tet lanes: lane l holds tet c9 / 9); refreshCprev runs them as a phase of its own.
template <typename T>
void cprevLanesBlock(const TetBlocks& tb, const std::vector<Mat33T<T>>& Cprev, T* out, size_t b) {
    static_assert(TetBlocks::kCprevPerBlock == 6 * TetBlock::kLanes);
    cprevUpperBlock<TetBlock::kLanes>(b, Cprev, out,
                                      [&](size_t k, int l) { return size_t(tb.blocks[k].item[l] >> 2); });
}

template <typename T>
void cprevTetLanesBlock(const TetLanes& tl, const std::vector<Mat33T<T>>& Cprev, T* out, size_t b) {
    static_assert(TetLanes::kCprevPerBlock == 6 * TetLaneBlock::kLanes);
    constexpr size_t L = TetLaneBlock::kLanes;
    cprevUpperBlock<TetLaneBlock::kLanes>(
        b, Cprev, out, [&](size_t k, int l) { return size_t(tl.c9[k * L + size_t(l)] / 9); });
}

// Copies the per-tet C_prev into the blocks' order. Streaming this copy costs the sweep less than gathering
// C_prev by tet: a color's pass reads every tet once, scattered over an array larger than L2.
template <typename T>
void fillCprevLanes(const TetBlocks& tb, const std::vector<Mat33T<T>>& Cprev, std::vector<T>& out) {
    out.resize(tb.cprevSize());
    parallelFor(tb.blocks.size(), [&](size_t b) { cprevLanesBlock(tb, Cprev, out.data(), b); });
}

// Copies the per-tet C_prev into TetLanes order (as fillCprevLanes): the residual's pass then loads each
// block's C_prev contiguously instead of gathering it by tet from an array larger than L2 twice a step.
template <typename T>
void fillCprevTetLanes(const TetLanes& tl, const std::vector<Mat33T<T>>& Cprev, std::vector<T>& out) {
    out.resize(tl.cprevSize());
    if (out.empty()) return;
    parallelFor(tl.blocks.size(), [&](size_t b) { cprevTetLanesBlock(tl, Cprev, out.data(), b); });
}

struct SoftModel {
    // Particles: the published state (float) and the initial positions x0 (kinematic reference)
    std::vector<Vec3> x, v, xPrev, y, x0;
    std::vector<Vec3> vLast;  // velocity of the previous step (adaptive initial guess)
    std::vector<float> mass;
    std::vector<char> fixed;     // Dirichlet vertices (not solved)
    std::vector<int> kinematic;  // -1 or index into regions (fixed vertices that move)
    std::vector<KinematicRegion> regions;
    std::vector<int> bodyOfVertex;  // soft body / cloth index

    // Tets
    std::vector<std::array<int, 4>> tets;
    std::vector<Mat33> DmInv;
    std::vector<float> volume, mu, lambda, kd;  // Neo-Hookean mu, lambda_NH; damping k_d (s)
    Csr vertexTets;                             // vertex -> 4*tet + local
    TetBlocks tetBlocks;                        // the free vertices' incidences for the CPU sweep
    TetLanes tetLanes;                          // every tet, gathered at the free vertices (the residual)
    float restEdgeMax = 0;                      // longest rest edge of any tet or triangle (rounding floors)

    // Cloth membranes (stable Neo-Hookean triangles, energy/membrane.h)
    std::vector<std::array<int, 3>> tris;
    std::vector<TriRest> triRest;
    std::vector<float> triVolume, triMu, triLambda, triKd;  // V = rest area * thickness
    Csr vertexTris;                                         // vertex -> 4*tri + local
    // Cloth bending hinges (energy/bending.h): edge x0-x1, wings x2 (tri A) and x3 (tri B)
    std::vector<std::array<int, 4>> hinges;
    std::vector<float> hingeTheta0, hingeKL, hingeKd;
    Csr vertexHinges;         // vertex -> 4*hinge + local
    ClothBlocks clothBlocks;  // the free vertices' membrane and hinge incidences for the CPU sweep
    int numCloths = 0;

    // Contacts with static colliders (ground plane, fixed rigid boxes/spheres)
    std::vector<ParticleCollider> colliders;
    std::vector<float> colliderOffset;  // per vertex: cloth contact thickness (0 for tet vertices)

    // Cloth self-collision and cloth vs soft-body surfaces
    CollisionState collision;

    // Moving rigid bodies (two-way coupling, world/coupling.h): written by the World between sweeps (the
    // bodies' current iterate), with each vertex's candidate bodies of this step. Empty: no coupling.
    std::vector<BodyCollider> bodyColliders;
    std::vector<BodyContactRow> bodyRows;  // the candidate (vertex, body) rows, by vertex
    std::vector<int> bodyRowOffsets;       // per vertex + 1: its rows in bodyRows (empty: no coupling)

    // Coloring
    Csr vertexGraph;  // the vertices that share an element (tet, triangle, hinge stencil): what the colors
                      // separate
    std::vector<int> color;
    std::vector<std::vector<int>>
        colorGroups;  // free vertices only, ascending, or in Morton order (coloring/share_order.h)

    int numVertices() const { return int(x.size()); }
};

// Appends particle p (soft body or cloth `body`) with velocity v. A particle inside one of `fixed` is a
// Dirichlet vertex (zero velocity); a moving fixed box also makes it kinematic. Mass starts at 0 and is
// accumulated by the elements. Shared by the tet and the cloth builders.
void appendParticle(SoftModel& m, const Vec3& p, const Vec3& v, int body,
                    const std::vector<FixedDesc>& fixed);

// Builds m.tetBlocks from the tets, materials, fixed flags and color groups (soft/tet_blocks.cpp).
void buildTetBlocks(SoftModel& m);
// Builds m.clothBlocks from the triangles, hinges, materials and color groups (soft/cloth_blocks.cpp).
void buildClothBlocks(SoftModel& m);

// The kernel's parameters: everything it reads that is stored in float whatever the solver's precision
// (topology, rest shapes, materials, colliders, cloth). The kernel widens them to its scalar as it reads.
struct SoftViewParams {
    const float* mass;
    const std::array<int, 4>* tets;
    const Mat33* DmInv;
    const float* volume;
    const float* mu;
    const float* lambda;
    const float* kd;
    const int* vtOffsets;
    const int* vtItems;
    const ParticleCollider* colliders;
    int numColliders;
    // Cloth (empty CSR rows for tet-only models; read only by the float kernel)
    const std::array<int, 3>* tris;
    const TriRest* triRest;
    const float* triVolume;
    const float* triMu;
    const float* triLambda;
    const float* triKd;
    const int* vtriOffsets;
    const int* vtriItems;
    const std::array<int, 4>* hinges;
    const float* hingeTheta0;
    const float* hingeKL;
    const float* hingeKd;
    const int* vhOffsets;
    const int* vhItems;
    const float* colliderOffset;  // nullptr: no offsets
    const SelfContact* contacts;
    const int* vcOffsets;  // nullptr: no self contacts
    const int* vcItems;
    const BodyCollider* bodyColliders;
    const int* vbOffsets;  // nullptr: no moving bodies
    const BodyContactRow* bodyRows;
    float h;
    DampingModel damping;
    ContactParams contact;
    // Picking spring
    int dragVertex;
    Vec3 dragTarget;
    float dragStiffness;
};

// The state the kernel iterates on, in scalar T: the solver's SoftState<T> (soft_state.h) or its device copy.
template <typename T>
struct SoftViewT : SoftViewParams {
    const Vec3T<T>* x;
    const Vec3T<T>* xPrev;
    const Vec3T<T>* y;
    const Mat33T<T>* Cprev;            // F^T F at x_prev, per tet
    const std::array<T, 3>* triCprev;  // (C00, C01, C11) at x_prev, per triangle
    const T* hingeThetaPrev;           // dihedral angle at x_prev, per hinge
    // The increment form of a float state (soft/state_update.h): dx = x - x_prev and dy = y - x_prev, stored;
    // nullptr: the absolute form (x, y read directly). x stays fl(x_prev + dx) either way.
    const Vec3T<T>* dx = nullptr;
    const Vec3T<T>* dy = nullptr;
};
using SoftView = SoftViewT<float>;

// The one list of SoftViewParams' array pointers and the SoftModel arrays behind them: f(viewPointer, array)
// for each. SoftSolver points them at host memory; the CUDA backend at device copies. A new per-element
// array added here reaches both, so the device kernel can never read a host pointer. (The state pointers of
// SoftViewT come from the SoftState, soft_state.h.)
template <typename F>
void forEachParamArray(const SoftModel& m, SoftViewParams& v, F&& f) {
    f(v.mass, m.mass);
    f(v.tets, m.tets);
    f(v.DmInv, m.DmInv);
    f(v.volume, m.volume);
    f(v.mu, m.mu);
    f(v.lambda, m.lambda);
    f(v.kd, m.kd);
    f(v.vtOffsets, m.vertexTets.offsets);
    f(v.vtItems, m.vertexTets.items);
    f(v.colliders, m.colliders);
    f(v.tris, m.tris);
    f(v.triRest, m.triRest);
    f(v.triVolume, m.triVolume);
    f(v.triMu, m.triMu);
    f(v.triLambda, m.triLambda);
    f(v.triKd, m.triKd);
    f(v.vtriOffsets, m.vertexTris.offsets);
    f(v.vtriItems, m.vertexTris.items);
    f(v.hinges, m.hinges);
    f(v.hingeTheta0, m.hingeTheta0);
    f(v.hingeKL, m.hingeKL);
    f(v.hingeKd, m.hingeKd);
    f(v.vhOffsets, m.vertexHinges.offsets);
    f(v.vhItems, m.vertexHinges.items);
    f(v.colliderOffset, m.colliderOffset);
    f(v.contacts, m.collision.contacts);
    f(v.vcOffsets, m.collision.vertexContacts.offsets);
    f(v.vcItems, m.collision.vertexContacts.items);
    f(v.bodyColliders, m.bodyColliders);
    f(v.vbOffsets, m.bodyRowOffsets);
    f(v.bodyRows, m.bodyRows);
}

}  // namespace vbd
