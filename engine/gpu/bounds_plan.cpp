#include "gpu/bounds_plan.h"

#include <algorithm>
#include <stdexcept>

namespace vbd {

BoundsPlan planRangeBounds(const std::vector<std::array<int, 2>>& ranges, int fanIn) {
    if (fanIn < 2) throw std::invalid_argument("planRangeBounds: fanIn below 2");
    BoundsPlan p;
    p.rangeBox.assign(ranges.size(), -1);
    // Per range, the span of its boxes at the level last made: level 0 splits its particles, each level
    // above the boxes of the one below, into items of at most fanIn.
    std::vector<std::array<int, 2>> span(ranges.size(), {0, 0});
    auto split = [&](size_t r, int b, int e) {
        span[r][0] = p.numBoxes;
        for (int s = b; s < e; s += fanIn) p.items.push_back({s, std::min(s + fanIn, e), p.numBoxes++});
        span[r][1] = p.numBoxes;
    };
    p.levelStart.push_back(0);
    for (size_t r = 0; r < ranges.size(); ++r) split(r, ranges[r][0], ranges[r][1]);
    p.levelStart.push_back(int(p.items.size()));
    for (;;) {
        bool more = false;
        for (size_t r = 0; r < ranges.size(); ++r) {
            if (span[r][1] - span[r][0] <= 1) continue;
            split(r, span[r][0], span[r][1]);
            more = true;
        }
        if (!more) break;
        p.levelStart.push_back(int(p.items.size()));
    }
    for (size_t r = 0; r < ranges.size(); ++r)
        if (span[r][1] > span[r][0]) p.rangeBox[r] = span[r][0];
    return p;
}

}  // namespace vbd
