#pragma once
// SPIR-V of shaders/*.{vert,frag}, compiled by glslc at build time and embedded in the binary.
#include <cstddef>
#include <cstdint>

namespace vbdgui {

enum class Shader {
    MeshVert,
    MeshFrag,
    BodyVert,
    GridVert,
    GridFrag,
    LineVert,
    LineFrag,
    WireVert,
    ShadowVert
};

struct SpirV {
    const uint32_t* code;
    size_t bytes;
};
SpirV shaderCode(Shader s);

}  // namespace vbdgui
