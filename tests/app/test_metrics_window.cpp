// The plots' window of metrics shared by snapshots (gui/core/metrics_window.h): every share is the last
// 2,000 frames of the timeline as it is; what an earlier snapshot holds never changes; and a growing timeline
// starts a new buffer once per window's worth of frames, not a copy per frame.
#include <gtest/gtest.h>

#include <vector>

#include "gui/core/metrics_window.h"

using vbdgui::MetricsWindow;
using vbdgui::SharedMetrics;

namespace {

constexpr size_t kWindow = 2000;

vbd::FrameMetrics frameMetrics(int frame, double branch) {
    vbd::FrameMetrics m;
    m.frame = frame;
    m.energy = frame + branch;  // tells branches with the same frame numbers apart
    return m;
}

// The last min(kWindow, n) frames of timeline[0, n), compared field by field with what was shared.
void expectWindow(const SharedMetrics& s, const std::vector<vbd::FrameMetrics>& timeline, size_t n) {
    const size_t k = std::min(kWindow, n);
    ASSERT_EQ(s.span.size(), k);
    for (size_t i = 0; i < k; ++i) {
        ASSERT_EQ(s.span[i].frame, timeline[n - k + i].frame) << i;
        ASSERT_EQ(s.span[i].energy, timeline[n - k + i].energy) << i;
    }
}

}  // namespace

TEST(MetricsWindow, GrowingTimelineSharedWithoutACopyPerFrame) {
    MetricsWindow w(kWindow);
    std::vector<vbd::FrameMetrics> t;
    t.reserve(
        10000);  // the test reads t while sharing; the runner's vector may reallocate (the window copies)
    SharedMetrics early;
    std::vector<vbd::FrameMetrics> earlyCopy;
    for (int f = 1; f <= 9000; ++f) {
        t.push_back(frameMetrics(f, 0));
        const SharedMetrics s = w.share(t.data(), t.data() + t.size());
        expectWindow(s, t, t.size());
        if (f == 1500) {
            early = s;
            earlyCopy.assign(s.span.begin(), s.span.end());
        }
    }
    // 9,000 frames: the first buffer holds 4,000, each later one starts with 2,000 and takes 2,000 more. A
    // copy per frame would have started 9,000.
    EXPECT_EQ(w.buffersStarted(), 4u);
    // The snapshot of frame 1,500 still reads its frames (its buffer was appended to, then left behind).
    ASSERT_EQ(early.span.size(), earlyCopy.size());
    for (size_t i = 0; i < earlyCopy.size(); ++i) {
        ASSERT_EQ(early.span[i].frame, earlyCopy[i].frame);
        ASSERT_EQ(early.span[i].energy, earlyCopy[i].energy);
    }
}

TEST(MetricsWindow, AnEarlierFrameShownIsAViewOfTheSameBuffer) {
    MetricsWindow w(kWindow);
    std::vector<vbd::FrameMetrics> t;
    t.reserve(3500);
    for (int f = 1; f <= 3000; ++f) t.push_back(frameMetrics(f, 0));
    SharedMetrics now = w.share(t.data(), t.data() + t.size());  // frames 1,001 to 3,000
    for (int f = 3001; f <= 3500; ++f) {
        t.push_back(frameMetrics(f, 0));
        now = w.share(t.data(), t.data() + t.size());
    }
    // A restored frame 3,200 (the timeline keeps the later frames until a step branches): its window, frames
    // 1,201 to 3,200, is in the buffer.
    const SharedMetrics back = w.share(t.data(), t.data() + 3200);
    expectWindow(back, t, 3200);
    EXPECT_EQ(back.owner.get(), now.owner.get());
    EXPECT_EQ(w.buffersStarted(), 1u);
    // A frame whose window starts before the buffer does: a buffer of its own.
    const SharedMetrics older = w.share(t.data(), t.data() + 200);
    expectWindow(older, t, 200);
    EXPECT_EQ(w.buffersStarted(), 2u);
    expectWindow(now, t, 3500);
}

TEST(MetricsWindow, ABranchAfterResetIsSharedAndTheOldBranchKept) {
    MetricsWindow w(kWindow);
    std::vector<vbd::FrameMetrics> t;
    SharedMetrics first;
    for (int f = 1; f <= 2200; ++f) {  // shared frame by frame: one buffer holds frames 1 to 2,200
        t.push_back(frameMetrics(f, 0));
        first = w.share(t.data(), t.data() + t.size());
    }
    ASSERT_EQ(w.buffersStarted(), 1u);
    const std::vector<vbd::FrameMetrics> firstCopy(first.span.begin(), first.span.end());
    // Back to frame 2,100 and a different run from there (a parameter edit): same frame numbers, new values.
    t.resize(2100);
    w.reset();
    for (int f = 2101; f <= 2300; ++f) {
        t.push_back(frameMetrics(f, 0.5));
        expectWindow(w.share(t.data(), t.data() + t.size()), t, t.size());
    }
    ASSERT_EQ(first.span.size(), firstCopy.size());
    for (size_t i = 0; i < firstCopy.size(); ++i) ASSERT_EQ(first.span[i].energy, firstCopy[i].energy) << i;
    EXPECT_EQ(first.span.back().energy, 2200.0);
}

// A timeline that holds a frame twice (the runner once pushed the last frame again after a step that threw)
// is still shared within its buffer and ending on its last frame: before, the span reached one element past
// the buffer's end.
TEST(MetricsWindow, ARepeatedFrameStaysInsideTheBuffer) {
    MetricsWindow w(kWindow);
    std::vector<vbd::FrameMetrics> t;
    for (int f = 1; f <= 100; ++f) {
        t.push_back(frameMetrics(f, 0));
        w.share(t.data(), t.data() + t.size());
    }
    t.push_back(t.back());  // frame 100 again
    for (int f = 0; f < 3; ++f) {
        const SharedMetrics s = w.share(t.data(), t.data() + t.size());
        ASSERT_EQ(s.span.size(), t.size());
        EXPECT_LE(s.span.data() + s.span.size(), s.owner->data() + s.owner->size());
        EXPECT_EQ(s.span.back().frame, t.back().frame);
        t.push_back(frameMetrics(t.back().frame + 1, 0));
    }
}

TEST(MetricsWindow, EmptyAndCopied) {
    MetricsWindow w(kWindow);
    std::vector<vbd::FrameMetrics> t;
    EXPECT_TRUE(w.share(t.data(), t.data()).span.empty());
    t.push_back(frameMetrics(1, 0));
    w.share(t.data(), t.data() + 1);
    EXPECT_TRUE(w.share(t.data(), t.data()).span.empty());  // a restore to frame 0
    t.push_back(frameMetrics(2, 0));
    w.share(t.data(), t.data() + 2);
    EXPECT_EQ(w.buffersStarted(), 1u);  // the empty share kept the buffer
    t.clear();
    t.push_back(frameMetrics(7, 0));
    const SharedMetrics c = SharedMetrics::copyOf(t);
    t[0].frame = 8;
    ASSERT_EQ(c.span.size(), 1u);
    EXPECT_EQ(c.span.front().frame, 7);
}

// The timeline keeps the plots' window of the oldest frame the UI can show, and drops what is before in
// batches: a long run's metrics stay bounded.
TEST(MetricsWindow, FramesNoShownFrameReachesAreDropped) {
    std::vector<vbd::FrameMetrics> t;
    size_t most = 0;
    for (int f = 1; f <= 60000; ++f) {
        t.push_back(frameMetrics(f, 0));
        const int oldestShown = std::max(1, f - 3000);  // a timeline ring holding the last 3,000 frames
        vbdgui::dropUnreachable(t, oldestShown, kWindow);
        most = std::max(most, t.size());
        // The oldest frame's plots (its 2,000 frames up to it) are all still there.
        ASSERT_LE(t.front().frame, std::max(1, oldestShown - int(kWindow) + 1)) << f;
    }
    // 3,000 ring frames + 2,000 of the oldest's window + less than a batch: not the 60,000 frames run.
    EXPECT_LT(most, 3000u + kWindow + 4096u + 1u);
    EXPECT_EQ(t.back().frame, 60000);
}
