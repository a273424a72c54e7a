#version 460
// raster.compute: the compute rasteriser. One thread per drawn leaf: small triangles (the CBT
// keeps edges ≤ 24–48 px) are rasterised here straight into the 64-bit visibility buffer with
// atomicMin — the same buffer and key raster.hardware writes — since fixed-function raster is
// the scarce resource on a big GPU (H200: ~0.36 Gtri/s at 4 px², while compute atomics run at
// 40–140 G/s). Triangles crossing the near plane or with a large footprint go to the hardware
// raster (raster.hardware) through an indirect draw.
//
// Coverage is inclusive (pixel centres within 1e-4 of an edge in barycentric units count), so
// leaves drawn here and leaves drawn by the hardware can overlap on shared edges but never
// leave a crack; overlaps are resolved by depth like any other.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
#include "common/bisector.glsl"
#include "common/frame.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer DrawList { uint leaves[]; } draw_list;
layout(std430, set = 0, binding = 2) readonly buffer Dispatch { uint args[4]; } dispatch;
layout(std430, set = 0, binding = 3) buffer Big { uint draw_args[4]; uint leaves[]; } big;
layout(std430, set = 0, binding = 4) buffer Vis { uint64_t v[]; } vis;

// Near plane of the reverse-Z projection (engine/src/gpu/frame.rs NEAR_M).
#define NEAR 0.05
// Largest bounding box rasterised here, px (bigger ones go to the hardware).
#define MAX_BOX 1024.0
#define EPS 1e-4

float cross2(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= dispatch.args[3]) return;
    uint leaf = draw_list.leaves[i];
    vec4 c[3];
    bool near_plane = false;
    for (uint k = 0u; k < 3u; ++k) {
        vec3 p = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
        c[k] = frame.view_proj * vec4(p, 1.0);
        near_plane = near_plane || c[k].w < NEAR * 1.001;
    }
    vec2 vp = frame.viewport;
    if (!near_plane) {
        vec2 s0 = (c[0].xy / c[0].w * 0.5 + 0.5) * vp;
        vec2 s1 = (c[1].xy / c[1].w * 0.5 + 0.5) * vp;
        vec2 s2 = (c[2].xy / c[2].w * 0.5 + 0.5) * vp;
        vec2 lo = max(floor(min(min(s0, s1), s2) - 0.5), vec2(0.0));
        vec2 hi = min(ceil(max(max(s0, s1), s2) - 0.5), vp - 1.0);
        if (any(greaterThan(lo, hi))) return; // off screen
        vec2 box = hi - lo + 1.0;
        if (box.x * box.y <= MAX_BOX) {
            float area = cross2(s1 - s0, s2 - s0);
            if (abs(area) < 1e-12) return; // degenerate: covers no pixel centre
            float inv = 1.0 / area;
            float z0 = c[0].z / c[0].w, z1 = c[1].z / c[1].w, z2 = c[2].z / c[2].w;
            uint W = uint(vp.x);
            for (float y = lo.y; y <= hi.y; y += 1.0) {
                for (float x = lo.x; x <= hi.x; x += 1.0) {
                    vec2 q = vec2(x, y) + 0.5;
                    float w0 = cross2(s1 - q, s2 - q) * inv;
                    float w1 = cross2(s2 - q, s0 - q) * inv;
                    float w2 = 1.0 - w0 - w1;
                    if (w0 < -EPS || w1 < -EPS || w2 < -EPS) continue;
                    float z = w0 * z0 + w1 * z1 + w2 * z2;
                    if (z <= 0.0) continue;
                    // Same key as raster.hardware: view depth bits (1 / z_ndc) over the leaf.
                    uint64_t key = (uint64_t(floatBitsToUint(1.0 / z)) << 32) | uint64_t(leaf);
                    atomicMin(vis.v[uint(y) * W + uint(x)], key);
                }
            }
            return;
        }
    }
    uint slot = atomicAdd(big.draw_args[0], 3u) / 3u;
    big.leaves[slot] = leaf;
}
