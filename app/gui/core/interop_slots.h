#pragma once
// The window's CUDA-Vulkan interop hand-over (docs/gpu.md "Interop", the window): the simulation thread
// writes the particle vertex records of a frame into one of S exported buffers right after a device step,
// and the render thread draws that buffer. Two timeline semaphores per lab order the GPU work, each with a
// single signaller whose values only grow:
//   simDone    signalled by CUDA with the write number w = 1, 2, ... (the simulation thread's stream);
//   renderDone signalled by Vulkan with the draw number r = 1, 2, ... (every window submit that reads a
//   slot).
// A write into slot s waits (on the device) renderDone >= lastRead[s], the draw number of the last submit
// that read s; a submit waits simDone >= w of the write it reads, at VERTEX_INPUT. The host waits for
// neither.
//
// The host-side rule that makes those waits sufficient and never wait on a value nobody will signal:
//  - the writer claims a slot that is neither `held` (the render thread may still submit draws of it), nor
//    `taken` (the render thread took the snapshot naming it and will draw it next: it blocks in the
//    swapchain's acquire in between, up to a display refresh, while the simulation may write several frames),
//    nor `published` (the latest snapshot names it; the render thread may be about to take it), so with S >=
//    4 there is always one, and its lastRead was given to a submit that has already been made (a draw number
//    is handed out just before its submit, and the slot stops being held only at the next draw's hand-out);
//  - claiming renumbers the slot, so an older snapshot naming it no longer matches and that frame is drawn
//    from the snapshot's host copy (CPU upload) instead of reading a buffer being rewritten;
//  - a frame names the slots it was written through (InteropFrame::owner): a lab whose link was remade (a
//    change of backend or precision) restarts its numbers, and a snapshot of the old link must not match.
// Pure logic: no CUDA, no Vulkan (tests/app/test_interop_slots.cpp).
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/interop_cuda.h"
#include "gui/core/heat_scale.h"

namespace vbdgui {

// What a snapshot carries for the render thread: slot -1 = no interop frame (the step ran on the CPU, an
// edit re-published the state, the lab has no interop): upload from the snapshot.
struct InteropFrame {
    int slot = -1;
    std::uint64_t simDone = 0;  // the write number: wait simDone >= this
    bool bodies = false;        // the write also wrote the slot's rigid body instances
    std::uint64_t owner = 0;    // InteropSlots::id() of the slots it was written through
    // The records' heat-map scalars: the frame's field mapped with `scale` (mapped), or the scalars the
    // render thread set, version `scalars` of them (WindowVertexLink::scalarsCurrent decides whether they are
    // still the ones to draw).
    bool mapped = false;
    HeatScale scale = {};
    std::uint64_t scalars = 0;
};

class InteropSlots {
  public:
    explicit InteropSlots(int slots);
    int size() const { return int(lastRead_.size()); }
    std::uint64_t id() const { return id_; }  // unique in the process (InteropFrame::owner)

    struct Claim {
        int slot = -1;
        std::uint64_t waitRenderDone = 0;  // 0: never drawn, no wait
        std::uint64_t simDone = 0;         // the value the write signals
    };
    // Writer (simulation thread): a slot to write the next frame into (always one with >= 4 slots).
    Claim claim();
    // Writer: the claimed frame is in the snapshot about to be published.
    void publish(const Claim& c);

    // Reader (render thread), when it takes the snapshot it will draw next: f's slot is kept from the writer
    // until that draw (beginDraw) or release(). False when f no longer matches its slot (or is another
    // slots' frame): nothing kept, the frame will be drawn from the host copy.
    bool take(InteropFrame f);
    // Reader: the draw number the submit that reads f must signal, and f's slot is held from now on (no
    // longer taken); 0 when f's slot has been claimed again since or f is another slots' frame (draw that
    // frame from the host copy).
    std::uint64_t beginDraw(InteropFrame f);
    // Reader: the frame it draws next does not read any slot (CPU upload); the held slot may be rewritten
    // once the draws already submitted are done, and the taken one at once.
    void release();

    int held() const;
    int taken() const;
    int published() const;

  private:
    mutable std::mutex m_;
    std::vector<std::uint64_t> lastRead_;  // draw number of the last submit that read the slot
    std::vector<std::uint64_t> written_;   // write number the slot holds (or is being written with)
    std::uint64_t writes_ = 0, draws_ = 0;
    int held_ = -1, taken_ = -1, published_ = -1, next_ = 0;
    std::uint64_t id_;
    bool matches(const InteropFrame& f) const {
        return f.owner == id_ && f.slot >= 0 && f.slot < size() && written_[size_t(f.slot)] == f.simDone;
    }
};

// One lab's link between the two threads: the CUDA writer (owned with the Vulkan objects by the render
// thread's SceneGpu) and the slots. The simulation thread calls write() under the mutex only; detach() takes
// the writer away before the render thread destroys it, so no write is issued into freed imports.
class WindowVertexLink {
  public:
    WindowVertexLink(std::uint64_t generation, std::shared_ptr<vbd::ExternalVertexWriter> writer, int slots)
        : generation_(generation), writer_(std::move(writer)), slots_(slots) {}
    std::uint64_t generation() const { return generation_; }
    InteropSlots& slots() { return slots_; }

    // Simulation thread, right after a device step (src.current; for a World without particles on the
    // device, bodies.current): writes into a claimed slot (gpu/interop_cuda.h: the records made from src.x on
    // the step's stream, nothing read from the host) and returns the frame for the snapshot; {} when detached
    // or nothing is current. The body instances are written too when bodies is current and the table set
    // last has its body count (InteropFrame::bodies). field: this frame's values of `fieldKind` (the field
    // the simulation thread computes for its snapshots), mapped to the records' scalars with the scale set
    // last when it is of that field (heat_scale.h: the frame's own heat map); otherwise the records carry the
    // scalars set last.
    InteropFrame write(const vbd::DeviceParticles& src, const vbd::DeviceRigidBodies& bodies = {},
                       const std::vector<float>* field = nullptr,
                       vbd::ScalarField fieldKind = vbd::ScalarField::None);
    // Render thread: the heat-map scalars of the frame it draws (empty = none) and the scale it made them
    // with (field None: the material tint or nothing, which a frame does not change), for the next writes;
    // set before scalarsCurrent is asked about that frame.
    void setScalars(const std::vector<float>& scalar01, const HeatScale& scale = {});
    // Render thread: whether f's records carry the scalars set last (its field mapped with the same scale, or
    // those very scalars): else the frame is drawn from the snapshot, whose upload maps them anew (a scale,
    // range or tint changed after the write, which a held or paused scene would otherwise keep showing).
    bool scalarsCurrent(const InteropFrame& f);
    // Render thread: the body instance table (draw order, the palette) of a World of numBodies bodies, for
    // the next writes; a change of colour reaches the buffers one write later, like the scalars.
    void setBodies(const std::vector<vbd::BodyInstanceShape>& table, int numBodies);
    // Render thread, before it destroys the writer.
    void detach();

  private:
    std::mutex m_;
    std::uint64_t generation_;
    std::shared_ptr<vbd::ExternalVertexWriter> writer_;
    InteropSlots slots_;
    std::vector<float> scalar01_;
    std::uint64_t scalarsVersion_ = 1;  // of scalar01_
    HeatScale scale_;
    std::vector<float> fieldScratch_, frameScalars_;  // a write's field, mapped (heatScalars consumes it)
    std::vector<vbd::BodyInstanceShape> table_;
    int tableBodies_ = 0;
};

}  // namespace vbdgui
