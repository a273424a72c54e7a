#version 460
// raster.hardware: the hardware raster for the leaves raster.compute hands over (crossing the
// near plane, or large on screen): pull their camera-relative corners from the CBT pool.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "common/bisector.glsl"
#include "common/frame.glsl"
layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
#define RASTER_BIG_BINDING 1
#define RASTER_BIG_ACCESS readonly
#include "common/raster_big.glsl"

layout(location = 0) flat out uint v_leaf;

void main() {
    uint leaf = big.leaves[gl_VertexIndex / 3].x;
    uint c = uint(gl_VertexIndex) % 3u;
    vec3 p = vec3(pool.b[leaf].positions[3u * c], pool.b[leaf].positions[3u * c + 1u], pool.b[leaf].positions[3u * c + 2u]);
    gl_Position = frame.view_proj * vec4(p, 1.0);
    v_leaf = leaf;
}
