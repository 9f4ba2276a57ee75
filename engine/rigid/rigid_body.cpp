#include "rigid/rigid_body.h"

#include <cmath>

#include "math/error.h"

namespace vbd {

namespace {
constexpr double kPi = 3.14159265358979323846;

bool positiveFinite(double v) { return std::isfinite(v) && v > 0; }

std::string bodyKey(const RigidBodyDesc& d, size_t i) {
    return d.key.empty() ? "rigid_bodies[" + std::to_string(i) + "]" : d.key;
}
std::string jointKey(const JointDesc& j, size_t i) {
    return j.key.empty() ? "joints[" + std::to_string(i) + "]" : j.key;
}
}  // namespace

MassProperties massProperties(const Collider& c, double rho) {
    MassProperties mp;
    if (c.type == ShapeType::Box) {
        const double a = 2.0 * c.half.x, b = 2.0 * c.half.y, d = 2.0 * c.half.z;
        mp.mass = rho * a * b * d;
        mp.inertia = Vec3d(mp.mass * (b * b + d * d) / 12.0, mp.mass * (a * a + d * d) / 12.0,
                           mp.mass * (a * a + b * b) / 12.0);
    } else if (c.type == ShapeType::Sphere) {
        const double r = c.radius;
        mp.mass = rho * 4.0 / 3.0 * kPi * r * r * r;
        mp.inertia = Vec3d(0.4 * mp.mass * r * r);
    } else {
        const double r = c.radius, hh = c.halfHeight;
        const double mc = rho * kPi * r * r * 2.0 * hh;
        const double mh = rho * 4.0 / 3.0 * kPi * r * r * r;
        mp.mass = mc + mh;
        const double iy = mc * r * r / 2.0 + mh * 0.4 * r * r;
        const double ix =
            mc * (r * r / 4.0 + 4.0 * hh * hh / 12.0) + mh * (0.4 * r * r + hh * hh + 0.75 * hh * r);
        mp.inertia = Vec3d(ix, iy, ix);
    }
    return mp;
}

Collider colliderFromDesc(const RigidBodyDesc& d) {
    Collider c;
    c.type = d.shape;
    c.half = d.size * 0.5f;
    c.radius = float(d.radius);
    c.halfHeight = float(d.halfHeight);
    return c;
}

float boundingRadius(const Collider& c) {
    if (c.type == ShapeType::Box) return norm(c.half);
    if (c.type == ShapeType::Sphere) return c.radius;
    return c.radius + c.halfHeight;
}

namespace {

// Shape, material and initial state of one body; a quaternion off unit norm is normalized later, with
// a warning.
void validateBody(const RigidBodyDesc& d, const std::string& k, const std::string& f,
                  std::vector<std::string>* warnings) {
    if (d.shape == ShapeType::Box) {
        if (!positiveFinite(d.size.x) || !positiveFinite(d.size.y) || !positiveFinite(d.size.z))
            throw InputError(f, k + ".size", "box edge lengths must be positive and finite");
    } else {
        if (!positiveFinite(d.radius))
            throw InputError(f, k + ".radius", "radius must be positive and finite");
        if (d.shape == ShapeType::Capsule && !(std::isfinite(d.halfHeight) && d.halfHeight >= 0))
            throw InputError(f, k + ".half_height", "capsule half height must be >= 0 and finite");
    }
    if (!positiveFinite(d.density))
        throw InputError(f, k + ".density", "density must be positive and finite");
    if (!(d.friction >= 0) || !std::isfinite(d.friction))
        throw InputError(f, k + ".friction", "friction must be >= 0 and finite");
    const Quat& q = d.rotation;
    const float n = norm(q);
    if (!std::isfinite(n) || n < 1e-6f)
        throw InputError(f, k + ".rotation", "quaternion is zero or not finite");
    if (std::fabs(n - 1.0f) > 1e-4f && warnings)
        warnings->push_back((f.empty() ? "" : f + ": ") + k + ".rotation: quaternion of norm " +
                            std::to_string(n) + " normalized");
    if (!isFinite(d.position) || !isFinite(d.velocity) || !isFinite(d.angularVelocity))
        throw InputError(f, k, "position and velocities must be finite");
}

// The bodies a joint names (-1 = world for body_a), its anchor, hinge axis and limits, its stiffness.
void validateJoint(const JointDesc& j, const std::string& k, const std::string& f, int nb) {
    if (j.bodyB < 0 || j.bodyB >= nb)
        throw InputError(
            f, k + ".body_b",
            "body " + std::to_string(j.bodyB) + " does not exist (" + std::to_string(nb) + " rigid bodies)");
    if (j.bodyA < -1 || j.bodyA >= nb)
        throw InputError(f, k + ".body_a",
                         "body " + std::to_string(j.bodyA) + " does not exist (-1 = world)");
    if (j.bodyA == j.bodyB) throw InputError(f, k + ".body_b", "a joint needs two different bodies");
    if (!isFinite(j.anchor)) throw InputError(f, k + ".anchor", "anchor must be finite");
    if (j.type == JointType::Hinge) {
        if (!isFinite(j.axis) || norm(j.axis) < 1e-6f)
            throw InputError(f, k + ".axis", "hinge axis must be a non-zero vector");
        if (j.limit && !(j.lower <= j.upper))
            throw InputError(f, k + ".lower", "lower limit is above the upper limit");
    }
    if (!(j.stiffness >= 0) || !std::isfinite(j.stiffness))
        throw InputError(f, k + ".stiffness", "stiffness must be >= 0 (0 = hard)");
}

// The AVBD parameters: beta (stiffness ramp), gamma (warm-start decay), alpha (stabilization) and the
// penalty range k_start <= k_max.
void validateRigidSolver(const SolverDesc& sv, const std::string& f) {
    if (sv.iterations < 1) throw InputError(f, "solver.iterations", "must be at least 1");
    if (!(sv.beta >= 0) || !std::isfinite(sv.beta)) throw InputError(f, "solver.beta", "must be >= 0");
    if (!(sv.gamma >= 0 && sv.gamma <= 1)) throw InputError(f, "solver.gamma", "must be in [0, 1]");
    if (!(sv.alpha >= 0 && sv.alpha <= 1)) throw InputError(f, "solver.alpha", "must be in [0, 1]");
    if (!positiveFinite(sv.kStart)) throw InputError(f, "solver.k_start", "must be positive");
    if (!(sv.kMax >= sv.kStart) || !std::isfinite(sv.kMax))
        throw InputError(f, "solver.k_max", "must be finite and >= solver.k_start");
}

}  // namespace

void validateRigidScene(const SceneDesc& s, std::vector<std::string>* warnings) {
    for (size_t i = 0; i < s.rigidBodies.size(); ++i)
        validateBody(s.rigidBodies[i], bodyKey(s.rigidBodies[i], i), s.file, warnings);
    for (size_t i = 0; i < s.joints.size(); ++i)
        validateJoint(s.joints[i], jointKey(s.joints[i], i), s.file, int(s.rigidBodies.size()));
    validateRigidSolver(s.solver, s.file);
}

}  // namespace vbd
