#pragma once
// The plots' window of a timeline's metrics, shared by successive snapshots instead of copied into each.
//
// Every stepped frame publishes a snapshot whose plots show the last 2,000 frames: copying them (2,000
// FrameMetrics, 320 KB) cost the simulation thread ~0.05 ms a frame, a tenth of the interop frame's host
// budget (docs/gpu.md). Here the frames live in a buffer with room for twice the window; a snapshot holds the
// buffer and a span into it, and the next frame is appended past every published span: elements once
// published are never written again (readers on the render thread read them without a lock; the snapshot
// handed over under the runner's mutex orders the writes before the reads). When the buffer is full, or the
// timeline loses frames (a restore's new branch, a new World), the next share starts a new buffer with a
// copy of the window: one copy per 2,000 frames instead of one per frame. Old buffers live as long as a
// snapshot holds them.
#include <memory>
#include <vector>

#include "diagnostics/metrics.h"

namespace vbdgui {

// Frames of metrics shared with their owner: span stays valid while owner is held.
struct SharedMetrics {
    std::shared_ptr<const std::vector<vbd::FrameMetrics>> owner;
    vbd::MetricsSpan span;
    // A copy of frames in a buffer of their own (snapshots not stepped from a timeline, tests).
    static SharedMetrics copyOf(std::vector<vbd::FrameMetrics> frames);
};

class MetricsWindow {
  public:
    explicit MetricsWindow(size_t window) : window_(window) {}
    // The timeline lost frames it had shared (a branch, a new World): the next share starts a new buffer.
    // Frames shared since the last reset must never change.
    void reset() { buf_.reset(); }
    // The last min(window, last - first) frames of [first, last): frames of the timeline in increasing frame
    // order, each once (the timeline as it is now, since the last reset only appended to). Nothing for none.
    SharedMetrics share(const vbd::FrameMetrics* first, const vbd::FrameMetrics* last);
    // Buffers started so far (a test's handle on "no copy per frame").
    size_t buffersStarted() const { return started_; }

  private:
    size_t window_;
    std::shared_ptr<std::vector<vbd::FrameMetrics>> buf_;
    size_t started_ = 0;
};

// Drops the timeline's frames before the plots' window (the `window` frames up to and including
// oldestShown) of the oldest frame the UI can still show: nothing can show them again, and an hour at 120
// frames a second would keep 69 MB of them. In batches of 4,096 frames, so that the erase is rare.
void dropUnreachable(std::vector<vbd::FrameMetrics>& timeline, int oldestShown, size_t window);

}  // namespace vbdgui
