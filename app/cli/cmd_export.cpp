// `vbdlab export SCENE.json --out model.json [--set key.path=value]...`: writes the particle model exactly as
// our solver builds it from a scene (vertices, tets, cloth triangles and bending hinges, masses, fixed flags,
// per-element materials and rest shapes, static colliders) plus the scene's rigid bodies and solver settings,
// so another program (tests/peer/: Newton's SolverVBD) can run the identical model instead of re-gridding.
//
// Every number is the float the solver stores, written with 9 significant digits (float32 round-trips
// exactly). Materials are written as the solver uses them: mu and lambda_nh = lambda_Lame + mu (the stable
// Neo-Hookean shift, energy/material.h); cloth mu/lambda_nh are per unit volume (volume = area * thickness).
// Rigid bodies are written as the scene gives them (shape, size, density, pose, velocities, friction).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "math/error.h"
#include "scene/scene.h"
#include "soft/soft_solver.h"

namespace vbdcli {

namespace fs = std::filesystem;

// nlohmann::json with float as its floating-point type: dump() then prints max_digits10(float) = 9 digits,
// enough to round-trip every stored float32 and half the size of printing them as doubles.
using FJson =
    nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

struct ExportRun {
    std::string scene;
    std::string out;
    std::vector<std::string> sets;
};

static FJson vec(const vbd::Vec3& v) { return FJson::array({v.x, v.y, v.z}); }
static FJson vec(const vbd::Quat& q) { return FJson::array({q.x, q.y, q.z, q.w}); }

static const char* dampingName(vbd::DampingModel d) {
    switch (d) {
        case vbd::DampingModel::None:
            return "none";
        case vbd::DampingModel::Naive:
            return "naive";
        default:
            return "internal";
    }
}

static const char* shapeName(vbd::ShapeType s) {
    switch (s) {
        case vbd::ShapeType::Sphere:
            return "sphere";
        case vbd::ShapeType::Capsule:
            return "capsule";
        default:
            return "box";
    }
}

static FJson particlesJson(const vbd::SoftModel& m) {
    FJson x = FJson::array(), v = FJson::array(), mass = FJson::array(), fixed = FJson::array(),
          kin = FJson::array(), body = FJson::array();
    for (int i = 0; i < m.numVertices(); ++i) {
        const size_t s = size_t(i);
        x.push_back(vec(m.x[s]));
        v.push_back(vec(m.v[s]));
        mass.push_back(m.mass[s]);
        fixed.push_back(m.fixed[s] ? 1 : 0);
        kin.push_back(m.kinematic[s] >= 0 ? 1 : 0);
        body.push_back(m.bodyOfVertex[s]);
    }
    return FJson{{"x", x}, {"v", v}, {"mass", mass}, {"fixed", fixed}, {"kinematic", kin}, {"body", body}};
}

static FJson tetsJson(const vbd::SoftModel& m) {
    FJson idx = FJson::array(), dm = FJson::array(), vol = FJson::array(), mu = FJson::array(),
          lam = FJson::array(), kd = FJson::array();
    for (size_t e = 0; e < m.tets.size(); ++e) {
        const auto& t = m.tets[e];
        idx.push_back({t[0], t[1], t[2], t[3]});
        FJson d = FJson::array();
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) d.push_back(m.DmInv[e](r, c));
        dm.push_back(d);
        vol.push_back(m.volume[e]);
        mu.push_back(m.mu[e]);
        lam.push_back(m.lambda[e]);
        kd.push_back(m.kd[e]);
    }
    return FJson{{"indices", idx}, {"DmInv", dm},      {"volume", vol},
                 {"mu", mu},       {"lambda_nh", lam}, {"kd", kd}};
}

static FJson trianglesJson(const vbd::SoftModel& m) {
    FJson idx = FJson::array(), dm = FJson::array(), area = FJson::array(), vol = FJson::array(),
          mu = FJson::array(), lam = FJson::array(), kd = FJson::array();
    for (size_t t = 0; t < m.tris.size(); ++t) {
        idx.push_back({m.tris[t][0], m.tris[t][1], m.tris[t][2]});
        const auto& r = m.triRest[t];
        dm.push_back({r.d[0], r.d[1], r.d[2], r.d[3]});
        area.push_back(r.area);
        vol.push_back(m.triVolume[t]);
        mu.push_back(m.triMu[t]);
        lam.push_back(m.triLambda[t]);
        kd.push_back(m.triKd[t]);
    }
    return FJson{{"indices", idx}, {"DmInv", dm},      {"area", area}, {"volume", vol},
                 {"mu", mu},       {"lambda_nh", lam}, {"kd", kd}};
}

static FJson hingesJson(const vbd::SoftModel& m) {
    FJson idx = FJson::array(), th = FJson::array(), kl = FJson::array(), kd = FJson::array();
    for (size_t h = 0; h < m.hinges.size(); ++h) {
        const auto& e = m.hinges[h];
        idx.push_back({e[0], e[1], e[2], e[3]});
        th.push_back(m.hingeTheta0[h]);
        kl.push_back(m.hingeKL[h]);
        kd.push_back(m.hingeKd[h]);
    }
    return FJson{{"indices", idx}, {"theta0", th}, {"kL", kl}, {"kd", kd}};
}

static FJson collidersJson(const vbd::SoftModel& m) {
    FJson cs = FJson::array();
    for (const auto& c : m.colliders) {
        const char* type = c.type == vbd::ParticleColliderType::Plane    ? "plane"
                           : c.type == vbd::ParticleColliderType::Sphere ? "sphere"
                                                                         : "box";
        cs.push_back(FJson{{"type", type},
                           {"center", vec(c.center)},
                           {"normal", vec(c.normal)},
                           {"half_extents", vec(c.halfExtents)},
                           {"rotation", vec(c.rotation)},
                           {"friction", c.friction},
                           {"stiffness", c.stiffness}});
    }
    return cs;
}

static FJson rigidJson(const vbd::SceneDesc& d) {
    FJson bodies = FJson::array();
    for (const auto& b : d.rigidBodies) {
        bodies.push_back(FJson{{"shape", shapeName(b.shape)},
                               {"size", vec(b.size)},
                               {"radius", float(b.radius)},
                               {"half_height", float(b.halfHeight)},
                               {"density", float(b.density)},
                               {"position", vec(b.position)},
                               {"rotation", vec(b.rotation)},
                               {"velocity", vec(b.velocity)},
                               {"angular_velocity", vec(b.angularVelocity)},
                               {"friction", float(b.friction)},
                               {"fixed", b.fixed}});
    }
    return bodies;
}

int runExport(const ExportRun& r) {
    checkOutputFile(r.out, "--out");
    // Everything that can be refused (scene, --set, mesh, degenerate elements) is checked before the output
    // file is created.
    vbd::SceneDesc desc = vbd::loadSceneFile(r.scene, r.sets);
    printSceneWarnings();
    if (!desc.joints.empty())
        throw vbd::InputError(r.scene, "joints", "export does not write joints (no peer scene uses them)");
    vbd::SoftSolver solver;
    solver.build(desc);
    const vbd::SoftModel& m = solver.model();

    FJson j;
    j["format"] = "vbdlab-model";
    j["version"] = 1;
    j["scene"] = FJson{{"name", desc.name}, {"file", desc.file}};
    j["dt"] = float(desc.dt);
    j["substeps"] = desc.substeps;
    j["gravity"] = vec(desc.gravity);
    const vbd::SolverDesc& s = desc.solver;
    j["solver"] = FJson{{"iterations", s.iterations},
                        {"damping", dampingName(s.damping)},
                        {"adaptive_init", s.adaptiveInit},
                        {"chebyshev_rho", float(s.chebyshevRho)},
                        {"coarse", s.coarse.enabled},
                        {"precision", s.precision == vbd::Precision::Double ? "double" : "float"},
                        {"contact_damping", float(s.contactDamping)},
                        {"friction_epsilon", float(s.frictionEpsilon)},
                        {"beta", float(s.beta)},
                        {"gamma", float(s.gamma)},
                        {"alpha", float(s.alpha)},
                        {"k_start", float(s.kStart)},
                        {"k_max", float(s.kMax)}};
    j["ground"] = FJson{{"enabled", desc.ground.enabled},
                        {"height", float(desc.ground.height)},
                        {"stiffness", float(desc.ground.stiffness)},
                        {"friction", float(desc.ground.friction)}};
    j["particles"] = particlesJson(m);
    j["tets"] = tetsJson(m);
    j["triangles"] = trianglesJson(m);
    j["hinges"] = hingesJson(m);
    FJson cloths = FJson::array();
    for (const auto& c : desc.cloths) {
        cloths.push_back(FJson{{"thickness", float(c.material.thickness)},
                               {"self_collision", c.selfCollision},
                               {"collision_radius", float(c.collisionRadius)},
                               {"collision_stiffness", float(c.collisionStiffness)},
                               {"friction", float(c.friction)},
                               {"collision_interval", c.collisionInterval}});
    }
    j["cloths"] = cloths;
    j["colliders"] = collidersJson(m);
    // The solver's color groups in sweep order (free vertices only), so a peer can sweep in the same order.
    FJson groups = FJson::array();
    for (const auto& g : m.colorGroups) groups.push_back(g);
    j["color_groups"] = groups;
    j["rigid_bodies"] = rigidJson(desc);

    const fs::path out(r.out);
    if (out.has_parent_path()) makeOutputFolder(out.parent_path().string());
    std::ofstream f(out);
    if (!f) throw std::runtime_error("cannot write " + r.out);
    f << j.dump() << "\n";
    if (!f) throw std::runtime_error("cannot write " + r.out);
    std::fprintf(stderr,
                 "vbdlab: exported \"%s\": %d particles, %zu tets, %zu triangles, %zu hinges, %zu rigid "
                 "bodies -> %s\n",
                 desc.name.c_str(), m.numVertices(), m.tets.size(), m.tris.size(), m.hinges.size(),
                 desc.rigidBodies.size(), r.out.c_str());
    return 0;
}

static Command addExportCommand(CLI::App& root) {
    auto run = std::make_shared<ExportRun>();
    CLI::App* sub = root.add_subcommand(
        "export", "Write the particle model our solver builds from a scene (for peer comparisons) as JSON");
    sub->add_option("scene", run->scene, "Scene file (JSON)")->required()->check(CLI::ExistingFile);
    sub->add_option("--out", run->out, "Output file (model.json; parent folders are created)")->required();
    sub->add_option("--set", run->sets, "Override a scene key: --set solver.iterations=20 (repeatable)");
    sub->footer(
        "Writes: particles (x, v, mass, fixed, kinematic, body), tets (indices, DmInv row-major, volume, "
        "mu,\n"
        "lambda_nh = lambda_Lame + mu, kd), triangles (indices, DmInv 2x2 row-major, area, volume = area *\n"
        "thickness, mu, lambda_nh, kd), hinges (x0-x1 edge, wings x2 x3; theta0, kL, kd), colliders, "
        "cloths,\n"
        "color_groups (free vertices per color, in sweep order), rigid_bodies, solver, ground, dt, "
        "substeps,\n"
        "gravity.\n"
        "Exit codes: 0 ok, 2 bad input (the message names file and key), 1 other error.");
    return {sub, [run]() { return runExport(*run); }};
}

static Registrar reg(&addExportCommand);

}  // namespace vbdcli
