// The box tree's plan (gpu/bounds_plan.h), checked by evaluating it on the host the way the launches do,
// level by level, against a direct loop: every range's box is the min / max of its particles, whatever the
// ranges (empty, single, overlapping, longer than fanIn^k), and the tree keeps the structure the launches
// rely on: items of one level write distinct boxes and read only boxes written by the levels below.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <vector>

#include "gpu/bounds_plan.h"

using namespace vbd;

namespace {

// A value per particle; a range's "box" here is its min and max.
struct MinMax {
    int lo = 1 << 30, hi = -(1 << 30);
    MinMax operator+(const MinMax& o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }
    bool operator==(const MinMax& o) const { return lo == o.lo && hi == o.hi; }
};

std::vector<MinMax> evaluate(const BoundsPlan& p, const std::vector<int>& value, size_t ranges) {
    std::vector<MinMax> boxes(size_t(p.numBoxes));
    std::vector<char> written(size_t(p.numBoxes), 0);
    for (int l = 0; l < p.levels(); ++l) {
        std::set<int> outs;
        for (int k = p.levelStart[size_t(l)]; k < p.levelStart[size_t(l) + 1]; ++k) {
            const BoundsItem& it = p.items[size_t(k)];
            EXPECT_LT(it.begin, it.end) << "an empty item";
            EXPECT_TRUE(outs.insert(it.out).second) << "two items of level " << l << " write box " << it.out;
            MinMax b;
            for (int i = it.begin; i < it.end; ++i) {
                if (l == 0) {
                    b = b + MinMax{value[size_t(i)], value[size_t(i)]};
                } else {
                    EXPECT_TRUE(written[size_t(i)]) << "level " << l << " reads box " << i << " unwritten";
                    EXPECT_FALSE(outs.count(i) && i != it.out) << "level " << l << " reads its own output";
                    b = b + boxes[size_t(i)];
                }
            }
            boxes[size_t(it.out)] = b;
        }
        for (int o : outs) written[size_t(o)] = 1;
    }
    std::vector<MinMax> out(ranges);
    for (size_t r = 0; r < ranges; ++r)
        if (p.rangeBox[r] >= 0) out[r] = boxes[size_t(p.rangeBox[r])];
    return out;
}

}  // namespace

TEST(BoundsPlan, EveryRangesBoxIsItsParticlesMinAndMax) {
    std::mt19937 rng(7);
    const int n = 40000;
    std::vector<int> value(n);
    for (int& v : value) v = int(rng() % 2000001) - 1000000;
    std::vector<std::array<int, 2>> ranges = {{0, n},  {5, 5},  {0, 1},      {n - 1, n},   {31, 33},
                                              {0, 32}, {0, 33}, {100, 1124}, {1124, 1125}, {30000, 39999}};
    for (int k = 0; k < 300; ++k) {  // many small bodies, as a pile of 300 soft cubes
        const int b = int(rng() % n), len = int(rng() % 200);
        ranges.push_back({b, std::min(n, b + len)});
    }
    for (const int fanIn : {2, 3, 32}) {
        SCOPED_TRACE("fanIn " + std::to_string(fanIn));
        const BoundsPlan p = planRangeBounds(ranges, fanIn);
        const std::vector<MinMax> got = evaluate(p, value, ranges.size());
        for (size_t r = 0; r < ranges.size(); ++r) {
            MinMax own;
            for (int i = ranges[r][0]; i < ranges[r][1]; ++i)
                own = own + MinMax{value[size_t(i)], value[size_t(i)]};
            EXPECT_EQ(p.rangeBox[r] < 0, ranges[r][0] == ranges[r][1]) << "range " << r;
            EXPECT_TRUE(got[r] == own) << "range " << r;
        }
        // Levels: the longest range (n) needs ceil(log_fanIn(n)) + 1 of them, whatever the number of ranges.
        int need = 1;
        for (long span = fanIn; span < n; span *= fanIn) ++need;
        EXPECT_EQ(p.levels(), need);
    }
    EXPECT_THROW(planRangeBounds(ranges, 1), std::invalid_argument);
}

TEST(BoundsPlan, NoRangesOrOnlyEmptyOnesPlanNothing) {
    const BoundsPlan none = planRangeBounds({}, 32);
    EXPECT_EQ(none.numBoxes, 0);
    const BoundsPlan empty = planRangeBounds({{3, 3}, {0, 0}}, 32);
    EXPECT_EQ(empty.numBoxes, 0);
    EXPECT_EQ(empty.rangeBox, (std::vector<int>{-1, -1}));
}
