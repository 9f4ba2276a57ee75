#include "scene/scene.h"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "math/error.h"
#include "math/input_file.h"
#include "scene/enum_names.h"
#include "scene/scene_limits.h"

namespace vbd {

using json = nlohmann::json;

namespace {

thread_local std::vector<std::string> g_warnings;

// A view of one JSON object that records which keys were read, so that finish() can refuse the rest.
class Obj {
  public:
    Obj(const json& j, std::string path, const std::string& file)
        : j_(j), path_(std::move(path)), file_(file) {
        if (!j_.is_object()) fail("", "must be an object");
    }
    std::string key(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }
    [[noreturn]] void fail(const std::string& k, const std::string& what) const {
        throw InputError(file_, k.empty() ? path_ : key(k), what);
    }
    bool has(const std::string& k) {
        seen_.insert(k);
        return j_.contains(k);
    }
    const json& at(const std::string& k) {
        seen_.insert(k);
        return j_.at(k);
    }
    double num(const std::string& k, double def) {
        if (!has(k)) return def;
        const json& v = j_.at(k);
        if (!v.is_number()) fail(k, "must be a number");
        double d = v.get<double>();
        if (!std::isfinite(d)) fail(k, "must be finite");
        return d;
    }
    double positive(const std::string& k, double def) {
        double d = num(k, def);
        if (!(d > 0)) fail(k, "must be > 0 (got " + fmt(d) + ")");
        return d;
    }
    double nonNegative(const std::string& k, double def) {
        double d = num(k, def);
        if (!(d >= 0)) fail(k, "must be >= 0 (got " + fmt(d) + ")");
        return d;
    }
    int integer(const std::string& k, int def, int lo, int hi) {
        if (!has(k)) return def;
        const json& v = j_.at(k);
        if (!v.is_number_integer() && !(v.is_number() && std::floor(v.get<double>()) == v.get<double>()))
            fail(k, "must be an integer");
        double d = v.get<double>();
        if (d < lo || d > hi)
            fail(k,
                 "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " + fmt(d) + ")");
        return int(d);
    }
    bool boolean(const std::string& k, bool def) {
        if (!has(k)) return def;
        const json& v = j_.at(k);
        if (!v.is_boolean()) fail(k, "must be true or false");
        return v.get<bool>();
    }
    std::string str(const std::string& k, const std::string& def) {
        if (!has(k)) return def;
        const json& v = j_.at(k);
        if (!v.is_string()) fail(k, "must be a string");
        return v.get<std::string>();
    }
    std::vector<double> numbers(const std::string& k, size_t n) {
        const json& v = at(k);
        if (!v.is_array() || v.size() != n) fail(k, "must be an array of " + std::to_string(n) + " numbers");
        std::vector<double> out;
        for (size_t i = 0; i < n; ++i) {
            if (!v[i].is_number()) fail(k, "element " + std::to_string(i) + " must be a number");
            double d = v[i].get<double>();
            if (!std::isfinite(d)) fail(k, "element " + std::to_string(i) + " must be finite");
            out.push_back(d);
        }
        return out;
    }
    // N whole numbers in [1, 4096] (grid cell counts); the message names the range (it said ">= 1" of 4097).
    template <size_t N>
    std::array<int, N> counts(const std::string& k) {
        const auto a = numbers(k, N);
        std::array<int, N> out{};
        for (size_t i = 0; i < N; ++i) {
            if (a[i] < 1 || a[i] > 4096 || std::floor(a[i]) != a[i])
                fail(k, "must be " + std::to_string(N) + " integers from 1 to 4096");
            out[i] = int(a[i]);
        }
        return out;
    }
    Vec3 vec3(const std::string& k, const Vec3& def) {
        if (!has(k)) return def;
        auto a = numbers(k, 3);
        for (size_t i = 0; i < 3; ++i)  // stored as float: a larger double would become infinite
            if (std::fabs(a[i]) > double(std::numeric_limits<float>::max()))
                fail(k, "element " + std::to_string(i) + " (" + fmt(a[i]) + ") is beyond float range");
        return Vec3(float(a[0]), float(a[1]), float(a[2]));
    }
    Quat quat(const std::string& k) {
        if (!has(k)) return Quat::identity();
        auto a = numbers(k, 4);
        double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        if (!(n > 1e-12)) fail(k, "quaternion must be non-zero");
        if (std::fabs(n - 1) > 1e-4)
            g_warnings.push_back(file_ + ": " + key(k) + ": quaternion had norm " + fmt(n) + ", normalized");
        return Quat(float(a[0] / n), float(a[1] / n), float(a[2] / n), float(a[3] / n));
    }
    // A value named by enum_names.h's table for E.
    template <typename E>
    E enumeration(const std::string& k, E def) {
        if (!has(k)) return def;
        const std::string s = str(k, "");
        E e = def;
        if (!enumFromName(s, e))
            fail(k, "unknown value \"" + s + "\" (expected one of: " + enumChoices<E>() + ")");
        return e;
    }
    // A string that must be one of `names`.
    std::string oneOf(const std::string& k, const std::string& def,
                      std::initializer_list<const char*> names) {
        if (!has(k)) return def;
        std::string s = str(k, "");
        std::string all;
        for (const char* n : names) {
            if (s == n) return s;
            all += std::string(all.empty() ? "" : ", ") + n;
        }
        fail(k, "unknown value \"" + s + "\" (expected one of: " + all + ")");
    }
    // A bool spelled by two names (e.g. initial_guess: adaptive | inertial).
    bool namedBool(const std::string& k, bool def, const char* whenTrue, const char* whenFalse) {
        if (!has(k)) return def;
        const std::string s = str(k, "");
        if (s == whenTrue) return true;
        if (s == whenFalse) return false;
        fail(k, "unknown value \"" + s + "\" (expected one of: " + whenTrue + ", " + whenFalse + ")");
    }
    Obj child(const std::string& k) { return Obj(at(k), key(k), file_); }
    std::vector<Obj> children(const std::string& k) {
        std::vector<Obj> out;
        if (!has(k)) return out;
        const json& v = j_.at(k);
        if (!v.is_array()) fail(k, "must be an array");
        for (size_t i = 0; i < v.size(); ++i)
            out.emplace_back(v[i], key(k) + "[" + std::to_string(i) + "]", file_);
        return out;
    }
    void finish() const {
        for (auto it = j_.begin(); it != j_.end(); ++it)
            if (!seen_.count(it.key())) fail(it.key(), "unknown key");
    }
    const std::string& path() const { return path_; }
    static std::string fmt(double d) {
        std::ostringstream s;
        s << d;
        return s.str();
    }

  private:
    const json& j_;
    std::string path_;
    const std::string& file_;
    std::set<std::string> seen_;
};

Box3 readBox(Obj& o) {
    Box3 b{o.vec3("min", Vec3(0.f)), o.vec3("max", Vec3(0.f))};
    if (!o.has("min")) o.fail("min", "required");
    if (!o.has("max")) o.fail("max", "required");
    if (!(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z))
        o.fail("max", "must be >= min in every axis");
    return b;
}

std::vector<FixedDesc> readFixed(Obj& o) {
    std::vector<FixedDesc> out;
    for (Obj& f : o.children("fixed")) {
        FixedDesc d;
        d.box = readBox(f);
        d.velocity = f.vec3("velocity", Vec3(0.f));
        d.angularVelocity = f.vec3("angular_velocity", Vec3(0.f));
        d.hasCenter = f.has("center");
        d.center = f.vec3("center", Vec3(0.f));
        f.finish();
        out.push_back(d);
    }
    return out;
}

// Textbook Lame parameters and the Young's modulus and Poisson ratio they stand for:
//   E = mu (3 lambda + 2 mu) / (lambda + mu), nu = lambda / (2 (lambda + mu));
//   mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu) (1 - 2 nu)).
// nu in (-1, 0.5) is mu > 0 with a positive bulk modulus lambda + 2 mu / 3.
struct YoungsPoisson {
    double youngs, poisson;
};
YoungsPoisson fromLame(double mu, double lambda) {
    return {mu * (3 * lambda + 2 * mu) / (lambda + mu), lambda / (2 * (lambda + mu))};
}
struct Lame {
    double mu, lambda;
};
Lame toLame(double youngs, double poisson) {
    return {youngs / (2 * (1 + poisson)), youngs * poisson / ((1 + poisson) * (1 - 2 * poisson))};
}

MaterialDesc readMaterial(Obj& parent, bool cloth) {
    MaterialDesc m;
    if (!parent.has("material")) return m;
    Obj o = parent.child("material");
    if (o.has("mu") || o.has("lambda")) {
        // Textbook Lame parameters instead (fromLame).
        const char* other = o.has("youngs") ? "youngs" : o.has("poisson") ? "poisson" : nullptr;
        if (other) o.fail(other, "give youngs and poisson, or mu and lambda, not both");
        if (!o.has("mu") || !o.has("lambda"))
            o.fail(o.has("mu") ? "lambda" : "mu", "mu and lambda go together");
        const double mu = o.positive("mu", 1), lambda = o.num("lambda", 0);
        if (!(lambda + 2 * mu / 3 > 0))
            o.fail("lambda",
                   "must be above -2 mu / 3 (a positive bulk modulus; got " + Obj::fmt(lambda) + ")");
        const YoungsPoisson e = fromLame(mu, lambda);
        m.youngs = e.youngs;
        m.poisson = e.poisson;
        // Said in the keys given, not in the youngs and poisson they stand for.
        if (!std::isfinite(m.youngs)) o.fail("mu", "mu and lambda give a Young's modulus beyond a double");
        if (!(m.poisson < 0.5))
            o.fail(
                "lambda",
                "too large against mu: the Poisson ratio rounds to 0.5 (incompressible; got lambda / mu = " +
                    Obj::fmt(lambda / mu) + ")");
    }
    m.youngs = o.positive("youngs", m.youngs);
    m.poisson = o.num("poisson", m.poisson);
    if (!(m.poisson > -1.0 && m.poisson < 0.5))
        o.fail("poisson", "must be in (-1, 0.5) (got " + Obj::fmt(m.poisson) + ")");
    m.density = o.positive("density", m.density);
    m.damping = o.nonNegative("damping", m.damping);
    if (cloth) {
        m.thickness = o.positive("thickness", m.thickness);
        m.bending = o.nonNegative("bending", m.bending);
        m.bendingDamping = o.nonNegative("bending_damping", m.bendingDamping);
    }
    o.finish();
    return m;
}

std::string resolvePath(const std::string& sceneFile, const std::string& p) {
    namespace fs = std::filesystem;
    fs::path q(p);
    if (q.is_absolute() || sceneFile.empty()) return q.string();
    return (fs::path(sceneFile).parent_path() / q).lexically_normal().string();
}

void readSolver(Obj& o, SolverDesc& s) {
    // At least 1, as every World requires (validateRigidSolver): a bound here refuses 0 where the scene is
    // read (a panel edit, an actions file's check) and not only when a World is built.
    s.iterations = o.integer("iterations", s.iterations, 1, 100000);
    s.damping = o.enumeration("damping", s.damping);
    if (o.has("coarse")) {
        Obj c = o.child("coarse");
        CoarseDesc& d = s.coarse;
        d.enabled = c.boolean("enabled", d.enabled);
        d.basis = c.enumeration("basis", d.basis);
        d.modesPerElement = c.integer("modes_per_element", d.modesPerElement, 1, 12);
        d.filter = c.enumeration("filter", d.filter);
        d.contrastThreshold = c.num("contrast_threshold", d.contrastThreshold);
        if (!(d.contrastThreshold >= 1)) c.fail("contrast_threshold", "must be >= 1");
        d.patchSize = c.integer("patch_size", d.patchSize, 1, 1000);
        d.aggregateSize = c.integer("aggregate_size", d.aggregateSize, 1, 1000);
        d.matrix = c.enumeration("matrix", d.matrix);
        c.finish();
    }
    s.chebyshevRho = o.num("chebyshev_rho", s.chebyshevRho);
    if (!(s.chebyshevRho >= 0 && s.chebyshevRho < 1)) o.fail("chebyshev_rho", "must be in [0, 1)");
    s.beta = o.nonNegative("beta", s.beta);
    s.gamma = o.num("gamma", s.gamma);
    if (!(s.gamma >= 0 && s.gamma <= 1)) o.fail("gamma", "must be in [0, 1]");
    s.alpha = o.num("alpha", s.alpha);
    if (!(s.alpha >= 0 && s.alpha <= 1)) o.fail("alpha", "must be in [0, 1]");
    s.kStart = o.positive("k_start", s.kStart);
    s.kMax = o.positive("k_max", s.kMax);
    if (s.kMax < s.kStart) o.fail("k_max", "must be >= k_start");
    s.contactDamping = o.nonNegative("contact_damping", s.contactDamping);
    s.frictionEpsilon = o.positive("friction_epsilon", s.frictionEpsilon);
    s.threads = o.integer("threads", s.threads, 0, 1024);
    s.diagnostics = o.boolean("diagnostics", s.diagnostics);
    s.adaptiveInit = o.namedBool("initial_guess", s.adaptiveInit, "adaptive", "inertial");
    s.precision = o.enumeration("precision", s.precision);
    s.backend = o.enumeration("backend", s.backend);
    s.tolerance = o.num("tolerance", s.tolerance);
    if (!(s.tolerance >= 0 && s.tolerance < 1)) o.fail("tolerance", "must be in [0, 1) (0 = off)");
    o.finish();
}

SoftBodyDesc readSoftBody(Obj& o, const std::string& file) {
    SoftBodyDesc b;
    b.key = o.path();
    b.type = o.oneOf("type", "box_grid", {"box_grid", "mesh"});
    if (b.type == "box_grid") {
        b.min = o.vec3("min", b.min);
        b.max = o.vec3("max", b.max);
        if (!(b.min.x < b.max.x && b.min.y < b.max.y && b.min.z < b.max.z))
            o.fail("max", "must be > min in every axis");
        if (o.has("cells")) b.cells = o.counts<3>("cells");
        b.tetsPerCell = o.integer("tets_per_cell", b.tetsPerCell, 5, 6);
    } else {
        if (!o.has("path")) o.fail("path", "required for a mesh soft body");
        b.path = resolvePath(file, o.str("path", ""));
        if (!std::filesystem::exists(b.path)) o.fail("path", "file not found: " + b.path);
        b.scale = o.positive("scale", b.scale);
        b.translate = o.vec3("translate", b.translate);
        b.rotation = o.quat("rotation");
        b.maxVolume = o.nonNegative("max_volume", b.maxVolume);
    }
    b.material = readMaterial(o, false);
    for (Obj& r : o.children("regions")) {
        RegionDesc d;
        d.box = readBox(r);
        d.youngsScale = r.positive("youngs_scale", 1);
        r.finish();
        b.regions.push_back(d);
    }
    b.fixed = readFixed(o);
    b.velocity = o.vec3("velocity", b.velocity);
    b.angularVelocity = o.vec3("angular_velocity", b.angularVelocity);
    b.collision = o.boolean("collision", b.collision);
    b.selfCollision = o.boolean("self_collision", b.selfCollision);
    b.collisionRadius = o.nonNegative("collision_radius", b.collisionRadius);
    b.collisionStiffness = o.nonNegative("collision_stiffness", b.collisionStiffness);
    b.friction = o.nonNegative("friction", b.friction);
    b.collisionInterval = o.integer("collision_interval", b.collisionInterval, 0, 100000);
    o.finish();
    return b;
}

ClothDesc readCloth(Obj& o) {
    ClothDesc c;
    c.key = o.path();
    c.type = o.oneOf("type", "grid", {"grid"});
    c.min = o.vec3("min", c.min);
    if (o.has("size")) {
        auto s = o.numbers("size", 2);
        if (!(s[0] > 0 && s[1] > 0)) o.fail("size", "must be > 0");
        c.size = {s[0], s[1]};
    }
    if (o.has("cells")) c.cells = o.counts<2>("cells");
    c.plane = o.oneOf("plane", "xz", {"xz", "xy"});
    c.material = readMaterial(o, true);
    c.fixed = readFixed(o);
    c.velocity = o.vec3("velocity", c.velocity);
    c.selfCollision = o.boolean("self_collision", c.selfCollision);
    c.collisionRadius = o.nonNegative("collision_radius", c.collisionRadius);
    c.collisionStiffness = o.positive("collision_stiffness", c.collisionStiffness);
    c.friction = o.nonNegative("friction", c.friction);
    c.collisionInterval = o.integer("collision_interval", c.collisionInterval, 0, 100000);
    o.finish();
    return c;
}

RigidBodyDesc readRigidBody(Obj& o) {
    RigidBodyDesc b;
    b.key = o.path();
    b.shape = o.enumeration("shape", ShapeType::Box);
    if (b.shape == ShapeType::Box) {
        b.size = o.vec3("size", b.size);
        if (!(b.size.x > 0 && b.size.y > 0 && b.size.z > 0)) o.fail("size", "must be > 0 in every axis");
    } else {
        b.radius = o.positive("radius", b.radius);
        if (b.shape == ShapeType::Capsule) b.halfHeight = o.positive("half_height", b.halfHeight);
    }
    b.density = o.positive("density", b.density);
    b.position = o.vec3("position", b.position);
    b.rotation = o.quat("rotation");
    b.velocity = o.vec3("velocity", b.velocity);
    b.angularVelocity = o.vec3("angular_velocity", b.angularVelocity);
    b.friction = o.nonNegative("friction", b.friction);
    b.fixed = o.boolean("fixed", b.fixed);
    o.finish();
    return b;
}

JointDesc readJoint(Obj& o, int numBodies) {
    JointDesc j;
    j.key = o.path();
    j.type = o.enumeration("type", JointType::Ball);
    j.bodyA = o.integer("body_a", -1, -1, 1 << 30);
    j.bodyB = o.integer("body_b", 0, -1, 1 << 30);
    for (const auto& [key, body] : {std::pair<const char*, int>{"body_a", j.bodyA}, {"body_b", j.bodyB}})
        if (body >= numBodies)
            o.fail(key, "no rigid body " + std::to_string(body) + " (scene has " + std::to_string(numBodies) +
                            ")");
    if (j.bodyA == j.bodyB) o.fail("body_b", "a joint needs two different bodies");
    j.anchor = o.vec3("anchor", j.anchor);
    j.axis = o.vec3("axis", j.axis);
    if (!(norm(j.axis) > 1e-9f)) o.fail("axis", "must be non-zero");
    j.axis = normalized(j.axis);
    if (o.has("limits")) {
        auto l = o.numbers("limits", 2);
        if (!(l[0] <= l[1])) o.fail("limits", "lower must be <= upper");
        j.limit = true;
        j.lower = l[0];
        j.upper = l[1];
    }
    j.stiffness = o.nonNegative("stiffness", j.stiffness);
    o.finish();
    return j;
}

// "a.b.0.c=value": walks (creating objects as needed) and sets the value parsed as JSON, else as string.
// An override of one elastic form (youngs / poisson, or mu / lambda) on a material given in the other: the
// material is first rewritten in the override's form, from the values it has (a panel's Young's modulus
// slider on a scene written with mu and lambda was refused as "not both"). Left alone where the values are
// not plain numbers: the material's own check then says what is wrong.
void convertElasticForm(json& material, const std::string& key) {
    const bool wantsYoungs = key == "youngs" || key == "poisson", wantsLame = key == "mu" || key == "lambda";
    auto number = [&](const char* k, double def, double& out) {
        if (!material.contains(k)) return (out = def), true;
        if (!material[k].is_number()) return false;
        out = material[k].get<double>();
        return std::isfinite(out);
    };
    if (wantsYoungs && material.contains("mu") && material.contains("lambda")) {
        double mu = 0, lambda = 0;
        if (!number("mu", 0, mu) || !number("lambda", 0, lambda) || !(mu + lambda != 0)) return;
        material.erase("mu");
        material.erase("lambda");
        const YoungsPoisson e = fromLame(mu, lambda);
        material["youngs"] = e.youngs;
        material["poisson"] = e.poisson;
    } else if (wantsLame && (material.contains("youngs") || material.contains("poisson"))) {
        const MaterialDesc d;
        double E = 0, nu = 0;
        if (!number("youngs", d.youngs, E) || !number("poisson", d.poisson, nu) || nu == -1 || nu == 0.5)
            return;
        material.erase("youngs");
        material.erase("poisson");
        const Lame l = toLame(E, nu);
        material["mu"] = l.mu;
        material["lambda"] = l.lambda;
    }
}

void applyOverride(json& root, const std::string& ov, const std::string& file) {
    const size_t eq = ov.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError(file, ov, "override must look like key.path=value");
    const std::string path = ov.substr(0, eq), text = ov.substr(eq + 1);
    // Every part of the path names something: "solver.iterations." was taken as solver.iterations (getline
    // drops a trailing empty part) and ".solver" set a key "" ("unknown key" without naming one).
    if (path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos)
        throw InputError(file, path, "empty part in the key path (key.path=value)");
    json value;
    try {
        value = json::parse(text);
    } catch (const json::parse_error&) {
        value = text;
    } catch (const json::exception&) {
        // out_of_range.406: valid JSON syntax, a number beyond a double (1e999). Taking it as the string
        // would report "must be a number" for what is one; the reason is that it is not finite.
        throw InputError(file, path, "value \"" + text + "\" is not a finite number");
    }
    json* cur = &root;
    std::stringstream ss(path);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(ss, part, '.')) parts.push_back(part);
    for (size_t i = 0; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        const bool last = i + 1 == parts.size();
        if (cur->is_array()) {
            char* end = nullptr;
            long idx = std::strtol(p.c_str(), &end, 10);
            if (*end || idx < 0 || size_t(idx) >= cur->size())
                throw InputError(file, path, "array index \"" + p + "\" out of range");
            cur = &(*cur)[size_t(idx)];
        } else {
            if (!cur->is_object()) throw InputError(file, path, "\"" + p + "\" is not inside an object");
            if (last && i > 0 && parts[i - 1] == "material") convertElasticForm(*cur, p);
            if (!cur->contains(p) && !last) (*cur)[p] = json::object();
            cur = &(*cur)[p];
        }
        if (last) *cur = value;
    }
}

// A body that starts deep in the ground is thrown out by the ground's penalty force (k d for a depth d:
// a 1 m cube 2 m deep left at 119 m/s): said, not refused, since a scene may mean it. Box grids and
// dynamic rigid boxes and spheres, whose lowest point is known before any mesh is read; 1% of the body's
// height is allowed (a body resting on the ground).
void warnBelowGround(const SceneDesc& s, const std::string& file) {
    if (!s.ground.enabled) return;
    const double h = s.ground.height;
    auto check = [&](const std::string& key, double lowest, double height) {
        if (lowest < h - 0.01 * height) {
            char buf[160];
            std::snprintf(
                buf, sizeof buf,
                "starts %.3g m below the ground (height %.3g): the ground's penalty force will throw "
                "it out",
                h - lowest, h);
            g_warnings.push_back(file + ": " + key + ": " + buf);
        }
    };
    for (const SoftBodyDesc& b : s.softBodies)
        if (b.type == "box_grid")
            check(b.key, std::min(b.min.y, b.max.y), std::fabs(double(b.max.y - b.min.y)));
    for (const RigidBodyDesc& b : s.rigidBodies) {
        if (b.fixed) continue;
        double reach = 0;
        if (b.shape == ShapeType::Sphere) {
            reach = b.radius;
        } else if (b.shape == ShapeType::Box) {
            const Mat33 R = toMatrix(b.rotation);  // world y of the box's half extents
            for (int k = 0; k < 3; ++k) reach += 0.5 * std::fabs(double(R(1, k) * b.size[k]));
        } else {
            continue;  // a capsule's axis: not worth the case
        }
        check(b.key, double(b.position.y) - reach, 2 * reach);
    }
}

}  // namespace

namespace {

// The offset of the first occurrence of the number `token` in JSON `text` that is a whole value: outside
// strings (a name "test 1e999" is not it) and not part of a longer token; npos if none.
size_t numberAt(const std::string& text, const std::string& token) {
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;  // the escaped character
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            continue;
        }
        auto partOfNumber = [](char d) {
            return std::isalnum(static_cast<unsigned char>(d)) || d == '.' || d == '-' || d == '+';
        };
        if (text.compare(i, token.size(), token) == 0 && (i == 0 || !partOfNumber(text[i - 1])) &&
            (i + token.size() >= text.size() || !partOfNumber(text[i + token.size()])))
            return i;
    }
    return std::string::npos;
}

}  // namespace

const std::vector<std::string>& lastSceneWarnings() { return g_warnings; }

SceneDesc parseScene(const std::string& text, const std::string& file,
                     const std::vector<std::string>& overrides) {
    g_warnings.clear();
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        const size_t p = what.find("parse error");
        throw InputError(file, textPosition(text, e.byte),
                         "malformed JSON (" + (p == std::string::npos ? what : what.substr(p)) + ")");
    } catch (const json::exception& e) {
        // e.g. out_of_range.406 for a number that overflows a double (1e999): not a finite number. The
        // exception carries no offset, but it quotes the number: its first occurrence is where it is.
        std::string what = e.what();
        const size_t p = what.find(']');
        const size_t q0 = what.find('\''), q1 = q0 == std::string::npos ? q0 : what.find('\'', q0 + 1);
        const size_t at = q1 == std::string::npos ? q1 : numberAt(text, what.substr(q0 + 1, q1 - q0 - 1));
        throw InputError(file, at == std::string::npos ? "" : textPosition(text, at),
                         "unusable JSON value (" + (p == std::string::npos ? what : what.substr(p + 2)) +
                             "): numbers must be finite");
    }
    for (const auto& ov : overrides) applyOverride(root, ov, file);

    SceneDesc s;
    s.file = file;
    Obj o(root, "", file);
    s.name = o.str("name", std::filesystem::path(file).stem().string());
    s.gravity = o.vec3("gravity", s.gravity);
    s.dt = o.positive("dt", s.dt);
    s.substeps = o.integer("substeps", s.substeps, 1, 10000);
    if (o.has("solver")) {
        Obj so = o.child("solver");
        readSolver(so, s.solver);
    }
    if (o.has("ground")) {
        if (o.at("ground").is_null() || (o.at("ground").is_boolean() && !o.at("ground").get<bool>())) {
            s.ground.enabled = false;
        } else {
            Obj g = o.child("ground");
            s.ground.enabled = g.boolean("enabled", true);
            s.ground.height = g.num("height", s.ground.height);
            s.ground.stiffness = g.positive("stiffness", s.ground.stiffness);
            s.ground.friction = g.nonNegative("friction", s.ground.friction);
            g.finish();
        }
    }
    for (Obj& b : o.children("soft_bodies")) s.softBodies.push_back(readSoftBody(b, file));
    for (Obj& c : o.children("cloths")) s.cloths.push_back(readCloth(c));
    for (Obj& r : o.children("rigid_bodies")) s.rigidBodies.push_back(readRigidBody(r));
    for (Obj& j : o.children("joints")) s.joints.push_back(readJoint(j, int(s.rigidBodies.size())));
    if (o.has("view")) {
        Obj v = o.child("view");
        s.view.given = true;
        s.view.yawDeg = v.num("yaw", s.view.yawDeg);
        s.view.pitchDeg = v.num("pitch", s.view.pitchDeg);
        if (!(std::fabs(s.view.pitchDeg) <= 88))  // the app's orbit keeps the pitch within 1.55 rad
            v.fail("pitch", "must be in [-88, 88] degrees (got " + Obj::fmt(s.view.pitchDeg) + ")");
        v.finish();
    }
    o.finish();
    checkSceneLimits(s);  // float range of derived quantities, memory (scene_limits.h)
    warnBelowGround(s, file);
    return s;
}

SceneDesc loadSceneFile(const std::string& path, const std::vector<std::string>& overrides) {
    // Never a FIFO, device or directory (a directory read as a stream was "malformed JSON").
    return parseScene(readInputFile(path, "", kMaxJsonFileBytes), path, overrides);
}

}  // namespace vbd
