#pragma once
// Inputs of the rigid narrow phase for the device narrow phase's checks (test_gpu_rigid_host,
// test_gpu_cuda_rigid): the candidate pairs, start-of-step states, shapes and margins RigidSolver's own
// detection used on every rigid-only built-in scene and a landing pile (with the manifolds it found), and a
// cluster of boxes, spheres and capsules (every pair of shape types, both orders, and the ground), whose
// reference manifolds come from the generic entry points collide / collidePlane rather than collidePair. The
// solvers' inputs carry the contact matching's too: last step's contacts and what the solver matched.
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu/narrow_phase_runner.h"
#include "rigid/contact_match.h"
#include "rigid/narrow_phase.h"
#include "rigid/rigid_scenes.h"
#include "rigid/rigid_solver.h"
#include "scene/scene.h"

#include "gpu_scenes.h"

namespace vbdtest {

struct NarrowInput {
    std::string name;
    std::vector<vbd::RigidBodyState> state;
    std::vector<vbd::Collider> shape;
    std::vector<float> margin;
    std::vector<std::pair<int, int>> pairs;
    float ground = 0;
    std::vector<vbd::Manifold> reference;  // one per pair; pts[0, count) written
    // From a solver only: the matching's inputs (copies of what RigidSolver::matchView points at, last
    // step's contacts and ranges) and what the solver's matching made of them.
    bool hasMatch = false;
    float h = 0;            // the step's size (the penalty floor m / h^2)
    vbd::MatchView params;  // the scalars; pointers unset
    std::vector<vbd::BodyPose> pose;
    std::vector<double> mass;
    std::vector<float> friction;
    std::vector<char> fixed;
    std::vector<vbd::Contact> oldContacts, contacts;
    std::vector<vbd::ManifoldRange> oldRanges, touching;
    // The view over the copies.
    vbd::MatchView view() const {
        vbd::MatchView v = params;
        v.state = state.data();
        v.pose = pose.data();
        v.shape = shape.data();
        v.mass = mass.data();
        v.friction = friction.data();
        v.fixed = fixed.data();
        v.oldContacts = oldContacts.data();
        v.oldManifolds = oldRanges.data();
        v.numOldManifolds = oldRanges.size();
        return v;
    }
};

// What the solver's detection of its next step used and found (beginStepForDevice stops before the forward
// step: states() are still the start-of-step states).
inline NarrowInput fromSolver(const std::string& name, vbd::RigidSolver& s, float h) {
    NarrowInput in;
    in.oldContacts = s.contacts();
    in.oldRanges = s.manifoldRanges();
    s.beginStepForDevice(h);
    in.hasMatch = true;
    in.h = h;
    in.params = s.matchView();
    in.pose = s.poses();
    for (int i = 0; i < s.numBodies(); ++i) {
        in.mass.push_back(s.mass(i));
        in.friction.push_back(s.friction(i));
        in.fixed.push_back(s.isFixed(i) ? 1 : 0);
    }
    in.contacts = s.contacts();
    in.touching = s.manifoldRanges();
    in.name = name;
    in.state = s.states();
    for (int i = 0; i < s.numBodies(); ++i) in.shape.push_back(s.collider(i));
    in.margin = s.margins();
    in.pairs = s.candidatePairList();
    in.ground = s.groundHeight();
    in.reference.assign(s.manifolds().begin(), s.manifolds().begin() + long(in.pairs.size()));
    return in;
}

// n bodies of the three shapes, random sizes and rotations, in a 3 m cube resting on the ground at y = 0.2:
// every pair closer than their bounding radii, and every body low enough for the ground.
inline NarrowInput mixedShapes(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    NarrowInput in;
    in.name = "mixed_shapes_" + std::to_string(n);
    in.ground = 0.2f;
    for (int i = 0; i < n; ++i) {
        vbd::Collider c;
        c.type = vbd::ShapeType(i % 3);
        c.half = vbd::Vec3(0.1f + 0.3f * u(rng), 0.1f + 0.3f * u(rng), 0.1f + 0.3f * u(rng));
        c.radius = 0.1f + 0.2f * u(rng);
        c.halfHeight = 0.3f * u(rng);
        vbd::RigidBodyState s;
        s.position = vbd::Vec3(3 * u(rng), 3 * u(rng), 3 * u(rng));
        s.rotation = normalized(vbd::Quat(u(rng) - 0.5f, u(rng) - 0.5f, u(rng) - 0.5f, u(rng) - 0.5f));
        in.shape.push_back(c);
        in.state.push_back(s);
        in.margin.push_back(0.01f + 0.03f * u(rng));
    }
    for (int i = 0; i < n; ++i)
        if (in.state[size_t(i)].position.y - vbd::boundingRadius(in.shape[size_t(i)]) < in.ground)
            in.pairs.push_back({-1, i});
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const float reach = vbd::boundingRadius(in.shape[size_t(i)]) +
                                vbd::boundingRadius(in.shape[size_t(j)]) + in.margin[size_t(i)] +
                                in.margin[size_t(j)];
            if (norm(in.state[size_t(i)].position - in.state[size_t(j)].position) < reach)
                in.pairs.push_back({i, j});
        }
    for (const auto& [a, b] : in.pairs) {
        vbd::Manifold m;
        const vbd::RigidBodyState& sb = in.state[size_t(b)];
        if (a < 0) {
            vbd::collidePlane(in.ground, in.shape[size_t(b)], {sb.position, sb.rotation},
                              in.margin[size_t(b)], m);
        } else {
            const vbd::RigidBodyState& sa = in.state[size_t(a)];
            vbd::collide(in.shape[size_t(a)], {sa.position, sa.rotation}, in.shape[size_t(b)],
                         {sb.position, sb.rotation}, in.margin[size_t(a)] + in.margin[size_t(b)], m);
        }
        in.reference.push_back(m);
    }
    return in;
}

// The runner's manifolds and counts for the input (upload, run, download).
inline void runNarrowPhase(vbd::NarrowPhaseRunner& runner, const NarrowInput& in,
                           std::vector<vbd::Manifold>& mans, std::vector<int>& count) {
    runner.upload(in.state, in.shape, in.margin, in.pairs, in.ground);
    runner.run();
    runner.download(mans, count);
}

// The runner's contact records for a solver's input (hasMatch), from the solver's own manifolds.
inline void runMatching(vbd::NarrowPhaseRunner& runner, const NarrowInput& in,
                        std::vector<vbd::Contact>& out) {
    runner.upload(in.state, in.shape, in.margin, in.pairs, in.ground);
    runner.setManifolds(in.reference);
    runner.match(in.view(), in.oldContacts.size(), in.touching, in.contacts.size(), in.h, out);
}

// Every rigid-only built-in scene after one second, a 1,500-box pile while it lands, the shape cluster.
inline std::vector<NarrowInput> narrowInputs() {
    std::vector<NarrowInput> out;
    for (const std::string& f : rigidOnlyScenes()) {
        const vbd::SceneDesc d = vbd::loadSceneFile(f, {});
        vbd::RigidSolver s(d);
        const float h = float(d.dt / d.substeps);
        for (int k = 0; k < 60 * d.substeps; ++k) s.step(h);
        out.push_back(fromSolver(std::filesystem::path(f).stem().string(), s, h));
    }
    vbd::SceneDesc pile = vbd::rigidPileScene(1500);
    pile.solver.diagnostics = false;
    vbd::RigidSolver s(pile);
    const float h = float(pile.dt / pile.substeps);
    for (int k = 0; k < 40; ++k) s.step(h);
    out.push_back(fromSolver("pile_1500", s, h));
    out.push_back(mixedShapes(300, 7));
    return out;
}

}  // namespace vbdtest
