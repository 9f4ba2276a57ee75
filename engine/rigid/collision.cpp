#include "rigid/collision.h"

#include <algorithm>
#include <cmath>

#include "backend/parallel.h"

namespace vbd {

Aabb shapeAabb(const Collider& c, const Pose& x, float margin) {
    Vec3 e;
    if (c.type == ShapeType::Box) {
        Mat33 R = toMatrix(x.q);
        for (int i = 0; i < 3; ++i)
            e[i] = std::fabs(R.m[i][0]) * c.half.x + std::fabs(R.m[i][1]) * c.half.y +
                   std::fabs(R.m[i][2]) * c.half.z;
    } else if (c.type == ShapeType::Sphere) {
        e = Vec3(c.radius);
    } else {
        Vec3 a = narrow_detail::capsuleAxis(x) * c.halfHeight;
        e = Vec3(std::fabs(a.x) + c.radius, std::fabs(a.y) + c.radius, std::fabs(a.z) + c.radius);
    }
    e += Vec3(margin);
    return {x.p - e, x.p + e};
}

namespace {

// (cell key, box) for every cell a box touches (s.raw, boxes in ascending order), then grouped by a hash of
// the cell key into s.entries: a counting sort into 2^b buckets (b such that there are at least as many
// buckets as entries; 32-bit counts), boxes in ascending order within a bucket. (Twice as many buckets with
// 64-bit counts made the serial count, prefix and scan walk a 2 MB array on the 10,000-box pile: bench_rigid,
// 2 threads, alternating runs, the broad phase 2.63-2.83 -> 2.56-2.62 ms.) A bucket may hold several cells,
// which pairsInBucket tells apart by their keys. (A comparison sort of the entries was half of the
// 10,000-box pile's broad phase.) Boxes touching more than 64 cells go to s.big instead (ascending) and are
// tested against all others. s.bucketStart: the first entry of each non-empty bucket, and the entry count
// last. The cells are counted and written box by box in parallel, at offsets from a prefix sum.
void cellEntries(const std::vector<Aabb>& boxes, const BroadGrid& g, BroadPhaseScratch& s) {
    const int n = int(boxes.size());
    s.cellCount.resize(size_t(n) + 1);
    parallelFor(
        size_t(n), [&](size_t i) { s.cellCount[i + 1] = g.cellCount(boxes[i]); }, 1024);
    s.big.clear();
    s.cellCount[0] = 0;
    for (int i = 0; i < n; ++i) {
        int& c = s.cellCount[size_t(i) + 1];
        if (c < 0) {
            s.big.push_back(i);
            c = 0;
        }
        c += s.cellCount[size_t(i)];
    }
    s.raw.resize(size_t(s.cellCount[size_t(n)]));
    parallelFor(
        size_t(n),
        [&](size_t i) {
            int lo[3], hi[3];
            g.range(boxes[i], lo, hi);
            size_t out = size_t(s.cellCount[i]);
            if (out == size_t(s.cellCount[i + 1])) return;  // big, or no cell
            for (int x = lo[0]; x <= hi[0]; ++x)
                for (int y = lo[1]; y <= hi[1]; ++y)
                    for (int z = lo[2]; z <= hi[2]; ++z) s.raw[out++] = {BroadGrid::key(x, y, z), int(i)};
        },
        1024);
    int bits = 4;
    while ((size_t(1) << bits) < s.raw.size() && bits < 30) ++bits;
    // Fibonacci hashing: the top bits of key * 2^64 / phi.
    auto bucketOf = [bits](uint64_t key) { return size_t((key * 0x9E3779B97F4A7C15ull) >> (64 - bits)); };
    std::vector<uint32_t>& count = s.bucketCount;
    count.assign((size_t(1) << bits) + 1, 0);
    for (const auto& e : s.raw) ++count[bucketOf(e.first) + 1];
    for (size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    s.bucketStart.clear();
    for (size_t b = 0; b + 1 < count.size(); ++b)
        if (count[b + 1] > count[b]) s.bucketStart.push_back(count[b]);
    s.bucketStart.push_back(s.raw.size());
    s.entries.resize(s.raw.size());
    for (const auto& e : s.raw) s.entries[count[bucketOf(e.first)]++] = e;
}

// Pairs of the boxes in entries[s, e) that share a cell, reported only by the cell holding the min corner
// of their overlap (once per pair). Lower index first.
void pairsInBucket(const std::vector<Aabb>& boxes, const BroadGrid& g,
                   const std::vector<std::pair<uint64_t, int>>& entries, size_t s, size_t e,
                   std::vector<std::pair<int, int>>& pairs) {
    for (size_t u = s; u < e; ++u)
        for (size_t v = u + 1; v < e; ++v) {
            if (entries[u].first != entries[v].first) continue;
            int i = entries[u].second, j = entries[v].second;
            const Aabb &a = boxes[size_t(i)], &b = boxes[size_t(j)];
            if (!boxesOverlap(a, b) || g.overlapKey(a, b) != entries[u].first) continue;
            pairs.push_back({std::min(i, j), std::max(i, j)});
        }
}

// Pairs of the big boxes with every other box; two big boxes are reported once, from the smaller index.
void pairsWithBig(const std::vector<Aabb>& boxes, const std::vector<int>& big,
                  std::vector<std::pair<int, int>>& pairs) {
    const int n = int(boxes.size());
    for (int i : big)
        for (int j = 0; j < n; ++j) {
            if (i == j) continue;
            bool jBig = std::binary_search(big.begin(), big.end(), j);
            if (jBig && j < i) continue;
            if (boxesOverlap(boxes[size_t(i)], boxes[size_t(j)]))
                pairs.push_back({std::min(i, j), std::max(i, j)});
        }
}

// The pairs of s.unsorted into `pairs`, sorted and without duplicates: a counting sort by the first index
// (the pairs of one box are contiguous), then each box's few partners sorted apart, in parallel. (A
// comparison sort of the whole list was a third of the pile's broad phase.)
void sortPairs(int n, BroadPhaseScratch& s, std::vector<std::pair<int, int>>& pairs) {
    std::vector<int>& start = s.pairStart;
    start.assign(size_t(n) + 1, 0);
    for (const auto& p : s.unsorted) ++start[size_t(p.first) + 1];
    for (int i = 0; i < n; ++i) start[size_t(i) + 1] += start[size_t(i)];
    pairs.resize(s.unsorted.size());
    for (const auto& p : s.unsorted) pairs[size_t(start[size_t(p.first)]++)] = p;
    // start[i] is now the end of box i's run, the beginning of box i + 1's.
    parallelFor(
        size_t(n),
        [&](size_t i) {
            const auto b = pairs.begin() + (i == 0 ? 0 : start[i - 1]), e = pairs.begin() + start[i];
            std::sort(b, e);
        },
        512);
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
}

}  // namespace

BroadGrid broadGridFor(const std::vector<Aabb>& boxes, std::vector<float>& ext) {
    const size_t n = boxes.size();
    BroadGrid g;
    if (n == 0) return g;
    ext.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const Vec3 d = boxes[i].hi - boxes[i].lo;
        ext[i] = std::max(d.x, std::max(d.y, d.z));
    }
    std::nth_element(ext.begin(), ext.begin() + long(n / 2), ext.end());
    const float cell = std::max(2.0f * ext[n / 2], 1e-4f);
    g.inv = 1.0f / cell;
    return g;
}

void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs,
                BroadPhaseScratch& scratch) {
    pairs.clear();
    if (boxes.size() < 2) return;
    const BroadGrid g = broadGridFor(boxes, scratch.extent);
    cellEntries(boxes, g, scratch);
    // Buckets in chunks of kBuckets, each chunk's pairs into its own list; the lists are joined in chunk
    // order and sorted, so the result does not depend on the schedule.
    constexpr size_t kBuckets = 256;
    const std::vector<size_t>& bucketStart = scratch.bucketStart;
    const size_t buckets = bucketStart.size() - 1;
    std::vector<std::vector<std::pair<int, int>>>& part = scratch.part;
    part.resize((buckets + kBuckets - 1) / kBuckets);
    parallelFor(
        part.size(),
        [&](size_t c) {
            part[c].clear();
            for (size_t k = c * kBuckets; k < std::min(buckets, (c + 1) * kBuckets); ++k)
                pairsInBucket(boxes, g, scratch.entries, bucketStart[k], bucketStart[k + 1], part[c]);
        },
        1);
    scratch.unsorted.clear();
    for (const auto& p : part) scratch.unsorted.insert(scratch.unsorted.end(), p.begin(), p.end());
    pairsWithBig(boxes, scratch.big, scratch.unsorted);
    sortPairs(int(boxes.size()), scratch, pairs);
}

void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs) {
    BroadPhaseScratch scratch;
    broadPhase(boxes, pairs, scratch);
}

}  // namespace vbd
