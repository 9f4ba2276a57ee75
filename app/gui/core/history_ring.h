#pragma once
// The timeline's memory: one saved state per simulated frame (both labs of a side-by-side run at the
// same frame), oldest dropped first once their bytes exceed the budget. The simulation thread owns it;
// the UI sees its extent through TimelineInfo.
#include <cstddef>
#include <deque>
#include <memory>

#include "world/world.h"

namespace vbdgui {

class HistoryRing {
  public:
    struct Entry {
        int frame = 0;
        std::shared_ptr<const vbd::WorldState> state[2];
        size_t bytes = 0;
    };

    explicit HistoryRing(size_t budgetBytes) : budget_(budgetBytes) {}
    // Appends the state of a later frame than the newest one held (an earlier or equal frame first drops
    // the entries from it on: a new branch). Then drops the oldest entries while over the budget; the
    // newest one stays even if it alone is over.
    void push(Entry e);
    // Drops every entry after `frame` (a branch starts there).
    void dropAfter(int frame);
    void clear();
    void setBudget(size_t bytes);
    // The entry of exactly this frame, or nullptr.
    const Entry* find(int frame) const;

    bool empty() const { return entries_.empty(); }
    size_t size() const { return entries_.size(); }
    size_t bytes() const { return bytes_; }
    size_t budget() const { return budget_; }
    int oldest() const { return entries_.empty() ? 0 : entries_.front().frame; }
    int newest() const { return entries_.empty() ? -1 : entries_.back().frame; }
    // The frame of lab l's state in the oldest entry that has one (entries are numbered by lab 0's frame; lab
    // 1's own frames differ after it got a World of its own), or INT_MAX: none.
    int oldestFrameOf(int lab) const;

  private:
    void trim();
    std::deque<Entry> entries_;
    size_t budget_, bytes_ = 0;
};

}  // namespace vbdgui
