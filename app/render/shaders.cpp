#include "render/shaders.h"

namespace vbdgui {

namespace {
// clang-format off
const uint32_t kMeshVert[] =
#include "mesh.vert.spv.inc"
;
const uint32_t kMeshFrag[] =
#include "mesh.frag.spv.inc"
;
const uint32_t kBodyVert[] =
#include "body.vert.spv.inc"
;
const uint32_t kGridVert[] =
#include "grid.vert.spv.inc"
;
const uint32_t kGridFrag[] =
#include "grid.frag.spv.inc"
;
const uint32_t kLineVert[] =
#include "line.vert.spv.inc"
;
const uint32_t kLineFrag[] =
#include "line.frag.spv.inc"
;
const uint32_t kWireVert[] =
#include "wire.vert.spv.inc"
;
const uint32_t kShadowVert[] =
#include "shadow.vert.spv.inc"
;
// clang-format on
}  // namespace

SpirV shaderCode(Shader s) {
    switch (s) {
        case Shader::MeshVert:
            return {kMeshVert, sizeof kMeshVert};
        case Shader::MeshFrag:
            return {kMeshFrag, sizeof kMeshFrag};
        case Shader::BodyVert:
            return {kBodyVert, sizeof kBodyVert};
        case Shader::GridVert:
            return {kGridVert, sizeof kGridVert};
        case Shader::GridFrag:
            return {kGridFrag, sizeof kGridFrag};
        case Shader::LineVert:
            return {kLineVert, sizeof kLineVert};
        case Shader::LineFrag:
            return {kLineFrag, sizeof kLineFrag};
        case Shader::WireVert:
            return {kWireVert, sizeof kWireVert};
        case Shader::ShadowVert:
            return {kShadowVert, sizeof kShadowVert};
    }
    return {nullptr, 0};
}

}  // namespace vbdgui
