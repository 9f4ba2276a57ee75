#include "gui/core/metrics_window.h"

#include <algorithm>

namespace vbdgui {

SharedMetrics SharedMetrics::copyOf(std::vector<vbd::FrameMetrics> frames) {
    auto owner = std::make_shared<const std::vector<vbd::FrameMetrics>>(std::move(frames));
    const vbd::MetricsSpan span(*owner);
    return {std::move(owner), span};
}

SharedMetrics MetricsWindow::share(const vbd::FrameMetrics* first, const vbd::FrameMetrics* last) {
    const size_t n = std::min(window_, size_t(last - first));
    if (n == 0) return {};  // (the buffer stays for the frames to come)
    const vbd::FrameMetrics* from = last - n;
    const auto byFrame = [](const vbd::FrameMetrics& a, const vbd::FrameMetrics& b) {
        return a.frame < b.frame;
    };
    if (buf_ && !buf_->empty()) {
        std::vector<vbd::FrameMetrics>& v = *buf_;
        // The buffer is a run of the timeline's frames: where the window starts in it, if it does.
        const auto at = std::lower_bound(v.begin(), v.end(), *from, byFrame);
        if (at != v.end() && at->frame == from->frame) {
            // The window's frames past the buffer's last (none when a restored, earlier frame is shown).
            const vbd::FrameMetrics* fresh = std::upper_bound(from, last, v.back(), byFrame);
            const size_t start = size_t(at - v.begin()), end = v.size() + size_t(last - fresh);
            // The span must lie in the buffer and end on the window's last frame; a timeline that repeated a
            // frame would not give that: then a buffer of its own.
            const auto endsRight = [&] {
                const size_t k = start + n - 1;
                return (k < v.size() ? v[k] : fresh[k - v.size()]).frame == (last - 1)->frame;
            };
            if (end <= v.capacity() && start + n <= end && endsRight()) {
                v.insert(v.end(), fresh,
                         last);  // within the capacity: published elements stay where they are
                return {buf_, vbd::MetricsSpan(v.data() + start, n)};
            }
        }
    }
    buf_ = std::make_shared<std::vector<vbd::FrameMetrics>>();
    buf_->reserve(std::max<size_t>(2 * window_, 1));
    buf_->assign(from, last);
    ++started_;
    return {buf_, vbd::MetricsSpan(buf_->data(), n)};
}

void dropUnreachable(std::vector<vbd::FrameMetrics>& timeline, int oldestShown, size_t window) {
    constexpr size_t kBatch = 4096;
    // The window of oldestShown starts at its window-th frame back: frames before it are unreachable.
    const auto shown = std::lower_bound(timeline.begin(), timeline.end(), oldestShown,
                                        [](const vbd::FrameMetrics& x, int f) { return x.frame < f; });
    const size_t keep =
        size_t(shown - timeline.begin()) > window ? size_t(shown - timeline.begin()) - window : 0;
    if (keep >= kBatch) timeline.erase(timeline.begin(), timeline.begin() + long(keep));
}

}  // namespace vbdgui
