#version 460
// raster.compute.medium: the leaves raster.compute lists as medium (a pixel box over the
// medium size and within the largest one thread takes), one workgroup per leaf, each
// invocation every 32nd pixel of its box. One thread per leaf leaves a warp waiting on its
// largest box while its other lanes' small leaves are done; here a leaf's pixels are shared.
// The same coverage, depth and key as raster.compute (common/raster.glsl), so the visibility
// buffer is the same bits whichever kernel draws a leaf. Every invocation sets the triangle
// up itself (three corners' projection), so no shared memory and no barrier.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 32) in;
#include "common/bisector.glsl"
#include "common/frame.glsl"
#include "common/raster.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer Medium { uint groups; uint y; uint z; uint spare; uint leaves[]; } medium;
layout(std430, set = 0, binding = 2) buffer Vis { uint64_t v[]; } vis;

void main() {
    uint leaf = medium.leaves[gl_WorkGroupID.x];
    vec4 c[3];
    for (uint k = 0u; k < 3u; ++k) {
        vec3 p = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
        c[k] = frame.view_proj * vec4(p, 1.0);
    }
    vec2 vp = frame.viewport;
    vec2 s0 = raster_screen(c[0], vp), s1 = raster_screen(c[1], vp), s2 = raster_screen(c[2], vp);
    vec2 lo, hi;
    if (!raster_box(min(min(s0, s1), s2), max(max(s0, s1), s2), vp, lo, hi)) return;
    RasterTri t;
    if (!raster_setup(s0, s1, s2, vec3(c[0].z / c[0].w, c[1].z / c[1].w, c[2].z / c[2].w), t)) return;
    uint bw = uint(hi.x - lo.x) + 1u, n = bw * (uint(hi.y - lo.y) + 1u);
    uint W = uint(vp.x);
    for (uint i = gl_LocalInvocationIndex; i < n; i += gl_WorkGroupSize.x) {
        vec2 q = lo + vec2(float(i % bw), float(i / bw));
        float z;
        if (!raster_covers(t, q + 0.5, z)) continue;
        atomicMin(vis.v[uint(q.y) * W + uint(q.x)], raster_key(z, leaf));
    }
}
