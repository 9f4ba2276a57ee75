// Limits of what the engine simulates, checked on the parsed scene (reasons in scene_limits.h).
#include "scene/scene_limits.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "math/error.h"

namespace vbd {

namespace {

using namespace limits;
constexpr double kPi = 3.14159265358979323846;

std::string g3(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

std::string bytesText(double b) {
    char s[32];
    if (b >= 1e12)
        std::snprintf(s, sizeof s, "%.1f TB", b / 1e12);
    else if (b >= 1e9)
        std::snprintf(s, sizeof s, "%.1f GB", b / 1e9);
    else
        std::snprintf(s, sizeof s, "%.0f MB", b / 1e6);
    return s;
}

const std::string kRange = "[" + g3(kMinCoefficient) + ", " + g3(kMaxCoefficient) + "]";

class Checker {
  public:
    explicit Checker(const SceneDesc& s) : s_(s), h_(s.dt / s.substeps) {}
    double h() const { return h_; }
    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw InputError(s_.file, key, what);
    }
    // A positive coefficient the solver stores or forms in float: within [kMin, kMax].
    void positive(const std::string& key, const std::string& what, double v) const {
        if (!(v >= kMinCoefficient && v <= kMaxCoefficient))
            fail(key, what + " = " + g3(v) + " is outside " + kRange +
                          ", the float range the solver computes in (with headroom for its products)");
    }
    // A coefficient that may be zero (or of either sign): |v| <= kMax.
    void bounded(const std::string& key, const std::string& what, double v) const {
        if (!(std::fabs(v) <= kMaxCoefficient))
            fail(key, what + " = " + g3(v) + " exceeds " + g3(kMaxCoefficient) +
                          ", the float range the solver computes in (with headroom for its products)");
    }
    void coordinates(const std::string& key, const Vec3& p) const {
        for (int i = 0; i < 3; ++i)
            if (!(std::fabs(double(p[i])) <= kMaxLength))
                fail(key, "coordinate " + g3(double(p[i])) + " m is beyond " + g3(kMaxLength) +
                              " m, where float positions are no longer resolved (spacing 6 cm at 1e6 m)");
    }
    // A length or a motion per step: <= kMaxLength.
    void length(const std::string& key, const std::string& what, double v) const {
        if (!(std::fabs(v) <= kMaxLength))
            fail(key, what + " = " + g3(v) + " m exceeds " + g3(kMaxLength) +
                          " m, the largest length the solver resolves in float");
    }
    // Edge `e` of elements placed at coordinates up to |x| = `at`: resolvable in float.
    void edge(const std::string& key, double e, double at) const {
        if (!(e >= kMinRelativeEdge * at))
            fail(key, "cells of " + g3(e) + " m at coordinates up to " + g3(at) +
                          " m are below float resolution (an edge must be >= " + g3(kMinRelativeEdge) +
                          " times the coordinates' magnitude)");
    }

  private:
    const SceneDesc& s_;
    double h_;
};

double maxAbs(const Vec3& a, const Vec3& b) {
    double m = 0;
    for (int i = 0; i < 3; ++i) m = std::max({m, std::fabs(double(a[i])), std::fabs(double(b[i]))});
    return m;
}

// Neo-Hookean (mu, lambda_NH) of a material scaled by `scale` (material.h's conversion, in double).
void checkMaterial(const Checker& c, const std::string& key, const MaterialDesc& m, double scale,
                   bool cloth) {
    const double E = m.youngs * scale, nu = m.poisson;
    const double mu = E / (2 * (1 + nu));
    const double lamL = E * nu / ((1 + nu) * (1 - 2 * nu));
    const std::string mk = key + ".material";
    c.positive(mk + ".youngs", "Young's modulus", E);
    c.positive(mk + ".youngs", "shear modulus mu", mu);
    // lambda_NH = lambda + mu; a Poisson ratio next to 0.5 (or -1) is what makes lambda huge.
    c.bounded(std::fabs(lamL) > 1e3 * mu ? mk + ".poisson" : mk + ".youngs", "Lame lambda + mu", lamL + mu);
    c.positive(mk + ".density", "density", m.density);
    // Damping enters the local system as k_d / h times a stiffness.
    c.bounded(mk + ".damping", "damping k_d / h * mu", m.damping / c.h() * mu);
    if (cloth) {
        c.positive(mk + ".thickness", "thickness", m.thickness);
        c.bounded(mk + ".bending", "bending stiffness", m.bending);
        c.bounded(mk + ".bending_damping", "bending damping k_d / h * bending",
                  m.bendingDamping / c.h() * std::max(m.bending, 1.0));
    }
}

void checkFixed(const Checker& c, const std::string& key, const std::vector<FixedDesc>& fixed) {
    for (size_t i = 0; i < fixed.size(); ++i) {
        const std::string k = key + ".fixed[" + std::to_string(i) + "]";
        c.length(k + ".velocity", "prescribed displacement per step |v| h",
                 norm(Vec3d(fixed[i].velocity)) * c.h());
        c.bounded(k + ".angular_velocity", "prescribed rotation per step |omega| h",
                  norm(Vec3d(fixed[i].angularVelocity)) * c.h());
    }
}

void checkSoftBody(const Checker& c, const SoftBodyDesc& b) {
    const double h2 = c.h() * c.h();
    checkMaterial(c, b.key, b.material, 1, false);
    for (size_t r = 0; r < b.regions.size(); ++r) {
        // One region alone; overlapping regions multiply, checked per tet once the model is built.
        const std::string rk = b.key + ".regions[" + std::to_string(r) + "]";
        c.positive(rk + ".youngs_scale", "youngs_scale", b.regions[r].youngsScale);
        checkMaterial(c, rk, b.material, b.regions[r].youngsScale, false);
    }
    checkFixed(c, b.key, b.fixed);
    c.length(b.key + ".velocity", "displacement per step |v| h", norm(Vec3d(b.velocity)) * c.h());
    c.bounded(b.key + ".angular_velocity", "rotation per step |omega| h",
              norm(Vec3d(b.angularVelocity)) * c.h());
    // Soft contact (0 = the defaults cloth_build.cpp derives from the mesh and the material).
    c.length(b.key + ".collision_radius", "collision_radius", b.collisionRadius);
    c.bounded(b.key + ".collision_stiffness", "collision_stiffness", b.collisionStiffness);
    c.bounded(b.key + ".collision_stiffness", "collision_stiffness * h^2", b.collisionStiffness * h2);
    c.bounded(b.key + ".friction", "friction", b.friction);
    if (b.type == "mesh") {
        // The mesh's own extent is known after import: its volumes and masses are checked then.
        c.positive(b.key + ".scale", "scale", b.scale);
        c.coordinates(b.key + ".translate", b.translate);
        return;
    }
    c.coordinates(b.key + ".min", b.min);
    c.coordinates(b.key + ".max", b.max);
    const double at = maxAbs(b.min, b.max);
    double cellVolume = 1, shortest = 1e300;
    for (int i = 0; i < 3; ++i) {
        const double e = (double(b.max[i]) - double(b.min[i])) / b.cells[size_t(i)];
        shortest = std::min(shortest, e);
        cellVolume *= e;
    }
    c.edge(b.key + ".cells", shortest, at);
    // A cell is split into 5 or 6 tets; a vertex carries a quarter of each incident tet's mass, i.e.
    // between 1/24 and 8/4 cells' worth: the cell's mass bounds the particle masses within a factor 24.
    c.positive(b.key + ".cells", "tet volume", cellVolume / 6);
    const double cellMass = b.material.density * cellVolume;
    c.positive(b.key + ".material.density", "mass of a cell (density * cell volume)", cellMass / 24);
    c.bounded(b.key + ".material.density", "mass of a cell (density * cell volume)", cellMass * 2);
    c.bounded(b.key + ".material.density", "inertia of a particle m / h^2", cellMass * 2 / h2);
    c.positive(b.key + ".material.density", "inertia of a particle m / h^2", cellMass / 24 / h2);
}

void checkCloth(const Checker& c, const ClothDesc& cl) {
    const double h2 = c.h() * c.h();
    checkMaterial(c, cl.key, cl.material, 1, true);
    checkFixed(c, cl.key, cl.fixed);
    c.coordinates(cl.key + ".min", cl.min);
    const double e0 = cl.size[0] / cl.cells[0], e1 = cl.size[1] / cl.cells[1];
    const double at = maxAbs(cl.min, cl.min) + std::max(cl.size[0], cl.size[1]);
    c.length(cl.key + ".size", "size", std::max(cl.size[0], cl.size[1]));
    c.edge(cl.key + ".size", std::min(e0, e1), at);  // the key triangleRest names for a sliver sheet
    const double area = e0 * e1 / 2;                 // a triangle
    const double vol = area * cl.material.thickness;
    c.positive(cl.key + ".material.thickness", "triangle volume (area * thickness)", vol);
    const double mass = cl.material.density * vol;
    c.positive(cl.key + ".material.density", "mass of a triangle", mass / 3);
    c.bounded(cl.key + ".material.density", "mass of a triangle", mass * 6);
    c.positive(cl.key + ".material.density", "inertia of a particle m / h^2", mass / 3 / h2);
    c.bounded(cl.key + ".material.density", "inertia of a particle m / h^2", mass * 6 / h2);
    c.length(cl.key + ".velocity", "displacement per step |v| h", norm(Vec3d(cl.velocity)) * c.h());
    c.length(cl.key + ".collision_radius", "collision_radius", cl.collisionRadius);
    c.positive(cl.key + ".collision_stiffness", "collision_stiffness", cl.collisionStiffness);
    c.bounded(cl.key + ".collision_stiffness", "collision_stiffness * h^2", cl.collisionStiffness * h2);
    c.bounded(cl.key + ".friction", "friction", cl.friction);
}

void checkRigidBody(const Checker& c, const RigidBodyDesc& b) {
    c.coordinates(b.key + ".position", b.position);
    c.length(b.key + ".velocity", "displacement per step |v| h", norm(Vec3d(b.velocity)) * c.h());
    c.bounded(b.key + ".angular_velocity", "rotation per step |omega| h",
              norm(Vec3d(b.angularVelocity)) * c.h());
    c.bounded(b.key + ".friction", "friction", b.friction);
    // Mass and principal moments as rigid_body.cpp computes them (uniform density).
    double mass = 0, inertiaMin = 0, inertiaMax = 0, extent = 0;
    std::string sizeKey;
    if (b.shape == ShapeType::Box) {
        const double a = b.size.x, bb = b.size.y, d = b.size.z;
        mass = b.density * a * bb * d;
        const double i0 = mass * (bb * bb + d * d) / 12, i1 = mass * (a * a + d * d) / 12,
                     i2 = mass * (a * a + bb * bb) / 12;
        inertiaMin = std::min({i0, i1, i2});
        inertiaMax = std::max({i0, i1, i2});
        extent = std::max({a, bb, d});
        sizeKey = b.key + ".size";
    } else {
        const double r = b.radius, hh = b.shape == ShapeType::Capsule ? b.halfHeight : 0;
        mass = b.density * (kPi * r * r * 2 * hh + 4.0 / 3.0 * kPi * r * r * r);
        inertiaMin = 0.4 * mass * r * r;
        inertiaMax = mass * (r * r + hh * hh);
        extent = r + hh;
        sizeKey = b.key + ".radius";
    }
    c.length(sizeKey, "extent", extent);
    if (b.fixed) return;  // a static collider: its mass is never used
    c.positive(b.key + ".density", "mass (density * volume)", mass);
    c.positive(b.key + ".density", "moment of inertia", inertiaMin);
    c.bounded(b.key + ".density", "moment of inertia", inertiaMax);
}

// Bytes per item from max RSS of `vbdlab sim --frames 1` minus an empty scene's 9.6 MB, this build:
// box grids of 32^3 and 48^3 cells 415 and 419 B per tet with its share of vertices (2.5 KB per cell of
// 6 tets), cloths of 128^2 and 256^2 cells 1.1 KB per cell, 5,000 resting boxes 2.2 KB per body. The
// constants below are those rounded up (x1.3 for grids, x2.3 for cloth and bodies, whose contact lists
// grow with folding and piling): the estimate errs towards refusing.
constexpr double kBytesPerTet = 450;
constexpr double kBytesPerSoftVertex = 500;
constexpr double kBytesPerClothCell = 2500;  // two triangles, three hinges, one vertex, collision mesh, pairs
constexpr double kBytesPerRigidBody = 5000;  // body state, colors, broad phase, contacts
constexpr double kMeshTetsEstimate = 20000;  // TetGen's automatic sizing aims at a few thousand tets
constexpr double kBaseBytes = 64e6;          // program, libraries, allocator

}  // namespace

MemoryEstimate estimateSceneMemory(const SceneDesc& s) {
    MemoryEstimate m;
    m.bytes = kBaseBytes;
    auto account = [&](const std::string& key, double bytes) {
        m.bytes += bytes;
        if (bytes > m.keyBytes) {
            m.keyBytes = bytes;
            m.key = key;
        }
    };
    for (const auto& b : s.softBodies) {
        double verts = 0, tets = 0;
        if (b.type == "box_grid") {
            verts = double(b.cells[0] + 1) * double(b.cells[1] + 1) * double(b.cells[2] + 1);
            tets = double(b.tetsPerCell) * b.cells[0] * double(b.cells[1]) * b.cells[2];
        } else {
            tets = kMeshTetsEstimate;
            verts = tets / 4;
        }
        m.vertices += verts;
        m.tets += tets;
        account(b.key + (b.type == "box_grid" ? ".cells" : ".path"),
                verts * kBytesPerSoftVertex + tets * kBytesPerTet);
    }
    for (const auto& c : s.cloths) {
        const double cells = double(c.cells[0]) * c.cells[1];
        m.vertices += double(c.cells[0] + 1) * (c.cells[1] + 1);
        m.triangles += 2 * cells;
        account(c.key + ".cells", cells * kBytesPerClothCell);
    }
    m.bodies = double(s.rigidBodies.size());
    if (!s.rigidBodies.empty()) account("rigid_bodies", m.bodies * kBytesPerRigidBody);
    return m;
}

double machineMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    double bytes = pages > 0 && page > 0 ? double(pages) * double(page) : 8e9;
    if (const char* env = std::getenv("VBD_MEMORY_LIMIT_MB")) {
        const double mb = std::atof(env);
        if (mb > 0) bytes = std::min(bytes, mb * 1e6);
    }
    return bytes;
}

void checkSceneLimits(const SceneDesc& s) {
    Checker c(s);
    // Step size first: every other product depends on h.
    const double h = s.dt / s.substeps;
    if (!(s.dt >= kMinStep))
        c.fail("dt", "must be >= " + g3(kMinStep) +
                         " s, the smallest step the solver resolves in float (got " + g3(s.dt) + ")");
    if (!(h >= kMinStep))
        c.fail("substeps",
               "dt / substeps = " + g3(h) + " s is below the smallest step " + g3(kMinStep) + " s");
    if (!(h <= kMaxStep))
        c.fail("dt", "dt / substeps = " + g3(h) + " s is above the largest step " + g3(kMaxStep) + " s");
    c.length("gravity", "|gravity| h^2 (the fall of one step)", norm(Vec3d(s.gravity)) * h * h);
    if (s.ground.enabled) {
        c.length("ground.height", "height", s.ground.height);
        c.positive("ground.stiffness", "stiffness", s.ground.stiffness);
        c.bounded("ground.stiffness", "stiffness * h^2", s.ground.stiffness * h * h);
        c.bounded("ground.friction", "friction", s.ground.friction);
    }
    const SolverDesc& sv = s.solver;
    c.bounded("solver.contact_damping", "contact_damping / h", sv.contactDamping / h);
    c.positive("solver.friction_epsilon", "friction_epsilon", sv.frictionEpsilon);
    c.bounded("solver.beta", "beta", sv.beta);
    c.bounded("solver.k_max", "k_max * h^2", sv.kMax * h * h);
    c.bounded("solver.k_max", "k_max", sv.kMax);
    for (const auto& b : s.softBodies) checkSoftBody(c, b);
    for (const auto& cl : s.cloths) checkCloth(c, cl);
    for (const auto& b : s.rigidBodies) checkRigidBody(c, b);
    for (const auto& j : s.joints) {
        c.coordinates(j.key + ".anchor", j.anchor);
        c.bounded(j.key + ".stiffness", "stiffness", j.stiffness);
        c.bounded(j.key + ".stiffness", "stiffness * h^2", j.stiffness * h * h);
    }

    // Sizes: int indices first, then memory.
    const MemoryEstimate m = estimateSceneMemory(s);
    if (m.tets + m.triangles > kMaxElements || m.vertices > kMaxElements)
        c.fail(m.key, g3(m.vertices) + " particles and " + g3(m.tets + m.triangles) +
                          " elements exceed the engine's index range (" + g3(kMaxElements) + ")");
    const double have = machineMemoryBytes();
    if (m.bytes > have)
        c.fail(m.key, "the scene needs about " + bytesText(m.bytes) + " of memory (" + g3(m.vertices) +
                          " particles, " + g3(m.tets) + " tets, " + g3(m.triangles) + " cloth triangles, " +
                          g3(m.bodies) + " rigid bodies; this key alone " + bytesText(m.keyBytes) +
                          "), more than this machine's " + bytesText(have));
}

}  // namespace vbd
