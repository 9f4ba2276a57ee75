#pragma once
// NarrowPhaseRunner (gpu/narrow_phase_runner.h) over an executor: CudaExec or HostExec.
#include <utility>
#include <vector>

#include "gpu/exec_buffer.h"
#include "gpu/narrow_phase_runner.h"
#include "gpu/rigid_stages.h"

namespace vbd {

template <class Exec>
class NarrowPipeline final : public NarrowPhaseRunner {
  public:
    explicit NarrowPipeline(Exec ex = Exec()) : ex_(std::move(ex)) {}
    ~NarrowPipeline() override {
        ex_.drain();
        state_.free(ex_);
        shape_.free(ex_);
        margin_.free(ex_);
        rot_.free(ex_);
        pairs_.free(ex_);
        manifolds_.free(ex_);
        count_.free(ex_);
        pose_.free(ex_);
        mass_.free(ex_);
        friction_.free(ex_);
        fixed_.free(ex_);
        oldContacts_.free(ex_);
        oldRanges_.free(ex_);
        touching_.free(ex_);
        contacts_.free(ex_);
    }
    NarrowPipeline(const NarrowPipeline&) = delete;
    NarrowPipeline& operator=(const NarrowPipeline&) = delete;

    void upload(const std::vector<RigidBodyState>& state, const std::vector<Collider>& shape,
                const std::vector<float>& margin, const std::vector<std::pair<int, int>>& pairs,
                float groundHeight) override {
        bodies_ = int(state.size());
        numPairs_ = int(pairs.size());
        ground_ = groundHeight;
        toBodyPairs(pairs, hostPairs_);
        state_.put(ex_, state.data(), state.size());
        shape_.put(ex_, shape.data(), shape.size());
        margin_.put(ex_, margin.data(), margin.size());
        pairs_.put(ex_, hostPairs_.data(), hostPairs_.size());
        rot_.ensure(ex_, state.size());
        manifolds_.ensure(ex_, pairs.size());
        count_.ensure(ex_, pairs.size());
        ex_.sync();
    }
    void run() override {
        ex_.forEach(bodies_, RigidRotationStage{state_.p, rot_.p});
        ex_.forEach(numPairs_, RigidNarrowStage{pairs_.p, state_.p, rot_.p, shape_.p, margin_.p, ground_,
                                                manifolds_.p, count_.p});
        ex_.sync();
    }
    void download(std::vector<Manifold>& manifolds, std::vector<int>& count) override {
        manifolds.resize(size_t(numPairs_));
        count.resize(size_t(numPairs_));
        ex_.download(manifolds.data(), manifolds_.p, manifolds.size());
        ex_.download(count.data(), count_.p, count.size());
        ex_.sync();
    }

    void setManifolds(const std::vector<Manifold>& manifolds) override {
        manifolds_.put(ex_, manifolds.data(), manifolds.size());
        ex_.sync();
    }
    void match(const MatchView& view, size_t numOld, const std::vector<ManifoldRange>& touching,
               size_t contacts, float h, std::vector<Contact>& out) override {
        const size_t n = size_t(bodies_);
        MatchView dv = view;
        dv.state = state_.p;
        dv.shape = shape_.p;
        dv.pose = pose_.put(ex_, view.pose, n);
        dv.mass = mass_.put(ex_, view.mass, n);
        dv.friction = friction_.put(ex_, view.friction, n);
        dv.fixed = fixed_.put(ex_, view.fixed, n);
        dv.oldContacts = oldContacts_.put(ex_, view.oldContacts, numOld);
        dv.oldManifolds = oldRanges_.put(ex_, view.oldManifolds, view.numOldManifolds);
        touching_.put(ex_, touching.data(), touching.size());
        contacts_.ensure(ex_, contacts);
        matchView_ = dv;
        numTouching_ = int(touching.size());
        rematch(h);
        out.resize(contacts);
        ex_.download(out.data(), contacts_.p, contacts);
        ex_.sync();
    }
    void rematch(float h) override {
        ex_.forEach(numTouching_, RigidMatchStage{matchView_, touching_.p, manifolds_.p, h, contacts_.p});
        ex_.sync();
    }

  private:
    Exec ex_;
    ExecBuffer<Exec, RigidBodyState> state_;
    ExecBuffer<Exec, Collider> shape_;
    ExecBuffer<Exec, float> margin_;
    ExecBuffer<Exec, Mat33> rot_;
    ExecBuffer<Exec, BodyPair> pairs_;
    ExecBuffer<Exec, Manifold> manifolds_;
    ExecBuffer<Exec, int> count_;
    ExecBuffer<Exec, BodyPose> pose_;
    ExecBuffer<Exec, double> mass_;
    ExecBuffer<Exec, float> friction_;
    ExecBuffer<Exec, char> fixed_;
    ExecBuffer<Exec, Contact> oldContacts_, contacts_;
    ExecBuffer<Exec, ManifoldRange> oldRanges_, touching_;
    MatchView matchView_;
    int numTouching_ = 0;
    std::vector<BodyPair> hostPairs_;
    int bodies_ = 0, numPairs_ = 0;
    float ground_ = 0;
};

}  // namespace vbd
