// The timeline's ring (gui/core/history_ring.h): which frame of each lab its oldest state is, which bounds
// the metrics the runner keeps for the plots (dropUnreachable). Entries are numbered by lab 0's frame; lab
// 1's own frames differ once it got a World of its own (a carry that failed), and must not be trimmed by lab
// 0's.
#include <gtest/gtest.h>

#include <climits>
#include <memory>

#include "gui/core/history_ring.h"

namespace vbdgui {
namespace {

struct SizedState final : vbd::WorldState {
    size_t bytes() const override { return 100; }
};

std::shared_ptr<const vbd::WorldState> stateAt(int frame) {
    auto s = std::make_shared<SizedState>();
    s->frame = frame;
    return s;
}

TEST(HistoryRing, TheOldestFrameOfEachLab) {
    HistoryRing ring(1000);  // ten entries of one lab, five of two
    EXPECT_EQ(ring.oldestFrameOf(0), INT_MAX);
    for (int f = 1; f <= 8; ++f) {
        HistoryRing::Entry e;
        e.frame = f;
        e.state[0] = stateAt(f);
        if (f >= 3) e.state[1] = stateAt(f - 2 + 500);  // lab 1's World was replaced: its own frames
        ring.push(std::move(e));
    }
    // 100 + 100 bytes an entry with both labs: the budget keeps the last five of frames 4..8.
    EXPECT_EQ(ring.oldest(), 4);
    EXPECT_EQ(ring.oldestFrameOf(0), 4);
    EXPECT_EQ(ring.oldestFrameOf(1), 502);
}

}  // namespace
}  // namespace vbdgui
