#include "world/world_state.h"

#include "backend/bytes.h"
#include "rigid/rigid_solver.h"

namespace vbd {

namespace {

template <typename T>
size_t stateBytes(const SoftState<T>& s) {
    size_t b = 0;
    for (const auto* a : {&s.x, &s.v, &s.xPrev, &s.y, &s.vLast, &s.chebPrev, &s.chebPrevPrev, &s.force})
        b += heapBytes(*a);
    return b + heapBytes(s.Cprev);
}

}  // namespace

size_t WorldStateData::bytes() const {
    size_t b = sizeof(*this);
    b += heapBytes(soft.x) + heapBytes(soft.v) + heapBytes(soft.xPrev) + heapBytes(soft.y) +
         heapBytes(soft.vLast);
    b += stateBytes(carried.f) + stateBytes(carried.d) + heapBytes(carried.residual);
    if (device) b += device->bytes();
    // The rigid solver's copy, its contacts included (11 MB of a landed 10,000-box pile's 17: counting 0.3 KB
    // a body, as before, let the timeline hold 4.6 times its budget of such frames).
    if (rigid) b += rigid->copyBytes();
    b += heapBytes(lastIterations);  // the description is the World's, shared: not counted per frame
    return b;
}

const std::vector<RigidBodyState>& WorldStateData::bodyStates() const {
    static const std::vector<RigidBodyState> none;
    return rigid ? rigid->states() : none;
}

void WorldStateData::particles(std::vector<Vec3>* x, std::vector<Vec3>* v) const {
    if (device) {
        device->particles(x, v);
        return;
    }
    if (x) *x = soft.x;
    if (v) *v = soft.v;
}

void saveSoft(const SoftSolver& solver, WorldStateData& out, bool withState) {
    const SoftModel& m = solver.model();
    out.soft = SoftArrays{m.x, m.v, m.xPrev, m.y, m.vLast};
    if (withState) {
        out.carried = solver.carried();
        return;
    }
    out.carried = SoftSolver::Carried{};
    out.carried.time = solver.clock();
    out.carried.residual = solver.vertexResidual();
}

namespace {

template <typename T>
SoftArrays publishedArrays(const SoftState<T>& s) {
    auto rounded = [](const std::vector<Vec3T<T>>& a) { return std::vector<Vec3>(a.begin(), a.end()); };
    return {s.publishedX, s.publishedV, rounded(s.xPrev), rounded(s.y), rounded(s.vLast)};
}

}  // namespace

void hostForm(const WorldStateData& s, WorldStateData& out) {
    out.carried = SoftSolver::Carried{};
    s.device->toHost(out.carried);
    out.carried.time = s.carried.time;
    out.soft = !out.carried.d.x.empty() ? publishedArrays(out.carried.d) : publishedArrays(out.carried.f);
}

bool restoreSoft(SoftSolver& solver, const WorldStateData& s) {
    SoftModel& m = solver.model();
    const SoftArrays& a = s.soft;
    // A state of other element counts (same vertex count) fails SoftState::ready and is reseeded.
    if (a.x.size() != m.x.size()) return false;
    m.x = a.x;
    m.v = a.v;
    m.xPrev = a.xPrev;
    m.y = a.y;
    m.vLast = a.vLast;
    solver.setCarried(s.carried);
    return true;
}

}  // namespace vbd
