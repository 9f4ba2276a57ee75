#pragma once
// The stages of one VBD step (soft/soft_solver.cpp's step: predict, C_prev, colored sweeps, Chebyshev,
// finalize, and the residual / energy diagnostics) as per-index functors with VBD_HD call operators. The
// device step runs each as one kernel over its index range; the host executor (gpu/host_exec.h) runs the
// same functors through parallelFor, which is how the device step's orchestration is tested without a GPU.
//
// Every functor reads and writes through the raw pointers of StepArrays (device or host memory) and takes
// per-step values (clock, picking spring) from a StepScalars in the same memory, so that a captured CUDA
// graph replays unchanged from step to step: the host rewrites the StepScalars before each launch.
//
// Races: a sweep functor over the vertices of one color writes x and inContact of its own vertex only and
// reads x of its neighbours, which have other colors (vertices of a color share no element). Self contacts
// (cloth self-collision, soft-soft contact) couple vertices that share no element, so two vertices of one
// color may be contact partners: while a detection has found contacts, the sweep reads every position from a
// snapshot (StepArrays::xRead) that equals x when the color starts and is brought up to date after it
// (SnapshotStage, SnapshotColorStage), which is what the CPU sweep does (soft_solver.cpp sweepT): elastic
// neighbours have other colors, so for them the snapshot is the live x, and same-color contact partners see
// each other's pre-color position. The functor still writes only its own vertex. Every other functor writes
// only entries of its own index.
//
// The per-vertex and per-element math is the shared kernel (soft/vertex_kernel.h, energy/*); what is here is
// the glue the CPU solver holds in its stage loops, kept formula for formula identical to them (predict and
// finalize of soft_solver.cpp, the residual and G of soft_potential.cpp); test_gpu_host_pipeline compares the
// two on every supported built-in scene.
#include <cmath>
#include <limits>

#include "energy/tet_energy.h"
#include "gpu/copy_stage.h"
#include "gpu/tet_records.h"
#include "gpu/tile_sum.h"
#include "math/quat.h"
#include "soft/cloth_stage.h"
#include "soft/predict.h"
#include "soft/soft_model.h"
#include "soft/state_update.h"
#include "soft/vertex_kernel.h"

namespace vbd {

// Per-step values, rewritten by the host before each step (in the executor's memory).
struct StepScalars {
    double time = 0;  // solver clock at the start of the step (kinematic vertices at time + h)
    float h = 1.f / 60.f;
    Vec3 gravity;
    int adaptive = 0;  // adaptive initial guess (solver.initial_guess and g != 0 and a previous step)
    int dragVertex = -1;
    Vec3 dragTarget;
    float dragStiffness = 0;
};

// Everything the stages read and write, as raw pointers of one memory space.
template <typename T>
struct StepArrays {
    SoftViewT<T> view;  // the kernel's view: parameters plus x, x_prev, y, C_prev of this state
    Vec3T<T>* x = nullptr;
    Vec3T<T>* v = nullptr;
    Vec3T<T>* xPrev = nullptr;
    Vec3T<T>* y = nullptr;
    Vec3T<T>* vLast = nullptr;
    Mat33T<T>* Cprev = nullptr;
    std::array<T, 3>* triCprev = nullptr;  // (C00, C01, C11) at x_prev per membrane triangle
    T* hingeThetaPrev = nullptr;           // dihedral angle at x_prev per hinge
    Vec3T<T>* chebPrev = nullptr;
    Vec3T<T>* chebPrevPrev = nullptr;
    // The increment form of a float state (soft/state_update.h): dx = x - x_prev, dy = y - x_prev; nullptr:
    // absolute. The view's dx, dy point here.
    Vec3T<T>* dx = nullptr;
    Vec3T<T>* dy = nullptr;
    double edgeLength = 0;  // SoftModel::restEdgeMax (the increment form's rounding floor)
    // The residual heat map (SoftSolver::vertexResidual), written by every residual evaluation; nullptr while
    // no reader wants it (gpu/soft_stepper.h setResidualField).
    float* residualField = nullptr;
    // The tile sweep's tet records (gpu/tet_records.h; nullptr: the tet arrays), per tet or per entry of the
    // vertex-tet lists as the sweep's TetLayout says, and their k_d in the same order (nullptr: recordKdAll
    // for every tet).
    const TetRecord* records = nullptr;
    const float* recordKd = nullptr;
    float recordKdAll = 0;
    // Collision (soft/cloth_stage.h; detected on the host): each update of a free vertex is clamped into the
    // ball of radius bound[i] around xc[i] + ref[i] (the penetration-free step bound of cloth_collision.h);
    // bound == nullptr: no collision in the model. xRead (and dxRead in the increment form): the sweep's
    // snapshot of the positions while there are contacts.
    const float* bound = nullptr;
    const Vec3* xc = nullptr;
    const Vec3* ref = nullptr;
    Vec3T<T>* xRead = nullptr;
    Vec3T<T>* dxRead = nullptr;
    char* inContact = nullptr;
    const char* fixed = nullptr;
    const int* kinematic = nullptr;
    const KinematicRegion* regions = nullptr;
    const Vec3* x0 = nullptr;
    int n = 0;
    int numTets = 0;
    int numTris = 0;
    int numHinges = 0;
};

// The view with this step's h and picking spring (the only view fields that change between steps).
template <typename T>
VBD_HD SoftViewT<T> stepView(const StepArrays<T>& a, const StepScalars& s) {
    SoftViewT<T> v = a.view;
    v.h = s.h;
    v.dragVertex = s.dragVertex;
    v.dragTarget = s.dragTarget;
    v.dragStiffness = s.dragStiffness;
    return v;
}

// The collision bound after an update of free vertex i (SoftSolver::sweepT and accelerate): x_i clamped into
// its ball, written only when the clamp moved it.
template <typename T>
VBD_HD void boundVertex(const StepArrays<T>& a, int i) {
    if (!a.bound) return;
    const Vec3T<T> b = boundToBall(a.x[i], a.xc[i], a.ref[i], a.bound[i]);
    if (!sameValue(b, a.x[i])) placeVertex(a.x, a.dx, a.xPrev, i, b);
}

// Predict y = x + h v + h^2 g and the initial guess (VBD sec. 3.6, adaptive): SoftSolver::predict per vertex.
template <typename T>
struct PredictStage {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD void operator()(int i) const {
        const T h = T(s->h);
        const Vec3T<T> gravity(s->gravity);
        const T g = norm(gravity);
        const Vec3T<T> gdir = g > 0 ? gravity / g : Vec3T<T>(T(0));
        a.xPrev[i] = a.x[i];
        if (a.fixed[i]) {
            const int r = a.kinematic[i];
            if (r >= 0) {
                const KinematicRegion& k = a.regions[r];
                const Vec3T<T> c(k.center);
                const T tNext = T(s->time) + h;  // as SoftSolver::predict rounds it
                a.x[i] = c +
                         toMatrix(fromRotationVector(Vec3T<T>(k.omega) * tNext)) * (Vec3T<T>(a.x0[i]) - c) +
                         Vec3T<T>(k.velocity) * tNext;
            }
            a.y[i] = a.x[i];
            if (a.dx) a.dx[i] = a.dy[i] = a.x[i] - a.xPrev[i];
            return;
        }
        if (a.dx) {
            predictFreeIncrement(a.dx[i], a.dy[i], a.v[i], a.vLast[i], h, gravity, gdir, g,
                                 s->adaptive && g > 0);
            a.x[i] = a.xPrev[i] + a.dx[i];
            a.y[i] = a.xPrev[i] + a.dy[i];
            return;
        }
        predictFreeVertex(a.x[i], a.y[i], a.v[i], a.vLast[i], h, gravity, gdir, g, s->adaptive && g > 0);
    }
};

// C_prev = F_prev^T F_prev per tet (internal damping's reference; SoftSolver::refreshCprev), for the tet
// arrays' sweep and the residual (the record sweeps compute it where they read it, gpu/tet_records.h).
template <typename T>
struct CprevStage {
    StepArrays<T> a;
    VBD_HD void operator()(int e) const {
        const std::array<int, 4>& t = a.view.tets[e];
        const Mat33T<T> C =
            tetCprev(a.xPrev[t[0]], a.xPrev[t[1]], a.xPrev[t[2]], a.xPrev[t[3]], Mat33T<T>(a.view.DmInv[e]));
        a.Cprev[e] = C;
    }
};

// The cloth references at x_prev (cloth_build.cpp clothBeginStep): C of each membrane triangle ...
template <typename T>
struct TriPrevStage {
    StepArrays<T> a;
    VBD_HD void operator()(int e) const {
        const std::array<int, 3>& t = a.view.tris[e];
        const TriRest& r = a.view.triRest[e];
        const T d[4] = {T(r.d[0]), T(r.d[1]), T(r.d[2]), T(r.d[3])};
        Vec3T<T> f0, f1;
        triDeformationGradient(a.xPrev[t[0]], a.xPrev[t[1]], a.xPrev[t[2]], d, f0, f1);
        a.triCprev[e] = {dot(f0, f0), dot(f0, f1), dot(f1, f1)};
    }
};

// ... and the dihedral angle of each bending hinge.
template <typename T>
struct HingePrevStage {
    StepArrays<T> a;
    VBD_HD void operator()(int e) const {
        const std::array<int, 4>& q = a.view.hinges[e];
        a.hingeThetaPrev[e] = dihedralAngle(a.xPrev[q[0]], a.xPrev[q[1]], a.xPrev[q[2]], a.xPrev[q[3]]);
    }
};

// One vertex of one color: x_i += H_i^-1 f_i from the shared kernel (SoftSolver::sweepT's scalar path).
template <typename T>
struct SweepStage {
    StepArrays<T> a;
    const StepScalars* s;
    const int* verts;  // this color's vertices
    VBD_HD void operator()(int k) const {
        const int i = verts[k];
        const SoftViewT<T> v = stepView(a, *s);
        Vec3T<T> f, dx;
        Mat33T<T> H;
        a.inContact[i] = vertexForceHessian(v, i, f, H) ? 1 : 0;
        if (solveVertexSystem(H, f, dx)) moveVertex(a.x, a.dx, a.xPrev, i, dx);
        boundVertex(a, i);
    }
};

// The tile's first lane, after the tet sums ft, St: inertia, the other terms, the solve, the bound. One
// function for every tile instantiation, not inlined on the host: GCC contracts a * b + c into FMAs per
// inlined copy (-march=native), and the record and tet-array sweeps must agree bit for bit.
template <typename T>
VBD_HD_NOINLINE void solveTileVertex(const StepArrays<T>& a, const SoftViewT<T>& v, int i, const Vec3T<T>& ft,
                                     const Sym33T<T>& St) {
    Vec3T<T> f, dx;
    Mat33T<T> H;
    vertexInertia(v, i, f, H);
    Sym33T<T> S = Sym33T<T>::upperOf(H);
    f += ft;
    S.add(St);
    H = S.full();
    a.inContact[i] = vertexOtherTerms(v, i, f, H) ? 1 : 0;
    if (solveVertexSystem(H, f, dx)) moveVertex(a.x, a.dx, a.xPrev, i, dx);
    boundVertex(a, i);
}

// The sweep with a tile of kLanes lanes per vertex (kLanes = 32: a warp per vertex, the VBD authors'
// layout): the tile's lanes split the vertex's tets, each summing its share of the tet terms (the shared
// tetVertexTerms), a shuffle reduction adds the 9 sums into the tile's first lane, which adds inertia and the
// other terms (vertexOtherTerms) and solves; a warp thus solves 32 / kLanes vertices at once. Index
// t = kLanes k + lane. Launched over threadsFor(count) threads, rounded up to whole warps so that the
// shuffles' full mask is right: tiles past the color's count sum zeros and solve nothing. Same terms as
// SweepStage summed in another order (per-lane partial sums). The width is chosen by benchmark
// (bench_gpu BM_GpuSoftStep, docs/gpu.md): few lanes leave the tet loop serial, many leave lanes idle (a
// vertex has ~20 tets) and serialize the solve. On the host the tile's first lane does every lane's share in
// turn and sums the shares in the shuffle's order (tileSumOfLanes; the other lanes return), so the host tests
// check the device's split of the tets and its order of the sums (up to the device's contractions).
//
// kMinBlocks: the resident blocks per multiprocessor its CUDA kernel is built for (gpu/cuda_exec.cuh
// MinBlocksOf): more blocks, fewer registers per thread and more warps to hide the gathers' latency, or
// spills. Chosen by benchmark as the lanes (bench_gpu BM_GpuSoftStepOccupancy).
//
// kLayout: how the tet of each incidence is read (gpu/tet_records.h): the tet arrays at the item's e, or a
// record (per tet at e, or the incidence's own beside the item) with C_prev computed from x_prev. The same
// values: the same result bit for bit on the host; chosen by benchmark (bench_gpu BM_GpuSoftStepRecords).
template <typename T, int kLanes, int MinBlocks = 1, TetLayout kLayout = TetLayout::Arrays>
struct SweepTileStage {
    static_assert(kLanes >= 2 && kLanes <= 32 && (kLanes & (kLanes - 1)) == 0, "a power-of-two tile");
    static constexpr int kMinBlocks = MinBlocks;
    StepArrays<T> a;
    const StepScalars* s;
    const int* verts;  // this color's vertices
    int count;         // how many
    static long long threadsFor(int count) { return ((long long)count * kLanes + 31) & ~31LL; }
    VBD_HD void operator()(int t) const {
        const int lane = t % kLanes, k = t / kLanes;
        const bool active = k < count;
        const int i = active ? verts[k] : 0;
        const SoftViewT<T> v = stepView(a, *s);
#ifdef __CUDA_ARCH__
        Vec3T<T> ft(T(0));
        Sym33T<T> St;
        addTets(v, v.vtOffsets[i] + lane, active ? v.vtOffsets[i + 1] : 0, ft, St);
        ft = Vec3T<T>(tileSum<kLanes>(ft.x), tileSum<kLanes>(ft.y), tileSum<kLanes>(ft.z));
        St = Sym33T<T>{tileSum<kLanes>(St.xx), tileSum<kLanes>(St.yy), tileSum<kLanes>(St.zz),
                       tileSum<kLanes>(St.xy), tileSum<kLanes>(St.xz), tileSum<kLanes>(St.yz)};
        if (lane != 0 || !active) return;
        solveTileVertex(a, v, i, ft, St);
#else
        if (lane != 0 || !active) return;
        Vec3T<T> ft[kLanes];
        Sym33T<T> St[kLanes];
        for (int l = 0; l < kLanes; ++l) {
            ft[l] = Vec3T<T>(T(0));
            addTets(v, v.vtOffsets[i] + l, v.vtOffsets[i + 1], ft[l], St[l]);
        }
        tileSumOfLanes<kLanes>(ft, [](Vec3T<T>& x, const Vec3T<T>& y) { x += y; });
        tileSumOfLanes<kLanes>(St, [](Sym33T<T>& x, const Sym33T<T>& y) { x.add(y); });
        solveTileVertex(a, v, i, ft[0], St[0]);
#endif
    }

  private:
    // One lane's share of vertex i's tet terms: the incidences first, first + kLanes, ... before end.
    VBD_HD void addTets(const SoftViewT<T>& v, int first, int end, Vec3T<T>& ft, Sym33T<T>& St) const {
        for (int j = first; j < end; j += kLanes) {
            const int item = v.vtItems[j];
            if constexpr (kLayout != TetLayout::Arrays) {
                // The record of the incidence (entry j) or of its tet (e = item >> 2).
                const int r = kLayout == TetLayout::IncidenceRecords ? j : item >> 2;
                const TetRecord rec = loadTetRecord(a.records + r);
                const float kd = a.recordKd ? a.recordKd[r] : a.recordKdAll;
                tetVertexTermsAtPrev(v, rec.tet, rec.DmInv, rec.volume, rec.mu, rec.lambda, kd, item & 3, ft,
                                     St);
            } else {
                tetVertexTerms(v, item >> 2, item & 3, ft, St);
            }
        }
    }
};

// Chebyshev step k with weight w (SoftSolver::accelerate; the weights come from the plan, host side).
template <typename T>
struct ChebyshevStage {
    StepArrays<T> a;
    T w;
    int k;
    VBD_HD void operator()(int i) const {
        Vec3T<T> q = iterateValue(a.x, a.dx, i);
        if (k >= 2 && !a.fixed[i] && !a.inContact[i]) q = (q - a.chebPrevPrev[i]) * w + a.chebPrevPrev[i];
        setIterateValue(a.x, a.dx, a.xPrev, i, q);
        if (!a.fixed[i]) boundVertex(a, i);
        a.chebPrevPrev[i] = a.chebPrev[i];
        a.chebPrev[i] = iterateValue(a.x, a.dx, i);  // q, unless the bound moved it
    }
};

// Vertex i of the sweep's snapshot brought up to the live state (x, and dx in the increment form).
template <typename T>
VBD_HD void snapshotVertex(const StepArrays<T>& a, int i) {
    a.xRead[i] = a.x[i];
    if (a.dx) a.dxRead[i] = a.dx[i];
}

// The snapshot whole at the start of a sweep ...
template <typename T>
struct SnapshotStage {
    StepArrays<T> a;
    VBD_HD void operator()(int i) const { snapshotVertex(a, i); }
};

// ... and brought up to date for the vertices one color moved, before the next color reads it.
template <typename T>
struct SnapshotColorStage {
    StepArrays<T> a;
    const int* verts;  // the color's vertices
    VBD_HD void operator()(int k) const { snapshotVertex(a, verts[k]); }
};

// dx_i = x_i - x_prev,i where the host's collision stage wrote x (the increment form; soft_solver.cpp
// resyncIncrements).
template <typename T>
struct ResyncStage {
    StepArrays<T> a;
    VBD_HD void operator()(int i) const { resyncIncrement(a.x, a.dx, a.xPrev, i); }
};

// Chebyshev history at the step start: both previous iterates are the initial guess.
template <typename T>
struct ChebyshevStartStage {
    StepArrays<T> a;
    VBD_HD void operator()(int i) const {
        a.chebPrev[i] = iterateValue(a.x, a.dx, i);
        a.chebPrevPrev[i] = a.chebPrev[i];
    }
};

// v = (x - x_prev) / h, keeping the previous v for the next adaptive guess (SoftSolver::finalize).
template <typename T>
struct FinalizeStage {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD void operator()(int i) const {
        const T invH = T(1) / T(s->h);
        a.vLast[i] = a.v[i];
        a.v[i] = stepMotion(a.x, a.dx, a.xPrev, i) * invH;
    }
};

// Two sums reduced together.
struct Sum2 {
    double a = 0, b = 0;
    VBD_HD Sum2 operator+(const Sum2& o) const { return {a + o.a, b + o.b}; }
};

// |f_i|^2 and vertex i's share of the residual's rounding floor (soft_potential.cpp computeForces): the
// summands of |grad G|^2 and of the floor^2, zero on fixed vertices. With a.residualField it also stores
// |f_i| there, as soft_potential.cpp residualNormT fills SoftSolver::vertexResidual: each reduction calls
// this once per index (both executors), so the field is that of the last evaluation, the step's final
// iterate, at no second force pass.
template <typename T>
struct ResidualTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD Sum2 operator()(int i) const {
        if (a.fixed[i]) {
            if (a.residualField) a.residualField[i] = 0.f;
            return {};
        }
        const SoftViewT<T> v = stepView(a, *s);
        Vec3T<T> f;
        Mat33T<T> H;
        vertexForceHessian(v, i, f, H);
        if (a.residualField) a.residualField[i] = residualFieldValue(f);
        constexpr double u = 0.5 * double(std::numeric_limits<T>::epsilon());
        const double scale = floorLength(a.x, a.dx, i, a.edgeLength);
        return {double(squaredNorm(f)), double(H.frobenius2()) * (u * scale) * (u * scale)};
    }
};

// The field alone, outside a step (a reader that starts wanting it after the step ran): the same term on the
// state the step left, whose x, x_prev, y and references finalize does not change, so it gives the field that
// step's last evaluation would have stored. Needs a.residualField.
template <typename T>
struct ResidualFieldStage {
    ResidualTerm<T> term;
    VBD_HD void operator()(int i) const { (void)term(i); }
};

// G's per-vertex part: inertia and collider penalties of free vertices, plus the picking spring
// (soft_potential.cpp incrementalPotentialT; the spring is added there once, here at its vertex).
template <typename T>
struct EnergyVertexTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD double operator()(int i) const {
        double e = 0;
        if (i == s->dragVertex)
            e += 0.5 * double(s->dragStiffness) * squaredNorm(Vec3d(a.x[i]) - Vec3d(s->dragTarget));
        if (a.fixed[i]) return e;
        const double h2 = double(s->h) * double(s->h);
        const float off = a.view.colliderOffset ? a.view.colliderOffset[i] : 0.f;
        return colliderPenaltiesAt(a.view.colliders, a.view.numColliders, off, a.x[i],
                                   e + inertiaEnergyAt(a.view.mass[i], h2, a.x[i], a.y[i]));
    }
};

// G's part of the rows against moving rigid bodies per vertex, in double (soft_potential.cpp
// bodyContactEnergy); only while the view has rows (a coupled step, world/coupling.h).
template <typename T>
struct EnergyBodyTerm {
    StepArrays<T> a;
    VBD_HD double operator()(int i) const {
        const T rp = T(a.view.colliderOffset ? a.view.colliderOffset[i] : 0.f);
        return bodyRowsEnergy(a.view.bodyColliders, a.view.bodyRows, a.view.vbOffsets[i],
                              a.view.vbOffsets[i + 1], a.x[i], rp);
    }
};

// G's self-contact part per contact, in double (cloth_build.cpp clothContactEnergy).
template <typename T>
struct EnergyContactTerm {
    StepArrays<T> a;
    VBD_HD double operator()(int c) const { return selfContactEnergyAt(a.view.contacts[c], a.x); }
};

// G's per-tet part: E_e in double with C_prev from x_prev (soft_potential.cpp incrementalPotentialT).
template <typename T>
struct EnergyTetTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD double operator()(int e) const {
        const std::array<int, 4>& t = a.view.tets[e];
        const Mat33d Dinv(a.view.DmInv[e]);
        const Mat33d F = tetDeformationGradient(Vec3d(a.x[t[0]]), Vec3d(a.x[t[1]]), Vec3d(a.x[t[2]]),
                                                Vec3d(a.x[t[3]]), Dinv);
        const TetConstants<double> c{double(a.view.volume[e]), double(a.view.mu[e]), double(a.view.lambda[e]),
                                     double(a.view.kd[e])};
        const bool internal = a.view.damping == DampingModel::Internal;
        Mat33d Cp;
        if (internal && c.kd > 0) {
            const Mat33d Fp = tetDeformationGradient(Vec3d(a.xPrev[t[0]]), Vec3d(a.xPrev[t[1]]),
                                                     Vec3d(a.xPrev[t[2]]), Vec3d(a.xPrev[t[3]]), Dinv);
            Cp = Fp.transposed() * Fp;
        }
        return tetEnergy(F, Cp, c, double(s->h), internal);
    }
};

// G's membrane part per triangle, in double (cloth_build.cpp clothPotential).
template <typename T>
struct EnergyTriTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD double operator()(int e) const {
        const std::array<int, 3>& t = a.view.tris[e];
        double d[4];
        for (int k = 0; k < 4; ++k) d[k] = a.view.triRest[e].d[k];
        Vec3d f0, f1;
        triDeformationGradient(Vec3d(a.x[t[0]]), Vec3d(a.x[t[1]]), Vec3d(a.x[t[2]]), d, f0, f1);
        const double V = double(a.view.triVolume[e]), mu = double(a.view.triMu[e]),
                     lam = double(a.view.triLambda[e]);
        double v = V * membranePsi(f0, f1, mu, lam);
        if (a.view.damping == DampingModel::Internal && a.view.triKd[e] > 0) {
            const double Cp[3] = {double(a.triCprev[e][0]), double(a.triCprev[e][1]),
                                  double(a.triCprev[e][2])};
            v += membraneDampingPotential(f0, f1, Cp, V, mu, lam, double(a.view.triKd[e]), double(s->h));
        }
        return v;
    }
};

// G's bending part per hinge, in double (cloth_build.cpp clothPotential).
template <typename T>
struct EnergyHingeTerm {
    StepArrays<T> a;
    const StepScalars* s;
    VBD_HD double operator()(int k) const {
        const std::array<int, 4>& q = a.view.hinges[k];
        const double th =
            dihedralAngle(Vec3d(a.x[q[0]]), Vec3d(a.x[q[1]]), Vec3d(a.x[q[2]]), Vec3d(a.x[q[3]]));
        const double d = wrapAngle(th - double(a.view.hingeTheta0[k]));
        const double kL = double(a.view.hingeKL[k]);
        double v = 0.5 * kL * d * d;
        if (a.view.damping == DampingModel::Internal && a.view.hingeKd[k] > 0)
            v += bendingDampingPotential(th, double(a.hingeThetaPrev[k]), kL, double(a.view.hingeKd[k]),
                                         double(s->h));
        return v;
    }
};

}  // namespace vbd
