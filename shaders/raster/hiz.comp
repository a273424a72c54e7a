#version 460
// raster.hiz: the farthest depth per RASTER_HIZ_TILE² px tile of the visibility buffer as the
// early phase of the occlusion-culled raster left it (the key's high word: the bits of
// 1 / z_ndc, which order like the view depth; an empty pixel is the far value 0xffffffff).
// raster.compute.late culls a leaf behind it. Pixels past the viewport do not count (no leaf
// covers them).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;
#include "common/frame.glsl"
#include "common/raster.glsl"

layout(std430, set = 0, binding = 4) readonly buffer Vis { uint64_t v[]; } vis;
layout(std430, set = 0, binding = 6) writeonly buffer Hiz { uint far_bits[]; } hiz;

shared uint s_far;

void main() {
    uvec2 px = gl_GlobalInvocationID.xy;
    uvec2 vp = uvec2(frame.viewport);
    if (gl_LocalInvocationIndex == 0u) s_far = 0u;
    barrier();
    if (all(lessThan(px, vp))) atomicMax(s_far, uint(vis.v[px.y * vp.x + px.x] >> 32));
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        hiz.far_bits[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = s_far;
    }
}
