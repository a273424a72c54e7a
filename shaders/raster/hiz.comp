#version 460
// raster.hiz: the farthest depth per RASTER_HIZ_TILE² px tile of the visibility buffer (the
// key's high word: the bits of 1 / z_ndc, which order like the view depth; an empty pixel is
// the far value 0xffffffff), then per quarter of each tile (after the tiles, a row of
// 2 × tiles across), then, where the push asks for `coarse` levels, per cell of 2, 4, … tiles
// a side (common/raster.glsl hiz_index; zeroed before this pass, each tile's far depth taken
// in by atomicMax). The occlusion cull's late phase reads the tiles and quarters of what the
// early phase drew (a ridge's tile holds the farther ground beside the ridge too, so its
// quarters may hide what the tile does not); raster.unseen reads every level of the
// finished image, a level per leaf where its box spans few cells. Pixels past the viewport
// do not count (no leaf covers them).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;
#include "common/frame.glsl"
#include "common/raster.glsl"

layout(std430, set = 0, binding = 4) readonly buffer Vis { uint64_t v[]; } vis;
layout(std430, set = 0, binding = 6) buffer Hiz { uint far_bits[]; } hiz;
layout(push_constant) uniform Push { uint coarse; } push;

shared uint s_far[4];

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    uvec2 vp = uvec2(frame.viewport);
    uvec2 q = gl_LocalInvocationID.xy / (RASTER_HIZ_TILE / 2u);
    if (gl_LocalInvocationIndex < 4u) s_far[gl_LocalInvocationIndex] = 0u;
    barrier();
    if (all(lessThan(px, vp))) atomicMax(s_far[q.y * 2u + q.x], uint(vis.v[px.y * vp.x + px.x] >> 32));
    barrier();
    uvec2 n = gl_NumWorkGroups.xy, g = gl_WorkGroupID.xy;
    if (gl_LocalInvocationIndex == 0u) {
        uint far = max(max(s_far[0], s_far[1]), max(s_far[2], s_far[3]));
        hiz.far_bits[hiz_index(1u, g, n)] = far;
        for (uint l = 2u; l < 2u + push.coarse; ++l) atomicMax(hiz.far_bits[hiz_index(l, g >> (l - 1u), n)], far);
    }
    if (gl_LocalInvocationIndex < 4u) {
        uvec2 f = 2u * g + uvec2(gl_LocalInvocationIndex & 1u, gl_LocalInvocationIndex >> 1u);
        hiz.far_bits[hiz_index(0u, f, n)] = s_far[gl_LocalInvocationIndex];
    }
}
