#pragma once
// Tet meshes from files: TetGen .node/.ele, or closed surfaces (OBJ, PLY, STL, glTF, ... through assimp)
// tetrahedralized by TetGen. Throws InputError(file, "path", ...) for anything unusable. This is the
// one entry point the scene loader uses.
#include <string>

#include "math/quat.h"
#include "mesh/tet_mesh.h"

namespace vbd {

struct MeshImportOptions {
    double scale = 1;  // uniform, > 0
    Vec3 translate{0, 0, 0};
    Quat rotation;            // applied after scaling, before translation: x' = R (s x) + t
    double maxVolume = 0;     // TetGen max tet volume in file units (before scale); 0 = automatic
    double minQuality = 1.5;  // TetGen radius-edge ratio bound (>= 1.05); 0 = TetGen default (2)
    // The scene that names this mesh (e.g. "scene.json", "soft_bodies[2]"): when set, every error is
    // restated as InputError(sceneFile, sceneKey + ".path" (or ".scale", ...), "<mesh file>: what"), so
    // that with several meshes the user sees which body failed.
    std::string sceneFile, sceneKey;
};

// `.node` or `.ele` -> the TetGen pair next to it; anything else -> importSurface + tetrahedralization.
// Then scale, rotation and translation are applied; the result is positively oriented, conforming,
// free of unused vertices and of degenerate tets. Missing file -> InputError(path, "path", "file not
// found"); every other defect -> InputError naming the file.
TetMesh loadTetMesh(const std::string& path, const MeshImportOptions& opt = {});

// Reads a surface mesh through assimp (OBJ, PLY, STL, glTF/GLB, and whatever else assimp reads): all
// meshes of the file, with their node transforms, merged into one triangle soup; points and lines are
// ignored. Vertices closer than 1e-6 of the bounding-box diagonal are welded. Refuses (InputError(path,
// "path", ...)) a file assimp cannot read, one with no triangles, and a surface that is not a closed,
// consistently oriented 2-manifold. Shells are oriented by the even-odd rule (see orientShells): an
// inside-out or mirrored shell is turned outward, a shell nested in another bounds a cavity.
TriMesh importSurface(const std::string& path);

// x' = R (s x) + t for every rest position (orientation is kept: s > 0 and R is a rotation).
void transformMesh(TetMesh& mesh, double scale, const Quat& rotation, const Vec3& translate);

}  // namespace vbd
