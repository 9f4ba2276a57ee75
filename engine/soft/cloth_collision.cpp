// Cloth collision detection (spatial hash + VT/EE narrow phase) and the per-vertex step bound; the
// reasoning is in cloth_collision.h.
#include "soft/cloth_collision.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "backend/parallel.h"

namespace vbd {

namespace {

struct Entry {
    int64_t key;
    int id;
    bool operator<(const Entry& o) const { return key < o.key || (key == o.key && id < o.id); }
};

struct Grid {
    float cell = 1;
    std::vector<Entry> entries;
    int64_t key(int ix, int iy, int iz) const {
        const int64_t m = (int64_t(1) << 21) - 1;
        return ((int64_t(ix) & m) << 42) | ((int64_t(iy) & m) << 21) | (int64_t(iz) & m);
    }
    // Cell index of coordinate v. Clamped to +-2^30, so that the +-1 neighbour loops cannot overflow an
    // int, and NaN maps to 0 (converting either to int would be undefined). Keys keep 21 bits per axis,
    // so far cells alias anyway and the box tests tell them apart; a non-finite position is stopped by the
    // World's finiteness guard after the step.
    int coord(float v) const {
        constexpr double kLimit = double(1 << 30);
        const double c = std::floor(double(v) / double(cell));
        if (c != c) return 0;
        return int(std::clamp(c, -kLimit, kLimit));
    }
    void finish() { std::sort(entries.begin(), entries.end()); }
    std::pair<const Entry*, const Entry*> cellRange(int64_t k) const {
        auto lo = std::lower_bound(entries.begin(), entries.end(), Entry{k, std::numeric_limits<int>::min()});
        auto hi = lo;
        while (hi != entries.end() && hi->key == k) ++hi;
        return {entries.data() + (lo - entries.begin()), entries.data() + (hi - entries.begin())};
    }
};

struct Pair {
    int a, b;  // VT: vertex, triangle; EE: edge, edge
    float d;
};

bool allowed(const CollisionState& cs, int ba, int bb) {
    const CollisionBody& A = cs.bodies[size_t(ba)];
    const CollisionBody& B = cs.bodies[size_t(bb)];
    if (ba == bb) return A.cloth && A.self;
    return A.cloth || B.cloth;
}

float pairRadius(const CollisionState& cs, int ba, int bb) {
    return std::max(cs.bodies[size_t(ba)].radius, cs.bodies[size_t(bb)].radius);
}

SelfContact makeContact(const CollisionState& cs, ContactKind kind, const int v[4], int ba, int bb) {
    const CollisionBody& A = cs.bodies[size_t(ba)];
    const CollisionBody& B = cs.bodies[size_t(bb)];
    SelfContact c;
    for (int j = 0; j < 4; ++j) c.v[j] = v[j];
    c.kind = kind;
    c.radius = std::max(A.radius, B.radius);
    c.stiffness = std::max(A.stiffness, B.stiffness);
    c.friction = A.cloth && B.cloth ? 0.5f * (A.friction + B.friction) : (A.cloth ? A.friction : B.friction);
    return c;
}

}  // namespace

float vertexTriangleDistance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
    float w[3];
    closestPointTriangle(p, a, b, c, w);
    return norm(p - (a * w[0] + b * w[1] + c * w[2]));
}

float edgeEdgeDistance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
    float s, t;
    closestPointsSegments(a0, a1, b0, b1, s, t);
    return norm((a0 + (a1 - a0) * s) - (b0 + (b1 - b0) * t));
}

bool segmentCrossesTriangle(const Vec3d& p, const Vec3d& q, const Vec3d& a, const Vec3d& b, const Vec3d& c) {
    // Signed volumes: p and q on strictly opposite sides of the plane, and the segment's line passes
    // inside the triangle (all three edge orientations agree).
    auto vol = [](const Vec3d& o, const Vec3d& u, const Vec3d& v, const Vec3d& w) {
        return dot(u - o, cross(v - o, w - o));
    };
    const double sp = vol(a, b, c, p), sq = vol(a, b, c, q);
    if (!((sp > 0 && sq < 0) || (sp < 0 && sq > 0))) return false;
    const double s1 = vol(p, q, a, b), s2 = vol(p, q, b, c), s3 = vol(p, q, c, a);
    return (s1 > 0 && s2 > 0 && s3 > 0) || (s1 < 0 && s2 < 0 && s3 < 0);
}

void buildCollisionMesh(CollisionState& cs, int numVertices, const std::vector<std::array<int, 3>>& clothTris,
                        const std::vector<std::array<int, 4>>& tets, const std::vector<int>& bodyOfVertex,
                        const std::vector<CollisionBody>& bodies, const std::vector<Vec3>& x) {
    cs = CollisionState{};
    cs.bodies = bodies;
    bool anyPair = false;
    int numCloth = 0;
    for (const auto& b : bodies) {
        numCloth += b.cloth;
        if (b.cloth && b.self) anyPair = true;
    }
    if (numCloth > 0 && bodies.size() > 1) anyPair = true;
    if (!anyPair) return;
    cs.tris = clothTris;
    // Soft-body boundary faces (used by exactly one tet), oriented outward as in World's surfaces.
    if (!tets.empty()) {
        static const int fi[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
        std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> faces;
        for (const auto& t : tets)
            for (const auto& f : fi) {
                std::array<int, 3> tri = {t[f[0]], t[f[1]], t[f[2]]}, s = tri;
                std::sort(s.begin(), s.end());
                faces.push_back({s, tri});
            }
        std::sort(faces.begin(), faces.end());
        for (size_t i = 0; i < faces.size();) {
            size_t j = i + 1;
            while (j < faces.size() && faces[j].first == faces[i].first) ++j;
            if (j - i == 1) cs.tris.push_back(faces[i].second);
            i = j;
        }
    }
    std::vector<std::array<int, 2>> e;
    for (const auto& t : cs.tris)
        for (int k = 0; k < 3; ++k)
            e.push_back({std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3])});
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    cs.edges = e;
    std::vector<char> part(size_t(numVertices), 0);
    double len = 0;
    for (const auto& t : cs.tris) {
        cs.triBody.push_back(bodyOfVertex[size_t(t[0])]);
        for (int v : t) part[size_t(v)] = 1;
    }
    for (const auto& ed : cs.edges) {
        cs.edgeBody.push_back(bodyOfVertex[size_t(ed[0])]);
        len += norm(x[size_t(ed[1])] - x[size_t(ed[0])]);
    }
    cs.meanEdge = cs.edges.empty() ? 0.f : float(len / double(cs.edges.size()));
    for (int v = 0; v < numVertices; ++v)
        if (part[size_t(v)]) cs.verts.push_back(v);
    for (const auto& b : bodies) cs.maxRadius = std::max(cs.maxRadius, b.radius);
    cs.bound.assign(size_t(numVertices), std::numeric_limits<float>::infinity());
    cs.vertexContacts.offsets.assign(size_t(numVertices) + 1, 0);
    cs.enabled = !cs.tris.empty();
}

namespace {

Vec3 outsideColliders(const StaticColliders& sc, int v, const Vec3& xc, Vec3 t) {
    if (!sc.colliders) return t;
    const float off = sc.offset && size_t(v) < sc.offset->size() ? (*sc.offset)[size_t(v)] : 0.f;
    for (const ParticleCollider& c : *sc.colliders) {
        Vec3 n;
        const float d = colliderDistance(c, xc + t, n) - off;
        if (d < 0.f) t -= n * d;
    }
    return t;
}

}  // namespace

float chooseReferences(CollisionState& cs, const std::vector<Vec3>& xc, const std::vector<Vec3>& y,
                       const std::vector<float>& mass, const std::vector<char>& fixed,
                       const StaticColliders& sc, std::vector<Vec3>& ref) {
    ref.assign(xc.size(), Vec3(0.f));
    Vec3d sum(0, 0, 0);
    double m = 0;
    for (int v : cs.verts) {
        ref[size_t(v)] = y[size_t(v)] - xc[size_t(v)];
        if (fixed[size_t(v)]) continue;
        sum += Vec3d(ref[size_t(v)]) * double(mass[size_t(v)]);
        m += mass[size_t(v)];
    }
    // Centre c and spread M = max |t_i - c| of the references.
    const Vec3 c = m > 0 ? Vec3(sum / m) : Vec3(0.f);
    float M = 0;
    for (int v : cs.verts)
        if (!fixed[size_t(v)]) M = std::max(M, norm(ref[size_t(v)] - c));
    const float rMin = 2.f * cs.maxRadius, rCap = std::max(2.f * rMin, 2.f * cs.meanEdge);
    float scale = 1;
    if (2.f * M + rMin > rCap && M > 0) scale = (rCap - rMin) / (2.f * M);  // shrink toward c (scales M)
    cs.refCenter = c;
    // Pushing a reference out of a collider can move it far from c (a sheet started inside a sphere of
    // radius 1e3 is pushed 1e3 m): R = 2 M + 2 r would then cover the whole sheet, every pair would be
    // enumerated (O(n^2) time and memory). So M stays capped at (rCap - rMin) / 2: a pushed reference
    // is pulled back onto that ball. It may then lie inside the collider, whose penalty still pushes the
    // vertex out; the bound only limits how far it moves per step.
    const float mCap = std::max(0.f, 0.5f * (rCap - rMin));
    M = 0;
    for (int v : cs.verts)
        if (!fixed[size_t(v)]) {
            Vec3 t = outsideColliders(sc, v, xc[size_t(v)], c + (ref[size_t(v)] - c) * scale);
            const float d = norm(t - c);
            if (d > mCap) t = c + (t - c) * (mCap / d);
            ref[size_t(v)] = t;
            M = std::max(M, norm(t - c));
        }
    cs.refSpread = M;
    const float R = 2.f * M + rMin;
    return R;
}

void detectCollisions(CollisionState& cs, const std::vector<Vec3>& x, float R, std::vector<Vec3> ref,
                      const std::vector<char>& fixed, const StaticColliders& sc) {
    const int n = int(x.size());
    cs.xc = x;
    if (ref.size() != size_t(n)) {
        ref.assign(size_t(n), Vec3(0.f));
        cs.refCenter = Vec3(0.f);
        cs.refSpread = 0;
    }
    cs.queryRadius = R;
    // Triangles are hashed by their box centre into cells of size R + (largest box diagonal): a vertex
    // within R of a triangle is within that distance of its box centre, so the 27 cells around the
    // vertex's cell hold every candidate; the R-inflated box is tested before the narrow phase.
    Grid tg, eg;
    const Vec3 pad(R);
    std::vector<Vec3> tlo(cs.tris.size()), thi(cs.tris.size());
    float ext = 0;
    for (size_t t = 0; t < cs.tris.size(); ++t) {
        const auto& tr = cs.tris[t];
        tlo[t] = cwiseMin(x[size_t(tr[0])], cwiseMin(x[size_t(tr[1])], x[size_t(tr[2])]));
        thi[t] = cwiseMax(x[size_t(tr[0])], cwiseMax(x[size_t(tr[1])], x[size_t(tr[2])]));
        ext = std::max(ext, norm(thi[t] - tlo[t]));
    }
    tg.cell = R + ext;
    for (size_t t = 0; t < cs.tris.size(); ++t) {
        const Vec3 mid = (tlo[t] + thi[t]) * 0.5f;
        tg.entries.push_back({tg.key(tg.coord(mid.x), tg.coord(mid.y), tg.coord(mid.z)), int(t)});
    }
    tg.finish();
    // Edges are hashed by their midpoint into cells of size R + (longest edge): two edges closer than R
    // have midpoints closer than that, so the 27 cells around an edge's own cell hold every candidate.
    std::vector<Vec3> elo(cs.edges.size()), ehi(cs.edges.size());
    float longest = 0;
    for (size_t e = 0; e < cs.edges.size(); ++e) {
        const Vec3& a = x[size_t(cs.edges[e][0])];
        const Vec3& b = x[size_t(cs.edges[e][1])];
        elo[e] = cwiseMin(a, b);
        ehi[e] = cwiseMax(a, b);
        longest = std::max(longest, norm(b - a));
    }
    eg.cell = R + longest;
    for (size_t e = 0; e < cs.edges.size(); ++e) {
        const Vec3 mid = (elo[e] + ehi[e]) * 0.5f;
        eg.entries.push_back({eg.key(eg.coord(mid.x), eg.coord(mid.y), eg.coord(mid.z)), int(e)});
    }
    eg.finish();

    // Vertex-triangle: each (vertex, triangle) pair is seen once, from the vertex.
    std::vector<std::vector<Pair>> vt(cs.verts.size());
    std::vector<int> bodyOf(size_t(n), -1);
    for (size_t t = 0; t < cs.tris.size(); ++t)
        for (int v : cs.tris[t]) bodyOf[size_t(v)] = cs.triBody[t];
    parallelFor(
        cs.verts.size(),
        [&](size_t k) {
            const int v = cs.verts[k];
            const Vec3& p = x[size_t(v)];
            const int ci = tg.coord(p.x), cj = tg.coord(p.y), ck = tg.coord(p.z);
            for (int i = ci - 1; i <= ci + 1; ++i)
                for (int j = cj - 1; j <= cj + 1; ++j)
                    for (int kk = ck - 1; kk <= ck + 1; ++kk) {
                        const auto range = tg.cellRange(tg.key(i, j, kk));
                        for (const Entry* it = range.first; it != range.second; ++it) {
                            const size_t t = size_t(it->id);
                            const Vec3 lo = tlo[t] - pad, hi = thi[t] + pad;
                            if (p.x < lo.x || p.y < lo.y || p.z < lo.z || p.x > hi.x || p.y > hi.y ||
                                p.z > hi.z)
                                continue;
                            const auto& tr = cs.tris[t];
                            if (tr[0] == v || tr[1] == v || tr[2] == v) continue;
                            if (!allowed(cs, bodyOf[size_t(v)], cs.triBody[t])) continue;
                            const float d = vertexTriangleDistance(p, x[size_t(tr[0])], x[size_t(tr[1])],
                                                                   x[size_t(tr[2])]);
                            if (d < R) vt[k].push_back({v, int(t), d});
                        }
                    }
        },
        16);
    // Edge-edge: each unordered pair once (e2 > e1), R-inflated boxes must overlap before the narrow phase.
    std::vector<std::vector<Pair>> ee(cs.edges.size());
    parallelFor(
        cs.edges.size(),
        [&](size_t e1) {
            const auto& E1 = cs.edges[e1];
            const Vec3 &a0 = x[size_t(E1[0])], &a1 = x[size_t(E1[1])];
            const Vec3 lo = elo[e1] - pad, hi = ehi[e1] + pad;
            const Vec3 mid = (elo[e1] + ehi[e1]) * 0.5f;
            const int ci = eg.coord(mid.x), cj = eg.coord(mid.y), ck = eg.coord(mid.z);
            for (int i = ci - 1; i <= ci + 1; ++i)
                for (int j = cj - 1; j <= cj + 1; ++j)
                    for (int k = ck - 1; k <= ck + 1; ++k) {
                        const auto range = eg.cellRange(eg.key(i, j, k));
                        for (const Entry* it = range.first; it != range.second; ++it) {
                            const size_t e2 = size_t(it->id);
                            if (e2 <= e1) continue;
                            if (ehi[e2].x < lo.x || elo[e2].x > hi.x || ehi[e2].y < lo.y ||
                                elo[e2].y > hi.y || ehi[e2].z < lo.z || elo[e2].z > hi.z)
                                continue;
                            const auto& E2 = cs.edges[e2];
                            if (E1[0] == E2[0] || E1[0] == E2[1] || E1[1] == E2[0] || E1[1] == E2[1])
                                continue;
                            if (!allowed(cs, cs.edgeBody[e1], cs.edgeBody[e2])) continue;
                            const float d = edgeEdgeDistance(a0, a1, x[size_t(E2[0])], x[size_t(E2[1])]);
                            if (d < R) ee[e1].push_back({int(e1), int(e2), d});
                        }
                    }
        },
        16);

    // Gather (serial, fixed order: deterministic): the pairs within R and contacts closer than 2 r.
    struct Near {
        int v[4];
        int split;  // vertices [0, split) on one side, [split, 4) on the other
        float d;
    };
    std::vector<Near> pairs;
    cs.contacts.clear();
    for (const auto& list : vt)
        for (const Pair& p : list) {
            const auto& tr = cs.tris[size_t(p.b)];
            const int v[4] = {p.a, tr[0], tr[1], tr[2]};
            pairs.push_back({{v[0], v[1], v[2], v[3]}, 1, p.d});
            const int ba = bodyOf[size_t(p.a)], bb = cs.triBody[size_t(p.b)];
            if (p.d < 2.f * pairRadius(cs, ba, bb))
                cs.contacts.push_back(makeContact(cs, ContactKind::VertexTriangle, v, ba, bb));
        }
    for (const auto& list : ee)
        for (const Pair& p : list) {
            const auto &A = cs.edges[size_t(p.a)], &B = cs.edges[size_t(p.b)];
            const int v[4] = {A[0], A[1], B[0], B[1]};
            pairs.push_back({{v[0], v[1], v[2], v[3]}, 2, p.d});
            const int ba = cs.edgeBody[size_t(p.a)], bb = cs.edgeBody[size_t(p.b)];
            if (p.d < 2.f * pairRadius(cs, ba, bb))
                cs.contacts.push_back(makeContact(cs, ContactKind::EdgeEdge, v, ba, bb));
        }
    cs.numPairs = int(pairs.size());
    auto spread = [&](const Near& p) {
        float T = 0;
        for (int j = 0; j < p.split; ++j)
            for (int k = p.split; k < 4; ++k)
                T = std::max(T, norm(ref[size_t(p.v[j])] - ref[size_t(p.v[k])]));
        return T;
    };
    // Free vertices of pairs whose references differ by more than kSpreadFraction of the gap fall back to
    // z: t = 0 (stay where they are) when 0 lies within the spread M of c, else the point of that ball
    // nearest to 0, so that every reference stays within M of c and R = 2 M + 2 r remains valid. Monotone:
    // a vertex is reset at most once, so this terminates.
    const Vec3 c = cs.refCenter;
    const float cn = norm(c);
    const Vec3 z = cn <= cs.refSpread ? Vec3(0.f) : c * (1.f - cs.refSpread / cn);
    std::vector<char> reset(size_t(n), 0);
    for (bool changed = true; changed;) {
        changed = false;
        for (const Near& p : pairs) {
            if (spread(p) <= kSpreadFraction * p.d) continue;
            for (int j : p.v)
                if (!fixed[size_t(j)] && !reset[size_t(j)]) {
                    reset[size_t(j)] = 1;
                    ref[size_t(j)] = z;
                    changed = true;
                }
        }
    }
    float M = 0;
    for (int v : cs.verts)
        if (!fixed[size_t(v)]) M = std::max(M, norm(ref[size_t(v)] - c));
    std::vector<float> room(size_t(n), std::max(0.f, R - 2.f * M));
    for (const Near& p : pairs) {
        const float g = std::max(0.f, p.d - spread(p));
        for (int j : p.v) room[size_t(j)] = std::min(room[size_t(j)], g);
    }
    cs.bound.assign(size_t(n), std::numeric_limits<float>::infinity());
    for (int v : cs.verts) cs.bound[size_t(v)] = kBoundGamma * room[size_t(v)];
    cs.ref = std::move(ref);
    // vertex -> contact CSR
    Csr& vc = cs.vertexContacts;
    vc.offsets.assign(size_t(n) + 1, 0);
    for (const auto& c : cs.contacts)
        for (int j = 0; j < 4; ++j) vc.offsets[size_t(c.v[j]) + 1]++;
    for (int i = 0; i < n; ++i) vc.offsets[size_t(i) + 1] += vc.offsets[size_t(i)];
    vc.items.assign(size_t(vc.offsets[size_t(n)]), 0);
    std::vector<int> fill(vc.offsets.begin(), vc.offsets.end() - 1);
    for (size_t c = 0; c < cs.contacts.size(); ++c)
        for (int j = 0; j < 4; ++j) vc.items[size_t(fill[size_t(cs.contacts[c].v[j])]++)] = int(4 * c) + j;
}

}  // namespace vbd
