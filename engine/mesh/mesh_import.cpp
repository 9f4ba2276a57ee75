#include "mesh/mesh_import.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cctype>
#include <cmath>
#include <fstream>

#include "math/error.h"
#include "mesh/surface.h"
#include "mesh/tetgen_io.h"

namespace vbd {

namespace {

std::string lowerExtension(const std::string& path) {
    const auto slash = path.find_last_of("/\\");
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot);
    for (char& ch : e) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return e;
}

bool fileExists(const std::string& p) { return std::ifstream(p).good(); }

std::string edgeName(const std::array<int, 2>& e, const TriMesh& s) {
    auto pt = [&](int v) {
        const Vec3& x = s.X[size_t(v)];
        return "(" + std::to_string(x.x) + ", " + std::to_string(x.y) + ", " + std::to_string(x.z) + ")";
    };
    return pt(e[0]) + "-" + pt(e[1]);
}

}  // namespace

TriMesh importSurface(const std::string& path) {
    if (!fileExists(path)) throw InputError(path, "path", "file not found");
    Assimp::Importer imp;
    // PreTransformVertices bakes the node hierarchy (glTF scenes place meshes by node transforms) into
    // the vertices; Triangulate splits polygons; points and lines stay as 1- and 2-index faces, skipped.
    const aiScene* sc = imp.ReadFile(path, aiProcess_Triangulate | aiProcess_PreTransformVertices);
    if (!sc || !sc->mRootNode)
        throw InputError(path, "path", std::string("cannot read mesh: ") + imp.GetErrorString());
    TriMesh s;
    for (unsigned m = 0; m < sc->mNumMeshes; ++m) {
        const aiMesh* mesh = sc->mMeshes[m];
        const int base = int(s.X.size());
        for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
            const aiVector3D& p = mesh->mVertices[v];
            if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
                throw InputError(
                    path, "path",
                    "mesh " + std::to_string(m) + " vertex " + std::to_string(v) + " is not finite");
            s.X.emplace_back(p.x, p.y, p.z);
        }
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3) continue;
            std::array<int, 3> t;
            for (int k = 0; k < 3; ++k) {
                if (face.mIndices[k] >= mesh->mNumVertices)
                    throw InputError(path, "path",
                                     "mesh " + std::to_string(m) + " face " + std::to_string(f) +
                                         " has an index out of range");
                t[size_t(k)] = base + int(face.mIndices[k]);
            }
            s.tris.push_back(t);
        }
    }
    if (s.tris.empty())
        throw InputError(path, "path",
                         "no triangles in the file (points or lines only): nothing to fill with tets");

    Vec3d lo(1e300), hi(-1e300);
    for (const auto& t : s.tris)
        for (int v : t) {
            lo = cwiseMin(lo, Vec3d(s.X[size_t(v)]));
            hi = cwiseMax(hi, Vec3d(s.X[size_t(v)]));
        }
    const double diag = norm(hi - lo);
    if (!(diag > 0)) throw InputError(path, "path", "all vertices coincide");
    // Formats that store each triangle's corners separately (STL) or split vertices at normal / UV
    // seams (glTF, OBJ with per-face normals) need welding; 1e-6 of the diagonal is ~10 float ulps.
    weldVertices(s, 1e-6 * diag);

    const SurfaceTopology topo = checkSurface(s.tris);
    if (topo.boundaryEdges > 0)
        throw InputError(path, "path",
                         "open surface: " + std::to_string(topo.boundaryEdges) +
                             " boundary edges (edges used by one triangle only, first " +
                             edgeName(topo.firstBoundary, s) +
                             "); only closed surfaces can be filled with tets");
    if (topo.nonManifoldEdges > 0)
        throw InputError(path, "path",
                         "non-manifold surface: " + std::to_string(topo.nonManifoldEdges) +
                             " edges shared by more than two triangles (first " +
                             edgeName(topo.firstNonManifold, s) + ")");
    if (topo.inconsistentEdges > 0)
        throw InputError(path, "path",
                         "inconsistently oriented surface: " + std::to_string(topo.inconsistentEdges) +
                             " edges where neighbouring triangles disagree (first " +
                             edgeName(topo.firstInconsistent, s) + ")");
    orientShells(s);
    return s;
}

void transformMesh(TetMesh& mesh, double scale, const Quat& rotation, const Vec3& translate) {
    const Quatd q = normalized(Quatd(rotation));
    const Vec3d t(translate);
    for (auto& x : mesh.X) x = Vec3(rotate(q, Vec3d(x) * scale) + t);
}

TetMesh loadTetMesh(const std::string& path, const MeshImportOptions& opt) {
    if (!(opt.scale > 0) || !std::isfinite(opt.scale))
        throw InputError(path, "scale", "must be a finite number > 0");
    if (!isFinite(opt.translate)) throw InputError(path, "translate", "must be finite");
    const Quatd q(opt.rotation);
    const double qn = norm(q);
    if (!(qn > 1e-6) || !std::isfinite(qn))
        throw InputError(path, "rotation", "quaternion must be nonzero and finite");
    if (!fileExists(path)) throw InputError(path, "path", "file not found");

    TetMesh m;
    const std::string ext = lowerExtension(path);
    std::string errFile = path;
    if (ext == ".node" || ext == ".ele") {
        // The partner keeps the case of the given extension (mesh.NODE pairs with mesh.ELE).
        const std::string base = path.substr(0, path.size() - ext.size());
        const bool upper = std::isupper(static_cast<unsigned char>(path[path.size() - 1])) != 0;
        const std::string nodePath = ext == ".node" ? path : base + (upper ? ".NODE" : ".node");
        const std::string elePath = ext == ".ele" ? path : base + (upper ? ".ELE" : ".ele");
        if (!fileExists(nodePath))
            throw InputError(nodePath, "path", "file not found (needed next to " + path + ")");
        if (!fileExists(elePath))
            throw InputError(elePath, "path", "file not found (needed next to " + path + ")");
        m = readTetGen(nodePath, elePath);
        errFile = elePath;
        const TetTopology topo = checkTetTopology(m);
        if (!topo.conforming())
            throw InputError(elePath, "tets", "non-conforming tet mesh: " + topo.firstProblem);
        removeUnusedVertices(m);
    } else {
        TetGenOptions to;
        to.maxVolume = opt.maxVolume;
        to.minQuality = opt.minQuality;
        m = tetrahedralizeSurface(importSurface(path), to, path);
    }
    // Degenerate tets (from a .ele file, or TetGen slivers below float resolution) are refused here
    // rather than producing infinite DmInv in the solver.
    computeTetRest(m, errFile);
    transformMesh(m, opt.scale, opt.rotation, opt.translate);
    return m;
}

}  // namespace vbd
