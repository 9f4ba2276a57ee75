#include "gui/core/history_ring.h"

#include <algorithm>
#include <limits>

namespace vbdgui {

void HistoryRing::push(Entry e) {
    dropAfter(e.frame - 1);
    e.bytes = 0;
    for (const auto& s : e.state)
        if (s) e.bytes += s->bytes();
    bytes_ += e.bytes;
    entries_.push_back(std::move(e));
    trim();
}

void HistoryRing::dropAfter(int frame) {
    while (!entries_.empty() && entries_.back().frame > frame) {
        bytes_ -= entries_.back().bytes;
        entries_.pop_back();
    }
}

void HistoryRing::clear() {
    entries_.clear();
    bytes_ = 0;
}

void HistoryRing::setBudget(size_t bytes) {
    budget_ = bytes;
    trim();
}

void HistoryRing::trim() {
    while (entries_.size() > 1 && bytes_ > budget_) {
        bytes_ -= entries_.front().bytes;
        entries_.pop_front();
    }
}

int HistoryRing::oldestFrameOf(int lab) const {
    for (const Entry& e : entries_)
        if (e.state[lab]) return e.state[lab]->frame;
    return std::numeric_limits<int>::max();
}

const HistoryRing::Entry* HistoryRing::find(int frame) const {
    // Frames increase along the deque (push keeps them so).
    auto it = std::lower_bound(entries_.begin(), entries_.end(), frame,
                               [](const Entry& e, int f) { return e.frame < f; });
    return it != entries_.end() && it->frame == frame ? &*it : nullptr;
}

}  // namespace vbdgui
