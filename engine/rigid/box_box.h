#pragma once
// Box-box narrow phase: separating axis test over the 15 candidate axes (3 face normals of each box
// and the 9 edge-edge cross products), then either face clipping (Sutherland-Hodgman of the
// incident face against the side planes of the reference face) or a single edge-edge point.
//
// Face axes are preferred: an edge axis wins only if its separation exceeds the best face
// separation by a tolerance, and B's face only if it beats A's. Without the bias, resting boxes
// flip between nearly equal axes from frame to frame and their feature keys (hence their warm
// started multipliers) are lost.
// VBD_HD: one source for RigidSolver's narrow phase and the device's (gpu/rigid_stages.h RigidNarrowStage).
#include <algorithm>
#include <cmath>
#include <limits>

#include "math/hd.h"
#include "rigid/manifold.h"

namespace vbd {

namespace box_box_detail {

// fmax(-h, fmin(h, v)) for every v, NaN included (both give h), without the libm calls: std::fmin/fmax are
// not inlined without -ffinite-math-only, and __fminf was ~5 % of the pyramid's step (perf, bench_rigid).
VBD_HD float clampHalf(float v, float h) {
    const float m = v < h ? v : h;
    return -h < m ? m : -h;
}

struct ClipPoint {
    Vec3 p;
    uint32_t tag;  // 0..3: incident-face vertex; 4 + 4 * plane + (tag of the edge start & 3): clip point
};

VBD_HD int clipPlane(const ClipPoint* in, int n, const Vec3& origin, const Vec3& dir, float off, int plane,
                     ClipPoint* out) {
    off *= 1.01f;
    int m = 0;
    for (int k = 0; k < n; ++k) {
        const ClipPoint& a = in[k];
        const ClipPoint& b = in[(k + 1) % n];
        // The plane is pushed out by a small slack: an incident vertex lying on a side plane (two
        // boxes of equal width, a box flush with a ramp's edge) is then kept as the vertex
        // rather than flipping between "vertex" and "clip point" from frame to frame, which
        // would change its feature key and drop its warm start.
        float da = dot(a.p - origin, dir) - off, db = dot(b.p - origin, dir) - off;
        if (da <= 0) out[m++] = a;
        if ((da <= 0) != (db <= 0)) {
            float t = da / (da - db);
            out[m++] = {a.p + (b.p - a.p) * t, uint32_t(4 + 4 * plane) + (a.tag & 3u)};
        }
    }
    return m;
}

struct BoxFrame {
    Vec3 c, ax[3], h;
};

// Reference face = face `i` of box R with outward normal nRef (towards box I). Writes points with
// pRef on R's face and pInc on I's surface, separation sep = nRef . (pInc - pRef).
VBD_HD int faceContact(const BoxFrame& R, const BoxFrame& I, int i, const Vec3& nRef, float margin,
                       uint32_t keyBase, Vec3* pRef, Vec3* pInc, float* sep, uint32_t* keys) {
    int j = 0;
    float best = -1;
    for (int k = 0; k < 3; ++k) {
        float a = std::fabs(dot(I.ax[k], nRef));
        if (a > best) best = a, j = k;
    }
    const float sj = dot(I.ax[j], nRef) > 0 ? -1.0f : 1.0f;  // incident face normal faces R
    const Vec3 fc = I.c + I.ax[j] * (sj * I.h[j]);
    const Vec3 e1 = I.ax[(j + 1) % 3] * I.h[(j + 1) % 3], e2 = I.ax[(j + 2) % 3] * I.h[(j + 2) % 3];
    ClipPoint a[8] = {{fc + e1 + e2, 0}, {fc - e1 + e2, 1}, {fc - e1 - e2, 2}, {fc + e1 - e2, 3}};
    ClipPoint b[8];
    int n = 4;
    const Vec3 u = R.ax[(i + 1) % 3], v = R.ax[(i + 2) % 3];
    const float hu = R.h[(i + 1) % 3], hv = R.h[(i + 2) % 3];
    n = clipPlane(a, n, R.c, u, hu, 0, b);
    n = clipPlane(b, n, R.c, -u, hu, 1, a);
    n = clipPlane(a, n, R.c, v, hv, 2, b);
    n = clipPlane(b, n, R.c, -v, hv, 3, a);
    const Vec3 rc = R.c + nRef * R.h[i];
    const uint32_t incKey = uint32_t(2 * j + (sj > 0 ? 1 : 0)) << 8;
    int m = 0;
    for (int k = 0; k < n && m < 8; ++k) {
        float s = dot(a[k].p - rc, nRef);
        if (s > margin) continue;
        pInc[m] = a[k].p;
        pRef[m] = a[k].p - nRef * s;
        sep[m] = s;
        keys[m] = keyBase | incKey | a[k].tag;
        ++m;
    }
    return m;
}

// The deepest (least separated) axis of each family of the separating axis test: face normals of A
// (sA, iA), of B (sB, iB), and the edge-edge cross products (sE, eA x eB, unit normal nE).
struct AxisSearch {
    static constexpr float kNone = -std::numeric_limits<float>::infinity();
    float sA = kNone, sB = kNone, sE = kNone;
    int iA = 0, iB = 0, eA = 0, eB = 0;
    Vec3 nE;
};

// Face axes of `self` against `other`: separation |d . n| - (projected half extents), with absC the
// |cosines| between the two frames (row i: self's axis i when selfIsA, else column i). Returns false
// as soon as one axis separates by more than margin.
VBD_HD bool searchFaceAxes(const BoxFrame& self, const BoxFrame& other, const Vec3& d,
                           const float (&absC)[3][3], bool selfIsA, float margin, float& best,
                           int& bestAxis) {
    for (int i = 0; i < 3; ++i) {
        const float c0 = selfIsA ? absC[i][0] : absC[0][i], c1 = selfIsA ? absC[i][1] : absC[1][i],
                    c2 = selfIsA ? absC[i][2] : absC[2][i];
        float s =
            std::fabs(dot(d, self.ax[i])) - (self.h[i] + other.h.x * c0 + other.h.y * c1 + other.h.z * c2);
        if (s > margin) return false;
        if (s > best) best = s, bestAxis = i;
    }
    return true;
}

// The 9 edge-edge axes L = ax_A[i] x ax_B[j] (skipped when near parallel: the cross product is noise), from
// the cosines C[i][j] = ax_A[i] . ax_B[j] and tA = d in A's frame (Gottschalk's OBB test) rather than from
// each axis's unit vector. With (i, i1, i2) and (j, j1, j2) cyclic:
//   ax_A[i1] . L = -C[i2][j], ax_A[i2] . L = C[i1][j]   (ax_A[i] . L = 0),
//   ax_B[j1] . L = C[i][j2],  ax_B[j2] . L = -C[i][j1]  (ax_B[j] . L = 0),
//   d . L = tA[i2] C[i1][j] - tA[i1] C[i2][j],
// so the separation (|d . L| - r_A - r_B) / |L| needs |L| and a dozen flops, and only the deepest axis's
// unit vector is formed. (The unit vector of every axis and six dot products with it were a third of the
// pile's box-box time.)
VBD_HD bool searchEdgeAxes(const BoxFrame& A, const BoxFrame& B, const Vec3& d, float margin, AxisSearch& r) {
    float C[3][3], absC[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            C[i][j] = dot(A.ax[i], B.ax[j]);
            absC[i][j] = std::fabs(C[i][j]);
        }
    const float tA[3] = {dot(d, A.ax[0]), dot(d, A.ax[1]), dot(d, A.ax[2])};
    int bi = -1, bj = -1;
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            // |L| from the cross product itself: 1 - C^2 loses the digits that matter near parallel.
            const float l = norm(cross(A.ax[i], B.ax[j]));
            if (l < 1e-3f) continue;
            const float ra = A.h[i1] * absC[i2][j] + A.h[i2] * absC[i1][j];
            const float rb = B.h[j1] * absC[i][j2] + B.h[j2] * absC[i][j1];
            const float s = (std::fabs(tA[i2] * C[i1][j] - tA[i1] * C[i2][j]) - (ra + rb)) / l;
            if (s > margin) return false;
            if (s > r.sE) r.sE = s, bi = i, bj = j;
        }
    }
    if (bi >= 0) {
        r.eA = bi;
        r.eB = bj;
        r.nE = normalized(cross(A.ax[bi], B.ax[bj]));
    }
    return true;
}

// Edge-edge contact: one point pair, the closest points of A's edge eA and B's edge eB, each edge the
// one of its box most extreme along nE (towards the other box). Its key names the edge pair and the
// signs that pick the edges.
VBD_HD int edgeContact(const BoxFrame& A, const BoxFrame& B, const Vec3& d, const AxisSearch& r,
                       Manifold& m) {
    const int eA = r.eA, eB = r.eB;
    Vec3 nE = r.nE;
    if (dot(d, nE) < 0) nE = -nE;
    Vec3 ca = A.c, cb = B.c;
    uint32_t signs = 0;
    for (int k = 0; k < 3; ++k) {
        if (k != eA) {
            float s = dot(A.ax[k], nE) > 0 ? 1.0f : -1.0f;
            ca += A.ax[k] * (s * A.h[k]);
            signs |= (s > 0 ? 1u : 0u) << k;
        }
        if (k != eB) {
            float s = dot(B.ax[k], nE) < 0 ? 1.0f : -1.0f;
            cb += B.ax[k] * (s * B.h[k]);
            signs |= (s > 0 ? 1u : 0u) << (3 + k);
        }
    }
    // Closest points of the two edge segments (the lines' closest points, clamped).
    const Vec3 &ha = A.h, &hb = B.h;
    Vec3 da = A.ax[eA], db = B.ax[eB], rr = ca - cb;
    float b = dot(da, db), c = dot(da, rr), f = dot(db, rr), den = 1 - b * b;
    float s = den > 1e-6f ? (b * f - c) / den : 0.0f;
    s = clampHalf(s, ha[eA]);
    float t = clampHalf(b * s + f, hb[eB]);
    s = clampHalf(b * t - c, ha[eA]);
    m.normal = nE;
    m.pts[0].pA = ca + da * s;
    m.pts[0].pB = cb + db * t;
    m.pts[0].key = (2u << 28) | (uint32_t(eA * 3 + eB) << 8) | signs;
    m.count = 1;
    return 1;
}

// Face contact with reference face iRef of box R (A when !refIsB), clipped and reduced to at most 4
// points. With B's face as reference, its outward normal points towards A; the manifold normal
// (A -> B) is its negation and the roles of the points swap.
VBD_HD int faceManifold(const BoxFrame& R, const BoxFrame& I, int iRef, bool refIsB, const Vec3& d,
                        float margin, Manifold& m) {
    const bool towards = dot(d, R.ax[iRef]) > 0;  // R's axis iRef points from A to B
    Vec3 nRef, pRef[8], pInc[8];
    uint32_t base;
    if (!refIsB) {
        nRef = R.ax[iRef] * (towards ? 1.0f : -1.0f);
        base = (uint32_t(2 * iRef + (towards ? 1 : 0)) << 16);
    } else {
        nRef = R.ax[iRef] * (towards ? -1.0f : 1.0f);
        base = (1u << 28) | (uint32_t(2 * iRef + (towards ? 0 : 1)) << 16);
    }
    float sep[8];
    uint32_t keys[8];
    int n = faceContact(R, I, iRef, nRef, margin, base, pRef, pInc, sep, keys);
    m.normal = refIsB ? -nRef : nRef;
    ManifoldPoint all[8];
    for (int k = 0; k < n; ++k)
        all[k] = refIsB ? ManifoldPoint{pInc[k], pRef[k], keys[k]} : ManifoldPoint{pRef[k], pInc[k], keys[k]};
    n = reduceManifold(all, sep, n, m.normal);
    for (int k = 0; k < n; ++k) m.pts[k] = all[k];
    m.count = n;
    return n;
}

}  // namespace box_box_detail

// Box-box with the rotation matrices toMatrix(xa.q), toMatrix(xb.q) given.
VBD_HD_NOINLINE int collideBoxBox(const Vec3& ha, const Pose& xa, const Mat33& Ra, const Vec3& hb,
                                  const Pose& xb, const Mat33& Rb, float margin, Manifold& m) {
    using namespace box_box_detail;
    m.count = 0;
    BoxFrame A{xa.p, {Ra.col(0), Ra.col(1), Ra.col(2)}, ha};
    BoxFrame B{xb.p, {Rb.col(0), Rb.col(1), Rb.col(2)}, hb};
    const Vec3 d = xb.p - xa.p;
    float absC[3][3];
    // The epsilon keeps near-parallel edge pairs (whose cross product is noise) from reporting a
    // spurious separating axis.
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) absC[i][j] = std::fabs(dot(A.ax[i], B.ax[j])) + 1e-6f;
    AxisSearch r;
    if (!searchFaceAxes(A, B, d, absC, true, margin, r.sA, r.iA)) return 0;
    if (!searchFaceAxes(B, A, d, absC, false, margin, r.sB, r.iB)) return 0;
    if (!searchEdgeAxes(A, B, d, margin, r)) return 0;
    float scale = std::min({ha.x, ha.y, ha.z, hb.x, hb.y, hb.z});
    const bool useB = r.sB > r.sA + 0.005f * scale;
    const float sFace = useB ? r.sB : r.sA;
    if (r.sE > sFace + 0.02f * scale) return edgeContact(A, B, d, r, m);
    return useB ? faceManifold(B, A, r.iB, true, d, margin, m)
                : faceManifold(A, B, r.iA, false, d, margin, m);
}

// The same, converting both quaternions.
VBD_HD int collideBoxBox(const Vec3& ha, const Pose& xa, const Vec3& hb, const Pose& xb, float margin,
                         Manifold& m) {
    return collideBoxBox(ha, xa, toMatrix(xa.q), hb, xb, toMatrix(xb.q), margin, m);
}

}  // namespace vbd
