#include "mesh/surface.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <unordered_map>

namespace vbd {

namespace {

// One tet face seen from one tet: sorted corner key for matching, the tet's own (outward) order for
// orientation, and where it came from.
struct FaceRef {
    std::array<int, 3> key;
    std::array<int, 3> tri;
    int tet, local;
};

std::vector<FaceRef> sortedFaces(const TetMesh& mesh) {
    std::vector<FaceRef> faces;
    faces.reserve(mesh.tets.size() * 4);
    for (size_t e = 0; e < mesh.tets.size(); ++e) {
        const auto& t = mesh.tets[e];
        for (int f = 0; f < 4; ++f) {
            FaceRef r;
            r.tri = {t[kTetFaces[f][0]], t[kTetFaces[f][1]], t[kTetFaces[f][2]]};
            r.key = r.tri;
            std::sort(r.key.begin(), r.key.end());
            r.tet = int(e);
            r.local = f;
            faces.push_back(r);
        }
    }
    std::sort(faces.begin(), faces.end(), [](const FaceRef& a, const FaceRef& b) {
        return std::tie(a.key, a.tet, a.local) < std::tie(b.key, b.tet, b.local);
    });
    return faces;
}

// Rotates a triangle so its smallest index comes first: two cyclic orders of one face then compare
// equal exactly when they have the same orientation.
std::array<int, 3> canonicalCycle(const std::array<int, 3>& t) {
    int m = int(std::min_element(t.begin(), t.end()) - t.begin());
    return {t[size_t(m)], t[size_t((m + 1) % 3)], t[size_t((m + 2) % 3)]};
}

std::string faceName(const FaceRef& f) {
    return "face (" + std::to_string(f.key[0]) + ", " + std::to_string(f.key[1]) + ", " +
           std::to_string(f.key[2]) + ") of tets[" + std::to_string(f.tet) + "]";
}

}  // namespace

TriMesh extractBoundary(const TetMesh& mesh) {
    const auto faces = sortedFaces(mesh);
    std::vector<std::pair<int, int>> once;  // (tet, local) of faces used by exactly one tet
    for (size_t i = 0; i < faces.size();) {
        size_t j = i + 1;
        while (j < faces.size() && faces[j].key == faces[i].key) ++j;
        if (j - i == 1) once.emplace_back(faces[i].tet, faces[i].local);
        i = j;
    }
    std::sort(once.begin(), once.end());
    TriMesh s;
    s.X = mesh.X;
    s.tris.reserve(once.size());
    for (auto [e, f] : once) {
        const auto& t = mesh.tets[size_t(e)];
        s.tris.push_back({t[kTetFaces[f][0]], t[kTetFaces[f][1]], t[kTetFaces[f][2]]});
    }
    return s;
}

std::vector<int> boundaryVertices(const TetMesh& mesh) {
    std::vector<char> on(mesh.X.size(), 0);
    for (const auto& t : extractBoundary(mesh).tris)
        for (int v : t) on[size_t(v)] = 1;
    std::vector<int> r;
    for (size_t v = 0; v < on.size(); ++v)
        if (on[v]) r.push_back(int(v));
    return r;
}

TetTopology checkTetTopology(const TetMesh& mesh) {
    TetTopology topo;
    const auto faces = sortedFaces(mesh);
    for (size_t i = 0; i < faces.size();) {
        size_t j = i + 1;
        while (j < faces.size() && faces[j].key == faces[i].key) ++j;
        if (j - i == 1) {
            topo.boundaryFaces++;
        } else if (j - i == 2) {
            // Two positively oriented tets on opposite sides of a face list it in opposite cyclic
            // orders (each lists it with the normal pointing away from itself).
            if (canonicalCycle(faces[i].tri) == canonicalCycle(faces[i + 1].tri)) {
                if (topo.firstProblem.empty())
                    topo.firstProblem = faceName(faces[i]) + " and tets[" + std::to_string(faces[i + 1].tet) +
                                        "] have the same orientation (overlapping tets)";
                topo.sameOrientation++;
            } else {
                topo.interiorFaces++;
            }
        } else {
            if (topo.firstProblem.empty())
                topo.firstProblem = faceName(faces[i]) + " is shared by " + std::to_string(j - i) + " tets";
            topo.overusedFaces++;
        }
        i = j;
    }
    return topo;
}

SurfaceTopology checkSurface(const std::vector<std::array<int, 3>>& tris) {
    SurfaceTopology topo;
    // (min, max, +1 if stored as min->max else -1)
    std::vector<std::tuple<int, int, int>> edges;
    edges.reserve(tris.size() * 3);
    for (const auto& t : tris) {
        if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0]) {
            topo.degenerateTris++;
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            int a = t[size_t(k)], b = t[size_t((k + 1) % 3)];
            edges.emplace_back(std::min(a, b), std::max(a, b), a < b ? 1 : -1);
        }
    }
    std::sort(edges.begin(), edges.end());
    for (size_t i = 0; i < edges.size();) {
        size_t j = i + 1;
        auto same = [&](size_t k) {
            return std::get<0>(edges[k]) == std::get<0>(edges[i]) &&
                   std::get<1>(edges[k]) == std::get<1>(edges[i]);
        };
        while (j < edges.size() && same(j)) ++j;
        const std::array<int, 2> e{std::get<0>(edges[i]), std::get<1>(edges[i])};
        topo.edges++;
        if (j - i == 1) {
            if (topo.boundaryEdges++ == 0) topo.firstBoundary = e;
        } else if (j - i > 2) {
            if (topo.nonManifoldEdges++ == 0) topo.firstNonManifold = e;
        } else if (std::get<2>(edges[i]) == std::get<2>(edges[i + 1])) {
            if (topo.inconsistentEdges++ == 0) topo.firstInconsistent = e;
        }
        i = j;
    }
    return topo;
}

double enclosedVolume(const TriMesh& surf) {
    double v = 0;
    for (const auto& t : surf.tris) {
        Vec3d a(surf.X[size_t(t[0])]), b(surf.X[size_t(t[1])]), c(surf.X[size_t(t[2])]);
        v += dot(a, cross(b, c));
    }
    return v / 6.0;
}

double windingNumber(const std::vector<Vec3>& X, const std::vector<std::array<int, 3>>& tris,
                     const Vec3d& p) {
    double sum = 0;
    for (const auto& t : tris) {
        const Vec3d a = Vec3d(X[size_t(t[0])]) - p, b = Vec3d(X[size_t(t[1])]) - p,
                    c = Vec3d(X[size_t(t[2])]) - p;
        const double la = norm(a), lb = norm(b), lc = norm(c);
        sum += 2.0 * std::atan2(dot(a, cross(b, c)),
                                la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb);
    }
    return sum / (4.0 * 3.14159265358979323846);
}

int orientShells(TriMesh& surf) {
    // Vertex components by union-find over triangle corners.
    std::vector<int> parent(surf.X.size());
    for (size_t i = 0; i < parent.size(); ++i) parent[i] = int(i);
    auto find = [&](int v) {
        while (parent[size_t(v)] != v) v = parent[size_t(v)] = parent[size_t(parent[size_t(v)])];
        return v;
    };
    for (const auto& t : surf.tris)
        for (int k = 1; k < 3; ++k) {
            const int a = find(t[0]), b = find(t[size_t(k)]);
            if (a != b) parent[size_t(std::max(a, b))] = std::min(a, b);
        }
    std::vector<int> rootShell(surf.X.size(), -1);
    std::vector<std::vector<std::array<int, 3>>> shells;
    std::vector<int> triShell(surf.tris.size());
    for (size_t i = 0; i < surf.tris.size(); ++i) {
        const int r = find(surf.tris[i][0]);
        if (rootShell[size_t(r)] < 0) {
            rootShell[size_t(r)] = int(shells.size());
            shells.emplace_back();
        }
        triShell[i] = rootShell[size_t(r)];
        shells[size_t(triShell[i])].push_back(surf.tris[i]);
    }
    // Nesting depth: how many other shells wind around one vertex of this shell (shells do not
    // intersect, TetGen's -d pass refuses that later, so one vertex decides). O(shells x triangles);
    // past 1e8 solid angles every shell is simply turned outward.
    const size_t S = shells.size();
    const bool nesting = S > 1 && double(S) * double(surf.tris.size()) <= 1e8;
    std::vector<char> flip(S, 0);
    int flipped = 0;
    for (size_t i = 0; i < S; ++i) {
        int depth = 0;
        if (nesting) {
            const Vec3d p(surf.X[size_t(shells[i][0][0])]);
            for (size_t j = 0; j < S; ++j)
                if (j != i && std::fabs(windingNumber(surf.X, shells[j], p)) > 0.5) ++depth;
        }
        double v = 0;
        for (const auto& t : shells[i]) {
            const Vec3d a(surf.X[size_t(t[0])]), b(surf.X[size_t(t[1])]), c(surf.X[size_t(t[2])]);
            v += dot(a, cross(b, c));
        }
        const bool outward = v > 0, wantOutward = depth % 2 == 0;
        if (outward != wantOutward) {
            flip[i] = 1;
            ++flipped;
        }
    }
    for (size_t i = 0; i < surf.tris.size(); ++i)
        if (flip[size_t(triShell[i])]) std::swap(surf.tris[i][1], surf.tris[i][2]);
    return flipped;
}

Box3d usedBounds(const TriMesh& surf) {
    Box3d b;
    for (const auto& t : surf.tris)
        for (int v : t) {
            b.lo = cwiseMin(b.lo, Vec3d(surf.X[size_t(v)]));
            b.hi = cwiseMax(b.hi, Vec3d(surf.X[size_t(v)]));
        }
    return b;
}

namespace {

// Hash grid with cell size tol for welding: a partner within tol of a point lies in one of the 27 cells
// around the point's own cell.
class WeldGrid {
  public:
    explicit WeldGrid(double tol) : tol_(tol), h_(tol > 0 ? tol : 1e-30) {}

    std::array<int64_t, 3> cell(const Vec3& p) const {
        return {int64_t(std::floor(double(p.x) / h_)), int64_t(std::floor(double(p.y) / h_)),
                int64_t(std::floor(double(p.z) / h_))};
    }

    // The first welded vertex within tol of p (cells visited z, y, x outer to inner, each cell's
    // vertices in insertion order: the order fixes which partner wins, so it must not change), or -1.
    int findNear(const std::vector<Vec3>& X, const Vec3& p) const {
        const auto c = cell(p);
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int w = findInCell(X, p, {c[0] + dx, c[1] + dy, c[2] + dz});
                    if (w >= 0) return w;
                }
        return -1;
    }

    void insert(const Vec3& p, int index) { grid_[cell(p)].push_back(index); }

  private:
    struct KeyHash {
        size_t operator()(const std::array<int64_t, 3>& k) const {
            return size_t(k[0] * 73856093LL ^ k[1] * 19349663LL ^ k[2] * 83492791LL);
        }
    };

    int findInCell(const std::vector<Vec3>& X, const Vec3& p, const std::array<int64_t, 3>& key) const {
        auto it = grid_.find(key);
        if (it == grid_.end()) return -1;
        for (int w : it->second)
            if (norm(Vec3d(X[size_t(w)]) - Vec3d(p)) <= tol_) return w;
        return -1;
    }

    double tol_, h_;
    std::unordered_map<std::array<int64_t, 3>, std::vector<int>, KeyHash> grid_;
};

// Triangles with their corners renamed by remap; those that collapse (two corners welded into one)
// are dropped and counted.
int remapTriangles(std::vector<std::array<int, 3>>& tris, const std::vector<int>& remap) {
    std::vector<std::array<int, 3>> kept;
    kept.reserve(tris.size());
    int dropped = 0;
    for (const auto& t : tris) {
        std::array<int, 3> r{remap[size_t(t[0])], remap[size_t(t[1])], remap[size_t(t[2])]};
        if (r[0] == r[1] || r[1] == r[2] || r[2] == r[0]) {
            dropped++;
            continue;
        }
        kept.push_back(r);
    }
    tris = std::move(kept);
    return dropped;
}

}  // namespace

int weldVertices(TriMesh& surf, double tol) {
    WeldGrid grid(tol);
    std::vector<int> remap(surf.X.size(), -1);
    std::vector<Vec3> X;
    // Only referenced vertices survive; visit them in first-use order so the result is deterministic.
    for (const auto& t : surf.tris)
        for (int v : t) {
            if (remap[size_t(v)] >= 0) continue;
            const Vec3& p = surf.X[size_t(v)];
            int found = grid.findNear(X, p);
            if (found < 0) {
                found = int(X.size());
                X.push_back(p);
                grid.insert(p, found);
            }
            remap[size_t(v)] = found;
        }
    const int dropped = remapTriangles(surf.tris, remap);
    surf.X = std::move(X);
    return dropped;
}

}  // namespace vbd
