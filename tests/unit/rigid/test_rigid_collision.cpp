// Narrow and broad phase of the rigid solver against hand-computed configurations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "rigid/collision.h"

namespace vbd {
namespace {

Collider boxShape(const Vec3& half) {
    Collider c;
    c.half = half;
    return c;
}

float sepOf(const Manifold& m, int i) { return dot(m.normal, m.pts[i].pB - m.pts[i].pA); }

// Geometry in float: 1e-5 m is ~100 ulps at these coordinates.
constexpr float kTol = 1e-5f;

TEST(RigidCollision, BoxRestingOnBoxFace) {
    // B (1 m cube) sunk 1 cm into A (2 x 1 x 2): four points at B's bottom corners, normal +y,
    // each separated by -0.01.
    Manifold m;
    int n = collide(boxShape(Vec3(1, 0.5f, 1)), {Vec3(0, 0, 0), Quat()}, boxShape(Vec3(0.5f)),
                    {Vec3(0.2f, 0.99f, 0), Quat()}, 0.01f, m);
    ASSERT_EQ(n, 4);
    EXPECT_NEAR(m.normal.y, 1.0f, kTol);
    for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(sepOf(m, i), -0.01f, kTol);
        EXPECT_NEAR(std::fabs(m.pts[i].pB.x - 0.2f), 0.5f, kTol);
        EXPECT_NEAR(m.pts[i].pA.y, 0.5f, kTol);  // projected onto A's top face
    }
}

TEST(RigidCollision, YawedBoxClipsToFourPoints) {
    // Two equal cubes, the upper one turned 45 degrees about y: the overlap of the faces is an
    // octagon (8 clip points); the manifold keeps 4 of them, all with the same separation and
    // spanning a large part of the octagon (area > half of the inscribed square 0.5 m^2).
    Manifold m;
    int n = collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, boxShape(Vec3(0.5f)),
                    {Vec3(0, 0.995f, 0), fromAxisAngle(Vec3(0, 1, 0), 0.7853982f)}, 0.01f, m);
    ASSERT_EQ(n, 4);
    EXPECT_NEAR(std::fabs(m.normal.y), 1.0f, kTol);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(sepOf(m, i), -0.005f, kTol);
    // Shoelace area of the 4 points in x-z (ordered by angle).
    std::vector<std::pair<float, Vec3>> p;
    for (int i = 0; i < n; ++i) p.push_back({std::atan2(m.pts[i].pA.z, m.pts[i].pA.x), m.pts[i].pA});
    std::sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    float area = 0;
    for (int i = 0; i < n; ++i) {
        const Vec3 &a = p[size_t(i)].second, &b = p[size_t((i + 1) % n)].second;
        area += 0.5f * (a.x * b.z - b.x * a.z);
    }
    EXPECT_GT(std::fabs(area), 0.5f);
}

TEST(RigidCollision, EdgeEdgeGivesOnePoint) {
    // A: cube rotated 45 degrees about z (an edge along z on top at y = sqrt(2)/2). B: cube
    // rotated 45 degrees about x (an edge along x at its bottom), lowered 1 cm into A's edge.
    const float r = 0.70710678f;
    Manifold m;
    int n = collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), fromAxisAngle(Vec3(0, 0, 1), 0.7853982f)},
                    boxShape(Vec3(0.5f)),
                    {Vec3(0, 2 * r - 0.01f, 0), fromAxisAngle(Vec3(1, 0, 0), 0.7853982f)}, 0.02f, m);
    ASSERT_EQ(n, 1);
    EXPECT_NEAR(m.normal.y, 1.0f, 1e-4f);
    EXPECT_NEAR(sepOf(m, 0), -0.01f, 1e-4f);
    EXPECT_NEAR(m.pts[0].pA.y, r, 1e-4f);
    EXPECT_NEAR(norm(Vec3(m.pts[0].pA.x, 0, m.pts[0].pA.z)), 0.0f, 1e-4f);
}

TEST(RigidCollision, SeparatedBeyondMarginIsNoContact) {
    Manifold m;
    EXPECT_EQ(collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, boxShape(Vec3(0.5f)),
                      {Vec3(0, 1.05f, 0), Quat()}, 0.01f, m),
              0);
    // Within the margin: a speculative contact with positive separation.
    EXPECT_EQ(collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, boxShape(Vec3(0.5f)),
                      {Vec3(0, 1.005f, 0), Quat()}, 0.01f, m),
              4);
    EXPECT_NEAR(sepOf(m, 0), 0.005f, kTol);
}

// The separating axis test of two boxes in double, the textbook way: every axis as a unit vector (face
// normals, and the edge-edge cross products that are not near parallel), the separation along it
// |d . n| - sum_k h_k |ax_k . n| for each box, and the largest of the 15 (faces only: of the 6 face normals).
double referenceSeparation(const Vec3& ha, const Pose& xa, const Vec3& hb, const Pose& xb,
                           bool facesOnly = false) {
    const Mat33 Ra = toMatrix(xa.q), Rb = toMatrix(xb.q);
    Vec3d a[3], b[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = Vec3d(Ra.col(k));
        b[k] = Vec3d(Rb.col(k));
    }
    const Vec3d d = Vec3d(xb.p) - Vec3d(xa.p);
    auto along = [&](const Vec3d& n) {
        double r = 0;
        for (int k = 0; k < 3; ++k)
            r += double(ha[k]) * std::fabs(dot(a[k], n)) + double(hb[k]) * std::fabs(dot(b[k], n));
        return std::fabs(dot(d, n)) - r;
    };
    double sep = -1e30;
    for (int k = 0; k < 3; ++k) sep = std::max({sep, along(a[k]), along(b[k])});
    if (facesOnly) return sep;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const Vec3d n = cross(a[i], b[j]);
            if (norm(n) > 1e-2) sep = std::max(sep, along(n / norm(n)));
        }
    return sep;
}

// Random box pairs near contact, many of them separated only along an edge-edge axis: the narrow phase's
// early outs (face axes, then the edge axes from the cosine matrix) report no contact exactly where the
// reference finds a separation beyond the margin, and a contact wherever the boxes overlap by more than a
// millimetre. Pairs within 1e-4 m of the margin are not judged: float geometry at these coordinates is
// good to ~1e-6 m, the band leaves a wide berth.
TEST(RigidCollision, BoxBoxSeparationMatchesTheReferenceTest) {
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), size(0.1f, 0.6f);
    const float margin = 0.01f;
    int separated = 0, touching = 0, edgeSeparated = 0;
    for (int t = 0; t < 20000; ++t) {
        const Vec3 ha(size(rng), size(rng), size(rng)), hb(size(rng), size(rng), size(rng));
        const Pose xa{Vec3(0.0f), normalized(Quat(1.0f + u(rng), u(rng), u(rng), u(rng)))};
        const Vec3 dir = normalized(Vec3(u(rng), u(rng), u(rng)));
        // Centres at a distance around where the boxes meet (between the inscribed and bounding radii).
        const float reach = norm(ha) + norm(hb),
                    inner = std::min({ha.x, ha.y, ha.z}) + std::min({hb.x, hb.y, hb.z});
        const float dist = inner + (reach - inner) * (0.5f + 0.5f * u(rng));
        const Pose xb{dir * dist, normalized(Quat(1.0f + u(rng), u(rng), u(rng), u(rng)))};
        const double ref = referenceSeparation(ha, xa, hb, xb);
        if (std::fabs(ref - margin) < 1e-4 || std::fabs(ref + 1e-3) < 1e-4) continue;
        Manifold m;
        const int n = collide(boxShape(ha), xa, boxShape(hb), xb, margin, m);
        if (ref > margin) {
            ASSERT_EQ(n, 0) << "pair " << t << ": separated by " << ref;
            ++separated;
            // Separated along an edge-edge axis only: every face axis says overlap within the margin.
            edgeSeparated += referenceSeparation(ha, xa, hb, xb, true) < margin - 1e-4;
        } else if (ref < -1e-3) {
            ASSERT_GT(n, 0) << "pair " << t << ": overlapping by " << -ref;
            ++touching;
        }
    }
    // Both outcomes, and the edge axes' own early out, were exercised many times.
    EXPECT_GT(separated, 2000);
    EXPECT_GT(touching, 2000);
    EXPECT_GT(edgeSeparated, 300);
}

TEST(RigidCollision, SphereBoxInsideAndOutside) {
    Collider s;
    s.type = ShapeType::Sphere;
    s.radius = 0.25f;
    Manifold m;
    // Sphere above the top face, 5 cm into it.
    ASSERT_EQ(
        collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, s, {Vec3(0.1f, 0.7f, 0), Quat()}, 0.0f, m), 1);
    EXPECT_NEAR(m.normal.y, 1.0f, kTol);
    EXPECT_NEAR(sepOf(m, 0), -0.05f, kTol);
    // Order swapped: normal flips, separation is the same.
    ASSERT_EQ(
        collide(s, {Vec3(0.1f, 0.7f, 0), Quat()}, boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, 0.0f, m), 1);
    EXPECT_NEAR(m.normal.y, -1.0f, kTol);
    EXPECT_NEAR(sepOf(m, 0), -0.05f, kTol);
    // Center inside the box, nearest to the +x face (0.1 away): pushed out through it.
    ASSERT_EQ(
        collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, s, {Vec3(0.4f, 0.1f, 0), Quat()}, 0.0f, m), 1);
    EXPECT_NEAR(m.normal.x, 1.0f, kTol);
    EXPECT_NEAR(sepOf(m, 0), -0.35f, kTol);
}

TEST(RigidCollision, PlaneBoxAndCapsules) {
    Manifold m;
    // Box tilted 0.3 rad about z, its lowest edge 1 cm below the plane: 2 corners (the edge).
    const Quat q = fromAxisAngle(Vec3(0, 0, 1), 0.3f);
    const float low = 0.5f * (std::cos(0.3f) + std::sin(0.3f));
    ASSERT_EQ(collidePlane(0.0f, boxShape(Vec3(0.5f)), {Vec3(0, low - 0.01f, 0), q}, 0.0f, m), 2);
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(sepOf(m, i), -0.01f, kTol);
    // Capsule lying flat (axis along x), 1 cm in: both end spheres touch.
    Collider c;
    c.type = ShapeType::Capsule;
    c.radius = 0.1f;
    c.halfHeight = 0.4f;
    const Quat lying = fromAxisAngle(Vec3(0, 0, 1), 1.5707963f);
    ASSERT_EQ(collidePlane(0.0f, c, {Vec3(0, 0.09f, 0), lying}, 0.0f, m), 2);
    EXPECT_NEAR(sepOf(m, 0), -0.01f, kTol);
    EXPECT_NEAR(std::fabs(m.pts[0].pB.x - m.pts[1].pB.x), 0.8f, kTol);
    // Two parallel capsules side by side: a line contact (2 points) along their length.
    ASSERT_EQ(collide(c, {Vec3(0, 0, 0), lying}, c, {Vec3(0, 0.19f, 0), lying}, 0.0f, m), 2);
    EXPECT_NEAR(m.normal.y, 1.0f, kTol);
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(sepOf(m, i), -0.01f, kTol);
}

TEST(RigidCollision, FeatureKeysPersistUnderSmallMotion) {
    // Moving the top box by 0.1 mm must not change which features touch.
    Manifold a, b;
    collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, boxShape(Vec3(0.5f)),
            {Vec3(0.3f, 0.99f, 0), Quat()}, 0.01f, a);
    collide(boxShape(Vec3(0.5f)), {Vec3(0, 0, 0), Quat()}, boxShape(Vec3(0.5f)),
            {Vec3(0.3001f, 0.9901f, 0.0001f), fromAxisAngle(Vec3(0, 1, 0), 1e-4f)}, 0.01f, b);
    ASSERT_EQ(a.count, b.count);
    std::vector<uint32_t> ka, kb;
    for (int i = 0; i < a.count; ++i) ka.push_back(a.pts[i].key), kb.push_back(b.pts[i].key);
    std::sort(ka.begin(), ka.end());
    std::sort(kb.begin(), kb.end());
    EXPECT_EQ(ka, kb);
    EXPECT_EQ(std::unique(ka.begin(), ka.end()), ka.end());  // unique inside the manifold
}

std::vector<std::pair<int, int>> bruteForcePairs(const std::vector<Aabb>& boxes) {
    std::vector<std::pair<int, int>> brute;
    for (int i = 0; i < int(boxes.size()); ++i)
        for (int j = i + 1; j < int(boxes.size()); ++j) {
            const Aabb &a = boxes[size_t(i)], &b = boxes[size_t(j)];
            if (a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y &&
                a.lo.z <= b.hi.z && b.lo.z <= a.hi.z)
                brute.push_back({i, j});
        }
    return brute;
}

// n boxes of half extents 0.1-0.8 in a 20 x 6 x 20 region.
std::vector<Aabb> randomBoxes(std::mt19937& rng, int n) {
    std::uniform_real_distribution<float> pos(0, 20), ext(0.1f, 0.8f);
    std::vector<Aabb> boxes;
    for (int i = 0; i < n; ++i) {
        Vec3 c(pos(rng), pos(rng) * 0.3f, pos(rng)), e(ext(rng), ext(rng), ext(rng));
        boxes.push_back({c - e, c + e});
    }
    return boxes;
}

TEST(RigidCollision, BroadPhaseMatchesBruteForce) {
    std::mt19937 rng(11);
    std::vector<Aabb> boxes = randomBoxes(rng, 1500);
    boxes.push_back({Vec3(-1, -1, -1), Vec3(25, 0.5f, 25)});  // a big slab, handled off-grid
    std::vector<std::pair<int, int>> pairs;
    broadPhase(boxes, pairs);
    const auto brute = bruteForcePairs(boxes);
    EXPECT_GT(brute.size(), 500u);  // the test exercises many overlaps
    EXPECT_EQ(pairs, brute);
}

// Corners far beyond the grid's int range: a huge box (1e30), an infinite one and boxes with a NaN corner
// among ordinary ones. The huge and infinite boxes meet every box (their cells are clamped: big, tested
// against all); a NaN corner meets none. Before the clamp x86 turned both ends of the huge box into INT_MIN
// (one cell): its pairs were lost.
TEST(RigidCollision, BroadPhaseHandlesHugeAndNonFiniteBoxes) {
    std::mt19937 rng(7);
    std::vector<Aabb> boxes = randomBoxes(rng, 300);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    boxes.insert(boxes.begin() + 17, {Vec3(-1e30f), Vec3(1e30f)});
    boxes.insert(boxes.begin() + 90, {Vec3(-inf), Vec3(inf)});
    boxes.insert(boxes.begin() + 150, {Vec3(nan, 1, 1), Vec3(2, 2, 2)});
    boxes.insert(boxes.begin() + 200, {Vec3(1, 1, 1), Vec3(nan)});
    std::vector<std::pair<int, int>> pairs;
    broadPhase(boxes, pairs);
    EXPECT_EQ(pairs, bruteForcePairs(boxes));
    const auto with = [&](int box) {
        return std::count_if(pairs.begin(), pairs.end(),
                             [&](const auto& p) { return p.first == box || p.second == box; });
    };
    EXPECT_EQ(with(17), long(boxes.size()) - 3);  // all but itself and the two with a NaN corner
    EXPECT_EQ(with(150), 0);
}

// The solver keeps the broad phase's working arrays across steps: a scratch left by a larger or a smaller
// scene, with more or fewer big boxes, must not leak into the next result.
TEST(RigidCollision, BroadPhaseScratchReusedAcrossSizes) {
    std::mt19937 rng(3);
    BroadPhaseScratch scratch;
    std::vector<std::pair<int, int>> pairs;
    for (int n : {1500, 200, 2500, 2, 700}) {
        std::vector<Aabb> boxes = randomBoxes(rng, n);
        // Big slabs at random places in the list, 0-2 of them.
        for (int b = 0; b < n % 3; ++b)
            boxes.insert(boxes.begin() + long(rng() % boxes.size()),
                         {Vec3(-1, -1 + b, -1), Vec3(25, 0.5f + b, 25)});
        broadPhase(boxes, pairs, scratch);
        EXPECT_EQ(pairs, bruteForcePairs(boxes)) << n << " boxes";
    }
}

}  // namespace
}  // namespace vbd
