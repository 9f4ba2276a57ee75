#pragma once
// A World that needs no solver: it builds the geometry of a SceneDesc (box-grid soft bodies, cloth
// grids, rigid bodies) exactly as the scene file says and, if asked, moves it along a fixed closed-
// form motion. The render tests use it as a fixture: the silhouette must sit where the camera math puts
// the known geometry, independent of any solver.
#include <memory>

#include "world/world.h"

namespace vbdgui {

std::unique_ptr<vbd::World> makePreviewWorld(const vbd::SceneDesc& desc, bool animate);

// Boundary triangles of a tet mesh (faces used by exactly one tet), oriented outwards.
std::vector<std::array<int, 3>> boundaryTriangles(const std::vector<std::array<int, 4>>& tets);

}  // namespace vbdgui
