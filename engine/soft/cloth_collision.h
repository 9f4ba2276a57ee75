#pragma once
// Cloth collision detection and the penetration-free step bound.
//
// Collision mesh: every cloth triangle and every soft-body boundary triangle, with their edges. A pair of
// primitives is tested when at least one of them is cloth (cloth-cloth of one sheet only with its
// self_collision on); soft bodies never collide with themselves or each other here, so tet-only scenes are
// untouched. Primitives sharing a vertex are never paired.
//
// Broad phase: a uniform spatial hash (sorted cell keys) rebuilt at every detection, i.e. at the start of
// each step and every `interval` iterations. Narrow phase: vertex-triangle and edge-edge distances.
//
// Step bound (VBD paper sec. 4, "conservative bound", extended with a common translation): at a detection
// at positions x_c (penetration-free), let d_min,i be the smallest distance from any primitive incident
// to vertex i (the vertex, its edges, its triangles) to any non-incident collision primitive, capped at the
// query radius R (pairs farther than R are not enumerated). Every vertex then stays within
//   |x_i - x_c,i - t| <= b_i = gamma d_min,i,   gamma = 0.4 < 1/2,
// for one translation t shared by all participating vertices. Proof of penetration freedom: for a pair
// at distance D every vertex of both primitives has d_min <= D (detected pair) or d_min <= R <= D
// (undetected pair); a point of a primitive is a convex combination of its vertices, so it moves (relative
// to t) by less than D/2, the two points' relative motion is below D, and the primitives cannot meet. A
// common translation does not change any distance, so t may be anything: we take the mass-weighted mean
// displacement of the initial guess at the step's first detection (a free-falling sheet is then not slowed
// at all) and t = 0 where a participating vertex is fixed (pinned vertices cannot follow t) and at later
// detections. R adapts to the predicted relative motion (R >= max |y_i - x_c,i - t| / gamma, capped), so an
// isolated vertex is bounded only as much as needed. Prescribed (kinematic) vertices are not bounded.
#include <array>
#include <vector>

#include "mesh/tet_mesh.h"
#include "soft/cloth_contact.h"

namespace vbd {

struct CollisionBody {
    bool cloth = false, self = false;
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
    float meanEdge = 0, maxRadius = 0;
    int interval = 0;  // iterations between re-detections (0: once per step)
    // Per detection
    std::vector<SelfContact> contacts;
    Csr vertexContacts;        // vertex -> 4*contact + slot
    std::vector<float> bound;  // per vertex (all vertices; +inf where not participating)
    std::vector<Vec3> xc;      // positions at the last detection
    Vec3 shift{0, 0, 0};       // common translation t
    float queryRadius = 0;
    int numPairs = 0;  // pairs within R at the last detection
};

// Builds the collision mesh from cloth triangles (per body parameters) and soft-body boundary faces.
void buildCollisionMesh(CollisionState& cs, int numVertices, const std::vector<std::array<int, 3>>& clothTris,
                        const std::vector<std::array<int, 4>>& tets, const std::vector<int>& bodyOfVertex,
                        const std::vector<CollisionBody>& bodies, const std::vector<Vec3>& x);

// Detection at positions xc. Refreshes contacts (pairs closer than 2 r), vertexContacts and bound.
void detectCollisions(CollisionState& cs, const std::vector<Vec3>& xc, float queryRadius, const Vec3& shift);

// Query radius for the predicted positions y (initial guess) from x_c, and the common translation t.
float chooseQueryRadius(const CollisionState& cs, const std::vector<Vec3>& xc, const std::vector<Vec3>& y,
                        const std::vector<float>& mass, const std::vector<char>& fixed, Vec3& shift);

constexpr float kBoundGamma = 0.4f;

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
