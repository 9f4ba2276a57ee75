#pragma once
// The rigid narrow phase and contact matching on an executor (gpu/narrow_pipeline.h): one manifold per
// candidate pair from the bodies' states, shapes and speculative margins (the stages RigidRotationStage and
// RigidNarrowStage of gpu/rigid_stages.h, which call rigid/narrow_phase.h collidePair, the code
// RigidSolver::narrowPhase runs), then the contacts of the touching pairs, warm started from last step's
// (RigidMatchStage: rigid/contact_match.h matchManifold, the code of RigidSolver::matchContacts).
// Not yet a phase of the device rigid step (the step's collision detection is still the CPU's): the first
// piece of moving it to the device, there to be checked against the CPU (test_gpu_rigid_host,
// test_gpu_cuda_rigid) and timed (bench_gpu BM_GpuRigidNarrow). No CUDA types: the tests include it.
#include <memory>
#include <utility>
#include <vector>

#include "rigid/contact_match.h"
#include "rigid/narrow_phase.h"

namespace vbd {

class NarrowPhaseRunner {
  public:
    virtual ~NarrowPhaseRunner() = default;
    // The bodies (states at the start of the step, shapes, margins) and the candidate pairs into the
    // executor's memory.
    virtual void upload(const std::vector<RigidBodyState>& state, const std::vector<Collider>& shape,
                        const std::vector<float>& margin, const std::vector<std::pair<int, int>>& pairs,
                        float groundHeight) = 0;
    // The rotation matrices and the manifolds of the uploaded pairs; returns when they are written.
    virtual void run() = 0;
    // The manifolds and point counts of the last run, one per pair (only pts[0, count) of a manifold are
    // written, as on the CPU).
    virtual void download(std::vector<Manifold>& manifolds, std::vector<int>& count) = 0;
    // Replaces the last run's manifolds (a check of the matching alone, from the CPU's manifolds).
    virtual void setManifolds(const std::vector<Manifold>& manifolds) = 0;
    // The contacts of the manifolds (RigidMatchStage: matchManifold per touching pair, the code of
    // RigidSolver::matchContacts) into out. view: the bodies and parameters (RigidSolver::matchView), with
    // last step's contacts (numOld of them) and ranges, all uploaded here but the states and shapes, which
    // upload() placed; touching: the pairs with points, each with its first contact; contacts: the total.
    virtual void match(const MatchView& view, size_t numOld, const std::vector<ManifoldRange>& touching,
                       size_t contacts, float h, std::vector<Contact>& out) = 0;
    // match without the uploads and the download: the kernel alone, on what the last match placed.
    virtual void rematch(float h) = 0;
};

// On the host executor (tests: the CPU-side check of all but the kernels' launch).
std::unique_ptr<NarrowPhaseRunner> makeHostNarrowPhase();
// On CUDA device 0. Throws std::runtime_error when CUDA is not compiled in or there is no device.
std::unique_ptr<NarrowPhaseRunner> makeCudaNarrowPhase();

}  // namespace vbd
