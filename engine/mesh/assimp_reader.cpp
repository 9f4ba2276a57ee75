// assimp in a child process (reasons in assimp_reader.h).
#include "mesh/assimp_reader.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "math/error.h"
#include "mesh/isolated.h"

namespace vbd {

namespace {

// Result of the read, as the child serialises it: status 0 = triangles follow, 1 = error text follows.
struct Soup {
    std::vector<float> xyz;
    std::vector<int32_t> tris;
    std::string error;
};

// The node hierarchy walk that replaces PretransformVertices: every mesh a node lists is appended with
// the node's accumulated transform (meshes listed by several nodes once per instance).
void appendNode(const aiScene* sc, const aiNode* node, const aiMatrix4x4& parent, Soup& out, int depth) {
    if (!node) return;
    if (depth > 1000) {
        out.error = "node hierarchy deeper than 1000 levels (a cycle?)";
        return;
    }
    const aiMatrix4x4 T = parent * node->mTransformation;
    for (unsigned k = 0; k < node->mNumMeshes && out.error.empty(); ++k) {
        const unsigned mi = node->mMeshes[k];
        if (mi >= sc->mNumMeshes || !sc->mMeshes[mi]) {
            out.error = "node \"" + std::string(node->mName.C_Str()) + "\" refers to mesh " +
                        std::to_string(mi) + " of " + std::to_string(sc->mNumMeshes);
            return;
        }
        const aiMesh* mesh = sc->mMeshes[mi];
        const size_t base = out.xyz.size() / 3;
        if (mesh->mNumVertices > 0 && !mesh->mVertices) {
            out.error = "mesh " + std::to_string(mi) + " has no vertex array";
            return;
        }
        for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
            const aiVector3D p = T * mesh->mVertices[v];
            if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
                out.error = "mesh " + std::to_string(mi) + " vertex " + std::to_string(v) + " is not finite";
                return;
            }
            out.xyz.insert(out.xyz.end(), {p.x, p.y, p.z});
        }
        for (unsigned f = 0; f < mesh->mNumFaces && mesh->mFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3 || !face.mIndices) continue;  // points, lines
            for (int c = 0; c < 3; ++c) {
                if (face.mIndices[c] >= mesh->mNumVertices) {
                    out.error = "mesh " + std::to_string(mi) + " face " + std::to_string(f) +
                                " has an index out of range";
                    return;
                }
                out.tris.push_back(int32_t(base + face.mIndices[c]));
            }
        }
        if (out.xyz.size() / 3 > size_t(INT32_MAX) / 2) {
            out.error = "more than 1e9 vertices";
            return;
        }
    }
    for (unsigned c = 0; c < node->mNumChildren && out.error.empty(); ++c)
        appendNode(sc, node->mChildren[c], T, out, depth + 1);
}

Soup readSoup(const std::string& path) {
    Soup out;
    Assimp::Importer imp;
    // No ValidateDataStructure: it refuses whole files for defects that do not concern their meshes (a
    // light without a node, no mesh at all -> "no triangles" is the better message), and whatever an
    // inconsistent scene does to Triangulate or to the walk below happens in this child process.
    const aiScene* sc = imp.ReadFile(path, aiProcess_Triangulate);
    if (!sc || !sc->mRootNode) {
        out.error = std::string("cannot read mesh: ") + imp.GetErrorString();
        return out;
    }
    appendNode(sc, sc->mRootNode, aiMatrix4x4(), out, 0);
    return out;
}

void append(std::string& out, const void* data, size_t n) { out.append(static_cast<const char*>(data), n); }

// What the child sends: status 0, the coordinates and the triangle indices; or status 1 and the error text.
std::string encodeSoup(const Soup& s) {
    std::string out;
    const uint8_t status = s.error.empty() ? 0 : 1;
    append(out, &status, 1);
    if (status) {
        const uint64_t n = s.error.size();
        append(out, &n, sizeof n);
        append(out, s.error.data(), s.error.size());
        return out;
    }
    const uint64_t nx = s.xyz.size(), nt = s.tris.size();
    append(out, &nx, sizeof nx);
    append(out, s.xyz.data(), nx * sizeof(float));
    append(out, &nt, sizeof nt);
    append(out, s.tris.data(), nt * sizeof(int32_t));
    return out;
}

// Parses what the child sent; false if it is incomplete (the child died while writing).
bool parseSoup(const std::string& buf, Soup& s) {
    size_t at = 0;
    auto take = [&](void* dst, size_t n) {
        if (buf.size() - at < n) return false;
        if (n > 0) std::memcpy(dst, buf.data() + at, n);  // dst is null for an empty vector (UBSan)
        at += n;
        return true;
    };
    uint8_t status = 0;
    uint64_t n = 0;
    if (!take(&status, 1) || !take(&n, sizeof n)) return false;
    if (status) {
        if (n > buf.size()) return false;
        s.error.resize(size_t(n));
        return take(s.error.data(), size_t(n));
    }
    if (n % 3 || n * sizeof(float) > buf.size()) return false;
    s.xyz.resize(size_t(n));
    if (!take(s.xyz.data(), size_t(n) * sizeof(float))) return false;
    if (!take(&n, sizeof n) || n % 3 || n * sizeof(int32_t) > buf.size()) return false;
    s.tris.resize(size_t(n));
    return take(s.tris.data(), size_t(n) * sizeof(int32_t)) && at == buf.size();
}

Soup readIsolated(const std::string& path, double timeout) {
    const IsolatedRun run = runIsolated(
        [&] {
            Soup s;
            try {
                s = readSoup(path);
            } catch (const std::exception& e) {
                s = Soup{};
                s.error = std::string("cannot read mesh: ") + e.what();
            } catch (...) {
                s = Soup{};
                s.error = "cannot read mesh: the reader threw an unknown exception";
            }
            return encodeSoup(s);
        },
        timeout);
    Soup s;
    if (run.end != IsolatedRun::End::Done || !parseSoup(run.bytes, s))
        throw InputError(path, "path",
                         run.whyNoResult("the mesh reader (assimp)", "this file", timeout,
                                         "the file is malformed or uses a feature assimp cannot read"));
    return s;
}

}  // namespace

TriMesh readAssimpTriangles(const std::string& path, const AssimpReadOptions& opt) {
    const double timeout = isolationTimeout(opt.timeoutSeconds);
    const Soup s = opt.isolate ? readIsolated(path, timeout) : readSoup(path);
    if (!s.error.empty()) throw InputError(path, "path", s.error);
    TriMesh m;
    m.X.reserve(s.xyz.size() / 3);
    for (size_t i = 0; i + 2 < s.xyz.size(); i += 3) m.X.emplace_back(s.xyz[i], s.xyz[i + 1], s.xyz[i + 2]);
    m.tris.reserve(s.tris.size() / 3);
    for (size_t i = 0; i + 2 < s.tris.size(); i += 3) {
        const std::array<int, 3> t{s.tris[i], s.tris[i + 1], s.tris[i + 2]};
        for (int v : t)
            if (v < 0 || size_t(v) >= m.X.size())
                throw InputError(path, "path", "the mesh reader returned an index out of range");
        m.tris.push_back(t);
    }
    return m;
}

}  // namespace vbd
