#pragma once
// Plain data for a scene file (DESIGN.md "Scene files"). Parsing and validation live in scene.cpp;
// solvers are built from these structs by world/. Defaults here are the defaults of the file format.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "math/quat.h"

namespace vbd {

struct Box3 {
    Vec3 min, max;
    bool contains(const Vec3& p) const {
        return p.x >= min.x && p.y >= min.y && p.z >= min.z && p.x <= max.x && p.y <= max.y && p.z <= max.z;
    }
};

enum class DampingModel { None, Naive, Internal };
// Scalar of the soft solver's iterate (soft/soft_state.h): the same templated kernel runs on either. Float's
// residual floor is (stiffness) x (float spacing of |x|), about 1e-7 |x| per coordinate.
enum class Precision { Float, Double };
// Where the soft-body step runs ("solver.backend"): the CPU, a CUDA device (refused with the reason when
// there is none or the scene needs what the device step lacks), or the device where possible
// (gpu/backend_choice.h).
enum class Backend { Cpu, Cuda, Auto };
enum class CoarseBasis { Element, StiffRigid, PatchSoft, Aggregate };
enum class CoarseFilter { None, Contrast, CrossColor, Patch };
enum class CoarseMatrix { Hessian, Rest };  // A = current PSD Hessian of G, or rest stiffness + M/h^2

struct CoarseDesc {
    bool enabled = false;
    CoarseBasis basis = CoarseBasis::Element;
    int modesPerElement = 1;  // 1..12
    CoarseFilter filter = CoarseFilter::None;
    double contrastThreshold = 10;
    int patchSize = 2;      // cells per patch edge, >= 1
    int aggregateSize = 2;  // cells per aggregate edge (basis aggregate), >= 1
    CoarseMatrix matrix = CoarseMatrix::Hessian;
};

struct SolverDesc {
    int iterations = 10;
    DampingModel damping = DampingModel::Internal;
    CoarseDesc coarse;
    double chebyshevRho = 0;  // 0 = off
    // AVBD (rigid bodies): penalty ramp, warm-start decay, stabilization, penalty bounds.
    double beta = 1e5;
    double gamma = 0.99;
    double alpha = 0.99;
    double kStart = 1e4;
    double kMax = 1e10;
    // Soft contact: penalty stiffness comes from ground/colliders; gap-rate damping ratio (s).
    double contactDamping = 0.01;
    double frictionEpsilon = 1e-3;  // IPC friction smoothing velocity (m/s)
    int threads = 0;                // 0 = all hardware threads
    bool diagnostics = true;        // per-iteration residual and G (costs one extra pass a sweep)
    bool adaptiveInit = true;       // VBD's adaptive initial guess (false: x = y)
    // Scalar of the soft solver's state ("solver.precision"): double by default on the CPU (float's residual
    // floor, stiffness x float spacing of |x|, hides convergence at high contrast).
    Precision precision = Precision::Double;
    // Relative residual |grad G| / |grad G_0| at which a step stops iterating ("solver.tolerance"); 0 = off,
    // then `iterations` sweeps always run (reproducible recordings); otherwise `iterations` is the cap.
    double tolerance = 0;
    Backend backend = Backend::Cpu;  // "solver.backend": cpu (default, reproducible) | cuda | auto
};

struct GroundDesc {
    bool enabled = true;
    double height = 0;
    double stiffness = 1e5;
    double friction = 0.5;
};

struct MaterialDesc {
    double youngs = 1e5;
    double poisson = 0.3;
    double density = 1000;
    double damping = 0;  // stiffness-proportional damping coefficient k_d (s)
    // Cloth only
    double thickness = 0.001;
    double bending = 1e-4;
    double bendingDamping = 0;
};

// A box of fixed (Dirichlet) vertices. Optional prescribed motion (an extension of DESIGN.md's
// {min, max}): "velocity" and "angular_velocity" about "center" (default: the box center).
struct FixedDesc {
    Box3 box;
    Vec3 velocity{0, 0, 0};
    Vec3 angularVelocity{0, 0, 0};
    bool hasCenter = false;
    Vec3 center{0, 0, 0};
};

struct RegionDesc {
    Box3 box;
    double youngsScale = 1;
};

struct SoftBodyDesc {
    std::string type = "box_grid";  // box_grid | mesh
    std::string key;                // "soft_bodies[i]" for error messages
    // box_grid
    Vec3 min{0, 0, 0}, max{1, 1, 1};
    std::array<int, 3> cells{4, 4, 4};
    // 5: alternating 5-tet cells (default: no preferred diagonal, the mesh is invariant under a half turn
    // about each axis through the box's centre); 6: Kuhn cells, every cell cut along the same (1,1,1)
    // diagonal, which couples stretch to shear and turns a truncated solve's injected energy into a sideways
    // swing.
    int tetsPerCell = 5;
    // mesh
    std::string path;  // resolved (absolute or relative to cwd)
    double scale = 1;
    Vec3 translate{0, 0, 0};
    Quat rotation;
    double maxVolume = 0;  // TetGen max tet volume (0 = automatic)
    MaterialDesc material;
    std::vector<RegionDesc> regions;
    std::vector<FixedDesc> fixed;
    Vec3 velocity{0, 0, 0};
    Vec3 angularVelocity{0, 0, 0};  // about the rest centroid
    // Contact through the boundary triangles (soft/cloth_collision.h): keys "collision" (soft-soft pairs
    // with the other soft bodies that have it on; active when at least two do), "self_collision",
    // "collision_radius", "collision_stiffness", "friction", "collision_interval". Radius and stiffness 0:
    // derived from the mesh and the material (cloth_build.cpp: r = 0.1 L, k = E L, L the mean tet edge).
    bool collision = true;
    bool selfCollision = false;
    double collisionRadius = 0;     // contact thickness r (m)
    double collisionStiffness = 0;  // penalty stiffness k (N/m)
    double friction = 0.5;          // Coulomb coefficient of soft-soft contacts
    // Iterations between re-detections (0: once per step); a step whose start held a soft body's vertex in
    // its bound re-detects before every iteration whatever the interval (soft/cloth_stage.h).
    int collisionInterval = 0;
};

struct ClothDesc {
    std::string type = "grid";
    std::string key;
    Vec3 min{0, 0, 0};
    std::array<double, 2> size{1, 1};
    std::array<int, 2> cells{16, 16};
    std::string plane = "xz";  // xz (horizontal) or xy (standing)
    MaterialDesc material;
    std::vector<FixedDesc> fixed;
    Vec3 velocity{0, 0, 0};
    bool selfCollision = true;
    // Contact of the sheet (self, soft bodies, colliders): keys "collision_radius", "collision_stiffness",
    // "friction", "collision_interval".
    double collisionRadius = 0;       // contact thickness r (m); 0 = 0.3 times the smaller cell size
    double collisionStiffness = 1e3;  // penalty stiffness k (N/m)
    double friction = 0.3;            // Coulomb coefficient for cloth contacts
    int collisionInterval = 0;        // iterations between re-detections (0: once per step)
};

enum class ShapeType { Box, Sphere, Capsule };

struct RigidBodyDesc {
    std::string key;
    ShapeType shape = ShapeType::Box;
    Vec3 size{1, 1, 1};  // box full edge lengths
    double radius = 0.5;
    double halfHeight = 0.5;  // capsule
    double density = 1000;
    Vec3 position{0, 0, 0};
    Quat rotation;
    Vec3 velocity{0, 0, 0};
    Vec3 angularVelocity{0, 0, 0};
    double friction = 0.5;
    bool fixed = false;
};

enum class JointType { Ball, Fixed, Hinge };

struct JointDesc {
    std::string key;
    JointType type = JointType::Ball;
    int bodyA = -1, bodyB = 0;  // -1 = world
    Vec3 anchor{0, 0, 0};       // world-space anchor at the initial pose
    Vec3 axis{0, 0, 1};         // hinge axis (world, initial pose)
    bool limit = false;
    double lower = 0, upper = 0;  // hinge angle limits (rad)
    double stiffness = 0;         // 0 = hard (AVBD ramps to k_max)
};

// The angles a viewer opens the scene at ("view": {"yaw", "pitch"} in degrees; the app frames the scene from
// them when it loads the file). Data for viewers only: the simulation never reads it.
struct ViewDesc {
    bool given = false;
    double yawDeg = 34, pitchDeg = 20;  // the app's default camera's angles
};

struct SceneDesc {
    std::string file;  // path it was read from ("" for built-ins)
    std::string name = "untitled";
    Vec3 gravity{0, -9.81f, 0};
    double dt = 1.0 / 60.0;
    int substeps = 1;
    SolverDesc solver;
    GroundDesc ground;
    std::vector<SoftBodyDesc> softBodies;
    std::vector<ClothDesc> cloths;
    std::vector<RigidBodyDesc> rigidBodies;
    std::vector<JointDesc> joints;
    ViewDesc view;
};

}  // namespace vbd
