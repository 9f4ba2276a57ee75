#include "mesh/tetgen_io.h"

#include <tetgen.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <sstream>
#include <utility>

#include "math/error.h"
#include "math/input_file.h"
#include "mesh/isolated.h"
#include "mesh/surface.h"

namespace vbd {

namespace {

// A TetGen data file as numbered, comment-free lines of tokens ('#' starts a comment, blank lines skip).
struct TokenFile {
    std::string path;
    std::vector<std::pair<int, std::vector<std::string>>> lines;  // (1-based line number, tokens)
    size_t next = 0;

    explicit TokenFile(const std::string& p) : path(p) {
        // Never a FIFO or a device, at most kMaxMeshFileBytes (math/input_file.h).
        std::istringstream in(readInputFile(p, "path", kMaxMeshFileBytes));
        std::string s;
        int no = 0;
        while (std::getline(in, s)) {
            ++no;
            if (auto h = s.find('#'); h != std::string::npos) s.resize(h);
            std::istringstream ss(s);
            std::vector<std::string> tok;
            for (std::string t; ss >> t;) tok.push_back(t);
            if (!tok.empty()) lines.emplace_back(no, std::move(tok));
        }
    }
    const std::vector<std::string>& take(const char* what) {
        if (next >= lines.size()) {
            const int last = lines.empty() ? 0 : lines.back().first;
            throw InputError(path, "line " + std::to_string(last + 1),
                             std::string("unexpected end of file: ") + what);
        }
        return lines[next++].second;
    }
    std::string where() const { return "line " + std::to_string(lines[next - 1].first); }
    InputError error(const std::string& msg) const { return InputError(path, where(), msg); }

    long integer(const std::string& t) const {
        errno = 0;
        char* end = nullptr;
        long v = std::strtol(t.c_str(), &end, 10);
        if (end == t.c_str() || *end != '\0' || errno == ERANGE) throw error("'" + t + "' is not an integer");
        return v;
    }
    double real(const std::string& t) const {
        errno = 0;
        char* end = nullptr;
        double v = std::strtod(t.c_str(), &end);
        if (end == t.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
            throw error("'" + t + "' is not a finite number");
        return v;
    }
    void expectCount(const std::vector<std::string>& tok, size_t n, const char* layout) const {
        if (tok.size() != n)
            throw error("expected " + std::to_string(n) + " values (" + layout + "), found " +
                        std::to_string(tok.size()));
    }
    // A header line of integers named by `layout`: the first is required, the others may be left off
    // and then take their `defaults` (TetGen writes "8 3 0 0" but accepts "8").
    std::vector<long> header(const std::string& layout, std::initializer_list<long> defaults) {
        const auto& h = take(("missing header '" + layout + "'").c_str());
        const size_t most = defaults.size() + 1;
        if (h.size() < 1 || h.size() > most) expectCount(h, most, layout.c_str());
        std::vector<long> v{integer(h[0])};
        for (long def : defaults) v.push_back(h.size() > v.size() ? integer(h[v.size()]) : def);
        return v;
    }
};

std::string tetgenMessage(int code) {
    switch (code) {
        case 1:
            return "TetGen ran out of memory";
        case 2:
            return "TetGen internal error (often caused by degenerate or nearly coincident input faces)";
        case 3:
            return "the surface intersects itself";
        case 4:
            return "the surface has a feature too small for TetGen's tolerance";
        case 5:
            return "the surface has two very close (nearly overlapping) faces";
        case 10:
            return "TetGen rejected the input surface";
        default:
            return "TetGen failed with code " + std::to_string(code);
    }
}

// Runs TetGen with `switches`, turning its thrown codes into InputError.
void runTetGen(const std::string& switches, tetgenio& in, tetgenio& out, const std::string& file) {
    std::vector<char> sw(switches.begin(), switches.end());
    sw.push_back('\0');
    try {
        tetrahedralize(sw.data(), &in, &out);
    } catch (int code) {
        throw InputError(file, "path", tetgenMessage(code));
    } catch (const std::bad_alloc&) {
        throw InputError(file, "path", tetgenMessage(1));
    }
}

}  // namespace

namespace {

// The .node file: points numbered from `base` (0 or 1, taken from the first point; the .ele file
// follows it). Attributes and markers are checked to be numbers and dropped.
std::vector<Vec3> readNodeFile(const std::string& path, int& base) {
    TokenFile f(path);
    const auto h = f.header("<#points> 3 <#attributes> <#markers>", {3, 0, 0});
    const long n = h[0], dim = h[1], nattr = h[2], nmark = h[3];
    if (n < 4 || n > 100000000)
        throw f.error("number of points " + std::to_string(n) + " must be in [4, 1e8]");
    if (dim != 3) throw f.error("dimension must be 3, got " + std::to_string(dim));
    if (nattr < 0 || nattr > 1000) throw f.error("bad number of attributes " + std::to_string(nattr));
    if (nmark != 0 && nmark != 1) throw f.error("boundary marker flag must be 0 or 1");
    std::vector<Vec3> X(static_cast<size_t>(n));
    for (long i = 0; i < n; ++i) {
        const auto& t = f.take("fewer points than the header announces");
        f.expectCount(t, size_t(4 + nattr + nmark), "<index> <x> <y> <z> [attributes] [marker]");
        const long idx = f.integer(t[0]);
        if (i == 0) {
            if (idx != 0 && idx != 1) throw f.error("first point must be numbered 0 or 1, got " + t[0]);
            base = int(idx);
        } else if (idx != base + i) {
            throw f.error("point numbered " + t[0] + ", expected " + std::to_string(base + i));
        }
        for (long a = 0; a < nattr + nmark; ++a) f.real(t[size_t(4 + a)]);
        X[size_t(i)] = Vec3(float(f.real(t[1])), float(f.real(t[2])), float(f.real(t[3])));
    }
    return X;
}

// The corners of one .ele line (tokens 1..corners), zero-based. The first four are the tet; the six
// mid-edge nodes of a 10-node tet are range-checked and dropped.
std::array<int, 4> readTetCorners(const TokenFile& f, const std::vector<std::string>& t, long corners,
                                  long base, long np) {
    std::array<int, 4> tet{};
    for (long k = 0; k < corners; ++k) {
        const std::string& tok = t[size_t(1 + k)];
        const long v = f.integer(tok);
        if (k >= 4) {
            if (v < base || v >= base + np) throw f.error("node " + tok + " out of range");
            continue;
        }
        if (v < base || v >= base + np)
            throw f.error("node " + tok + " out of range [" + std::to_string(base) + ", " +
                          std::to_string(base + np - 1) + "]");
        tet[size_t(k)] = int(v - base);
    }
    return tet;
}

// Refuses a tet with a repeated node and makes it positively oriented (det[x1-x0, x2-x0, x3-x0] >= 0,
// the convention of every kernel), swapping its last two corners where TetGen's file says otherwise.
void checkAndOrientTet(const TokenFile& f, const std::vector<Vec3>& X, std::array<int, 4>& tet) {
    if (tet[0] == tet[1] || tet[0] == tet[2] || tet[0] == tet[3] || tet[1] == tet[2] || tet[1] == tet[3] ||
        tet[2] == tet[3])
        throw f.error("tet has a repeated node");
    const Vec3d x0(X[size_t(tet[0])]);
    const double det = dot(Vec3d(X[size_t(tet[1])]) - x0,
                           cross(Vec3d(X[size_t(tet[2])]) - x0, Vec3d(X[size_t(tet[3])]) - x0));
    if (det < 0) std::swap(tet[2], tet[3]);
}

// The .ele file: tets numbered like the .node file (from `base`), corners into X.
std::vector<std::array<int, 4>> readEleFile(const std::string& path, const std::vector<Vec3>& X, int base) {
    TokenFile f(path);
    const auto h = f.header("<#tets> <4|10> <#region attributes>", {4, 0});
    const long n = h[0], corners = h[1], nattr = h[2];
    if (n < 1 || n > 500000000) throw f.error("number of tets " + std::to_string(n) + " must be in [1, 5e8]");
    if (corners != 4 && corners != 10)
        throw f.error("nodes per tet must be 4 or 10, got " + std::to_string(corners));
    if (nattr < 0 || nattr > 1000) throw f.error("bad number of region attributes " + std::to_string(nattr));
    const long np = long(X.size());
    std::vector<std::array<int, 4>> tets(static_cast<size_t>(n));
    for (long e = 0; e < n; ++e) {
        const auto& t = f.take("fewer tets than the header announces");
        f.expectCount(t, size_t(1 + corners + nattr), "<index> <corners...> [region attributes]");
        const long idx = f.integer(t[0]);
        if (idx != base + e)
            throw f.error("tet numbered " + t[0] + ", expected " + std::to_string(base + e) +
                          " (numbering follows the .node file, which starts at " + std::to_string(base) +
                          ")");
        std::array<int, 4> tet = readTetCorners(f, t, corners, base, np);
        for (long a = 0; a < nattr; ++a) f.real(t[size_t(1 + corners + a)]);
        checkAndOrientTet(f, X, tet);
        tets[size_t(e)] = tet;
    }
    if (f.next < f.lines.size()) {
        ++f.next;
        throw f.error("more tets than the header announces (" + std::to_string(n) + ")");
    }
    return tets;
}

}  // namespace

TetMesh readTetGen(const std::string& nodePath, const std::string& elePath) {
    TetMesh m;
    int base = 0;
    m.X = readNodeFile(nodePath, base);
    m.tets = readEleFile(elePath, m.X, base);
    return m;
}

void writeTetGen(const std::string& base, const TetMesh& mesh, int firstIndex) {
    auto open = [](const std::string& p) {
        std::unique_ptr<FILE, int (*)(FILE*)> fp(std::fopen(p.c_str(), "w"), &std::fclose);
        if (!fp) throw InputError(p, "path", "cannot open for writing");
        return fp;
    };
    {
        auto fp = open(base + ".node");
        std::fprintf(fp.get(), "%zu 3 0 0\n", mesh.X.size());
        for (size_t i = 0; i < mesh.X.size(); ++i)
            std::fprintf(fp.get(), "%zu %.9g %.9g %.9g\n", i + size_t(firstIndex), double(mesh.X[i].x),
                         double(mesh.X[i].y), double(mesh.X[i].z));
    }
    auto fp = open(base + ".ele");
    std::fprintf(fp.get(), "%zu 4 0\n", mesh.tets.size());
    for (size_t e = 0; e < mesh.tets.size(); ++e) {
        const auto& t = mesh.tets[e];
        std::fprintf(fp.get(), "%zu %d %d %d %d\n", e + size_t(firstIndex), t[0] + firstIndex,
                     t[1] + firstIndex, t[2] + firstIndex, t[3] + firstIndex);
    }
}

void removeUnusedVertices(TetMesh& mesh) {
    std::vector<int> remap(mesh.X.size(), -1);
    for (const auto& t : mesh.tets)
        for (int v : t) remap[size_t(v)] = 0;
    std::vector<Vec3> X;
    for (size_t v = 0; v < remap.size(); ++v)
        if (remap[v] == 0) {
            remap[v] = int(X.size());
            X.push_back(mesh.X[v]);
        }
    for (auto& t : mesh.tets)
        for (int& v : t) v = remap[size_t(v)];
    mesh.X = std::move(X);
}

namespace {

void checkTetGenOptions(const TetGenOptions& opt, const std::string& file) {
    if (!(opt.maxVolume >= 0) || !std::isfinite(opt.maxVolume))
        throw InputError(file, "maxVolume", "must be >= 0 (0 = automatic)");
    if (!(opt.minQuality == 0 || opt.minQuality >= 1.05) || !std::isfinite(opt.minQuality))
        throw InputError(file, "minQuality",
                         "radius-edge bound must be 0 (off) or >= 1.05 (TetGen may not terminate below)");
}

std::string pointText(const Vec3d& p) {
    return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ", " + std::to_string(p.z) + ")";
}

// Zero-area triangles (collinear corners, e.g. slivers closing a T-junction) are not meshable and
// TetGen reports them as intersections; name them instead. Height below 1e-6 of the longest edge
// catches float-rounded collinear corners (rounding leaves heights ~1e-7 of the edge).
void refuseFlatTriangles(const TriMesh& surf, const std::string& file) {
    int flat = 0;
    std::string firstFlat;
    for (const auto& t : surf.tris) {
        const Vec3d a(surf.X[size_t(t[0])]), b(surf.X[size_t(t[1])]), d(surf.X[size_t(t[2])]);
        const double e2 = std::max({squaredNorm(b - a), squaredNorm(d - b), squaredNorm(a - d)});
        if (norm(cross(b - a, d - a)) <= 1e-6 * e2 && flat++ == 0)
            firstFlat = pointText(a) + "-" + pointText(b) + "-" + pointText(d);
    }
    if (flat > 0)
        throw InputError(file, "path",
                         std::to_string(flat) + " degenerate (zero-area) triangles, first " + firstFlat);
}

// TetGen's input: the referenced surface vertices in first-use order, centred at c and scaled by s
// (so that its switches never need exponents and its tolerances see one scale for every input),
// and one single-triangle facet per surface triangle.
class TetGenInput {
  public:
    TetGenInput(const TriMesh& surf, const Vec3d& c, double s) : surf_(surf), c_(c), s_(s) {
        used_.assign(surf.X.size(), -1);
        for (const auto& t : surf.tris)
            for (int v : t)
                if (used_[size_t(v)] < 0) {
                    used_[size_t(v)] = int(input_.size());
                    input_.push_back(v);
                }
    }

    void fill(tetgenio& in) const {
        in.firstnumber = 0;
        in.numberofpoints = int(input_.size());
        in.pointlist = new REAL[input_.size() * 3];
        for (size_t i = 0; i < input_.size(); ++i) {
            const Vec3d p = (Vec3d(surf_.X[size_t(input_[i])]) - c_) * s_;
            in.pointlist[3 * i] = p.x;
            in.pointlist[3 * i + 1] = p.y;
            in.pointlist[3 * i + 2] = p.z;
        }
        in.numberoffacets = int(surf_.tris.size());
        in.facetlist = new tetgenio::facet[surf_.tris.size()];
        for (size_t i = 0; i < surf_.tris.size(); ++i) fillFacet(in.facetlist[i], surf_.tris[i]);
    }

  private:
    void fillFacet(tetgenio::facet& f, const std::array<int, 3>& tri) const {
        tetgenio::init(&f);
        f.numberofpolygons = 1;
        f.polygonlist = new tetgenio::polygon[1];
        tetgenio::init(&f.polygonlist[0]);
        f.polygonlist[0].numberofvertices = 3;
        f.polygonlist[0].vertexlist = new int[3];
        for (int k = 0; k < 3; ++k) f.polygonlist[0].vertexlist[k] = used_[size_t(tri[size_t(k)])];
    }

    const TriMesh& surf_;
    Vec3d c_;
    double s_;
    std::vector<int> used_;   // surface vertex -> tetgen index (-1: unused)
    std::vector<int> input_;  // tetgen index -> surface vertex
};

// Pass 1, "-d": TetGen only checks the facets for intersections and returns the triangles that cross
// another one in out.trifacelist (an empty list when the surface is clean); it meshes nothing. Without
// this pass a self-intersection may surface later as code 3, or not at all.
void refuseSelfIntersection(const TetGenInput& input, const std::string& file) {
    tetgenio in, out;
    input.fill(in);
    runTetGen("pdzQ", in, out, file);
    if (out.numberoftrifaces > 0)
        throw InputError(file, "path",
                         "the surface intersects itself (" + std::to_string(out.numberoftrifaces) +
                             " triangles cross other triangles)");
}

// The volume bound per tet, refusing a surface that encloses nothing and a bound that would make more
// than kMaxTets tets. Checked after pass 1, which names a self-intersection better than a volume that
// is meaningless.
double maxTetVolume(double volume, double diag, const TetGenOptions& opt, const std::string& file) {
    char msg[200];
    if (!(volume > 1e-12 * diag * diag * diag)) {
        std::snprintf(msg, sizeof msg,
                      "surface encloses no volume (%.3g, below 1e-12 x its diagonal %.3g cubed: flat, or its "
                      "shells cancel)",
                      volume, diag);
        throw InputError(file, "path", msg);
    }
    const double maxVol = opt.maxVolume > 0 ? opt.maxVolume : volume / TetGenOptions::kAutoTetsTarget;
    if (volume / maxVol > TetGenOptions::kMaxTets) {
        std::snprintf(msg, sizeof msg, "%.3g would make more than %.3g tets (enclosed volume %.3g)", maxVol,
                      TetGenOptions::kMaxTets, volume);
        throw InputError(file, "maxVolume", msg);
    }
    return maxVol;
}

// Six times the signed volume of tet t (positive for the orientation every kernel assumes).
double tetDet6(const std::vector<Vec3d>& X, const std::array<int, 4>& t) {
    const Vec3d& x0 = X[size_t(t[0])];
    return dot(X[size_t(t[1])] - x0, cross(X[size_t(t[2])] - x0, X[size_t(t[3])] - x0));
}

// TetGen fills everything inside the outer hull of the facets, including cavities bounded by inner
// shells (a hollow ball). A region is solid when the surface winds around it: the winding number
// (surface.h) at the centroid of one of its tets, interior to the region so an integer up to rounding,
// is nonzero: 1 inside outward shells, 0 in a cavity behind an inward-facing shell. One winding number
// per region ("-A" attribute), remembered in first-seen order.
class SolidRegions {
  public:
    SolidRegions(const tetgenio& out, const std::vector<Vec3d>& Xd, const TriMesh& surf, const Vec3d& c,
                 double s)
        : out_(out), Xd_(Xd), surf_(surf), c_(c), s_(s) {}

    bool solid(int e) {
        const int nattr = out_.numberoftetrahedronattributes;
        if (nattr < 1) return true;
        const double region = out_.tetrahedronattributelist[e * nattr];
        for (const auto& [r, keep] : regionSolid_)
            if (r == region) return keep != 0;
        Vec3d centroid(0.0);
        for (int k = 0; k < 4; ++k)
            centroid += Xd_[size_t(out_.tetrahedronlist[e * out_.numberofcorners + k])];
        const bool keep = std::fabs(windingNumber(surf_.X, surf_.tris, centroid * 0.25 / s_ + c_)) > 0.5;
        regionSolid_.emplace_back(region, char(keep));
        return keep;
    }

  private:
    const tetgenio& out_;
    const std::vector<Vec3d>& Xd_;
    const TriMesh& surf_;
    Vec3d c_;
    double s_;
    std::vector<std::pair<double, char>> regionSolid_;  // (region attribute, solid?)
};

// The solid tets of TetGen's output, positively oriented, with all of its points mapped back to the
// surface's frame (unused ones are removed by the caller).
TetMesh solidTets(const tetgenio& out, const std::vector<Vec3d>& Xd, const TriMesh& surf, const Vec3d& c,
                  double s) {
    SolidRegions regions(out, Xd, surf, c, s);
    TetMesh m;
    m.X.resize(Xd.size());
    for (size_t i = 0; i < Xd.size(); ++i) m.X[i] = Vec3(Xd[i] / s + c);
    m.tets.reserve(size_t(out.numberoftetrahedra));
    for (int e = 0; e < out.numberoftetrahedra; ++e) {
        if (!regions.solid(e)) continue;
        std::array<int, 4> t;
        for (int k = 0; k < 4; ++k) t[size_t(k)] = out.tetrahedronlist[e * out.numberofcorners + k];
        if (tetDet6(Xd, t) < 0) std::swap(t[2], t[3]);
        m.tets.push_back(t);
    }
    return m;
}

// The kept tets must fill what the surface encloses (divergence theorem, `volume`). They do not when
// shells disagree: an inside-out shell apart from the others (its tets are kept, its volume
// subtracted) or a shell nested in another with the same orientation (winding 2 inside).
void checkFilledVolume(const TetMesh& m, const std::vector<Vec3d>& Xd, double s, double volume,
                       const std::string& file) {
    double filled = 0;
    for (const auto& t : m.tets) filled += tetDet6(Xd, t) / 6.0;
    filled /= s * s * s;
    if (std::fabs(filled - volume) > 1e-6 * std::fabs(volume)) {
        char msg[160];
        std::snprintf(msg, sizeof msg,
                      "tets fill volume %.9g but the surface encloses %.9g (relative difference %.2g)",
                      filled, volume, std::fabs(filled - volume) / std::fabs(volume));
        throw InputError(
            file, "path",
            std::string(msg) +
                ": a shell is inside out, or closed shells are nested with the same orientation");
    }
}

}  // namespace

namespace {

// Passes 1 and 2 and the solid tets, on the centred and scaled copy (c, s): what the child process runs.
TetMesh meshSurface(const TriMesh& surf, const TetGenOptions& opt, const std::string& file, const Vec3d& c,
                    double s, double diag) {
    const TetGenInput input(surf, c, s);
    refuseSelfIntersection(input, file);
    const double volume = enclosedVolume(surf);
    const double maxVol = maxTetVolume(volume, diag, opt, file);

    // Pass 2, the mesh. "-A" numbers the regions that the facets separate, so that cavities can be
    // told from solid (SolidRegions).
    tetgenio in, out;
    input.fill(in);
    char sw[128];
    const double scaledVol = maxVol * s * s * s;
    if (opt.minQuality > 0)
        std::snprintf(sw, sizeof sw, "pzAQq%.6fa%.12f", opt.minQuality, scaledVol);
    else
        std::snprintf(sw, sizeof sw, "pzAQa%.12f", scaledVol);
    runTetGen(sw, in, out, file);
    if (out.numberoftetrahedra <= 0 || out.numberofcorners < 4)
        throw InputError(file, "path", "TetGen produced no tetrahedra");

    std::vector<Vec3d> Xd(size_t(out.numberofpoints));
    for (int i = 0; i < out.numberofpoints; ++i)
        Xd[size_t(i)] = Vec3d(out.pointlist[3 * i], out.pointlist[3 * i + 1], out.pointlist[3 * i + 2]);
    TetMesh m = solidTets(out, Xd, surf, c, s);
    if (m.tets.empty()) throw InputError(file, "path", "no solid region: the surface encloses only cavities");
    checkFilledVolume(m, Xd, s, volume, file);
    removeUnusedVertices(m);
    return m;
}

void put(std::string& out, const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }

void putText(std::string& out, const std::string& t) {
    const uint64_t n = t.size();
    put(out, &n, sizeof n);
    put(out, t.data(), t.size());
}

// The child's answer: status 0, the points and the tets; or status 1, the refusal's key and text.
std::string encodeMesh(const TetMesh& m) {
    std::string out(1, '\0');
    const uint64_t nx = m.X.size(), nt = m.tets.size();
    put(out, &nx, sizeof nx);
    put(out, m.X.data(), nx * sizeof(Vec3));
    put(out, &nt, sizeof nt);
    put(out, m.tets.data(), nt * sizeof(std::array<int, 4>));
    return out;
}

std::string encodeRefusal(const std::string& key, const std::string& what) {
    std::string out(1, '\1');
    putText(out, key);
    putText(out, what);
    return out;
}

struct Reader {
    const std::string& b;
    size_t at = 0;
    bool take(void* dst, size_t n) {
        if (b.size() - at < n) return false;
        if (n > 0) std::memcpy(dst, b.data() + at, n);
        at += n;
        return true;
    }
    bool text(std::string& t) {
        uint64_t n = 0;
        if (!take(&n, sizeof n) || n > b.size() - at) return false;
        t.assign(b.data() + at, size_t(n));
        at += size_t(n);
        return true;
    }
    template <typename T>
    bool array(std::vector<T>& v) {
        uint64_t n = 0;
        if (!take(&n, sizeof n) || n > (b.size() - at) / sizeof(T)) return false;
        v.resize(size_t(n));
        return take(v.data(), size_t(n) * sizeof(T));
    }
};

}  // namespace

TetMesh tetrahedralizeSurface(const TriMesh& surf, const TetGenOptions& opt, const std::string& file) {
    if (surf.tris.empty()) throw InputError(file, "path", "surface has no triangles");
    checkTetGenOptions(opt, file);
    // TetGen runs on a copy centred at the bounding-box centre and scaled to unit diagonal.
    const Box3d box = usedBounds(surf);
    const double diag = norm(box.hi - box.lo);
    if (!(diag > 0) || !std::isfinite(diag))
        throw InputError(file, "path", "surface has zero or infinite extent");
    const Vec3d extent = box.hi - box.lo;
    if (!(std::min({extent.x, extent.y, extent.z}) > 1e-9 * diag))
        throw InputError(file, "path", "surface is flat (no extent along one axis): it encloses no volume");
    const Vec3d c = (box.lo + box.hi) * 0.5;
    const double s = 1.0 / diag;
    refuseFlatTriangles(surf, file);
    // TetGen asserts (SIGABRT) on some degenerate surfaces and even on some valid ones (a 45k-triangle
    // sphere), and may run for minutes: it runs in a child process with a deadline (mesh/isolated.h).
    const double timeout = isolationTimeout(opt.timeoutSeconds);
    const IsolatedRun run = runIsolated(
        [&] {
            try {
                return encodeMesh(meshSurface(surf, opt, file, c, s, diag));
            } catch (const InputError& e) {
                return encodeRefusal(e.key(), e.detail());
            } catch (const std::exception& e) {
                return encodeRefusal("path", std::string("TetGen failed: ") + e.what());
            } catch (...) {
                return encodeRefusal("path", "TetGen failed with an unknown exception");
            }
        },
        timeout);
    Reader r{run.bytes};
    char status = 2;
    TetMesh m;
    std::string key, what;
    if (run.end == IsolatedRun::End::Done && r.take(&status, 1)) {
        if (status == 1 && r.text(key) && r.text(what)) throw InputError(file, key, what);
        if (status == 0 && r.array(m.X) && r.array(m.tets) && r.at == run.bytes.size()) return m;
    }
    throw InputError(file, "path",
                     run.whyNoResult("TetGen", "this surface", timeout,
                                     "its assertions and faults come from degenerate input (nearly flat, "
                                     "sliver or nearly coincident faces), and from some surfaces too fine "
                                     "for it"));
}

}  // namespace vbd
