#include "rigid/rigid_solver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <utility>

#include "backend/bytes.h"
#include "backend/parallel.h"
#include "backend/timer.h"
#include "coloring/coloring.h"
#include "math/error.h"
#include "rigid/body_block.h"

namespace vbd {

namespace {

// Adds the time since the last call to a stage counter.
class StageClock {
  public:
    void lap(double& into) {
        const auto now = std::chrono::steady_clock::now();
        into += std::chrono::duration<double, std::milli>(now - t_).count();
        t_ = now;
    }

  private:
    std::chrono::steady_clock::time_point t_ = std::chrono::steady_clock::now();
};

// Warm start of every hard joint row. The AVBD demos scale every multiplier by alpha gamma (0.98);
// with that a welded 1 m cantilever sagged 1.6 mm at its tip, with 0.998 < 1 mm. (A contact's
// normal multiplier is kept in full: it does not integrate the stabilization, see contactDual;
// tangential multipliers keep the demos' alpha gamma.)
constexpr double kLambdaKeep = 0.998;

Vec3 anyPerpendicular(const Vec3& a) {
    return normalized(std::fabs(a.x) < 0.6f ? cross(a, Vec3(1, 0, 0)) : cross(a, Vec3(0, 1, 0)));
}

// Sizes a per-step buffer to n records whose old contents are dead. When it must grow, the old records are
// dropped rather than copied into the larger allocation, and it gets half again as much room, so that a
// growing scene (a pile landing: 44,000 -> 84,000 contacts within 10 steps) does not reallocate it (copy it,
// fault its pages in) every step.
template <class T>
void resizeDiscarding(std::vector<T>& v, size_t n) {
    if (v.capacity() < n) {
        std::vector<T>().swap(v);
        v.reserve(n + n / 2);
    }
    v.resize(n);
}

template <class T>
T* resizedDiscarding(std::vector<T>& v, size_t n) {
    resizeDiscarding(v, n);
    return v.data();
}

// CSR lists by body: each(f) calls f(body, item) for every (body, item) incidence, twice in the same
// order (once to count, once to fill), so a body's items keep the order of `each`.
template <class Each>
void csrByBody(int n, const Each& each, std::vector<int>& off, std::vector<int>& items) {
    off.assign(size_t(n) + 1, 0);
    each([&](int body, int) { ++off[size_t(body) + 1]; });
    for (int i = 0; i < n; ++i) off[size_t(i) + 1] += off[size_t(i)];
    items.resize(size_t(off[size_t(n)]));
    std::vector<int> fill(off.begin(), off.end() - 1);
    each([&](int body, int idx) { items[size_t(fill[size_t(body)]++)] = idx; });
}

// The body graph in CSR form directly from the pairs (the graph graphFromElements would build:
// rows sorted, no duplicates), without a temporary list per element.
Graph bodyGraph(int n, const std::vector<std::pair<int, int>>& edges) {
    Graph g;
    g.offsets.assign(size_t(n) + 1, 0);
    for (const auto& e : edges) {
        ++g.offsets[size_t(e.first) + 1];
        ++g.offsets[size_t(e.second) + 1];
    }
    for (int i = 0; i < n; ++i) g.offsets[size_t(i) + 1] += g.offsets[size_t(i)];
    g.items.resize(size_t(g.offsets[size_t(n)]));
    std::vector<int> fill(g.offsets.begin(), g.offsets.end() - 1);
    for (const auto& e : edges) {
        g.items[size_t(fill[size_t(e.first)]++)] = e.second;
        g.items[size_t(fill[size_t(e.second)]++)] = e.first;
    }
    // Sort and deduplicate each row (a joint may join a pair that also touches), compacting.
    int out = 0;
    for (int i = 0; i < n; ++i) {
        const auto b = g.items.begin() + g.offsets[size_t(i)], e = g.items.begin() + g.offsets[size_t(i) + 1];
        std::sort(b, e);
        const int len = int(std::unique(b, e) - b);
        std::copy(b, b + len, g.items.begin() + out);
        g.offsets[size_t(i)] = out;
        out += len;
    }
    g.offsets[size_t(n)] = out;
    g.items.resize(size_t(out));
    return g;
}

// Contact-list versions, unique across solvers (RigidSolver::contactsVersion).
uint64_t freshContactsVersion() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

RigidSolver::RigidSolver(const SceneDesc& scene)
    : file_(scene.file), contactsVersion_(freshContactsVersion()) {
    validateRigidScene(scene, &warnings_);
    for (const std::string& w : warnings_) std::fprintf(stderr, "warning: %s\n", w.c_str());
    params_ = scene.solver;
    gravity_ = scene.gravity;
    groundEnabled_ = scene.ground.enabled;
    groundHeight_ = float(scene.ground.height);
    groundFriction_ = float(scene.ground.friction);
    const size_t n = scene.rigidBodies.size();
    std::vector<RigidBodyState>& state = state_.overwrite();
    state.resize(n);
    std::vector<Collider>& shape = shape_.overwrite();
    std::vector<double>& mass = mass_.overwrite();
    std::vector<Vec3d>& inertia = inertia_.overwrite();
    std::vector<float>& friction = friction_.overwrite();
    std::vector<char>& fixed = fixed_.overwrite();
    shape.resize(n);
    mass.resize(n);
    inertia.resize(n);
    friction.resize(n);
    fixed.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const RigidBodyDesc& d = scene.rigidBodies[i];
        shape[i] = colliderFromDesc(d);
        MassProperties mp = massProperties(shape[i], d.density);
        mass[i] = mp.mass;
        inertia[i] = mp.inertia;
        friction[i] = float(d.friction);
        fixed[i] = d.fixed ? 1 : 0;
        state[i].position = d.position;
        state[i].rotation = normalized(d.rotation);
        state[i].velocity = d.fixed ? Vec3(0.0f) : d.velocity;
        state[i].angularVelocity = d.fixed ? Vec3(0.0f) : d.angularVelocity;
    }
    prevPos_.overwrite().assign(n, Vec3(0.0f));
    prevRot_.overwrite().assign(n, Quat());
    std::vector<Vec3>& prevVel = prevVel_.overwrite();
    prevVel.resize(n);
    for (size_t i = 0; i < n; ++i) prevVel[i] = state[i].velocity;
    stepArrays();
    for (const JointDesc& jd : scene.joints) {
        Joint j;
        j.type = jd.type;
        // A fixed body is part of the world for a joint: it never moves.
        j.a = (jd.bodyA >= 0 && !fixed_[size_t(jd.bodyA)]) ? jd.bodyA : -1;
        j.b = jd.bodyB;
        Vec3 xA(0.0f);
        Quat qA;
        if (jd.bodyA >= 0) {
            xA = state_[size_t(jd.bodyA)].position;
            qA = state_[size_t(jd.bodyA)].rotation;
        }
        const RigidBodyState& B = state_[size_t(j.b)];
        // World-attached joints keep world anchors; a fixed body A is folded into the world.
        j.rA = j.a >= 0 ? rotateInv(qA, jd.anchor - xA) : jd.anchor;
        j.rB = rotateInv(B.rotation, jd.anchor - B.position);
        const Quat qAw = j.a >= 0 ? qA : Quat::identity();
        j.qRel = normalized(conjugate(qAw) * B.rotation);
        const Vec3 axis = normalized(jd.axis), ref = anyPerpendicular(axis);
        j.axisA = rotateInv(qAw, axis);
        j.axisB = rotateInv(B.rotation, axis);
        j.refA = rotateInv(qAw, ref);
        j.refB = rotateInv(B.rotation, ref);
        j.limit = jd.limit ? 1 : 0;
        j.lower = float(jd.lower);
        j.upper = float(jd.upper);
        j.stiffness = float(jd.stiffness);
        const float k0 = j.stiffness > 0 ? j.stiffness : float(params_.kStart);
        for (float& k : j.k) k = k0;
        joints_.push_back(j);
        if (jd.bodyA >= 0)
            jointPairs_.push_back({std::min(jd.bodyA, jd.bodyB), std::max(jd.bodyA, jd.bodyB)});
    }
    std::sort(jointPairs_.begin(), jointPairs_.end());
    // Room for the contacts and the candidate pairs of a landing pile, reserved once. The 10,000-box pile
    // peaks at 8.4 contacts and 7.9 candidate pairs per box while landing (84,000 and 79,000). Grown on
    // demand instead (resizeDiscarding), every growth took a new allocation whose pages all faulted in again:
    // 935 faults per step in bench_rigid's window (steps 31-50) against 510 with this room, which are the
    // first touch of the contacts the pile adds. The reservation is address space: the kernel backs a page
    // when it is first written.
    const size_t room = 12 * n + 64;
    contacts_.reserve(room);
    manifoldBuffer_.reserve(room);
}

void RigidSolver::setParams(const SolverDesc& s) {
    SceneDesc tmp;
    tmp.file = file_;
    tmp.solver = s;
    validateRigidScene(tmp, nullptr);
    params_ = s;
}

void RigidSolver::setState(int body, const RigidBodyState& s) {
    RigidBodyState& b = state_.edit()[size_t(body)];
    b = s;
    b.rotation = normalized(s.rotation);
}

void RigidSolver::setDrag(int body, const Vec3& localPoint, const Vec3& target, float stiffness) {
    if (body < 0 || body >= numBodies() || fixed_[size_t(body)]) {
        drag_ = RigidDrag();
        return;
    }
    drag_ = {body, localPoint, target, stiffness};
}

// ---------------------------------------------------------------------------------------------
// Collision detection at the start-of-step poses, with contact persistence (the contacts of last
// step matched by pair and feature key, so that penalties, multipliers and sticking anchors carry):
//   speculativeBounds   margin and bounding box of every body
//   broadPhase          overlapping boxes (rigid/collision.h)
//   candidatePairs      ground pairs, then body pairs, in the order of pairKey
//   narrowPhase         one manifold per candidate pair, in parallel
//   matchContacts       contact records for every manifold point, warm started from a match
//                       (rigid/contact_match.h matchManifold, one source with the device's)

namespace {

float minFeatureSize(const Collider& c) {
    if (c.type == ShapeType::Box)
        return std::min({c.half.x, c.half.y, c.half.z});  // > 0: as fmin, no libm call
    return c.radius;
}

}  // namespace

void RigidSolver::detectCollisions(float h) {
    {
        ScopedTimer t(stageMs_.broad);
        speculativeBounds(h, margin_, boxes_, rot_);
        broadPhase(boxes_, overlaps_, broadScratch_);
    }
    {
        ScopedTimer t(stageMs_.narrow);
        candidatePairs(boxes_, overlaps_, pairs_);
        narrowPhase(pairs_, margin_, manifoldBuffer_, firstContact_);
    }
    double contactsMs = 0;
    {
        ScopedTimer t(contactsMs);
        matchContacts(pairs_, manifoldBuffer_, firstContact_, h);
    }
    // The lists' own time (matchContacts put it in stageMs_.adjacency), taken out of the stage they
    // overlapped: the stages still add up to the step.
    stageMs_.contacts += contactsMs - stageMs_.adjacency;
}

// Speculative margin: a contact is made if the gap can close within the step (|v| h plus the
// rotation sweep) or is within 2% of the smaller feature. A contact with a positive gap only
// pushes once the gap would close (C_used < 0), so a generous margin costs time, not accuracy.
void RigidSolver::speculativeBounds(float h, std::vector<float>& margin, std::vector<Aabb>& boxes,
                                    std::vector<Mat33>& rot) const {
    const size_t n = state_.size();
    margin.resize(n);
    boxes.resize(n);
    rot.resize(n);
    parallelFor(
        n,
        [&](size_t i) {
            const RigidBodyState& s = state_[i];
            const Collider& c = shape_[i];
            // Once per body for the narrow phase's box-box pairs, which converted both quaternions per pair
            // (the pile: ~8 pairs per box). bench_rigid, 2 threads, alternating: narrow 4.8-4.9 -> 4.5-4.7
            // ms.
            rot[i] = toMatrix(s.rotation);
            float m = 0.02f * minFeatureSize(c);
            if (!fixed_[i]) m += h * (norm(s.velocity) + norm(s.angularVelocity) * boundingRadius(c));
            margin[i] = m;
            boxes[i] = shapeAabb(c, {s.position, s.rotation}, m);
        },
        256);
}

// Ground pairs first (a = -1), then body pairs in sorted order: the contact order, and with it
// every result, is independent of the thread count. Pairs of two fixed bodies and jointed pairs
// make no contact.
void RigidSolver::candidatePairs(const std::vector<Aabb>& boxes,
                                 const std::vector<std::pair<int, int>>& overlaps,
                                 std::vector<std::pair<int, int>>& pairs) const {
    pairs.clear();
    if (groundEnabled_)
        for (int i = 0; i < numBodies(); ++i)
            if (!fixed_[size_t(i)] && boxes[size_t(i)].lo.y <= groundHeight_) pairs.push_back({-1, i});
    for (const auto& p : overlaps) {
        if (fixed_[size_t(p.first)] && fixed_[size_t(p.second)]) continue;
        if (std::binary_search(jointPairs_.begin(), jointPairs_.end(), p)) continue;
        // A fixed body goes on side A so the dynamic one is always B when only one moves.
        if (fixed_[size_t(p.second)])
            pairs.push_back({p.second, p.first});
        else
            pairs.push_back(p);
    }
}

// mans: one manifold per pair, in a buffer kept across steps (a fresh one cost page faults every step). A
// record is not reset: collide and collidePlane set its count first, and only pts[0, count) are read (a
// reset wrote all 128 bytes of each of the pile's 79,000 records, most of them pairs that do not touch).
// count[k + 1]: the point count of pair k, in a compact array (count[0] = 0), which matchContacts turns into
// each pair's first contact. Its serial prefix sum and list of touching pairs read the counts out of the
// 128-byte manifolds before: two passes of 79,000 cache lines (10 MB) on the pile, ~1 ms per step.
void RigidSolver::narrowPhase(const std::vector<std::pair<int, int>>& pairs, const std::vector<float>& margin,
                              std::vector<Manifold>& mans, std::vector<size_t>& count) const {
    resizeDiscarding(mans, pairs.size());
    count.resize(pairs.size() + 1);
    count[0] = 0;
    parallelFor(
        pairs.size(),
        [&](size_t k) {
            collidePair(pairs[k].first, pairs[k].second, state_.data(), rot_.data(), shape_.data(),
                        margin.data(), groundHeight_, mans[k]);
            count[k + 1] = size_t(mans[k].count);
        },
        16);
}

// Manifolds are matched to last step's by pair: both lists are in the order of pairKey (ground
// pairs by body, then body pairs by (min, max)), and a contact matches an old one of the same
// (a, b) with the same feature key. Each manifold writes its own slice of the new list, so the
// pairs are processed in parallel. first: the narrow phase's point counts (first[k + 1] for pair k),
// turned into each pair's first contact in place.
void RigidSolver::matchContacts(const std::vector<std::pair<int, int>>& pairs,
                                const std::vector<Manifold>& mans, std::vector<size_t>& first, float h) {
    for (size_t k = 0; k < pairs.size(); ++k) first[k + 1] += first[k];
    // The new list goes into storage recycled from a list let go (last step's, or the timeline's oldest save
    // of this solver): a fresh 15 MB vector per step (the 10,000-box pile) cost page faults and a zeroing
    // pass. manifoldContacts resets every record it writes.
    const std::shared_ptr<std::vector<Contact>> nextList = contacts_.fresh();
    std::vector<Contact>& next = *nextList;
    resizeDiscarding(next, first.back());
    // The touching pairs (the pile: 22,000-40,000 of up to 79,000 candidates), so that the parallel loop
    // reads only their manifolds. They become manifolds_ once matched: lastManifold searches last step's.
    const std::shared_ptr<std::vector<ManifoldRange>> touchingList = manifolds_.take();
    std::vector<ManifoldRange>& touching = *touchingList;
    touching.clear();
    for (size_t k = 0; k < pairs.size(); ++k)
        if (first[k + 1] > first[k])
            touching.push_back({pairs[k].first, pairs[k].second, first[k], first[k + 1] - first[k], k});
    // Index 0 builds the per-body lists and the coloring (buildAdjacency: serial, ~1 ms on the pile), which
    // read only the new pairs and point counts, while the other thread matches; index i > 0 matches touching
    // pair i - 1. On one thread: the lists, then the pairs in order. Either way every record and list is the
    // same.
    double adjacencyMs = 0;
    const MatchView mv = matchView();
    parallelFor(
        touching.size() + 1,
        [&](size_t i) {
            if (i == 0) {
                ScopedTimer t(adjacencyMs);
                buildAdjacency(touching, first.back());
                return;
            }
            const ManifoldRange& r = touching[i - 1];
            matchManifold(mv, r.a, r.b, mans[r.pair], h, &next[r.first]);
        },
        32);
    manifolds_.replace(touchingList);
    contacts_.replace(nextList);
    stageMs_.adjacency += adjacencyMs;
}

// The matching's view of this solver: the start-of-step states and poses, last step's contacts and ranges.
MatchView RigidSolver::matchView() const {
    MatchView v;
    v.state = state_.data();
    v.pose = pose_.data();
    v.shape = shape_.data();
    v.mass = mass_.data();
    v.friction = friction_.data();
    v.fixed = fixed_.data();
    v.oldContacts = contacts_.get().data();  // fetched first if a device step left them there
    v.oldManifolds = manifolds_.data();      // const: never copied
    // Records a failed fetch lost (ContactList::lost): last step's ranges point at nothing, no warm start.
    v.numOldManifolds = contacts_.lost() ? 0 : manifolds_.size();
    v.gravity = gravity_;
    v.groundFriction = groundFriction_;
    v.kStart = params_.kStart;
    v.kMax = params_.kMax;
    v.alpha = params_.alpha;
    v.gamma = params_.gamma;
    return v;
}

void RigidSolver::warmStart() {
    // Contacts were warm started while matching. Joints: same rule, and C0 = C(x-) for the
    // alpha stabilization.
    const double h2 = double(stepH_) * double(stepH_);
    for (Joint& j : joints_) {
        JointEval e;
        jointEval(j, pose_.data(), e);
        const double mEff = j.a >= 0 ? std::min(mass_[size_t(j.a)], mass_[size_t(j.b)]) : mass_[size_t(j.b)];
        auto minI = [&](int b) {
            const Vec3d& I = inertia_[size_t(b)];
            return std::min(I.x, std::min(I.y, I.z));
        };
        const double iEff = j.a >= 0 ? std::min(minI(j.a), minI(j.b)) : minI(j.b);
        for (int i = 0; i < kJointRows; ++i) {
            j.c0[i] = float(e.rows[i].C);
            if (j.stiffness > 0) {
                j.k[i] = j.stiffness;
                j.lambda[i] = 0;
                continue;
            }
            const double kMin = std::min(std::max(params_.kStart, (i < 3 ? mEff : iEff) / h2), params_.kMax);
            j.lambda[i] = float(kLambdaKeep * j.lambda[i]);
            j.k[i] = float(std::clamp(params_.gamma * j.k[i], kMin, params_.kMax));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Forward step (rigid/body_block.h, predictRigidBody): frozen targets x*, R* and the initial guess.

void RigidSolver::predict(float h) {
    // predictRigidBody writes every body's x- and R- (copies of the solver may share the old ones: new
    // storage, no copy) and reads the states and v-.
    RigidView v = view(false);
    const double hd = h;
    parallelFor(state_.size(), [&](size_t i) { predictRigidBody(v, int(i), hd); });
}

// Per-body lists (CSR) of the rows a body's block reads, then the body coloring, then the owner of
// each contact's fused dual update.
void RigidSolver::buildAdjacency(const std::vector<ManifoldRange>& manifolds, size_t contactCount) {
    const int n = numBodies();
    auto dyn = [&](int b) { return b >= 0 && !fixed_[size_t(b)]; };
    // The lists and the coloring read the same ranges and write different arrays: two tasks (both serial,
    // about half of the 0.5 ms each on the landed 10,000-box pile).
    parallelFor(
        2,
        [&](size_t task) {
            if (task == 1) {
                colorBodies(manifolds);
                return;
            }
            csrByBody(
                n,
                [&](auto&& f) {
                    // By manifold (its contacts are consecutive and share a and b): the contact order,
                    // without reading the 200-byte records (15 MB on the pile).
                    for (const ManifoldRange& m : manifolds) {
                        const bool dynA = dyn(m.a), dynB = dyn(m.b);
                        for (int c = int(m.first); c < int(m.first + m.count); ++c) {
                            if (dynA) f(m.a, c);
                            if (dynB) f(m.b, c);
                        }
                    }
                },
                contactOffsets_, contactItems_);
            csrByBody(
                n,
                [&](auto&& f) {
                    for (int j = 0; j < int(joints_.size()); ++j) {
                        if (dyn(joints_[size_t(j)].a)) f(joints_[size_t(j)].a, j);
                        if (dyn(joints_[size_t(j)].b)) f(joints_[size_t(j)].b, j);
                    }
                },
                jointOffsets_, jointItems_);
        },
        1);
    // The body of each contact that applies its fused dual update (iterate()): the one solved first. This
    // rests on colorBodies putting the two bodies of every touching pair with a dynamic a in different
    // colors: were they in one, the owner would write the contact while the other read it in the same launch
    // (a race on the device; test_gpu_rigid_host LaunchOrderChangesNothing fails at once with contacts left
    // out of the coloring).
    dualOwner_.resize(contactCount);
    parallelFor(
        manifolds.size(),
        [&](size_t k) {
            const ManifoldRange& m = manifolds[k];
            const int owner = !dyn(m.a) || colorOf_[size_t(m.b)] < colorOf_[size_t(m.a)] ? m.b : m.a;
            std::fill(dualOwner_.begin() + std::ptrdiff_t(m.first),
                      dualOwner_.begin() + std::ptrdiff_t(m.first + m.count), owner);
        },
        256);
}

// Coloring. Contacts enter the coloring together with joints: two bodies of one color are
// solved concurrently, so if they touched, each would read the other's half-updated pose and
// the result would depend on the thread schedule. With contacts in the graph every body reads
// only bodies of other colors, which is the exact Gauss-Seidel order of a serial sweep and
// bitwise identical for any thread count. (Newton colors by joints only and accepts the race;
// our recoloring each step costs O(contacts).)
void RigidSolver::colorBodies(const std::vector<ManifoldRange>& manifolds) {
    const int n = numBodies();
    std::vector<std::pair<int, int>> edges;
    edges.reserve(manifolds.size() + joints_.size());
    for (const ManifoldRange& m : manifolds)
        if (m.a >= 0 && !fixed_[size_t(m.a)]) edges.push_back({m.a, m.b});
    for (const Joint& j : joints_)
        if (j.a >= 0 && !fixed_[size_t(j.a)]) edges.push_back({j.a, j.b});
    const std::vector<int> color = colorGraph(bodyGraph(n, edges), ColoringMethod::GreedyDegree);
    colorGroups_.clear();
    for (int i = 0; i < n; ++i) {
        if (fixed_[size_t(i)]) continue;
        const int c = color[size_t(i)];
        if (size_t(c) >= colorGroups_.size()) colorGroups_.resize(size_t(c) + 1);
        colorGroups_[size_t(c)].push_back(i);
    }
    colorGroups_.erase(std::remove_if(colorGroups_.begin(), colorGroups_.end(),
                                      [](const std::vector<int>& v) { return v.empty(); }),
                       colorGroups_.end());
    colorOf_.assign(size_t(n), -1);
    for (size_t gi = 0; gi < colorGroups_.size(); ++gi)
        for (int b : colorGroups_[gi]) colorOf_[size_t(b)] = int(gi);
}

// ---------------------------------------------------------------------------------------------
// The per-body block, the dual updates and the velocities: rigid/body_block.h over this solver's arrays.

RigidView RigidSolver::view() { return view(true); }

// keepStart: x- and R- keep their records (a copy where another holder shares them); false: rewritten.
RigidView RigidSolver::view(bool keepStart) {
    RigidView v = uploadView();
    v.state = state_.edit().data();
    v.pose = pose_.edit().data();
    const size_t n = state_.size();
    v.prevPos = keepStart ? prevPos_.edit().data() : resizedDiscarding(prevPos_.overwrite(), n);
    v.prevRot = keepStart ? prevRot_.edit().data() : resizedDiscarding(prevRot_.overwrite(), n);
    v.prevVel = prevVel_.edit().data();
    return v;
}

RigidView RigidSolver::resultsView() {
    RigidView v = uploadView();
    const size_t n = state_.size();
    v.state = resizedDiscarding(state_.overwrite(), n);
    v.pose = resizedDiscarding(pose_.overwrite(), n);
    v.prevPos = resizedDiscarding(prevPos_.overwrite(), n);
    v.prevRot = resizedDiscarding(prevRot_.overwrite(), n);
    v.prevVel = resizedDiscarding(prevVel_.overwrite(), n);
    return v;
}

void RigidSolver::restoreBodyRecords(const BodyRecords& b) {
    state_ = b.state;
    prevPos_ = b.prevPos;
    prevRot_ = b.prevRot;
    prevVel_ = b.prevVel;
    syncPoses();
}

// The shared per-body arrays are const_cast: nothing writes through them (RigidView's pointers are the
// stages' writable ones). The contacts and joints are this solver's own (the device step writes their
// multipliers back through this view's pointers).
RigidView RigidSolver::uploadView() {
    RigidView v;
    v.state = const_cast<RigidBodyState*>(state_.data());
    v.pose = const_cast<BodyPose*>(pose_.data());
    v.prevPos = const_cast<Vec3*>(prevPos_.data());
    v.prevRot = const_cast<Quat*>(prevRot_.data());
    v.prevVel = const_cast<Vec3*>(prevVel_.data());
    v.targetPos = targetPos_.data();
    v.targetRot = targetRot_.data();
    v.force2 = force2_.data();
    v.mass = mass_.data();
    v.inertia = inertia_.data();
    v.fixed = fixed_.data();
    v.contacts = contacts_.get().data();
    v.joints = joints_.data();
    v.contactOffsets = contactOffsets_.data();
    v.contactItems = contactItems_.data();
    v.jointOffsets = jointOffsets_.data();
    v.jointItems = jointItems_.data();
    v.dualOwner = dualOwner_.data();
    if (external_ && !external_->empty()) {
        v.external = external_->data();
        v.numExternal = int(external_->size());
    }
    v.drag = drag_;
    v.gravity = Vec3d(gravity_);
    v.alpha = params_.alpha;
    v.beta = params_.beta;
    v.kMax = params_.kMax;
    v.adaptiveInit = params_.adaptiveInit;
    return v;
}

void RigidSolver::dualUpdate(bool contacts) {
    const RigidView v = view();
    // Contacts in runs of consecutive ones, one pack each (contactDualUpdate's results, to the bit).
    const size_t n = contacts_.get().size(), runs = (n + kContactLanes - 1) / kContactLanes;
    if (contacts)
        parallelFor(runs, [&](size_t r) {
            const size_t k0 = r * kContactLanes, k1 = std::min(n, k0 + kContactLanes);
            contactDualLanes(v.contacts, int(k0), int(k1), v.pose, v.alpha, v.beta, v.kMax);
        });
    parallelFor(joints_.size(), [&](size_t j) { jointDualUpdate(v, int(j)); });
}

void RigidSolver::finalizeVelocities(float h) {
    const RigidView v = view();
    const double ih = 1.0 / double(h);
    parallelFor(state_.size(), [&](size_t i) { finalizeRigidBody(v, int(i), ih); });
}

void RigidSolver::recordIteration(int it, float h) {
    IterationRecord r;
    r.frame = stepCount_;
    r.iteration = it;
    if (params_.diagnostics) {
        // Exact residual at the current iterate: one extra read-only assembly pass. G sums the
        // inertial energy and 1/2 k C^2 + lambda C of every row that is pushing.
        const RigidView v = view();
        std::vector<double> e(state_.size(), 0.0);
        parallelFor(state_.size(), [&](size_t i) { e[i] = rigidBodyDiagnostics(v, int(i), h); });
        double g = reduceSum<double>(e.size(), [&](size_t i) { return e[i]; });
        for (const Contact& c : contacts_.get()) addContactEnergy(c, pose_.data(), params_.alpha, g);
        for (const Joint& j : joints_) addJointEnergy(j, pose_.data(), params_.alpha, g);
        r.energy = g;
    }
    // Without diagnostics the residual is the one each body saw when it was solved in the sweep
    // (free: the assembly is needed anyway).
    r.residual =
        std::sqrt(reduceSum<double>(force2_.size(), [&](size_t i) { return fixed_[i] ? 0.0 : force2_[i]; }));
    iterations_.push_back(r);
}

// ---------------------------------------------------------------------------------------------

// Every pose rewritten: storage of its own, without copying the records a copy of the solver shares.
void RigidSolver::syncPoses() {
    BodyPose* pose = resizedDiscarding(pose_.overwrite(), state_.size());
    const RigidBodyState* state = state_.data();
    parallelFor(state_.size(),
                [&](size_t i) { pose[i] = makePose(Vec3d(state[i].position), Quatd(state[i].rotation)); });
}

void RigidSolver::step(float h) {
    ThreadLimit limit(params_.threads);
    beginStep(h);
    for (int it = 0; it < params_.iterations; ++it) iterate(it);
    endStep();
}

// x*, R* and |f|^2 live inside a step (predict writes the targets, every assembly its body's |f|^2): a copy
// of the solver does not carry them, and a step sizes them first.
void RigidSolver::stepArrays() {
    const size_t n = state_.size();
    if (targetPos_.size() == n && targetRot_.size() == n && force2_.size() == n) return;
    targetPos_.resize(n);
    targetRot_.resize(n);
    force2_.assign(n, 0.0);
}

void RigidSolver::beginStages(float h, bool forward) {
    stepArrays();
    contactsVersion_ = freshContactsVersion();
    stageMs_ = RigidStageMs();
    StageClock clock;
    stepH_ = h;
    syncPoses();
    clock.lap(stageMs_.other);
    detectCollisions(h);
    clock = StageClock();
    warmStart();
    if (forward) predict(h);
    iterations_.clear();
    clock.lap(stageMs_.other);
}

void RigidSolver::beginStep(float h) {
    beginStages(h, true);
    StageClock clock;
    if (params_.diagnostics) recordIteration(0, h);
    clock.lap(stageMs_.other);
    clock_ = std::chrono::steady_clock::now();
}

void RigidSolver::beginStepForDevice(float h) { beginStages(h, false); }

void RigidSolver::beginDetectionForDevice(float h) {
    boundsForDevice(h);
    {
        ScopedTimer t(stageMs_.broad);
        broadPhase(boxes_, overlaps_, broadScratch_);
    }
    candidatesForDevice();
}

void RigidSolver::boundsForDevice(float h) {
    stageMs_ = RigidStageMs();
    StageClock clock;
    stepH_ = h;
    syncPoses();
    clock.lap(stageMs_.other);
    ScopedTimer t(stageMs_.broad);
    speculativeBounds(h, margin_, boxes_, rot_);
}

void RigidSolver::candidatesForDevice() {
    ScopedTimer t(stageMs_.narrow);
    candidatePairs(boxes_, overlaps_, pairs_);
}

// matchContacts without the records: the ranges from the counts (rangesForDevice), then the lists and the
// coloring from the ranges (listsForDevice).
void RigidSolver::rangesForDevice(const int* counts) {
    StageClock clock;
    std::vector<size_t>& first = firstContact_;
    first.resize(pairs_.size() + 1);
    first[0] = 0;
    for (size_t k = 0; k < pairs_.size(); ++k) first[k + 1] = first[k] + size_t(counts[k]);
    const std::shared_ptr<std::vector<ManifoldRange>> touchingList = manifolds_.take();
    std::vector<ManifoldRange>& touching = *touchingList;
    touching.clear();
    for (size_t k = 0; k < pairs_.size(); ++k)
        if (first[k + 1] > first[k])
            touching.push_back({pairs_[k].first, pairs_[k].second, first[k], first[k + 1] - first[k], k});
    resizeDiscarding(contacts_.overwrite(), first.back());  // the device writes them (pending ones dropped)
    manifolds_.replace(touchingList);
    clock.lap(stageMs_.contacts);
}

void RigidSolver::listsForDevice() {
    StageClock clock;
    buildAdjacency(manifolds_.get(), contacts_.size());
    clock.lap(stageMs_.adjacency);
    warmStart();
    iterations_.clear();
    clock.lap(stageMs_.other);
}

uint64_t RigidSolver::markContactsFromDevice() { return contactsVersion_ = freshContactsVersion(); }

std::shared_ptr<PendingContacts> RigidSolver::deferContacts(
    std::function<void(Contact* dst, size_t n)> fetch) {
    return contacts_.defer(std::move(fetch));
}

void RigidSolver::dropContacts() {
    contacts_.overwrite().clear();
    manifolds_.overwrite().clear();
    contactsVersion_ = freshContactsVersion();
}

void RigidSolver::endStepFromDevice(std::vector<IterationRecord> its, double deviceMs) {
    for (IterationRecord& r : its) r.frame = stepCount_;
    iterations_ = std::move(its);
    stageMs_.solve += deviceMs;
    ++stepCount_;
}

// Dual updates. AVBD updates every contact after each sweep, which re-evaluates all of them.
// Without diagnostics (which read the multipliers between sweeps) the contacts' update after
// sweep k is done inside sweep k + 1 instead, by the first of each contact's two bodies to be
// solved there (the lower color), from the contact values that body evaluates anyway: both
// bodies are still where sweep k left them, so the result is the same to the bit, and no
// other body of that color touches the contact. After the last sweep a full pass remains.
void RigidSolver::iterate(int it) {
    const float h = stepH_;
    auto lap = [&](double& into) {
        const auto now = std::chrono::steady_clock::now();
        into += std::chrono::duration<double, std::milli>(now - clock_).count();
        clock_ = now;
    };
    const bool fuse = !params_.diagnostics;
    const bool dualInSweep = fuse && it > 0;
    const RigidView v = view();
    // Chunks of at least 4 bodies (~2.5 µs of 6x6 solves on the pyramid; the thread team's claims cost
    // ~0.05 µs): a pyramid color of ~105 bodies at 32 left up to 20 bodies' imbalance.
    for (const std::vector<int>& group : colorGroups_)
        parallelFor(
            group.size(),
            [&](size_t k) {
                solveRigidBody(v, group[k], h, dualInSweep, k + 1 < group.size() ? group[k + 1] : -1);
            },
            4);
    lap(stageMs_.solve);
    dualUpdate(!fuse || it + 1 == params_.iterations);
    lap(stageMs_.dual);
    recordIteration(it + 1, h);
    lap(stageMs_.other);
}

void RigidSolver::endStep() {
    StageClock clock;
    finalizeVelocities(stepH_);
    clock.lap(stageMs_.other);
    ++stepCount_;
}

// ---------------------------------------------------------------------------------------------

// The vectors' heap (a copy allocates each to its size); the shared arrays by their records (a list's storage
// may have more room, which its pages back only where a step once wrote: the landing's peak). The bodies'
// states, poses and x-, R-, v- are shared with the copy too, but the next step writes new ones (a copy or new
// storage), so each saved frame holds its own. The adjacency is not carried.
size_t RigidSolver::copyBytes() const {
    size_t b = sizeof(*this) + file_.size();
    b += state_.bytes() + pose_.bytes() + prevPos_.bytes() + prevRot_.bytes() + prevVel_.bytes();
    // The bodies' constants, shared by every copy of one solver: counted with each (a budget errs high).
    b += shape_.bytes() + mass_.bytes() + inertia_.bytes() + friction_.bytes() + fixed_.bytes();
    b += contacts_.size() * sizeof(Contact) + manifolds_.bytes();
    b += heapBytes(joints_) + heapBytes(jointPairs_) + heapBytes(iterations_);
    for (const std::string& w : warnings_) b += sizeof(std::string) + w.size();
    return b;
}

std::vector<RigidBodyView> RigidSolver::views() const {
    std::vector<RigidBodyView> v(state_.size());
    for (size_t i = 0; i < state_.size(); ++i) {
        v[i].shape = shape_[i].type;
        v[i].size = shape_[i].half * 2.0f;
        v[i].radius = shape_[i].radius;
        v[i].halfHeight = shape_[i].halfHeight;
        v[i].position = state_[i].position;
        v[i].rotation = state_[i].rotation;
        v[i].velocity = state_[i].velocity;
        v[i].angularVelocity = state_[i].angularVelocity;
        v[i].fixed = fixed_[i] != 0;
    }
    return v;
}

std::vector<ContactView> RigidSolver::contactViews() const {
    std::vector<BodyPose> poses(state_.size());
    for (size_t i = 0; i < state_.size(); ++i)
        poses[i] = makePose(Vec3d(state_[i].position), Quatd(state_[i].rotation));
    std::vector<ContactView> v;
    const std::vector<Contact>& contacts = contacts_.get();
    v.reserve(contacts.size());
    for (const Contact& c : contacts) {
        const ContactPoints cp = contactPoints(c, poses.data());
        v.push_back({Vec3((cp.nA + cp.nB) * 0.5), Vec3(c.n)});
    }
    return v;
}

// Each joint as drawn: the bodies' centers and their anchors in world space (bodyA = -1: the world anchor).
std::vector<JointView> RigidSolver::jointViews() const {
    std::vector<JointView> out;
    out.reserve(joints_.size());
    for (const Joint& j : joints_) {
        JointView v;
        v.bodyA = j.a;
        v.bodyB = j.b;
        if (j.a >= 0) {
            const RigidBodyState& a = state_[size_t(j.a)];
            v.centerA = a.position;
            v.anchorA = a.position + rotate(a.rotation, j.rA);
        } else {
            v.centerA = v.anchorA = j.rA;
        }
        const RigidBodyState& b = state_[size_t(j.b)];
        v.centerB = b.position;
        v.anchorB = b.position + rotate(b.rotation, j.rB);
        out.push_back(v);
    }
    return out;
}

double RigidSolver::kineticEnergy() const {
    double e = 0;
    for (size_t i = 0; i < state_.size(); ++i) {
        if (fixed_[i]) continue;
        const Vec3d w = rotateInv(Quatd(state_[i].rotation), Vec3d(state_[i].angularVelocity));
        e += 0.5 * mass_[i] * squaredNorm(Vec3d(state_[i].velocity)) + 0.5 * dot(w, mulDiag(inertia_[i], w));
    }
    return e;
}

double RigidSolver::totalMass() const {
    double m = 0;
    for (size_t i = 0; i < state_.size(); ++i)
        if (!fixed_[i]) m += mass_[i];
    return m;
}

Vec3d RigidSolver::massWeightedCom() const {
    Vec3d s(0.0);
    for (size_t i = 0; i < state_.size(); ++i)
        if (!fixed_[i]) s += Vec3d(state_[i].position) * mass_[i];
    return s;
}

double RigidSolver::maxSpeed() const {
    double v = 0;
    for (size_t i = 0; i < state_.size(); ++i)
        if (!fixed_[i])
            v = std::max(v, double(norm(state_[i].velocity)) +
                                double(norm(state_[i].angularVelocity)) * boundingRadius(shape_[i]));
    return v;
}

}  // namespace vbd
