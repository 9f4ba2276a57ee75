#pragma once
// TetGen: reading and writing its .node/.ele files, and tetrahedralizing a closed surface with the
// library (Debian's libtet, built with TETLIBRARY so that its errors are thrown as int codes instead of
// calling exit(); they are turned into InputError here).
#include <string>

#include "mesh/tet_mesh.h"

namespace vbd {

// Reads `<base>.node` and `<base>.ele` (TetGen file formats). Indices may start at 0 or 1 (the first
// node's number decides, as in TetGen); optional node attributes, node boundary markers and tet region
// attributes are read and ignored; 10-node tets keep their 4 corners. Tets come back positively
// oriented (corners 2 and 3 swapped where det Dm < 0). Malformed input throws
// InputError(file, "line N", ...).
TetMesh readTetGen(const std::string& nodePath, const std::string& elePath);

// Writes `<base>.node` and `<base>.ele`, numbering from firstIndex (0 or 1). Throws InputError when a
// file cannot be written.
void writeTetGen(const std::string& base, const TetMesh& mesh, int firstIndex = 0);

struct TetGenOptions {
    // Largest tet volume (TetGen -a). 0 = automatic: enclosed volume / kAutoTetsTarget, so a mesh gets a
    // few thousand tets whatever its size.
    double maxVolume = 0;
    // Radius-edge ratio bound (TetGen -q): circumradius / shortest edge, sqrt(6)/4 = 0.61 for the
    // regular tet. TetGen proves termination for bounds above 2 and works in practice down to about
    // 1.1. 0 passes no -q; TetGen then still refines to its default bound 2 because of -a.
    double minQuality = 1.5;
    // Wall clock for TetGen, which runs in a child process (mesh/isolated.h: its assertions abort on some
    // degenerate or even valid surfaces); VBD_MESH_IMPORT_TIMEOUT (s) overrides it.
    double timeoutSeconds = 300;
    static constexpr double kAutoTetsTarget = 500;
    static constexpr double kMaxTets = 2e6;  // refuse a maxVolume that would make more tets than this
};

// Tetrahedralizes a closed, consistently oriented surface (checked by the caller; see mesh_import.h).
// Self-intersecting input is detected with TetGen's -d pass and refused; any TetGen failure, a crash of
// TetGen (it runs in a child process) or its running past opt.timeoutSeconds becomes
// InputError(file, "path", ...). The result is positively oriented and has no unused vertices.
TetMesh tetrahedralizeSurface(const TriMesh& surf, const TetGenOptions& opt, const std::string& file);

// Drops vertices no tet uses and renumbers the rest in ascending order of their old index.
void removeUnusedVertices(TetMesh& mesh);

}  // namespace vbd
