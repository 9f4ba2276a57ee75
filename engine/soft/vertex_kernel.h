#pragma once
// The VBD per-vertex local system (one source for CPU and CUDA): the force f_i = -dG/dx_i and the 3x3
// block H_i = d2G/dx_i^2 of the incremental potential
//   G(x) = 1/(2h^2) |x - y|_M^2 + E(x)   (+ damping potential, contact penalties)
// gathered from every force element touching vertex i. The VBD update is x_i += H_i^{-1} f_i.
#include "energy/damping.h"
#include "math/chol33.h"
#include "energy/neo_hookean.h"
#include "energy/tet_fused.h"
#include "soft/soft_model.h"

namespace vbd {

VBD_HD void tetVertexTerms(const SoftView& s, int e, int a, Vec3& f, Mat33& H) {
    const std::array<int, 4>& t = s.tets[e];
    const Mat33& Dinv = s.DmInv[e];
    const Mat33 F = tetDeformationGradient(s.x[t[0]], s.x[t[1]], s.x[t[2]], s.x[t[3]], Dinv);
    const Vec3 m = tetVertexWeight(Dinv, a);
    const float kd = s.kd[e];
    if (s.damping != DampingModel::Naive) {
        // Elastic + internal damping fused (tet_fused.h; same math as neoHookeanVertex + internalDampingVertexC).
        const float kdi = s.damping == DampingModel::Internal ? kd : 0.f;
        tetVertexFused(F, m, s.volume[e], s.mu[e], s.lambda[e], s.Cprev[e], kdi, s.h, f, H);
        return;
    }
    Vec3 fe;
    Mat33 He;
    neoHookeanVertex(F, m, s.volume[e], s.mu[e], s.lambda[e], fe, He);
    f += fe;
    H += He;
    if (kd > 0.f) {
        Vec3 fd;
        Mat33 Hd;
        naiveDampingVertex(He, s.x[t[a]], s.xPrev[t[a]], kd, s.h, fd, Hd);
        f += fd;
        H += Hd;
    }
}

// Full local force and block of vertex i. Returns whether vertex i touches a collider.
VBD_HD bool vertexForceHessian(const SoftView& s, int i, Vec3& f, Mat33& H) {
    const float mh2 = s.mass[i] / (s.h * s.h);
    f = (s.y[i] - s.x[i]) * mh2;
    H = Mat33::diag(mh2);
    for (int k = s.vtOffsets[i]; k < s.vtOffsets[i + 1]; ++k) {
        const int item = s.vtItems[k];
        tetVertexTerms(s, item >> 2, item & 3, f, H);
    }
    bool contact = false;
    for (int c = 0; c < s.numColliders; ++c) contact |= colliderContact(s.colliders[c], s.contact, s.x[i], s.xPrev[i], s.h, f, H);
    if (i == s.dragVertex) {
        f += (s.dragTarget - s.x[i]) * s.dragStiffness;
        H += Mat33::diag(s.dragStiffness);
    }
    return contact;
}

}  // namespace vbd
