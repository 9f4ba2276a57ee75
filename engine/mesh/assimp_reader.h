#pragma once
// Reading a user's mesh file with assimp, contained in a child process.
//
// assimp parses dozens of formats from untrusted bytes, and some of its code paths crash on real files:
// Debian's assimp 5.2.5 segfaults on RAW/WithColor.raw and RAW/WithTexture.raw (inside the RAW reader)
// and aborts on an assertion in PretransformVertices for OpenGEX/camera.ogex and collada.ogex. Fixing
// the cases we know of does not protect against the next file, and a crash or an endless loop in a
// library cannot be caught in-process. So the file is read in a fork()ed child that sends back a
// triangle soup through a pipe; a child that dies by a signal, exits early or runs past the timeout is
// reported as an InputError naming the file, and the parent (the app, the CLI) goes on.
// The child also silences assimp's log lines (its stderr goes to /dev/null), so they never reach the
// user's terminal.
//
// Costs: one fork per mesh file (a few ms; memory is copy-on-write). fork() in a multithreaded parent
// leaves only the calling thread in the child: the child runs only assimp and write(), then _exit()s
// without running destructors or atexit handlers. glibc's malloc is reset at fork, so allocating in the
// child is safe; nothing else the child uses is shared with the parent's other threads.
//
// Node transforms: instead of assimp's PretransformVertices step (whose assertion is one of the aborts
// above), the node hierarchy is walked here and each mesh is placed by its accumulated node transform
// (every instance of a mesh used by several nodes, as PretransformVertices does). Polygons are
// triangulated by assimp's Triangulate step; points and lines are skipped.
#include <array>
#include <string>
#include <vector>

#include "mesh/tet_mesh.h"

namespace vbd {

struct AssimpReadOptions {
    double timeoutSeconds = 60;  // wall clock for the child; VBD_MESH_IMPORT_TIMEOUT (s) overrides it
    bool isolate = true;         // false: read in this process (tests of the reader itself)
};

// Every triangle of every mesh instance of the file, in world coordinates of the file, unwelded.
// Throws InputError(path, "path", ...) for a file assimp cannot read, a crash or hang of the reader,
// non-finite coordinates or out-of-range indices.
TriMesh readAssimpTriangles(const std::string& path, const AssimpReadOptions& opt = {});

}  // namespace vbd
