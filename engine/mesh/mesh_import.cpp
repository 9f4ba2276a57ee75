#include "mesh/mesh_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "math/error.h"
#include "mesh/assimp_reader.h"
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

// stat, not open: opening a FIFO or a device to test it would block or consume it.
bool fileExists(const std::string& p) {
    std::error_code ec;
    return std::filesystem::exists(p, ec);
}

// "UTF-16 LE" / "UTF-16 BE" when the file starts with a UTF-16 byte-order mark, else "".
std::string utf16Encoding(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return "";  // never open a FIFO or a device
    std::ifstream f(path, std::ios::binary);
    unsigned char b[2] = {0, 0};
    if (!f.read(reinterpret_cast<char*>(b), 2)) return "";
    if (b[0] == 0xFF && b[1] == 0xFE) return "UTF-16 LE";
    if (b[0] == 0xFE && b[1] == 0xFF) return "UTF-16 BE";
    return "";
}

std::string edgeName(const std::array<int, 2>& e, const TriMesh& s) {
    auto pt = [&](int v) {
        const Vec3& x = s.X[size_t(v)];
        return "(" + std::to_string(x.x) + ", " + std::to_string(x.y) + ", " + std::to_string(x.z) + ")";
    };
    return pt(e[0]) + "-" + pt(e[1]);
}

}  // namespace

namespace {

TriMesh importSurfaceUnchecked(const std::string& path) {
    if (!fileExists(path)) throw InputError(path, "path", "file not found");
    if (!std::filesystem::is_regular_file(path)) throw InputError(path, "path", "not a regular file");
    TriMesh s = readAssimpTriangles(path);
    if (s.tris.empty())
        throw InputError(path, "path",
                         "no triangles in the file (points or lines only): nothing to fill with tets");

    const Box3d box = usedBounds(s);
    const double diag = norm(box.hi - box.lo);
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

}  // namespace

TriMesh importSurface(const std::string& path) {
    try {
        return importSurfaceUnchecked(path);
    } catch (const InputError& e) {
        // UTF-16 text reaches some of assimp's readers as bytes with a NUL after every character, and
        // comes out as garbage ("all vertices coincide", "no triangles"): say what is really wrong.
        const std::string enc = utf16Encoding(path);
        if (enc.empty()) throw;
        throw InputError(path, "path",
                         "the file is " + enc +
                             " text (it starts with a byte-order mark), which assimp's reader for this "
                             "format does not decode; save it as UTF-8 or ASCII, e.g. iconv -f UTF-16 -t "
                             "UTF-8 (assimp's result: " +
                             e.detail() + ")");
    }
}

void transformMesh(TetMesh& mesh, double scale, const Quat& rotation, const Vec3& translate) {
    const Quatd q = normalized(Quatd(rotation));
    const Vec3d t(translate);
    for (auto& x : mesh.X) x = Vec3(rotate(q, Vec3d(x) * scale) + t);
}

namespace {

TetMesh loadTetMeshUnchecked(const std::string& path, const MeshImportOptions& opt) {
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
    // Scaled and moved into float positions, tets can collapse (a scale of 1e-12 at a translation of 2 m
    // rounds every vertex to the same float) or overflow (1e30): checked again, as the scale's fault.
    try {
        computeTetRest(m, errFile);
    } catch (const InputError& e) {
        char sc[32];
        std::snprintf(sc, sizeof sc, "%g", opt.scale);
        throw InputError(path, "scale",
                         std::string("after scale ") + sc +
                             " and translation the tets are not representable in float positions (" +
                             e.key() + ": " + e.detail() + ")");
    }
    return m;
}

}  // namespace

TetMesh loadTetMesh(const std::string& path, const MeshImportOptions& opt) {
    if (opt.sceneKey.empty()) return loadTetMeshUnchecked(path, opt);
    try {
        return loadTetMeshUnchecked(path, opt);
    } catch (const InputError& e) {
        // Restate the error at the scene key that named this mesh, keeping the mesh file's own location:
        // "scene.json: soft_bodies[2].path: /models/x.3ds: open surface ...".
        static const std::pair<const char*, const char*> optionKeys[] = {{"scale", "scale"},
                                                                         {"translate", "translate"},
                                                                         {"rotation", "rotation"},
                                                                         {"maxVolume", "max_volume"},
                                                                         {"minQuality", "path"}};
        std::string key = "path";
        for (const auto& [k, sceneKey] : optionKeys)
            if (e.key() == k) key = sceneKey;
        std::string where = e.file().empty() ? path : e.file();
        if (!e.key().empty() && e.key() != "path" && key == "path") where += ": " + e.key();
        throw InputError(opt.sceneFile, opt.sceneKey + "." + key, where + ": " + e.detail());
    }
}

}  // namespace vbd
