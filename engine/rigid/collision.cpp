#include "rigid/collision.h"

#include <algorithm>
#include <cmath>

#include "backend/parallel.h"

namespace vbd {

namespace {

Vec3 capsuleAxis(const Pose& x) { return rotate(x.q, Vec3(0, 1, 0)); }

Vec3 closestOnSegment(const Vec3& a, const Vec3& b, const Vec3& p, float* tOut = nullptr) {
    Vec3 ab = b - a;
    float l2 = dot(ab, ab);
    float t = l2 > 1e-20f ? std::clamp(dot(p - a, ab) / l2, 0.0f, 1.0f) : 0.0f;
    if (tOut) *tOut = t;
    return a + ab * t;
}

// Closest points between segments p1q1 and p2q2 (Ericson, Real-Time Collision Detection 5.1.9).
void closestSegments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1, Vec3& c2) {
    Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
    float a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    float s = 0, t = 0;
    if (a <= 1e-12f && e <= 1e-12f) {
        c1 = p1;
        c2 = p2;
        return;
    }
    if (a <= 1e-12f) {
        t = std::clamp(f / e, 0.0f, 1.0f);
    } else {
        float c = dot(d1, r);
        if (e <= 1e-12f) {
            s = std::clamp(-c / a, 0.0f, 1.0f);
        } else {
            float b = dot(d1, d2), den = a * e - b * b;
            s = den > 1e-12f * a * e ? std::clamp((b * f - c * e) / den, 0.0f, 1.0f) : 0.0f;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = std::clamp(-c / a, 0.0f, 1.0f);
            } else if (t > 1) {
                t = 1;
                s = std::clamp((b - c) / a, 0.0f, 1.0f);
            }
        }
    }
    c1 = p1 + d1 * s;
    c2 = p2 + d2 * t;
}

// Sphere (center ca, radius ra) against sphere; normal from A to B.
bool sphereSphere(const Vec3& ca, float ra, const Vec3& cb, float rb, float margin, Vec3& n,
                  ManifoldPoint& p) {
    Vec3 d = cb - ca;
    float l = norm(d);
    if (l - ra - rb > margin) return false;
    n = l > 1e-9f ? d / l : Vec3(0, 1, 0);
    p.pA = ca + n * ra;
    p.pB = cb - n * rb;
    return true;
}

// Point c against box (A); normal from the box to the point's sphere of radius r.
bool boxSphere(const Vec3& h, const Pose& xa, const Vec3& c, float r, float margin, Vec3& n,
               ManifoldPoint& p) {
    Vec3 lc = rotateInv(xa.q, c - xa.p);
    Vec3 cl = cwiseMax(cwiseMin(lc, h), -h);
    Vec3 ln;
    float dist;
    Vec3 onBox;
    if (cl.x == lc.x && cl.y == lc.y && cl.z == lc.z) {
        // Center inside: push out through the nearest face.
        float best = 1e30f;
        int axis = 0;
        for (int i = 0; i < 3; ++i) {
            float d = h[i] - std::fabs(lc[i]);
            if (d < best) best = d, axis = i;
        }
        ln = Vec3(0.0f);
        ln[axis] = lc[axis] >= 0 ? 1.0f : -1.0f;
        onBox = lc;
        onBox[axis] = ln[axis] * h[axis];
        dist = -best;
    } else {
        Vec3 d = lc - cl;
        dist = norm(d);
        ln = d / dist;
        onBox = cl;
    }
    if (dist - r > margin) return false;
    n = rotate(xa.q, ln);
    p.pA = xa.p + rotate(xa.q, onBox);
    p.pB = c - n * r;
    return true;
}

}  // namespace

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
        Vec3 a = capsuleAxis(x) * c.halfHeight;
        e = Vec3(std::fabs(a.x) + c.radius, std::fabs(a.y) + c.radius, std::fabs(a.z) + c.radius);
    }
    e += Vec3(margin);
    return {x.p - e, x.p + e};
}

namespace {

// Uniform grid of the broad phase. Cell size: twice the median box extent, so a typical box touches at
// most 8 cells.
class BroadGrid {
  public:
    BroadGrid(const std::vector<Aabb>& boxes, std::vector<float>& ext) {
        const size_t n = boxes.size();
        ext.resize(n);
        for (size_t i = 0; i < n; ++i) {
            Vec3 d = boxes[i].hi - boxes[i].lo;
            ext[i] = std::max(d.x, std::max(d.y, d.z));
        }
        std::nth_element(ext.begin(), ext.begin() + long(n / 2), ext.end());
        const float cell = std::max(2.0f * ext[n / 2], 1e-4f);
        inv_ = 1.0f / cell;
    }
    int cellOf(float v) const { return int(std::floor(v * inv_)); }
    // 21 bits per axis (cells -2^20 .. 2^20 - 1; beyond, keys alias, which costs only extra overlap tests).
    static uint64_t key(int x, int y, int z) {
        return (uint64_t(uint32_t(x + (1 << 20)) & 0x1FFFFF) << 42) |
               (uint64_t(uint32_t(y + (1 << 20)) & 0x1FFFFF) << 21) |
               uint64_t(uint32_t(z + (1 << 20)) & 0x1FFFFF);
    }
    // The cell holding the min corner of the overlap of a and b: the one cell that reports the pair.
    uint64_t overlapKey(const Aabb& a, const Aabb& b) const {
        return key(cellOf(std::max(a.lo.x, b.lo.x)), cellOf(std::max(a.lo.y, b.lo.y)),
                   cellOf(std::max(a.lo.z, b.lo.z)));
    }
    // The cells a box touches, as [lo, hi] per axis.
    void range(const Aabb& b, int lo[3], int hi[3]) const {
        lo[0] = cellOf(b.lo.x);
        lo[1] = cellOf(b.lo.y);
        lo[2] = cellOf(b.lo.z);
        hi[0] = cellOf(b.hi.x);
        hi[1] = cellOf(b.hi.y);
        hi[2] = cellOf(b.hi.z);
    }

  private:
    float inv_ = 1;
};

bool overlap(const Aabb& a, const Aabb& b) {
    return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
           b.lo.z <= a.hi.z;
}

constexpr int kMaxCells = 64;  // a box touching more cells is `big`

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
        size_t(n),
        [&](size_t i) {
            int lo[3], hi[3];
            g.range(boxes[i], lo, hi);
            const double cells = double(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
            s.cellCount[i + 1] = cells > kMaxCells ? -1 : int(cells);
        },
        1024);
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
            if (!overlap(a, b) || g.overlapKey(a, b) != entries[u].first) continue;
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
            if (overlap(boxes[size_t(i)], boxes[size_t(j)]))
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

void broadPhase(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs,
                BroadPhaseScratch& scratch) {
    pairs.clear();
    if (boxes.size() < 2) return;
    const BroadGrid g(boxes, scratch.extent);
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

int reduceManifold(ManifoldPoint* pts, const float* sep, int count, const Vec3& n) {
    if (count <= 4) return count;
    int idx[4];
    // 1: the extreme point along a tangent of the normal; 2: farthest from it; 3: largest
    // triangle; 4: largest area added outside it. The choice is purely geometric on purpose:
    // starting from the deepest point (as many engines do) feeds back on itself -- the kept side
    // of an octagonal overlap (two boxes yawed against each other) is pushed up, the other side
    // sinks and becomes the deepest -- and a yawed 10-box stack rocked until it fell.
    (void)sep;
    const Vec3 u =
        std::fabs(n.x) < 0.6f ? normalized(cross(n, Vec3(1, 0, 0))) : normalized(cross(n, Vec3(0, 1, 0)));
    idx[0] = 0;
    for (int i = 1; i < count; ++i)
        if (dot(pts[i].pB, u) > dot(pts[idx[0]].pB, u) + 1e-6f) idx[0] = i;
    const Vec3 p0 = pts[idx[0]].pB;
    float best = -1;
    idx[1] = idx[0] == 0 ? 1 : 0;
    for (int i = 0; i < count; ++i) {
        float d = squaredNorm(pts[i].pB - p0);
        if (d > best) best = d, idx[1] = i;
    }
    const Vec3 p1 = pts[idx[1]].pB;
    best = -1;
    idx[2] = -1;
    float sgn = 1;
    for (int i = 0; i < count; ++i) {
        if (i == idx[0] || i == idx[1]) continue;
        float a = dot(cross(p1 - p0, pts[i].pB - p0), n);
        if (std::fabs(a) > best) best = std::fabs(a), idx[2] = i, sgn = a >= 0 ? 1.0f : -1.0f;
    }
    const Vec3 p2 = pts[idx[2]].pB;
    // Triangle (p0, p1, p2) has orientation sgn about n; the fourth point is the one with the most
    // negative signed area against one of the triangle's edges (farthest outside it).
    best = 0;
    idx[3] = -1;
    const Vec3 tri[3] = {p0, p1, p2};
    for (int i = 0; i < count; ++i) {
        if (i == idx[0] || i == idx[1] || i == idx[2]) continue;
        for (int e = 0; e < 3; ++e) {
            float a = -sgn * dot(cross(tri[(e + 1) % 3] - tri[e], pts[i].pB - tri[e]), n);
            if (a > best) best = a, idx[3] = i;
        }
    }
    ManifoldPoint out[4];
    int m = 0;
    for (int k = 0; k < 4; ++k)
        if (idx[k] >= 0) out[m++] = pts[idx[k]];
    for (int k = 0; k < m; ++k) pts[k] = out[k];
    return m;
}

int collidePlane(float height, const Collider& c, const Pose& x, float margin, Manifold& m) {
    m.count = 0;
    m.normal = Vec3(0, 1, 0);
    auto add = [&](const Vec3& pb, uint32_t key, float* sep) {
        float s = pb.y - height;
        if (s > margin) return;
        sep[m.count] = s;
        m.pts[m.count].pB = pb;
        m.pts[m.count].pA = Vec3(pb.x, height, pb.z);
        m.pts[m.count].key = key;
        ++m.count;
    };
    float sep[8];
    if (c.type == ShapeType::Box) {
        // Up to 8 corners; manifold keeps 4 (a resting box has exactly its 4 bottom corners).
        ManifoldPoint all[8];
        float s8[8];
        int k = 0;
        for (uint32_t i = 0; i < 8; ++i) {
            Vec3 l((i & 1) ? c.half.x : -c.half.x, (i & 2) ? c.half.y : -c.half.y,
                   (i & 4) ? c.half.z : -c.half.z);
            Vec3 pb = x.p + rotate(x.q, l);
            float s = pb.y - height;
            if (s > margin) continue;
            all[k].pB = pb;
            all[k].pA = Vec3(pb.x, height, pb.z);
            all[k].key = i;
            s8[k++] = s;
        }
        k = reduceManifold(all, s8, k, m.normal);
        for (int i = 0; i < k; ++i) m.pts[i] = all[i];
        m.count = k;
        return m.count;
    }
    if (c.type == ShapeType::Sphere) {
        add(x.p - Vec3(0, c.radius, 0), 0, sep);
        return m.count;
    }
    Vec3 a = capsuleAxis(x) * c.halfHeight;
    add(x.p + a - Vec3(0, c.radius, 0), 0, sep);
    add(x.p - a - Vec3(0, c.radius, 0), 1, sep);
    return m.count;
}

namespace {

// A one-point manifold (sphere pairs, box-sphere).
int singlePoint(const Vec3& n, const ManifoldPoint& p, Manifold& m) {
    m.normal = n;
    m.pts[0] = p;
    return m.count = 1;
}

// Segment against box: the two end spheres, plus the segment point closest to the box (alternating
// projections converge for a convex box and a segment) when it is interior. The manifold normal is
// that of the deepest point.
int collideBoxCapsule(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb, float margin,
                      Manifold& m) {
    Vec3 ax = capsuleAxis(xb) * b.halfHeight;
    Vec3 e0 = xb.p + ax, e1 = xb.p - ax;
    Vec3 s = xb.p;
    for (int it = 0; it < 8; ++it) {
        Vec3 l = rotateInv(xa.q, s - xa.p);
        Vec3 onBox = xa.p + rotate(xa.q, cwiseMax(cwiseMin(l, a.half), -a.half));
        s = closestOnSegment(e0, e1, onBox);
    }
    float t;
    closestOnSegment(e0, e1, s, &t);
    const Vec3 cand[3] = {e0, e1, s};
    const int nc = (t > 0.05f && t < 0.95f) ? 3 : 2;
    float bestSep = 1e30f;
    Vec3 n;
    ManifoldPoint p;
    for (int i = 0; i < nc; ++i) {
        if (!boxSphere(a.half, xa, cand[i], b.radius, margin, n, p)) continue;
        float sp = dot(n, p.pB - p.pA);
        p.key = uint32_t(i);
        m.pts[m.count++] = p;
        if (sp < bestSep) bestSep = sp, m.normal = n;
    }
    return m.count;
}

// Capsule-capsule: closest points of the core segments; near-parallel overlapping capsules get a
// second point from B's other end so they rest on a line instead of a pivot.
int collideCapsules(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb, float margin,
                    Manifold& m) {
    Vec3 aa = capsuleAxis(xa) * a.halfHeight, ab = capsuleAxis(xb) * b.halfHeight;
    Vec3 a0 = xa.p + aa, a1 = xa.p - aa, b0 = xb.p + ab, b1 = xb.p - ab;
    Vec3 c1, c2, n;
    ManifoldPoint p;
    closestSegments(a0, a1, b0, b1, c1, c2);
    if (!sphereSphere(c1, a.radius, c2, b.radius, margin, n, p)) return 0;
    m.normal = n;
    p.key = 0;
    m.pts[m.count++] = p;
    Vec3 da = normalized(aa), db = normalized(ab);
    if (!(a.halfHeight > 0 && b.halfHeight > 0 && std::fabs(dot(da, db)) > 0.995f)) return m.count;
    for (int e = 0; e < 2; ++e) {
        Vec3 be = e == 0 ? b0 : b1;
        Vec3 ca = closestOnSegment(a0, a1, be);
        if (squaredNorm(ca - c1) < 1e-4f * a.halfHeight * a.halfHeight) continue;
        ManifoldPoint q;
        Vec3 n2;
        if (!sphereSphere(ca, a.radius, be, b.radius, margin, n2, q)) continue;
        // Keep the first point's normal (one normal per manifold).
        q.pA = ca + n * a.radius;
        q.pB = be - n * b.radius;
        q.key = uint32_t(1 + e);
        m.pts[m.count++] = q;
        break;
    }
    return m.count;
}

}  // namespace

int collide(const Collider& a, const Pose& xa, const Collider& b, const Pose& xb, float margin, Manifold& m) {
    m.count = 0;
    // Canonical order box < sphere < capsule; solve the swapped pair and flip it back.
    if (int(a.type) > int(b.type)) {
        int k = collide(b, xb, a, xa, margin, m);
        m.normal = -m.normal;
        for (int i = 0; i < k; ++i) std::swap(m.pts[i].pA, m.pts[i].pB);
        return k;
    }
    Vec3 n;
    ManifoldPoint p;
    if (a.type == ShapeType::Box && b.type == ShapeType::Box)
        return collideBoxBox(a.half, xa, b.half, xb, margin, m);
    if (a.type == ShapeType::Box && b.type == ShapeType::Sphere)
        return boxSphere(a.half, xa, xb.p, b.radius, margin, n, p) ? singlePoint(n, p, m) : 0;
    if (a.type == ShapeType::Box && b.type == ShapeType::Capsule)
        return collideBoxCapsule(a, xa, b, xb, margin, m);
    if (a.type == ShapeType::Sphere && b.type == ShapeType::Sphere)
        return sphereSphere(xa.p, a.radius, xb.p, b.radius, margin, n, p) ? singlePoint(n, p, m) : 0;
    if (a.type == ShapeType::Sphere && b.type == ShapeType::Capsule) {
        Vec3 ax = capsuleAxis(xb) * b.halfHeight;
        Vec3 c = closestOnSegment(xb.p + ax, xb.p - ax, xa.p);
        return sphereSphere(xa.p, a.radius, c, b.radius, margin, n, p) ? singlePoint(n, p, m) : 0;
    }
    return collideCapsules(a, xa, b, xb, margin, m);
}

}  // namespace vbd
