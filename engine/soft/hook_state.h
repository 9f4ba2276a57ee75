#pragma once
// What code outside the sweep reads of a SoftState<T> in double -- the iterate (iterateInDouble: the
// coupling's positions), a sweep hook's view (sweep_hook.h) -- and the write of a hook's update: one source
// for the CPU solver (SoftSolver::stepPositions, hookView, correctT) and the device step (gpu/pipeline.h),
// which downloads the state's arrays into a host SoftState and calls the same functions on it.
#include <vector>

#include "soft/soft_state.h"
#include "soft/state_update.h"
#include "soft/sweep_hook.h"

namespace vbd {

// The iterate in double: x_prev + dx exactly in the increment form.
template <typename T>
void iterateInDouble(const SoftState<T>& st, std::vector<Vec3d>& out) {
    if (!st.increments) {
        convertInto(out, st.x);
        return;
    }
    out.resize(st.x.size());
    for (size_t i = 0; i < st.x.size(); ++i) out[i] = Vec3d(st.xPrev[i]) + Vec3d(st.dx[i]);
}

// The view: a double state's own arrays, or a float one widened into `w`. In the increment form x = x_prev +
// dx and y = x_prev + dy are formed exactly in double, so the hook's gradient sees the state the kernel
// iterates on, not x rounded to float.
template <typename T>
HookView hookViewOf(const SoftModel& m, const SoftState<T>& st, HookWidened& w, bool refreshStepData,
                    const HookSettings& s) {
    if constexpr (std::is_same_v<T, double>) {
        (void)w, (void)refreshStepData;
        return HookView{m, st.x, st.xPrev, st.y, s.h, s.damping, s.drag, s.contact, true};
    } else {
        iterateInDouble(st, w.x);
        if (refreshStepData || w.xPrev.size() != st.xPrev.size()) {
            convertInto(w.xPrev, st.xPrev);
            if (st.increments) {
                w.y.resize(st.y.size());
                for (size_t i = 0; i < st.y.size(); ++i) w.y[i] = Vec3d(st.xPrev[i]) + Vec3d(st.dy[i]);
            } else {
                convertInto(w.y, st.y);
            }
        }
        return HookView{m, w.x, w.xPrev, w.y, s.h, s.damping, s.drag, s.contact, false};
    }
}

// Adds the hook's displacement to the listed free vertices: in double, rounded once to T (in the increment
// form to dx, with x = fl(x_prev + dx)). Returns whether any vertex was written.
template <typename T>
bool applyHookUpdate(const SoftModel& m, SoftState<T>& st, const HookUpdate& u) {
    Vec3T<T>* inc = st.increments ? st.dx.data() : nullptr;
    bool wrote = false;
    for (int v : u.vertices) {
        const size_t i = size_t(v);
        if (m.fixed[i]) continue;
        if (inc)
            setIterateValue(st.x.data(), inc, st.xPrev.data(), v, Vec3T<T>(Vec3d(inc[i]) + u.dx[i]));
        else
            st.x[i] = Vec3T<T>(Vec3d(st.x[i]) + u.dx[i]);
        wrote = true;
    }
    return wrote;
}

}  // namespace vbd
