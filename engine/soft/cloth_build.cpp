// Cloth sheets -> SoftModel (see cloth_build.h).
#include "soft/cloth_build.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "backend/parallel.h"
#include "energy/bending.h"
#include "energy/damping.h"
#include "math/error.h"

namespace vbd {

ClothMesh makeClothGrid(const ClothDesc& c) {
    ClothMesh m;
    const int nx = c.cells[0], nz = c.cells[1];
    const float dx = float(c.size[0] / nx), dz = float(c.size[1] / nz);
    for (int j = 0; j <= nz; ++j)
        for (int i = 0; i <= nx; ++i) {
            const Vec3 o = c.plane == "xy" ? Vec3(float(i) * dx, float(j) * dz, 0)
                                           : Vec3(float(i) * dx, 0, float(j) * dz);
            m.X.push_back(c.min + o);
        }
    auto id = [&](int i, int j) { return j * (nx + 1) + i; };
    for (int j = 0; j < nz; ++j)
        for (int i = 0; i < nx; ++i) {
            const int a = id(i, j), b = id(i + 1, j), cc = id(i + 1, j + 1), d = id(i, j + 1);
            if ((i + j) % 2 == 0) {
                m.tris.push_back({a, b, cc});
                m.tris.push_back({a, cc, d});
            } else {
                m.tris.push_back({a, b, d});
                m.tris.push_back({b, cc, d});
            }
        }
    return m;
}

std::vector<std::array<int, 4>> clothHinges(const std::vector<std::array<int, 3>>& tris) {
    // directed edge (a -> b) of a triangle, with its opposite vertex
    std::map<std::pair<int, int>, int> opposite;
    for (const auto& t : tris)
        for (int k = 0; k < 3; ++k) opposite[{t[k], t[(k + 1) % 3]}] = t[(k + 2) % 3];
    std::vector<std::array<int, 4>> h;
    for (const auto& [e, c] : opposite) {
        if (e.first > e.second) continue;  // each undirected edge once
        auto it = opposite.find({e.second, e.first});
        if (it == opposite.end()) continue;  // boundary edge
        h.push_back({e.first, e.second, c, it->second});
    }
    return h;
}

TriRest triangleRest(const Vec3& X0, const Vec3& X1, const Vec3& X2, const std::string& file,
                     const std::string& key, double relTol) {
    const Vec3d e1 = Vec3d(X1) - Vec3d(X0), e2 = Vec3d(X2) - Vec3d(X0);
    const Vec3d n = cross(e1, e2);
    const double area2 = norm(n);
    const double l = (norm(e1) + norm(e2) + norm(e2 - e1)) / 3.0;
    if (!(area2 > relTol * l * l) || !std::isfinite(area2))
        throw InputError(file, key,
                         "triangle with zero rest area (edge lengths " + std::to_string(norm(e1)) + ", " +
                             std::to_string(norm(e2)) + ")");
    // Orthonormal frame of the plane: u along e1, v = n^ x u.
    const Vec3d u = e1 / norm(e1), v = cross(n / area2, u);
    const double a = dot(e1, u), b = dot(e2, u), c = dot(e1, v), d = dot(e2, v);  // Dm = [a b; c d]
    const double det = a * d - b * c;
    TriRest r;
    r.d[0] = float(d / det);
    r.d[1] = float(-b / det);
    r.d[2] = float(-c / det);
    r.d[3] = float(a / det);
    r.area = float(0.5 * area2);
    return r;
}

void appendCloths(const SceneDesc& scene, SoftModel& m) {
    m.numCloths = int(scene.cloths.size());
    m.colliderOffset.resize(m.x.size(), 0.f);
    for (size_t ci = 0; ci < scene.cloths.size(); ++ci) {
        const ClothDesc& c = scene.cloths[ci];
        const std::string key = c.key.empty() ? "cloths[" + std::to_string(ci) + "]" : c.key;
        if (!(c.material.thickness > 0))
            throw InputError(scene.file, key + ".material.thickness", "must be > 0");
        if (c.cells[0] < 1 || c.cells[1] < 1)
            throw InputError(scene.file, key + ".cells", "must be 2 integers >= 1");
        const ClothMesh mesh = makeClothGrid(c);
        const int base = m.numVertices();
        const int body = int(scene.softBodies.size() + ci);
        const double th = c.material.thickness;
        const Lame nh = neoHookeanFromLame(planeStressLame(c.material.youngs, c.material.poisson));
        const float cell = float(std::min(c.size[0] / c.cells[0], c.size[1] / c.cells[1]));
        const float radius = c.collisionRadius > 0 ? float(c.collisionRadius) : 0.3f * cell;
        for (const Vec3& p : mesh.X) {
            appendParticle(m, p, c.velocity, body, c.fixed);
            m.colliderOffset.push_back(radius);
        }
        std::vector<float> triArea;
        const size_t triBase = m.tris.size();
        for (size_t t = 0; t < mesh.tris.size(); ++t) {
            const auto& tr = mesh.tris[t];
            const TriRest r = triangleRest(mesh.X[size_t(tr[0])], mesh.X[size_t(tr[1])],
                                           mesh.X[size_t(tr[2])], scene.file, key + ".size");
            m.tris.push_back({tr[0] + base, tr[1] + base, tr[2] + base});
            m.triRest.push_back(r);
            m.triVolume.push_back(float(r.area * th));
            m.triMu.push_back(float(nh.mu));
            m.triLambda.push_back(float(nh.lambda));
            m.triKd.push_back(float(c.material.damping));
            const float mv = float(c.material.density * th * r.area / 3.0);
            for (int v : tr) m.mass[size_t(v) + size_t(base)] += mv;
            triArea.push_back(r.area);
        }
        // Hinges: kL = 3 B L0^2 / (A_A + A_B) (bending.h), rest angle from the rest shape.
        std::map<std::array<int, 3>, size_t> triOf;
        for (size_t t = 0; t < mesh.tris.size(); ++t) {
            std::array<int, 3> s = mesh.tris[t];
            std::sort(s.begin(), s.end());
            triOf[s] = t;
        }
        auto areaOf = [&](int a, int b, int cc) {
            std::array<int, 3> s = {a, b, cc};
            std::sort(s.begin(), s.end());
            return triArea[triOf.at(s)];
        };
        for (const auto& h : clothHinges(mesh.tris)) {
            const Vec3 &X0 = mesh.X[size_t(h[0])], &X1 = mesh.X[size_t(h[1])];
            const double L0 = norm(X1 - X0);
            const double A = areaOf(h[0], h[1], h[2]) + areaOf(h[1], h[0], h[3]);
            m.hinges.push_back({h[0] + base, h[1] + base, h[2] + base, h[3] + base});
            m.hingeTheta0.push_back(dihedralAngle(X0, X1, mesh.X[size_t(h[2])], mesh.X[size_t(h[3])]));
            m.hingeKL.push_back(float(3.0 * c.material.bending * L0 * L0 / A));
            m.hingeKd.push_back(float(c.material.bendingDamping));
        }
        (void)triBase;
    }
}

namespace {

// Mean tet edge length of each soft body (each tet's six edges; an edge shared by k tets counts k times).
std::vector<double> meanTetEdge(const SoftModel& m, size_t numSoft) {
    static const int kEdges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    std::vector<double> sum(numSoft, 0.0), count(numSoft, 0.0);
    for (const auto& t : m.tets) {
        const size_t b = size_t(m.bodyOfVertex[size_t(t[0])]);
        for (const auto& e : kEdges)
            sum[b] += norm(Vec3d(m.x[size_t(t[e[1]])]) - Vec3d(m.x[size_t(t[e[0]])]));
        count[b] += 6;
    }
    for (size_t b = 0; b < numSoft; ++b) sum[b] = count[b] > 0 ? sum[b] / count[b] : 0.0;
    return sum;
}

void clothCollisionBodies(const SceneDesc& scene, const SoftModel& m, std::vector<CollisionBody>& bodies) {
    for (size_t c = 0; c < scene.cloths.size(); ++c) {
        CollisionBody& b = bodies[scene.softBodies.size() + c];
        const ClothDesc& d = scene.cloths[c];
        b.cloth = true;
        b.self = d.selfCollision;
        b.stiffness = float(d.collisionStiffness);
        b.friction = float(d.friction);
    }
    // the per-vertex offset holds each cloth's radius
    for (size_t v = 0; v < m.bodyOfVertex.size(); ++v) {
        const int b = m.bodyOfVertex[v];
        if (bodies[size_t(b)].cloth) bodies[size_t(b)].radius = m.colliderOffset[v];
    }
}

// Soft bodies in contact: soft-soft pairs between bodies with "collision" on (when at least two have it),
// self contact with "self_collision". A soft body takes no contact parameters otherwise, so scenes of one
// soft body (with or without cloth) keep their collision state as before.
// Defaults, with L the body's mean tet edge and E its Young's modulus: stiffness k = E L, the axial
// stiffness E A / L of one cell (A = L^2), so that a contact is as stiff as the material next to it (a
// much stiffer penalty would break the block diagonal dominance the sweep relies on, a much softer one lets
// the surfaces sink through the thickness); thickness r = 0.1 L. A column of height H resting on one
// contact of its L^2 footprint compresses it by rho g H L^2 / (E L) = (rho g H / E) L, e.g. 500 kg/m^3,
// 9.81 m/s^2, H = 1 m, E = 1e5 Pa: 0.05 L, half the thickness.
void softCollisionBodies(const SceneDesc& scene, const SoftModel& m, std::vector<CollisionBody>& bodies) {
    int withContact = 0;
    for (const auto& d : scene.softBodies) withContact += d.collision ? 1 : 0;
    const std::vector<double> L = meanTetEdge(m, scene.softBodies.size());
    for (size_t i = 0; i < scene.softBodies.size(); ++i) {
        const SoftBodyDesc& d = scene.softBodies[i];
        CollisionBody& b = bodies[i];
        b.soft = d.collision && withContact >= 2;
        b.self = d.selfCollision;
        if (!(b.soft || b.self)) continue;
        b.radius = float(d.collisionRadius > 0 ? d.collisionRadius : 0.1 * L[i]);
        b.stiffness = float(d.collisionStiffness > 0 ? d.collisionStiffness : d.material.youngs * L[i]);
        b.friction = float(d.friction);
    }
}

// The smallest positive collision_interval of the sheets and of the soft bodies in contact (0: none).
int collisionInterval(const SceneDesc& scene, const std::vector<CollisionBody>& bodies) {
    int interval = 0;
    auto take = [&](int ci) {
        if (ci > 0) interval = interval == 0 ? ci : std::min(interval, ci);
    };
    for (const auto& c : scene.cloths) take(c.collisionInterval);
    for (size_t i = 0; i < scene.softBodies.size(); ++i)
        if (bodies[i].soft || bodies[i].self) take(scene.softBodies[i].collisionInterval);
    return interval;
}

}  // namespace

void finishCloths(const SceneDesc& scene, SoftModel& m) {
    const int n = m.numVertices();
    m.colliderOffset.resize(size_t(n), 0.f);
    m.vertexTris = vertexElementAdjacency(n, m.tris);
    m.vertexHinges = vertexElementAdjacency(n, m.hinges);
    std::vector<CollisionBody> bodies(scene.softBodies.size() + scene.cloths.size());
    clothCollisionBodies(scene, m, bodies);
    softCollisionBodies(scene, m, bodies);
    bool any = !scene.cloths.empty();
    for (size_t i = 0; i < scene.softBodies.size(); ++i) any = any || bodies[i].soft || bodies[i].self;
    if (!any) {
        m.collision = CollisionState{};
        return;
    }
    buildCollisionMesh(m.collision, n, m.tris, m.tets, m.bodyOfVertex, bodies, m.x);
    m.collision.interval = collisionInterval(scene, bodies);
}

template <typename T>
void clothBeginStep(const SoftModel& m, SoftState<T>& st) {
    st.triCprev.resize(m.tris.size());
    st.hingeThetaPrev.resize(m.hinges.size());
    parallelFor(m.tris.size(), [&](size_t e) {
        const auto& t = m.tris[e];
        const T d[4] = {T(m.triRest[e].d[0]), T(m.triRest[e].d[1]), T(m.triRest[e].d[2]),
                        T(m.triRest[e].d[3])};
        Vec3T<T> f0, f1;
        triDeformationGradient(st.xPrev[size_t(t[0])], st.xPrev[size_t(t[1])], st.xPrev[size_t(t[2])], d, f0,
                               f1);
        st.triCprev[e] = {dot(f0, f0), dot(f0, f1), dot(f1, f1)};
    });
    parallelFor(m.hinges.size(), [&](size_t e) {
        const auto& q = m.hinges[e];
        st.hingeThetaPrev[e] = dihedralAngle(st.xPrev[size_t(q[0])], st.xPrev[size_t(q[1])],
                                             st.xPrev[size_t(q[2])], st.xPrev[size_t(q[3])]);
    });
}

template <typename T>
double clothPotential(const SoftModel& m, const SoftState<T>& st, double h, DampingModel damping) {
    const bool internal = damping == DampingModel::Internal;
    auto X = [&](int i) { return Vec3d(st.x[size_t(i)]); };
    double e = reduceSum<double>(m.tris.size(), [&](size_t t) {
        const auto& tr = m.tris[t];
        double d[4];
        for (int k = 0; k < 4; ++k) d[k] = m.triRest[t].d[k];
        Vec3d f0, f1;
        triDeformationGradient(X(tr[0]), X(tr[1]), X(tr[2]), d, f0, f1);
        double v = double(m.triVolume[t]) * membranePsi(f0, f1, double(m.triMu[t]), double(m.triLambda[t]));
        if (internal && m.triKd[t] > 0) {
            const double Cp[3] = {double(st.triCprev[t][0]), double(st.triCprev[t][1]),
                                  double(st.triCprev[t][2])};
            v += membraneDampingPotential(f0, f1, Cp, double(m.triVolume[t]), double(m.triMu[t]),
                                          double(m.triLambda[t]), double(m.triKd[t]), h);
        }
        return v;
    });
    e += reduceSum<double>(m.hinges.size(), [&](size_t k) {
        const auto& q = m.hinges[k];
        const double th = dihedralAngle(X(q[0]), X(q[1]), X(q[2]), X(q[3]));
        const double d = wrapAngle(th - double(m.hingeTheta0[k]));
        double v = 0.5 * double(m.hingeKL[k]) * d * d;
        if (internal && m.hingeKd[k] > 0)
            v += bendingDampingPotential(th, double(st.hingeThetaPrev[k]), double(m.hingeKL[k]),
                                         double(m.hingeKd[k]), h);
        return v;
    });
    const auto& cs = m.collision.contacts;
    e += reduceSum<double>(cs.size(), [&](size_t c) {
        Vec3d x[4];
        for (int j = 0; j < 4; ++j) x[j] = X(cs[c].v[j]);
        return selfContactEnergy(cs[c], x);
    });
    return e;
}

template <typename T>
double clothContactEnergy(const SoftModel& m, const SoftState<T>& st) {
    const auto& cs = m.collision.contacts;
    return reduceSum<double>(cs.size(), [&](size_t c) { return selfContactEnergyAt(cs[c], st.x.data()); });
}

template double clothContactEnergy<float>(const SoftModel&, const SoftState<float>&);
template double clothContactEnergy<double>(const SoftModel&, const SoftState<double>&);
template void clothBeginStep<float>(const SoftModel&, SoftState<float>&);
template void clothBeginStep<double>(const SoftModel&, SoftState<double>&);
template double clothPotential<float>(const SoftModel&, const SoftState<float>&, double, DampingModel);
template double clothPotential<double>(const SoftModel&, const SoftState<double>&, double, DampingModel);

}  // namespace vbd
