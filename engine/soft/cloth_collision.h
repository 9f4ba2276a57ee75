#pragma once
// Cloth collision detection and the penetration-free step bound.
//
// Collision mesh: every cloth triangle and every soft-body boundary triangle, with their edges. A pair of
// primitives of two bodies is tested when one of them is cloth, or both are soft bodies in soft-soft
// contact (CollisionBody::soft); of one body when its self contact is on. Primitives sharing a vertex are
// never paired, and in a soft body's self contact neither are primitives joined through a tet (a vertex of
// one shares a tet with a vertex of the other: the elasticity keeps those apart, and at rest they are closer
// than any useful thickness). A scene of one soft body without self contact builds no collision mesh (unless
// it has cloth), so tet-only scenes of one body are untouched.
//
// Broad phase: a uniform spatial hash (sorted cell keys) rebuilt at every detection, i.e. at the start of
// each step and every `interval` iterations. Narrow phase: vertex-triangle and edge-edge distances.
//
// Step bound (VBD paper sec. 4, "conservative bound", generalised to per-vertex reference motions).
// At a detection at positions x_c (penetration-free) every participating vertex i gets a reference
// displacement t_i and a radius b_i, and the solver keeps |x_i - x_c,i - t_i| <= b_i. Penetration freedom:
// for a pair P (vertex-triangle or edge-edge) at distance D_P, a point of a primitive is a convex
// combination of its vertices, so the two closest points' relative motion is at most
//   T_P + max_{j in P} b_j + max_{k in P} b_k,   T_P = max over cross vertex pairs (j, k) of |t_j - t_k|,
// and it stays below D_P if every vertex of P has b <= gamma (D_P - T_P) with gamma = 0.4 < 1/2. Pairs
// farther apart than the query radius R are not enumerated; for them T_P <= 2 M (M = max |t_i - c|)
// and b <= gamma (R - 2 M) keeps them apart. So
//   b_i = gamma min(R - 2 M, min_{P incident to i} (D_P - T_P)).
// With t_i = 0 this is the VBD paper's bound (b_i = gamma d_min,i). We take t_i = the vertex's own
// initial-guess displacement at the step's first detection: vertices that move together (a falling sheet,
// the free part of a drape) keep their inertial motion, and only relative motion toward a neighbour is
// bounded. Where a pair's references differ by more than D_P / 2 (near contact, where an inertial reference
// would override the contact response and carry stale momentum) its free vertices fall back to
// t = 0, or the point nearest to 0 within M of c (repeated until no pair violates it; R stays valid), so b >=
// gamma D_P / 2 > 0 on every pair. R adapts to the predicted relative motion (R = 2 M + 2 r, capped; t is
// shrunk toward 0 to respect the cap), and at re-detections inside a step t = 0. Fixed vertices have t = 0
// and kinematic ones their prescribed motion; kinematic vertices are not bounded (a prescribed motion can
// still push through the sheet).
#include <array>
#include <vector>

#include "mesh/tet_mesh.h"
#include "soft/cloth_contact.h"

namespace vbd {

struct CollisionBody {
    bool cloth = false, self = false;
    bool soft = false;  // a soft body in soft-soft contact with the other soft bodies that have it
    float radius = 0, stiffness = 0, friction = 0;
};

struct CollisionState {
    bool enabled = false;
    // Mesh (fixed at build)
    std::vector<std::array<int, 3>> tris;
    std::vector<std::array<int, 2>> edges;
    std::vector<int> triBody, edgeBody;
    std::vector<int> verts;  // participating vertices
    std::vector<CollisionBody> bodies;
    Csr tetNeighbours;  // vertex -> sorted vertices sharing a tet (soft bodies with self contact only)
    float meanEdge = 0, maxRadius = 0;
    int interval = 0;  // iterations between re-detections (0: once per step)
    // Per detection
    std::vector<SelfContact> contacts;
    Csr vertexContacts;        // vertex -> 4*contact + slot
    std::vector<float> bound;  // per vertex (all vertices; +inf where not participating)
    std::vector<Vec3> xc;      // positions at the last detection
    std::vector<Vec3> ref;     // reference displacement t_i per vertex
    Vec3 refCenter{0, 0, 0};   // c with |t_i - c| <= M for every t_i
    float refSpread = 0;       // M
    float queryRadius = 0;
    int numPairs = 0;  // pairs within R at the last detection
};

// Builds the collision mesh from cloth triangles (per body parameters) and soft-body boundary faces.
void buildCollisionMesh(CollisionState& cs, int numVertices, const std::vector<std::array<int, 3>>& clothTris,
                        const std::vector<std::array<int, 4>>& tets, const std::vector<int>& bodyOfVertex,
                        const std::vector<CollisionBody>& bodies, const std::vector<Vec3>& x);

// References t_i (= guess_i - x_c,i, shrunk toward 0 to fit the query-radius cap), their centre c and R for
// the step's first detection; fixed vertices get their actual motion. A reference position x_c + t_i inside a
// static collider (grown by the vertex's contact offset) is pushed out along the collider normal: a vertex
// with a small bound is carried along t_i and must not be held inside the ground.
struct StaticColliders {
    const std::vector<ParticleCollider>* colliders = nullptr;
    const std::vector<float>* offset = nullptr;  // per vertex (may be empty)
};
float chooseReferences(CollisionState& cs, const std::vector<Vec3>& xc, const std::vector<Vec3>& y,
                       const std::vector<float>& mass, const std::vector<char>& fixed,
                       const StaticColliders& sc, std::vector<Vec3>& ref);

// Detection at positions xc with references ref (empty: t = 0). Refreshes contacts (pairs closer than
// 2 r), vertexContacts, ref and bound.
void detectCollisions(CollisionState& cs, const std::vector<Vec3>& xc, float queryRadius,
                      std::vector<Vec3> ref, const std::vector<char>& fixed, const StaticColliders& sc);

constexpr float kBoundGamma = 0.4f;
// A pair whose references differ by more than this fraction of its gap resets its vertices to t = 0
// reference (near contacts the inertial reference would override the contact response).
constexpr float kSpreadFraction = 0.5f;

// Clamps x into the ball of radius b around x_c + t.
inline Vec3 truncateToBound(const Vec3& x, const Vec3& xc, const Vec3& t, float b) {
    const Vec3 d = x - xc - t;
    const float l2 = dot(d, d);
    if (l2 <= b * b) return x;
    return xc + t + d * (b / std::sqrt(l2));
}

// Distance between two primitives' closest points (for tests and detection).
float vertexTriangleDistance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);
float edgeEdgeDistance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1);

// True if segment p-q crosses triangle (a, b, c) (proper intersection, shared vertices excluded by the
// caller). Used by tests to check that no edge passes through any triangle.
bool segmentCrossesTriangle(const Vec3d& p, const Vec3d& q, const Vec3d& a, const Vec3d& b, const Vec3d& c);

}  // namespace vbd
