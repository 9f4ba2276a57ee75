// Built-model limits and the per-frame finiteness guard (reasons in finite_guard.h).
#include "world/finite_guard.h"

#include <cmath>
#include <cstdio>

#include "math/error.h"
#include "scene/scene_limits.h"

namespace vbd {

namespace {

using namespace limits;

std::string g3(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

std::string vecText(const Vec3& v) { return "(" + g3(v.x) + ", " + g3(v.y) + ", " + g3(v.z) + ")"; }

bool inRange(double v) { return v >= kMinCoefficient && v <= kMaxCoefficient; }
bool bounded(double v) { return std::fabs(v) <= kMaxCoefficient; }

const std::string kRange = "[" + g3(kMinCoefficient) + ", " + g3(kMaxCoefficient) + "]";

// Scene key of particle body b: soft bodies first, then cloths (SoftModel::bodyOfVertex).
std::string bodyKey(const SceneDesc& d, int b) {
    const size_t nb = d.softBodies.size();
    if (b >= 0 && size_t(b) < nb) {
        const std::string& k = d.softBodies[size_t(b)].key;
        return k.empty() ? "soft_bodies[" + std::to_string(b) + "]" : k;
    }
    const size_t c = size_t(b) - nb;
    if (b >= 0 && c < d.cloths.size()) {
        const std::string& k = d.cloths[c].key;
        return k.empty() ? "cloths[" + std::to_string(c) + "]" : k;
    }
    return "particles";
}

bool isMesh(const SceneDesc& d, int b) {
    return b >= 0 && size_t(b) < d.softBodies.size() && d.softBodies[size_t(b)].type == "mesh";
}

bool hasRegions(const SceneDesc& d, int b) {
    return b >= 0 && size_t(b) < d.softBodies.size() && !d.softBodies[size_t(b)].regions.empty();
}

bool finiteMat(const Mat33& a) {
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            if (!bounded(a.m[r][c])) return false;
    return true;
}

// "particle 17 (vertex 5 of soft_bodies[1])"
std::string particleName(const SceneDesc& d, const SoftModel& m, int i) {
    const int b = m.bodyOfVertex[size_t(i)];
    int first = i;
    while (first > 0 && m.bodyOfVertex[size_t(first - 1)] == b) --first;
    return "particle " + std::to_string(i) + " (vertex " + std::to_string(i - first) + " of " +
           bodyKey(d, b) + ")";
}

}  // namespace

namespace {

// Built-model checks, one function per kind of element, each refusing at the scene key that sets the
// offending quantity (in the order positions, tets, triangles, hinges, masses). h = dt / substeps.

void checkVertexState(const SceneDesc& d, const SoftModel& m, int i) {
    const int b = m.bodyOfVertex[size_t(i)];
    const Vec3& x = m.x[size_t(i)];
    if (!(std::fabs(x.x) <= kMaxLength && std::fabs(x.y) <= kMaxLength && std::fabs(x.z) <= kMaxLength))
        throw InputError(d.file, bodyKey(d, b) + (isMesh(d, b) ? ".scale" : ""),
                         "vertex " + std::to_string(i) + " at " + vecText(x) + " is beyond " +
                             g3(kMaxLength) + " m, where float positions are no longer resolved");
    if (!isFinite(m.v[size_t(i)]))
        throw InputError(d.file, bodyKey(d, b) + ".velocity", "initial velocity is not finite in float");
}

void checkTet(const SceneDesc& d, const SoftModel& m, size_t e, double h) {
    const int b = m.bodyOfVertex[size_t(m.tets[e][0])];
    const std::string key = bodyKey(d, b);
    const std::string tet = "tet " + std::to_string(e);
    if (!inRange(m.volume[e]) || !finiteMat(m.DmInv[e]))
        throw InputError(d.file, key + (isMesh(d, b) ? ".scale" : ".cells"),
                         tet + " has rest volume " + g3(m.volume[e]) + " m^3, outside " + kRange +
                             " (or an inverse rest shape beyond it)");
    if (!inRange(m.mu[e]) || !bounded(m.lambda[e]) || m.lambda[e] == 0.f)
        throw InputError(
            d.file, key + (hasRegions(d, b) ? ".regions" : ".material.youngs"),
            std::string(hasRegions(d, b) ? "Young's modulus times the product of the youngs_scale of "
                                           "the regions containing "
                                         : "the material of ") +
                tet + " gives mu = " + g3(m.mu[e]) + ", lambda = " + g3(m.lambda[e]) +
                " in float; mu must be in " + kRange + " and |lambda| <= " + g3(kMaxCoefficient));
    if (!bounded(double(m.kd[e]) / h * m.mu[e]))
        throw InputError(d.file, key + ".material.damping",
                         tet + ": damping k_d / h * mu is beyond " + g3(kMaxCoefficient));
}

void checkTriangle(const SceneDesc& d, const SoftModel& m, size_t e) {
    const std::string key = bodyKey(d, m.bodyOfVertex[size_t(m.tris[e][0])]);
    const TriRest& r = m.triRest[e];
    if (!inRange(m.triVolume[e]) || !bounded(r.d[0]) || !bounded(r.d[1]) || !bounded(r.d[2]) ||
        !bounded(r.d[3]))
        throw InputError(d.file, key + ".material.thickness",
                         "triangle " + std::to_string(e) + " has volume (area * thickness) " +
                             g3(m.triVolume[e]) + " m^3, outside " + kRange);
    if (!inRange(m.triMu[e]) || !bounded(m.triLambda[e]) || m.triLambda[e] == 0.f)
        throw InputError(d.file, key + ".material.youngs",
                         "triangle " + std::to_string(e) + " gives mu = " + g3(m.triMu[e]) +
                             ", lambda = " + g3(m.triLambda[e]) + " in float, outside " + kRange);
}

void checkHinge(const SceneDesc& d, const SoftModel& m, size_t e) {
    if (!bounded(m.hingeKL[e]) || !std::isfinite(m.hingeTheta0[e]))
        throw InputError(d.file, bodyKey(d, m.bodyOfVertex[size_t(m.hinges[e][0])]) + ".material.bending",
                         "hinge " + std::to_string(e) + " stiffness " + g3(m.hingeKL[e]) + " is beyond " +
                             g3(kMaxCoefficient));
}

void checkMass(const SceneDesc& d, const SoftModel& m, int i, double h) {
    const int b = m.bodyOfVertex[size_t(i)];
    const double mass = m.mass[size_t(i)];
    if (!inRange(mass) || !bounded(mass / (h * h)))
        throw InputError(d.file, bodyKey(d, b) + ".material.density",
                         "particle mass " + g3(mass) + " kg (density * volume" +
                             (isMesh(d, b) ? " of the scaled mesh" : "") +
                             ", inertia m / h^2 = " + g3(mass / (h * h)) + ") is outside " + kRange +
                             ", the float range the solver computes in");
}

}  // namespace

void validateBuiltModel(const SceneDesc& d, const SoftModel& m) {
    const double h = d.dt / d.substeps;
    for (int i = 0; i < m.numVertices(); ++i) checkVertexState(d, m, i);
    for (size_t e = 0; e < m.tets.size(); ++e) checkTet(d, m, e, h);
    for (size_t e = 0; e < m.tris.size(); ++e) checkTriangle(d, m, e);
    for (size_t e = 0; e < m.hinges.size(); ++e) checkHinge(d, m, e);
    for (int i = 0; i < m.numVertices(); ++i) checkMass(d, m, i, h);
}

namespace {

// A divergence message: "FILE: frame N: " + what + the advice; one function per kind of state below.
struct Diverged {
    std::string where, why;
    [[noreturn]] void fail(const std::string& what) const { throw NonFiniteError(where + what + why); }
};

void guardParticle(const Diverged& t, const SceneDesc& d, const SoftModel& m, int i) {
    const Vec3 &x = m.x[size_t(i)], &v = m.v[size_t(i)];
    if (!isFinite(x) || !isFinite(v))
        t.fail(particleName(d, m, i) + " is not finite: x = " + vecText(x) + ", v = " + vecText(v));
}

void guardRigidBody(const Diverged& t, const SceneDesc& d, const RigidBodyView& r, size_t b) {
    const Quat& q = r.rotation;
    if (isFinite(r.position) && isFinite(r.velocity) && isFinite(r.angularVelocity) && std::isfinite(q.x) &&
        std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w))
        return;
    const std::string key = b < d.rigidBodies.size() && !d.rigidBodies[b].key.empty()
                                ? d.rigidBodies[b].key
                                : "rigid_bodies[" + std::to_string(b) + "]";
    t.fail("rigid body " + key + " is not finite: position = " + vecText(r.position) +
           ", velocity = " + vecText(r.velocity) + ", angular velocity = " + vecText(r.angularVelocity));
}

void guardMetric(const Diverged& t, const char* name, double value) {
    if (!std::isfinite(value)) t.fail(std::string("metric ") + name + " is not finite (" + g3(value) + ")");
}

void guardIteration(const Diverged& t, const IterationRecord& r) {
    if (!std::isfinite(r.residual) || !std::isfinite(r.energy))
        t.fail("iteration " + std::to_string(r.iteration) + ": residual " + g3(r.residual) + ", energy " +
               g3(r.energy) + " is not finite");
}

}  // namespace

void guardFrame(const SceneDesc& d, const SoftModel& m, const std::vector<RigidBodyView>& bodies,
                const FrameMetrics& f, const std::vector<IterationRecord>& iterations, bool particles) {
    const Diverged t{
        (d.file.empty() ? std::string("<scene>") : d.file) + ": frame " + std::to_string(f.frame) + ": ",
        "; the step diverged (the run stops here so that no NaN is written: try a smaller dt, more substeps "
        "or iterations, or softer contacts)"};
    if (particles)
        for (int i = 0; i < m.numVertices(); ++i) guardParticle(t, d, m, i);
    for (size_t b = 0; b < bodies.size(); ++b) guardRigidBody(t, d, bodies[b], b);
    const std::pair<const char*, double> metrics[] = {{"residual_initial", f.residualInitial},
                                                      {"residual_final", f.residualFinal},
                                                      {"energy", f.energy},
                                                      {"kinetic_energy", f.kineticEnergy},
                                                      {"com_x", f.com.x},
                                                      {"com_y", f.com.y},
                                                      {"com_z", f.com.z},
                                                      {"min_volume_ratio", f.minVolumeRatio},
                                                      {"max_speed", f.maxSpeed}};
    for (const auto& [name, value] : metrics) guardMetric(t, name, value);
    for (const IterationRecord& r : iterations) guardIteration(t, r);
}

}  // namespace vbd
