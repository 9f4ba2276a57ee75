// assimp in a child process (reasons in assimp_reader.h).
#include "mesh/assimp_reader.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <assimp/Importer.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "math/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define VBD_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VBD_UNDER_ASAN 1
#endif
#endif
#ifndef VBD_UNDER_ASAN
#define VBD_UNDER_ASAN 0
#endif

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

bool writeAll(int fd, const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= size_t(w);
    }
    return true;
}

void sendSoup(int fd, const Soup& s) {
    const uint8_t status = s.error.empty() ? 0 : 1;
    writeAll(fd, &status, 1);
    if (status) {
        const uint64_t n = s.error.size();
        writeAll(fd, &n, sizeof n);
        writeAll(fd, s.error.data(), s.error.size());
        return;
    }
    const uint64_t nx = s.xyz.size(), nt = s.tris.size();
    writeAll(fd, &nx, sizeof nx);
    writeAll(fd, s.xyz.data(), nx * sizeof(float));
    writeAll(fd, &nt, sizeof nt);
    writeAll(fd, s.tris.data(), nt * sizeof(int32_t));
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

std::string signalText(int sig) {
    const char* d = ::strsignal(sig);
    return "signal " + std::to_string(sig) + (d ? std::string(", ") + d : std::string());
}

Soup readIsolated(const std::string& path, double timeout) {
    int fds[2];
    if (::pipe(fds) != 0) throw InputError(path, "path", "cannot create a pipe for the mesh reader");
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw InputError(path, "path", "cannot start the mesh reader process");
    }
    if (pid == 0) {
        // Child: assimp's log lines and any diagnostics of a crashing reader go nowhere, and its address
        // space is capped at half the machine's memory: a header that claims 3.5e11 vertices
        // (invalid/OutOfMemory.off) must not take the machine down with it. (Not under AddressSanitizer,
        // whose shadow memory reserves terabytes of address space.)
        ::close(fds[0]);
#if !VBD_UNDER_ASAN
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        if (pages > 0 && page > 0) {
            const rlim_t cap = rlim_t(pages) * rlim_t(page) / 2;
            const rlimit lim{cap, cap};
            ::setrlimit(RLIMIT_AS, &lim);
        }
#endif
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            ::dup2(devnull, 1);
            ::dup2(devnull, 2);
        }
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
        sendSoup(fds[1], s);
        ::close(fds[1]);
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string buf;
    char chunk[1 << 16];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    bool timedOut = false;
    for (;;) {
        const double left =
            std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int r = ::poll(&p, 1, int(std::min(left, 1e9)) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;  // the deadline check above ends the wait
        const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child closed the pipe (done or dead)
        buf.append(chunk, size_t(n));
    }
    ::close(fds[0]);
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut) {
        char t[32];
        std::snprintf(t, sizeof t, "%g", timeout);
        throw InputError(path, "path",
                         std::string("the mesh reader (assimp) did not finish within ") + t +
                             " s and was stopped; the file is too large or assimp loops on it "
                             "(VBD_MESH_IMPORT_TIMEOUT sets the limit in seconds)");
    }
    if (WIFSIGNALED(status))
        throw InputError(path, "path",
                         "the mesh reader (assimp) crashed on this file (" + signalText(WTERMSIG(status)) +
                             "); the file is malformed or uses a feature assimp cannot read");
    Soup s;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parseSoup(buf, s))
        throw InputError(path, "path",
                         "the mesh reader (assimp) stopped before it finished reading the file");
    return s;
}

}  // namespace

TriMesh readAssimpTriangles(const std::string& path, const AssimpReadOptions& opt) {
    double timeout = opt.timeoutSeconds;
    if (const char* env = std::getenv("VBD_MESH_IMPORT_TIMEOUT")) {
        const double t = std::atof(env);
        if (t > 0) timeout = t;
    }
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
