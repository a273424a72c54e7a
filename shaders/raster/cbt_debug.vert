#version 460
// raster.cbt_debug: the CBT's drawn leaves (cbt.finish.compact's draw list), three vertices
// each pulled from the pool's camera-relative corner positions; flat colour by LEB depth.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#define CBT_READS_POOL
#define CBT_READS_DRAW_LIST
#define CBT_NO_PUSH
#include "common/cbt_buffers.glsl"
#include "common/frame.glsl"

layout(location = 0) out vec3 bary;
layout(location = 1) flat out uint leb_depth;

void main() {
    uint leaf = draw_list.i[gl_VertexIndex / 3];
    uint k = uint(gl_VertexIndex) % 3u;
    vec3 p = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
    gl_Position = frame.view_proj * vec4(p, 1.0);
    bary = vec3(k == 0u, k == 1u, k == 2u);
    leb_depth = pool.b[leaf].depth;
}
