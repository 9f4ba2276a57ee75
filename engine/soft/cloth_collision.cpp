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

// A uniform grid of primitives hashed by a point. Filled by add(), then finish() indexes it one of two
// ways: densely when the box of occupied cells holds few cells for its entries (every scene here: a sheet's
// or a body's bounds): per cell of that box where its entries start, so a run of cells along z is one
// contiguous slice, found in O(1); otherwise by sorted 64-bit keys (a binary search per run: the fallback for
// sparse or far-flung positions). A query's candidate set is the same either way; only the order in which
// forEachNear visits them differs, and every caller sorts what it keeps.
struct Grid {
    float cell = 1;
    std::vector<Entry> entries;  // dense: key = the cell's index in the box; else the packed coordinates
    bool dense = false;
    int x0 = 0, y0 = 0, z0 = 0, nx = 0, ny = 0, nz = 0;
    std::vector<int> start;  // dense: entries of box cell d are [start[d], start[d + 1])

    int64_t key(int ix, int iy, int iz) const {
        const int64_t m = (int64_t(1) << 21) - 1;
        return ((int64_t(ix) & m) << 42) | ((int64_t(iy) & m) << 21) | (int64_t(iz) & m);
    }
    // Cell index of coordinate v. Clamped to +-2^30, so that neighbour loops cannot overflow an int, and NaN
    // maps to 0 (converting either to int would be undefined). Keys keep 21 bits per axis, so far cells alias
    // anyway and the box tests tell them apart; a non-finite position is stopped by the World's finiteness
    // guard after the step.
    int coord(float v) const {
        constexpr double kLimit = double(1 << 30);
        const double c = std::floor(double(v) / double(cell));
        if (c != c) return 0;
        return int(std::clamp(c, -kLimit, kLimit));
    }
    void add(const Vec3& p, int id) { staged_.push_back({{coord(p.x), coord(p.y), coord(p.z)}, id}); }
    void finish() {
        entries.clear();
        start.clear();
        dense = false;
        if (staged_.empty()) return;
        int lo[3], hi[3];
        for (int a = 0; a < 3; ++a) lo[a] = hi[a] = staged_[0].c[a];
        for (const Staged& e : staged_)
            for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], e.c[a]), hi[a] = std::max(hi[a], e.c[a]);
        const int64_t sx = int64_t(hi[0]) - lo[0] + 1, sy = int64_t(hi[1]) - lo[1] + 1,
                      sz = int64_t(hi[2]) - lo[2] + 1;
        const int64_t limit = 8 * int64_t(staged_.size()) + 4096;
        dense = sx <= limit && sy <= limit && sz <= limit && sx * sy <= limit && sx * sy * sz <= limit;
        entries.reserve(staged_.size());
        if (!dense) {
            for (const Staged& e : staged_) entries.push_back({key(e.c[0], e.c[1], e.c[2]), e.id});
            std::sort(entries.begin(), entries.end());
            staged_.clear();
            return;
        }
        x0 = lo[0], y0 = lo[1], z0 = lo[2];
        nx = int(sx), ny = int(sy), nz = int(sz);
        // Counting sort by cell: stable, so a cell's entries keep the order they were added in.
        start.assign(size_t(sx * sy * sz) + 1, 0);
        for (const Staged& e : staged_) ++start[size_t(index(e.c[0], e.c[1], e.c[2])) + 1];
        for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
        entries.resize(staged_.size());
        std::vector<int> fill(start.begin(), start.end() - 1);
        for (const Staged& e : staged_) {
            const int64_t d = index(e.c[0], e.c[1], e.c[2]);
            entries[size_t(fill[size_t(d)]++)] = {d, e.id};
        }
        staged_.clear();
    }
    int64_t index(int ix, int iy, int iz) const {
        return (int64_t(ix - x0) * ny + (iy - y0)) * nz + (iz - z0);
    }
    // The entries with keys in [k0, k1] (the sorted-key index).
    std::pair<const Entry*, const Entry*> keyRange(int64_t k0, int64_t k1) const {
        auto lo =
            std::lower_bound(entries.begin(), entries.end(), Entry{k0, std::numeric_limits<int>::min()});
        auto hi = lo;
        while (hi != entries.end() && hi->key <= k1) ++hi;
        return {entries.data() + (lo - entries.begin()), entries.data() + (hi - entries.begin())};
    }

  private:
    struct Staged {
        int c[3];
        int id;
    };
    std::vector<Staged> staged_;
};

struct Pair {
    int a, b;  // VT: vertex, triangle; EE: edge, edge
    float d;
};

// Bodies whose primitives are paired: a body with itself when its self contact is on, two bodies when one is
// a cloth, two soft bodies when both take part in soft-soft contact.
bool allowed(const CollisionState& cs, int ba, int bb) {
    const CollisionBody& A = cs.bodies[size_t(ba)];
    const CollisionBody& B = cs.bodies[size_t(bb)];
    if (ba == bb) return A.self;
    return A.cloth || B.cloth || (A.soft && B.soft);
}

// Vertices a and b share a tet (the rows of cs.tetNeighbours are sorted; empty rows for vertices of bodies
// without soft self contact).
bool shareTet(const CollisionState& cs, int a, int b) {
    const Csr& t = cs.tetNeighbours;
    if (size_t(a) + 1 >= t.offsets.size()) return false;
    const auto first = t.items.begin() + t.begin(a), last = t.items.begin() + t.end(a);
    return std::binary_search(first, last, b);
}

// Soft self contact skips pairs of primitives joined through a tet (a vertex of one shares a tet with a
// vertex of the other): at rest they are closer than any thickness worth having, and the elasticity, not a
// contact, keeps them apart.
template <size_t A, size_t B>
bool joinedByTet(const CollisionState& cs, const std::array<int, A>& p, const std::array<int, B>& q) {
    if (cs.tetNeighbours.items.empty()) return false;  // no soft self contact in the scene
    for (int a : p)
        for (int b : q)
            if (shareTet(cs, a, b)) return true;
    return false;
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
    c.friction = A.cloth == B.cloth ? 0.5f * (A.friction + B.friction) : (A.cloth ? A.friction : B.friction);
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

namespace {

// Whether any pair of primitives can be allowed (see allowed()).
bool anyPairAllowed(const std::vector<CollisionBody>& bodies) {
    int numCloth = 0, numSoft = 0;
    for (const auto& b : bodies) {
        if (b.self) return true;
        numCloth += b.cloth ? 1 : 0;
        numSoft += b.soft ? 1 : 0;
    }
    return (numCloth > 0 && bodies.size() > 1) || numSoft > 1;
}

// Tet boundary faces (used by exactly one tet), oriented outward as in World's surfaces.
std::vector<std::array<int, 3>> boundaryFaces(const std::vector<std::array<int, 4>>& tets) {
    static const int fi[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> faces;
    for (const auto& t : tets)
        for (const auto& f : fi) {
            std::array<int, 3> tri = {t[f[0]], t[f[1]], t[f[2]]}, s = tri;
            std::sort(s.begin(), s.end());
            faces.push_back({s, tri});
        }
    std::sort(faces.begin(), faces.end());
    std::vector<std::array<int, 3>> out;
    for (size_t i = 0; i < faces.size();) {
        size_t j = i + 1;
        while (j < faces.size() && faces[j].first == faces[i].first) ++j;
        if (j - i == 1) out.push_back(faces[i].second);
        i = j;
    }
    return out;
}

// Vertex -> sorted vertices sharing a tet with it (itself included), for the vertices of soft bodies with
// self contact; other rows are empty.
Csr tetNeighbourCsr(int numVertices, const std::vector<std::array<int, 4>>& tets,
                    const std::vector<int>& bodyOfVertex, const std::vector<CollisionBody>& bodies) {
    std::vector<std::pair<int, int>> links;
    for (const auto& t : tets) {
        const CollisionBody& b = bodies[size_t(bodyOfVertex[size_t(t[0])])];
        if (b.cloth || !b.self) continue;
        for (int a : t)
            for (int c : t) links.emplace_back(a, c);
    }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    Csr c;
    c.offsets.assign(size_t(numVertices) + 1, 0);
    for (const auto& l : links) c.offsets[size_t(l.first) + 1]++;
    for (int i = 0; i < numVertices; ++i) c.offsets[size_t(i) + 1] += c.offsets[size_t(i)];
    for (const auto& l : links) c.items.push_back(l.second);
    return c;
}

}  // namespace

void buildCollisionMesh(CollisionState& cs, int numVertices, const std::vector<std::array<int, 3>>& clothTris,
                        const std::vector<std::array<int, 4>>& tets, const std::vector<int>& bodyOfVertex,
                        const std::vector<CollisionBody>& bodies, const std::vector<Vec3>& x) {
    cs = CollisionState{};
    cs.bodies = bodies;
    if (!anyPairAllowed(bodies)) return;
    cs.tris = clothTris;
    const std::vector<std::array<int, 3>> faces = boundaryFaces(tets);
    cs.tris.insert(cs.tris.end(), faces.begin(), faces.end());
    cs.tetNeighbours = tetNeighbourCsr(numVertices, tets, bodyOfVertex, bodies);
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

namespace {

// Axis-aligned boxes of the collision mesh's primitives at one detection, and the largest box extent.
struct Boxes {
    std::vector<Vec3> lo, hi;
    float extent = 0;
};

bool outsideBox(const Vec3& p, const Vec3& lo, const Vec3& hi) {
    return p.x < lo.x || p.y < lo.y || p.z < lo.z || p.x > hi.x || p.y > hi.y || p.z > hi.z;
}

bool boxesApart(const Vec3& alo, const Vec3& ahi, const Vec3& blo, const Vec3& bhi) {
    return ahi.x < blo.x || alo.x > bhi.x || ahi.y < blo.y || alo.y > bhi.y || ahi.z < blo.z || alo.z > bhi.z;
}

// Broad phase: per body, a uniform grid of its primitives hashed by box centre: a point (or box) within R of
// a primitive is within w = R + (the largest extent of that kind of primitive in the mesh) of its box centre
// on every axis, so the cells within w of the query hold every candidate (forEachNear; cells of w / 2). A
// query visits only the bodies it may pair with whose bounds, grown by R, it touches, so a fast body without
// self contact does not enumerate its own primitives (R grows with the relative motion), and a body with no
// allowed partner within R of its bounds is not hashed at all.
struct BodyGrids {
    std::vector<Grid> grids;
    std::vector<Vec3> lo, hi;  // bounds of each body's triangles (which hold its edges and vertices)
};

// Calls f(id) for every entry whose cell lies within w of p on every axis. With the grid's cell w / 2 that is
// 4 or 5 cells per axis, a box of side 2.25 w on average against the 3 w of the 27 cells of side w around p's
// own cell (2.4x fewer candidates in a volume, 1.8x on a sheet). The cells along z of one (i, j) are one run:
// one slice of the dense index, or one search of the sorted keys (z is their low field, unless the 21-bit
// field wraps there: then cell by cell).
template <typename F>
void forEachNear(const Grid& g, const Vec3& p, float w, const F& f) {
    // At most 5 cells per axis mathematically ((p + w) / c - (p - w) / c = 4 plus rounding); the cap keeps a
    // clamped or non-finite coordinate from turning into a range of 2^31 cells.
    auto span = [&](float v, int& lo, int& hi) {
        lo = g.coord(v - w);
        hi = std::clamp(g.coord(v + w), lo, lo + 5);
    };
    int i0, i1, j0, j1, k0, k1;
    span(p.x, i0, i1);
    span(p.y, j0, j1);
    span(p.z, k0, k1);
    auto visit = [&](std::pair<const Entry*, const Entry*> range) {
        for (const Entry* it = range.first; it != range.second; ++it) f(size_t(it->id));
    };
    if (g.dense) {
        i0 = std::max(i0, g.x0), i1 = std::min(i1, g.x0 + g.nx - 1);
        j0 = std::max(j0, g.y0), j1 = std::min(j1, g.y0 + g.ny - 1);
        k0 = std::max(k0, g.z0), k1 = std::min(k1, g.z0 + g.nz - 1);
        if (k0 > k1) return;
        for (int i = i0; i <= i1; ++i)
            for (int j = j0; j <= j1; ++j) {
                const Entry* e = g.entries.data();
                visit({e + g.start[size_t(g.index(i, j, k0))], e + g.start[size_t(g.index(i, j, k1)) + 1]});
            }
        return;
    }
    for (int i = i0; i <= i1; ++i)
        for (int j = j0; j <= j1; ++j) {
            const int64_t first = g.key(i, j, k0), last = g.key(i, j, k1);
            if (last == first + (k1 - k0)) {
                visit(g.keyRange(first, last));
                continue;
            }
            for (int k = k0; k <= k1; ++k) visit(g.keyRange(g.key(i, j, k), g.key(i, j, k)));
        }
}

// Bounds per body, and whether each body has an allowed partner (itself included) within R.
BodyGrids bodyBounds(const CollisionState& cs, const Boxes& tb, float R, std::vector<char>& needed) {
    const size_t nb = cs.bodies.size();
    BodyGrids bg;
    bg.grids.resize(nb);
    bg.lo.assign(nb, Vec3(std::numeric_limits<float>::infinity()));
    bg.hi.assign(nb, Vec3(-std::numeric_limits<float>::infinity()));
    for (size_t t = 0; t < tb.lo.size(); ++t) {
        // A box with a NaN corner is left out: cwiseMin(lo, NaN) is NaN, and a NaN bound turned the bounds
        // into those of the later boxes only, so that queries missed the body (a NaN vertex lost a third of
        // the sheet's pairs). Such a box's own pairs have NaN distances and are none.
        const Vec3 span = tb.hi[t] - tb.lo[t];
        if (!(span.x >= 0.f && span.y >= 0.f && span.z >= 0.f)) continue;
        const size_t b = size_t(cs.triBody[t]);
        bg.lo[b] = cwiseMin(bg.lo[b], tb.lo[t]);
        bg.hi[b] = cwiseMax(bg.hi[b], tb.hi[t]);
    }
    const Vec3 pad(R);
    needed.assign(nb, 0);
    for (size_t a = 0; a < nb; ++a)
        for (size_t b = a; b < nb; ++b)
            if (allowed(cs, int(a), int(b)) &&
                !boxesApart(bg.lo[a] - pad, bg.hi[a] + pad, bg.lo[b], bg.hi[b]))
                needed[a] = needed[b] = 1;
    return bg;
}

// Hashes the primitives of the needed bodies by box centre into their body's grid.
void hashBoxes(BodyGrids& bg, const Boxes& b, const std::vector<int>& bodyOf, const std::vector<char>& needed,
               float cell) {
    for (Grid& g : bg.grids) g.cell = cell;
    for (size_t t = 0; t < b.lo.size(); ++t) {
        const size_t body = size_t(bodyOf[t]);
        if (!needed[body]) continue;
        bg.grids[body].add((b.lo[t] + b.hi[t]) * 0.5f, int(t));
    }
    for (Grid& g : bg.grids) g.finish();
}

// The order the pairs of one query are kept in (and so the order of the contacts and of each vertex's force
// sum): by the partner's cell, then by id -- the order a single grid over all bodies visits them in, which
// the cloth results were recorded with (the grids per body only skip candidates).
struct OrderKey {
    std::vector<std::array<int, 3>> cell;  // per primitive
    bool less(int a, int b) const {
        const std::array<int, 3>&ca = cell[size_t(a)], &cb = cell[size_t(b)];
        // Lexicographic, then by id (element by element: std::array's == became a memcmp call).
        for (int k = 0; k < 3; ++k)
            if (ca[size_t(k)] != cb[size_t(k)]) return ca[size_t(k)] < cb[size_t(k)];
        return a < b;
    }
};

OrderKey orderKey(const Boxes& b, float cell) {
    Grid g;
    g.cell = cell;
    OrderKey o;
    o.cell.resize(b.lo.size());
    for (size_t t = 0; t < b.lo.size(); ++t) {
        const Vec3 mid = (b.lo[t] + b.hi[t]) * 0.5f;
        o.cell[t] = {g.coord(mid.x), g.coord(mid.y), g.coord(mid.z)};
    }
    return o;
}

Boxes triangleBoxes(const CollisionState& cs, const std::vector<Vec3>& x) {
    Boxes b;
    b.lo.resize(cs.tris.size());
    b.hi.resize(cs.tris.size());
    for (size_t t = 0; t < cs.tris.size(); ++t) {
        const auto& tr = cs.tris[t];
        b.lo[t] = cwiseMin(x[size_t(tr[0])], cwiseMin(x[size_t(tr[1])], x[size_t(tr[2])]));
        b.hi[t] = cwiseMax(x[size_t(tr[0])], cwiseMax(x[size_t(tr[1])], x[size_t(tr[2])]));
        b.extent = std::max(b.extent, norm(b.hi[t] - b.lo[t]));
    }
    return b;
}

// For edges, `extent` is the longest edge: two edges closer than R have midpoints closer than R + longest.
Boxes edgeBoxes(const CollisionState& cs, const std::vector<Vec3>& x) {
    Boxes b;
    b.lo.resize(cs.edges.size());
    b.hi.resize(cs.edges.size());
    for (size_t e = 0; e < cs.edges.size(); ++e) {
        const Vec3& p = x[size_t(cs.edges[e][0])];
        const Vec3& q = x[size_t(cs.edges[e][1])];
        b.lo[e] = cwiseMin(p, q);
        b.hi[e] = cwiseMax(p, q);
        b.extent = std::max(b.extent, norm(q - p));
    }
    return b;
}

// What one detection sees: positions, query radius, the entered primitives and each vertex's body.
struct Detection {
    const CollisionState& cs;
    const std::vector<Vec3>& x;
    float R;
    Boxes tb, eb;
    BodyGrids tg, eg;
    OrderKey to, eo;
    std::vector<int> bodyOf;  // body of each collision-mesh vertex (-1 elsewhere)
};

Detection hashScene(const CollisionState& cs, const std::vector<Vec3>& x, float R) {
    Detection s{cs, x,  R,  triangleBoxes(cs, x),          edgeBoxes(cs, x), {},
                {}, {}, {}, std::vector<int>(x.size(), -1)};
    std::vector<char> needed;
    s.tg = bodyBounds(cs, s.tb, R, needed);
    s.eg = s.tg;
    // Cells of half the search reach (forEachNear).
    hashBoxes(s.tg, s.tb, cs.triBody, needed, 0.5f * (R + s.tb.extent));
    hashBoxes(s.eg, s.eb, cs.edgeBody, needed, 0.5f * (R + s.eb.extent));
    s.to = orderKey(s.tb, R + s.tb.extent);
    s.eo = orderKey(s.eb, R + s.eb.extent);
    for (size_t t = 0; t < cs.tris.size(); ++t)
        for (int v : cs.tris[t]) s.bodyOf[size_t(v)] = cs.triBody[t];
    return s;
}

// Triangle t is a vertex-triangle candidate of v: v within the R-inflated box, not a vertex of t, bodies
// allowed, distance below R.
void testVertexTriangle(const Detection& s, int v, size_t t, std::vector<Pair>& out) {
    const CollisionState& cs = s.cs;
    const Vec3& p = s.x[size_t(v)];
    const Vec3 pad(s.R);
    if (outsideBox(p, s.tb.lo[t] - pad, s.tb.hi[t] + pad)) return;
    const auto& tr = cs.tris[t];
    if (tr[0] == v || tr[1] == v || tr[2] == v) return;
    const int bv = s.bodyOf[size_t(v)];
    if (!allowed(cs, bv, cs.triBody[t])) return;
    if (bv == cs.triBody[t] && joinedByTet(cs, std::array<int, 1>{v}, tr)) return;
    const float d = vertexTriangleDistance(p, s.x[size_t(tr[0])], s.x[size_t(tr[1])], s.x[size_t(tr[2])]);
    if (d < s.R) out.push_back({v, int(t), d});
}

// Edge e2 > e1 is an edge-edge candidate of e1: R-inflated boxes overlap, no shared vertex, bodies allowed,
// distance below R.
void testEdgeEdge(const Detection& s, size_t e1, size_t e2, std::vector<Pair>& out) {
    const CollisionState& cs = s.cs;
    if (e2 <= e1) return;
    const Vec3 pad(s.R);
    if (boxesApart(s.eb.lo[e2], s.eb.hi[e2], s.eb.lo[e1] - pad, s.eb.hi[e1] + pad)) return;
    const auto& E1 = cs.edges[e1];
    const auto& E2 = cs.edges[e2];
    if (E1[0] == E2[0] || E1[0] == E2[1] || E1[1] == E2[0] || E1[1] == E2[1]) return;
    if (!allowed(cs, cs.edgeBody[e1], cs.edgeBody[e2])) return;
    if (cs.edgeBody[e1] == cs.edgeBody[e2] && joinedByTet(cs, E1, E2)) return;
    const float d =
        edgeEdgeDistance(s.x[size_t(E1[0])], s.x[size_t(E1[1])], s.x[size_t(E2[0])], s.x[size_t(E2[1])]);
    if (d < s.R) out.push_back({int(e1), int(e2), d});
}

// Vertex-triangle pairs within R, per participating vertex (each pair seen once, from the vertex; a triangle
// is entered once per cell).
std::vector<std::vector<Pair>> vertexTrianglePairs(const Detection& s) {
    const CollisionState& cs = s.cs;
    std::vector<std::vector<Pair>> vt(cs.verts.size());
    const Vec3 pad(s.R);
    parallelFor(
        cs.verts.size(),
        [&](size_t k) {
            const int v = cs.verts[k];
            const Vec3& p = s.x[size_t(v)];
            for (size_t b = 0; b < s.tg.grids.size(); ++b) {
                if (!allowed(cs, s.bodyOf[size_t(v)], int(b)) ||
                    outsideBox(p, s.tg.lo[b] - pad, s.tg.hi[b] + pad))
                    continue;
                // A triangle's box centre is within R + half its extent of p on every axis.
                forEachNear(s.tg.grids[b], p, s.R + s.tb.extent,
                            [&](size_t t) { testVertexTriangle(s, v, t, vt[k]); });
            }
            std::sort(vt[k].begin(), vt[k].end(),
                      [&](const Pair& a, const Pair& b) { return s.to.less(a.b, b.b); });
        },
        16);
    return vt;
}

// Edge-edge pairs within R, per first edge (each unordered pair once, e2 > e1).
std::vector<std::vector<Pair>> edgeEdgePairs(const Detection& s) {
    const CollisionState& cs = s.cs;
    std::vector<std::vector<Pair>> ee(cs.edges.size());
    parallelFor(
        cs.edges.size(),
        [&](size_t e1) {
            const Vec3 pad(s.R);
            const Vec3 mid = (s.eb.lo[e1] + s.eb.hi[e1]) * 0.5f;
            for (size_t b = 0; b < s.eg.grids.size(); ++b) {
                if (!allowed(cs, cs.edgeBody[e1], int(b)) ||
                    boxesApart(s.eb.lo[e1], s.eb.hi[e1], s.eg.lo[b] - pad, s.eg.hi[b] + pad))
                    continue;
                // Two edges within R: box centres within R + the two half extents on every axis.
                forEachNear(s.eg.grids[b], mid, s.R + s.eb.extent,
                            [&](size_t e2) { testEdgeEdge(s, e1, e2, ee[e1]); });
            }
            std::sort(ee[e1].begin(), ee[e1].end(),
                      [&](const Pair& a, const Pair& b) { return s.eo.less(a.b, b.b); });
        },
        16);
    return ee;
}

// A pair within R for the step bound: its four vertices split into the two sides.
struct Near {
    int v[4];
    int split;  // vertices [0, split) on one side, [split, 4) on the other
    float d;
};

// T_P: the largest reference difference across the pair's two sides.
float referenceSpread(const Near& p, const std::vector<Vec3>& ref) {
    float T = 0;
    for (int j = 0; j < p.split; ++j)
        for (int k = p.split; k < 4; ++k) T = std::max(T, norm(ref[size_t(p.v[j])] - ref[size_t(p.v[k])]));
    return T;
}

// Gathers the pairs within R, and the contacts among them (pairs closer than 2 r) into cs.contacts, in a
// fixed order: the vertex-triangle lists by vertex, then the edge-edge lists by first edge, each list in its
// own order. Each list's place in both outputs comes from a prefix sum of the lists' counts, so the lists
// are copied in parallel into the same order a serial loop writes (deterministic for any thread count).
std::vector<Near> gatherPairs(CollisionState& cs, const Detection& s,
                              const std::vector<std::vector<Pair>>& vt,
                              const std::vector<std::vector<Pair>>& ee) {
    const size_t lists = vt.size() + ee.size();
    auto pairOf = [&](size_t l, const Pair& p, int v[4], int& ba, int& bb) -> ContactKind {
        if (l < vt.size()) {
            const auto& tr = cs.tris[size_t(p.b)];
            v[0] = p.a, v[1] = tr[0], v[2] = tr[1], v[3] = tr[2];
            ba = s.bodyOf[size_t(p.a)], bb = cs.triBody[size_t(p.b)];
            return ContactKind::VertexTriangle;
        }
        const auto &A = cs.edges[size_t(p.a)], &B = cs.edges[size_t(p.b)];
        v[0] = A[0], v[1] = A[1], v[2] = B[0], v[3] = B[1];
        ba = cs.edgeBody[size_t(p.a)], bb = cs.edgeBody[size_t(p.b)];
        return ContactKind::EdgeEdge;
    };
    auto listOf = [&](size_t l) -> const std::vector<Pair>& {
        return l < vt.size() ? vt[l] : ee[l - vt.size()];
    };
    // Per list: its pairs and its contacts, then where each list starts in the outputs.
    std::vector<size_t> pairStart(lists + 1, 0), contactStart(lists + 1, 0);
    parallelFor(
        lists,
        [&](size_t l) {
            size_t touching = 0;
            for (const Pair& p : listOf(l)) {
                int v[4], ba, bb;
                pairOf(l, p, v, ba, bb);
                touching += p.d < 2.f * pairRadius(cs, ba, bb) ? 1 : 0;
            }
            pairStart[l + 1] = listOf(l).size();
            contactStart[l + 1] = touching;
        },
        256);
    for (size_t l = 0; l < lists; ++l) {
        pairStart[l + 1] += pairStart[l];
        contactStart[l + 1] += contactStart[l];
    }
    std::vector<Near> pairs(pairStart[lists]);
    cs.contacts.resize(contactStart[lists]);
    parallelFor(
        lists,
        [&](size_t l) {
            size_t k = pairStart[l], c = contactStart[l];
            for (const Pair& p : listOf(l)) {
                int v[4], ba, bb;
                const ContactKind kind = pairOf(l, p, v, ba, bb);
                pairs[k++] = {{v[0], v[1], v[2], v[3]}, kind == ContactKind::VertexTriangle ? 1 : 2, p.d};
                if (p.d < 2.f * pairRadius(cs, ba, bb)) cs.contacts[c++] = makeContact(cs, kind, v, ba, bb);
            }
        },
        256);
    return pairs;
}

// T_P of every pair (referenceSpread) at the current references, in parallel.
void pairSpreads(const std::vector<Near>& pairs, const std::vector<Vec3>& ref, std::vector<float>& spread) {
    spread.resize(pairs.size());
    parallelFor(
        pairs.size(), [&](size_t p) { spread[p] = referenceSpread(pairs[p], ref); }, 1024);
}

// Free vertices of pairs whose references differ by more than kSpreadFraction of the gap fall back to
// z: t = 0 (stay where they are) when 0 lies within the spread M of c, else the point of that ball
// nearest to 0, so that every reference stays within M of c and R = 2 M + 2 r remains valid. Monotone:
// a vertex is reset at most once, so this terminates. A pass visits the pairs in order and a reset is seen
// by the later pairs of the same pass: each pass starts from the spreads computed in parallel and computes a
// pair's again only when one of its vertices was reset earlier in that pass (the serial pass's values,
// exactly). On return `spread` holds every pair's T_P at the final references (the last pass reset nothing).
void resetSpreadReferences(const CollisionState& cs, const std::vector<Near>& pairs,
                           const std::vector<char>& fixed, std::vector<Vec3>& ref,
                           std::vector<float>& spread) {
    const Vec3 c = cs.refCenter;
    const float cn = norm(c);
    const Vec3 z = cn <= cs.refSpread ? Vec3(0.f) : c * (1.f - cs.refSpread / cn);
    std::vector<int> resetIn(ref.size(), 0);  // the pass (1, 2, ...) that reset the vertex; 0: never
    for (int pass = 1;; ++pass) {
        pairSpreads(pairs, ref, spread);
        bool changed = false;
        for (size_t k = 0; k < pairs.size(); ++k) {
            const Near& p = pairs[k];
            bool stale = false;
            for (int j : p.v) stale |= resetIn[size_t(j)] == pass;
            const float T = stale ? referenceSpread(p, ref) : spread[k];
            if (T <= kSpreadFraction * p.d) continue;
            for (int j : p.v)
                if (!fixed[size_t(j)] && !resetIn[size_t(j)]) {
                    resetIn[size_t(j)] = pass;
                    ref[size_t(j)] = z;
                    changed = true;
                }
        }
        if (!changed) return;
    }
}

// b_i = gamma min(R - 2 M, min_{P incident to i} (D_P - T_P)) (cloth_collision.h), with T_P = spread[P] at
// these references.
void computeBounds(CollisionState& cs, const std::vector<Near>& pairs, float R,
                   const std::vector<char>& fixed, const std::vector<Vec3>& ref,
                   const std::vector<float>& spread) {
    const size_t n = ref.size();
    float M = 0;
    for (int v : cs.verts)
        if (!fixed[size_t(v)]) M = std::max(M, norm(ref[size_t(v)] - cs.refCenter));
    std::vector<float> room(n, std::max(0.f, R - 2.f * M));
    for (size_t k = 0; k < pairs.size(); ++k) {
        const float g = std::max(0.f, pairs[k].d - spread[k]);
        for (int j : pairs[k].v) room[size_t(j)] = std::min(room[size_t(j)], g);
    }
    cs.bound.assign(n, std::numeric_limits<float>::infinity());
    for (int v : cs.verts) cs.bound[size_t(v)] = kBoundGamma * room[size_t(v)];
}

// vertex -> 4 * contact + slot
void buildVertexContacts(CollisionState& cs, int n) {
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

}  // namespace

void detectCollisions(CollisionState& cs, const std::vector<Vec3>& x, float R, std::vector<Vec3> ref,
                      const std::vector<char>& fixed, const StaticColliders& /*sc*/) {
    const int n = int(x.size());
    cs.xc = x;
    if (ref.size() != size_t(n)) {
        ref.assign(size_t(n), Vec3(0.f));
        cs.refCenter = Vec3(0.f);
        cs.refSpread = 0;
    }
    cs.queryRadius = R;
    const Detection s = hashScene(cs, x, R);
    const std::vector<Near> pairs = gatherPairs(cs, s, vertexTrianglePairs(s), edgeEdgePairs(s));
    cs.numPairs = int(pairs.size());
    std::vector<float> spread;
    resetSpreadReferences(cs, pairs, fixed, ref, spread);
    computeBounds(cs, pairs, R, fixed, ref, spread);
    cs.ref = std::move(ref);
    buildVertexContacts(cs, n);
}

}  // namespace vbd
