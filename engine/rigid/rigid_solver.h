#pragma once
// AVBD rigid-body solver on the CPU (seed, "Rigid Body Dynamics with VBD"; Giles et al. 2025).
//
// step(h) reads like the seed's per-step algorithm:
//   detectCollisions()   narrow phase at the start-of-step poses x-, contacts matched to last
//                        step's by feature key (penalties, multipliers and sticking anchors carry)
//   warmStart()          lambda <- alpha gamma lambda, k <- clamp(gamma k, k_min, k_max)
//                        (joints; contacts are warm started while matching)
//   predict()            forward step (implicit midpoint rule for the gyroscopic term) -> frozen
//                        targets x*, R*;
//                        the iterate starts at VBD's adaptive guess (solver.initial_guess), or at
//                        the target as in the seed ("inertial")
//   buildAdjacency()     per-body CSR lists of contacts and joints, body coloring (inside
//                        detectCollisions, beside the matching)
//   for each iteration:  for each color: solve every body's 6x6 block (parallel inside a color)
//                        dualUpdate()  (lambda, k after each sweep; without diagnostics the
//                        contacts' update is applied inside the next sweep, same bits)
//   finalizeVelocities() BDF1
//
// Where this departs from the seed / the AVBD demos, and why (each measured, see the comments at
// the code): the adaptive initial guess; the implicit midpoint rule for the gyroscopic term of
// the forward step (the seed's explicit step gains energy); a penalty floor of m_eff / h^2; a
// contact's normal multiplier updated without the stabilization term and kept in full across
// steps (AVBD's update winds it up), joint multipliers warm started by 0.998 instead of
// alpha gamma; the friction cone radius taken from the last dual multiplier; the sliding friction
// Hessian projected across the slip; hard joints at k_max keep their multiplier; normal rows of
// curved shapes measured between core points; the angular velocity recovered as the exact
// inverse of the normalized-Euler rotation update.
//
// Capsules: radius r around a core segment of half length halfHeight along the local y axis.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/scratch.h"
#include "diagnostics/metrics.h"
#include "rigid/body_block.h"
#include "rigid/collision.h"
#include "rigid/constraints.h"
#include "rigid/contact_list.h"
#include "rigid/contact_match.h"
#include "rigid/rigid_body.h"
#include "scene/scene_desc.h"
#include "views/views.h"

namespace vbd {

// Wall time of the stages of the last step (ms), for benchmarks and the app's timing plot.
struct RigidStageMs {
    double broad = 0;      // bounding boxes and the grid broad phase
    double narrow = 0;     // manifolds of the candidate pairs
    double contacts = 0;   // matching against last step's contacts (warm start), contact records
    double adjacency = 0;  // per-body contact/joint lists and the coloring (run beside the matching: its time
                           // is taken out of `contacts`, so that the stages add up to the step)
    double solve = 0;      // the colored block sweeps
    double dual = 0;       // dual updates between sweeps
    double other = 0;      // poses, joint warm start, forward step, velocities, diagnostics
    double total() const { return broad + narrow + contacts + adjacency + solve + dual + other; }
    RigidStageMs& operator+=(const RigidStageMs& o) {
        broad += o.broad;
        narrow += o.narrow;
        contacts += o.contacts;
        adjacency += o.adjacency;
        solve += o.solve;
        dual += o.dual;
        other += o.other;
        return *this;
    }
};

class RigidSolver {
  public:
    // Uses scene.rigidBodies, joints, solver, ground and gravity. Throws InputError naming the
    // offending key (rigid_bodies[i].size, joints[i].body_b, solver.k_max, ...).
    explicit RigidSolver(const SceneDesc& scene);

    void setParams(const SolverDesc& s);
    void step(float h);  // one substep of size h: beginStep, iterate(0 .. iterations-1), endStep

    // The stages of step(), for a caller that interleaves another solver between the sweeps (the World's
    // rigid <-> particle coupling, world/coupling.h). The caller sets the thread limit.
    void beginStep(float h);  // poses, detection, warm start, forward step, adjacency
    void iterate(int it);     // sweep `it` (0-based) over the body colors, then the dual update
    void endStep();           // velocities
    // The device step (gpu/rigid_stepper.h). beginStepForDevice: beginStep's CPU part, without the forward
    // step (poses, detection and contact matching, warm start, adjacency and coloring). view(): the arrays
    // of rigid/body_block.h over this solver's vectors, which the device step copies and writes back.
    // endStepFromDevice: endStep's bookkeeping with the device's iteration records (frame numbers are set
    // here) and its wall time (counted as solve).
    void beginStepForDevice(float h);
    // The device step with the narrow phase and the contact matching on the device (RigidStepper::
    // setDeviceContacts): beginStepForDevice in three parts around them. beginDetectionForDevice: poses,
    // bounds, broad phase, candidate pairs (candidatePairList(), margins()). rangesForDevice, from the device
    // narrow phase's point count per candidate pair: the touching pairs' ranges, each with its first contact
    // (manifoldRanges(), which the device matches), and contacts() sized to their total (the caller writes
    // or defers the records: RigidSolver::deferContacts). listsForDevice: the per-body lists, the coloring
    // and the dual owners from the ranges, the joints' warm start. manifolds() is not written on this path.
    void beginDetectionForDevice(float h);
    // beginDetectionForDevice in two parts around a broad phase of the caller's (gpu/broad_pipeline.h, the
    // CPU's list): boundsForDevice (poses, margins, boxes()), then candidatesForDevice, which reads the
    // overlapping pairs the caller wrote into overlapsForDevice() (sorted, unique, as broadPhase gives them).
    void boundsForDevice(float h);
    std::vector<std::pair<int, int>>& overlapsForDevice() { return overlaps_; }
    void candidatesForDevice();
    void rangesForDevice(const int* counts);
    void listsForDevice();
    // A value that changes whenever this solver's contacts are rewritten on the CPU (every step that begins
    // with beginStep or beginStepForDevice) and that no other solver holds (a copy shares it while the two
    // contact lists are equal): a device step that keeps its own copy of the contacts between steps compares
    // it with the one markContactsFromDevice gave it, to know that its copy is still this solver's.
    uint64_t contactsVersion() const { return contactsVersion_; }
    uint64_t markContactsFromDevice();  // a fresh version: contacts() are the caller's (written or deferred)
    // The device step that made this step's records leaves them on the device (rigid/contact_list.h): the
    // first read of contacts() (or a CPU step, view(), contactViews(), a copy of the solver) fetches them;
    // contactCount() does not. The caller delivers through the returned link before it reuses their memory.
    std::shared_ptr<PendingContacts> deferContacts(std::function<void(Contact* dst, size_t n)> fetch);
    bool contactsPending() const { return contacts_.pending(); }
    const PendingContacts* pendingContacts() const { return contacts_.pendingLink(); }
    // Forgets the contacts and their ranges (a device step that failed after rangesForDevice, whose records
    // were never written): the next step makes them fresh, without a warm start.
    void dropContacts();
    RigidView view();
    // The device step's views (gpu/rigid_pipeline.h). uploadView: view()'s pointers without copying the
    // bodies' arrays a copy of the solver shares, which are for reading only (the uploads; the contacts and
    // joints are the step's own). resultsView: view() whose states, poses and x-, R-, v- are storage for the
    // device's results, contents dead (the download writes every record): where a copy shares them, new
    // storage instead of a copy.
    RigidView uploadView();
    RigidView resultsView();
    // The states and x-, R-, v- as they are (shared, not copied), and put back: a device step keeps them
    // while it writes into resultsView's storage, and puts them back when it fails before the results all
    // arrived (the World lives on after a failed step: its bodies stay at the start of the step). The poses
    // are made again from the states, as the step's start made them (holding them too would make resultsView
    // take a second storage for the poses syncPoses has just written).
    struct BodyRecords {
        SharedRecords<RigidBodyState> state;
        SharedRecords<Vec3> prevPos;
        SharedRecords<Quat> prevRot;
        SharedRecords<Vec3> prevVel;
    };
    BodyRecords bodyRecords() const { return {state_, prevPos_, prevRot_, prevVel_}; }
    void restoreBodyRecords(const BodyRecords& b);
    void endStepFromDevice(std::vector<IterationRecord> its, double deviceMs);
    const std::vector<std::vector<int>>& colorGroups() const { return colorGroups_; }
    const SolverDesc& params() const { return params_; }
    bool hasExternalBlocks() const { return external_ && !external_->empty(); }
    int iterationCount() const { return params_.iterations; }
    // Terms added to each body's 6x6 block at every assembly (indexed by body; nullptr or an empty vector:
    // none), e.g. the particle contacts of the coupling evaluated at the body's current iterate. The
    // caller keeps the vector alive and updates it between sweeps.
    void setExternalBlocks(const std::vector<Block66d>* blocks) { external_ = blocks; }
    // The bodies' working poses: the current iterate inside a step, the last step's end pose after it.
    const std::vector<BodyPose>& poses() const { return pose_.get(); }
    // The pose at the start of the current step (x-, R-).
    Vec3 startPosition(int body) const { return prevPos_[size_t(body)]; }
    Quat startRotation(int body) const { return prevRot_[size_t(body)]; }

    int numBodies() const { return int(state_.size()); }
    const std::vector<RigidBodyState>& states() const { return state_.get(); }
    std::vector<RigidBodyView> views() const;
    std::vector<ContactView> contactViews() const;
    std::vector<JointView> jointViews() const;
    double kineticEnergy() const;
    double totalMass() const;       // dynamic bodies only
    Vec3d massWeightedCom() const;  // sum m_i x_i over dynamic bodies
    double maxSpeed() const;        // max over dynamic bodies of |v| + |omega| r_bound
    const std::vector<IterationRecord>& lastIterations() const { return iterations_; }
    const RigidStageMs& stageMs() const { return stageMs_; }
    // A spring of the given stiffness pulling the body point `localPoint` towards `target`
    // (picking). body < 0 releases it.
    void setDrag(int body, const Vec3& localPoint, const Vec3& target, float stiffness);

    // Inspection for tests, the app and diagnostics.
    const std::vector<Contact>& contacts() const { return contacts_.get(); }
    size_t contactCount() const { return contacts_.size(); }
    // The contact records' and ranges' storage since this solver was made (rigid/contact_list.h): writes that
    // copied records a copy of the solver shared (none: every step writes new lists), and storage allocated
    // where none was recycled (none once the lists that copies held come back).
    RecordStats contactStorage() const {
        RecordStats s = contacts_.storageStats();
        s += manifolds_.stats();
        return s;
    }
    // The same for the bodies' states, poses and x-, R-, v-: a CPU step that follows a copy copies the two
    // it updates in place (the states and v-; the poses, x- and R- are rewritten whole), a device step none.
    RecordStats bodyStorage() const {
        RecordStats s = state_.stats();
        s += pose_.stats();
        s += prevPos_.stats();
        s += prevRot_.stats();
        s += prevVel_.stats();
        return s;
    }
    // The bytes a copy of this solver holds (its vectors' room; the contacts and their ranges are shared with
    // the copy until the next step writes new ones): what the app's timeline counts against its budget.
    size_t copyBytes() const;
    const std::vector<Joint>& joints() const { return joints_; }
    // The last detection's narrow phase (tests and bench_gpu run the device's from the same input): the
    // candidate pairs (a < 0: the ground plane at groundHeight()), the bodies' speculative margins and boxes,
    // and one manifold per pair, of which only pts[0, count) are written. Valid from beginStep or
    // beginStepForDevice (states() then still holds the start-of-step states the pairs were tested at) to the
    // next detection; a copy of the solver starts without them.
    const std::vector<std::pair<int, int>>& candidatePairList() const { return pairs_; }
    const std::vector<float>& margins() const { return margin_; }
    const std::vector<Aabb>& boxes() const { return boxes_; }  // bounding boxes with the margins
    const std::vector<Manifold>& manifolds() const { return manifoldBuffer_; }
    float groundHeight() const { return groundHeight_; }
    // The matching's inputs (rigid/contact_match.h): the start-of-step states and poses, the bodies' masses,
    // frictions, shapes and parameters, and last step's contacts and ranges (the ones contacts() and
    // manifoldRanges() hold until the next detection matches against them).
    MatchView matchView() const;
    const std::vector<ManifoldRange>& manifoldRanges() const { return manifolds_.get(); }
    const std::vector<std::string>& warnings() const { return warnings_; }
    int numColors() const { return int(colorGroups_.size()); }
    double mass(int body) const { return mass_[size_t(body)]; }
    Vec3d inertia(int body) const { return inertia_[size_t(body)]; }
    bool isFixed(int body) const { return fixed_[size_t(body)] != 0; }
    float friction(int body) const { return friction_[size_t(body)]; }
    const Collider& collider(int body) const { return shape_[size_t(body)]; }
    const std::vector<Collider>& colliders() const { return shape_.get(); }
    const std::vector<float>& frictions() const { return friction_.get(); }
    // Overwrites a body's state (tests, app reset); clears nothing else.
    void setState(int body, const RigidBodyState& s);

  private:
    RigidView view(bool keepStart);
    void syncPoses();
    void detectCollisions(float h);
    void warmStart();
    void predict(float h);
    // Per-body lists of the contacts in `manifolds` (contactCount records) and of the joints, the coloring
    // and the contacts' dual owners; run by matchContacts beside the matching.
    void buildAdjacency(const std::vector<ManifoldRange>& manifolds, size_t contactCount);
    // colorGroups_, colorOf_ from the contact and joint pairs
    void colorBodies(const std::vector<ManifoldRange>& manifolds);
    void beginStages(float h, bool forward);  // beginStep without the diagnostics of iteration 0
    void stepArrays();
    void dualUpdate(bool contacts);  // joints always; contacts unless fused into the next sweep
    void finalizeVelocities(float h);
    void recordIteration(int it, float h);

    // The steps of detectCollisions (rigid_solver.cpp).
    // margin, boxes and rotation matrices of every body at the start-of-step poses
    void speculativeBounds(float h, std::vector<float>& margin, std::vector<Aabb>& boxes,
                           std::vector<Mat33>& rot) const;
    void candidatePairs(const std::vector<Aabb>& boxes, const std::vector<std::pair<int, int>>& overlaps,
                        std::vector<std::pair<int, int>>& pairs) const;
    void narrowPhase(const std::vector<std::pair<int, int>>& pairs, const std::vector<float>& margin,
                     std::vector<Manifold>& mans, std::vector<size_t>& count) const;
    void matchContacts(const std::vector<std::pair<int, int>>& pairs, const std::vector<Manifold>& mans,
                       std::vector<size_t>& first, float h);

    std::string file_;
    SolverDesc params_;
    Vec3 gravity_;
    bool groundEnabled_ = true;
    float groundHeight_ = 0, groundFriction_ = 0.5f;

    // Per body (structure of arrays). The states, the working poses and x-, R-, v- are shared with copies of
    // the solver (the timeline saves one every frame) until a step writes them: a CPU step copies the states
    // and v- on its first view() (into storage recycled from a copy let go) and rewrites the others whole
    // (syncPoses, predict) without a copy, a device step writes its results into such storage (resultsView).
    SharedRecords<RigidBodyState> state_;
    SharedRecords<BodyPose> pose_;  // working poses of the current step (double)
    // The bodies' constants, set when the solver is made: its copies share them.
    SharedRecords<Collider> shape_;
    SharedRecords<double> mass_;
    SharedRecords<Vec3d> inertia_;  // principal moments
    SharedRecords<float> friction_;
    SharedRecords<char> fixed_;
    SharedRecords<Vec3> prevPos_;  // x-
    SharedRecords<Quat> prevRot_;  // R-
    SharedRecords<Vec3> prevVel_;  // v at the start of the previous step (adaptive guess)
    // Inside a step only (stepArrays), not carried by a copy: x*, R*, |f|^2 + |tau|^2 of the last assembly
    // (the residual).
    Scratch<std::vector<Vec3d>> targetPos_;
    Scratch<std::vector<Quatd>> targetRot_;
    Scratch<std::vector<double>> force2_;

    // This step's records (on the device while contactsPending()); a copy of the solver shares them
    // (rigid/contact_list.h).
    ContactList contacts_;
    // Detection's per-step arrays, kept across steps (fresh ones cost page faults every step), not carried by
    // a copy of the solver (backend/scratch.h): the narrow phase's manifolds, margins and bounding boxes, the
    // broad phase's overlaps and working arrays, the candidate pairs, each pair's first contact.
    Scratch<std::vector<Manifold>> manifoldBuffer_;
    Scratch<std::vector<float>> margin_;
    Scratch<std::vector<Aabb>> boxes_;
    Scratch<std::vector<Mat33>> rot_;  // rotation matrices of the start-of-step poses (the narrow phase's)
    Scratch<std::vector<std::pair<int, int>>> overlaps_, pairs_;
    Scratch<BroadPhaseScratch> broadScratch_;
    Scratch<std::vector<size_t>> firstContact_;
    // Contacts grouped by pair (rigid/contact_match.h): this step's, shared with copies of the solver like
    // the contacts, each step's written into storage recycled from a list let go.
    SharedRecords<ManifoldRange> manifolds_;
    std::vector<Joint> joints_;
    std::vector<std::pair<int, int>> jointPairs_;  // sorted (min, max) of jointed dynamic pairs

    // Per-body adjacency (CSR: contact indices, joint indices), the coloring and the dual owners: built from
    // the step's contacts by every step before its sweeps (buildAdjacency), so not carried by a copy.
    Scratch<std::vector<int>> contactOffsets_, contactItems_, jointOffsets_, jointItems_;
    Scratch<std::vector<std::vector<int>>> colorGroups_;
    Scratch<std::vector<int>> colorOf_;    // index into colorGroups_ (-1: fixed)
    Scratch<std::vector<int>> dualOwner_;  // per contact: the body that applies its fused dual update

    std::vector<IterationRecord> iterations_;
    std::vector<std::string> warnings_;
    RigidStageMs stageMs_;
    std::chrono::steady_clock::time_point clock_;  // the stage clock of the step in progress
    const std::vector<Block66d>* external_ = nullptr;
    int stepCount_ = 0;
    uint64_t contactsVersion_ = 0;
    float stepH_ = 1.0f / 60.0f;

    RigidDrag drag_;
};

}  // namespace vbd
