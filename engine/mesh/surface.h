#pragma once
// Triangle-surface topology: boundary extraction from tet meshes, closed-manifold checks, vertex welding
// and the enclosed volume. Shared by the importer (which refuses surfaces TetGen cannot fill) and the
// tests (which check the box grid and imported meshes are conforming and closed).
#include <array>
#include <string>
#include <vector>

#include "mesh/tet_mesh.h"

namespace vbd {

// Outward faces of a positively oriented tet (v0..v3), as local indices: face k is opposite vertex k
// and its normal (b - a) x (c - a) points away from vertex k. For the reference tet (0, e_x, e_y, e_z):
// (1,2,3) has normal (1,1,1), (0,3,2) normal -e_x, (0,1,3) normal -e_y, (0,2,1) normal -e_z.
constexpr int kTetFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

// Faces used by exactly one tet, oriented outward (counter-clockwise seen from outside, because every
// tet is positively oriented), in ascending (tet, local face) order. Indices refer to mesh.X, which is
// copied into the result.
TriMesh extractBoundary(const TetMesh& mesh);

// Vertices of the boundary faces, ascending.
std::vector<int> boundaryVertices(const TetMesh& mesh);

// Face sharing of a tet mesh. Conforming: every face is used by one tet (boundary) or by two tets that
// see it with opposite orientation (interior). `firstProblem` names the first face that is neither.
struct TetTopology {
    int boundaryFaces = 0;
    int interiorFaces = 0;
    int overusedFaces = 0;    // shared by three or more tets
    int sameOrientation = 0;  // shared by two tets listing it in the same order (overlap or inversion)
    std::string firstProblem;
    bool conforming() const { return overusedFaces == 0 && sameOrientation == 0; }
};
TetTopology checkTetTopology(const TetMesh& mesh);

// Edge sharing of a triangle soup. A closed, consistently oriented 2-manifold uses every undirected
// edge exactly twice, once in each direction.
struct SurfaceTopology {
    int edges = 0;
    int boundaryEdges = 0;      // used by one triangle
    int nonManifoldEdges = 0;   // used by three or more
    int inconsistentEdges = 0;  // used twice in the same direction (neighbouring triangles disagree)
    int degenerateTris = 0;     // a repeated vertex index
    std::array<int, 2> firstBoundary{-1, -1}, firstNonManifold{-1, -1}, firstInconsistent{-1, -1};
    bool closedOriented() const {
        return boundaryEdges == 0 && nonManifoldEdges == 0 && inconsistentEdges == 0 && degenerateTris == 0;
    }
};
SurfaceTopology checkSurface(const std::vector<std::array<int, 3>>& tris);

// Volume enclosed by a closed surface, V = 1/6 sum_t x_a . (x_b x x_c) (divergence theorem applied to
// div(x)/3 = 1, each triangle a cone to the origin). Positive for outward orientation. Double sums.
double enclosedVolume(const TriMesh& surf);

// Generalized winding number of the triangles about p: w(p) = 1/(4 pi) sum_t Omega_t(p), with the
// solid angle of Van Oosterom & Strackee, tan(Omega/2) = a.(b x c) / (|a||b||c| + (a.b)|c| + (b.c)|a|
// + (c.a)|b|), a, b, c = corners - p. An integer off the surface for closed shells: 1 inside an
// outward shell, 0 outside, -1 inside an inward one; nested shells add up.
double windingNumber(const std::vector<Vec3>& X, const std::vector<std::array<int, 3>>& tris, const Vec3d& p);

// Orients every shell (vertex-connected component, each consistently oriented) by the even-odd rule:
// a shell inside an even number of other shells faces outward, inside an odd number inward, so that
// nested shells bound cavities and separately mirrored parts (negative-scale transforms in a scene
// file) come out right. Returns the number of shells flipped.
int orientShells(TriMesh& surf);

// Axis-aligned bounds of the vertices the triangles use (unreferenced vertices do not count), in
// double. Empty surface: lo = +1e300, hi = -1e300.
struct Box3d {
    Vec3d lo{1e300}, hi{-1e300};
};
Box3d usedBounds(const TriMesh& surf);

// Merges vertices closer than tol (first occurrence wins, in index order, so the result is
// deterministic), drops unused vertices and triangles that collapse to a repeated index. Returns the
// number of triangles dropped.
int weldVertices(TriMesh& surf, double tol);

}  // namespace vbd
