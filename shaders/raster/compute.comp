#version 460
// raster.compute: the compute rasteriser. One thread per drawn leaf: small triangles (the CBT
// keeps edges ≤ 24–48 px) are rasterised here straight into the 64-bit visibility buffer with
// atomicMin — the same buffer and key raster.hardware writes — since fixed-function raster is
// the scarce resource on a big GPU (H200: ~0.36 Gtri/s at 4 px², while compute atomics run at
// 40–140 G/s). Triangles crossing the near plane or with a large footprint are handed over:
// to the hardware raster (raster.hardware, an indirect draw; push mode 0) or to the tiled
// compute path (raster.compute.big, one workgroup per screen tile; push mode 1).
// Coverage, depth and key: common/raster.glsl.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
#include "common/bisector.glsl"
#include "common/frame.glsl"
#include "common/raster.glsl"
#include "common/raster_big.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer DrawList { uint leaves[]; } draw_list;
layout(std430, set = 0, binding = 2) readonly buffer Dispatch { uint args[4]; } dispatch;
layout(std430, set = 0, binding = 4) buffer Vis { uint64_t v[]; } vis;

// mode 0: hand over to raster.hardware, 1: to raster.compute.big; max_box: the largest pixel
// box one thread rasterises (engine/src/publish.rs RASTER_MAX_BOX_PX).
layout(push_constant) uniform Handover { uint mode; float max_box; } handover;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= dispatch.args[3]) return;
    uint leaf = draw_list.leaves[i];
    vec4 c[3];
    bool near_plane = false;
    for (uint k = 0u; k < 3u; ++k) {
        vec3 p = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
        c[k] = frame.view_proj * vec4(p, 1.0);
        near_plane = near_plane || raster_near(c[k]);
    }
    vec2 vp = frame.viewport;
    if (!near_plane) {
        vec2 s0 = raster_screen(c[0], vp), s1 = raster_screen(c[1], vp), s2 = raster_screen(c[2], vp);
        vec2 lo, hi;
        if (!raster_box(min(min(s0, s1), s2), max(max(s0, s1), s2), vp, lo, hi)) return; // off screen
        vec2 box = hi - lo + 1.0;
        if (box.x * box.y <= handover.max_box) {
            RasterTri t;
            if (!raster_setup(s0, s1, s2, vec3(c[0].z / c[0].w, c[1].z / c[1].w, c[2].z / c[2].w), t)) return;
            uint W = uint(vp.x);
            for (float y = lo.y; y <= hi.y; y += 1.0) {
                float x0, x1;
                if (!raster_row_span(t, y, lo.x, hi.x, x0, x1)) continue;
                for (float x = x0; x <= x1; x += 1.0) {
                    float z;
                    if (raster_covers(t, vec2(x, y) + 0.5, z)) {
                        atomicMin(vis.v[uint(y) * W + uint(x)], raster_key(z, leaf));
                    }
                }
            }
            return;
        }
    }
    if (handover.mode == 0u) {
        uint slot = atomicAdd(big.draw_args[0], 3u) / 3u;
        big.leaves[slot] = uvec2(leaf, 0u);
        return;
    }
    // Tiled compute path: reserve this leaf's slot and its run of tiles in one 64-bit add, so
    // first tiles grow with the slot (raster.compute.big finds a tile's leaf by searching them).
    RasterPoly r;
    if (!raster_poly(c, vp, r)) return; // behind the near plane or off screen
    uvec2 n = raster_tiles(r.lo, r.hi);
    uint64_t old = atomicAdd(big.tally, (uint64_t(1u) << 32) | uint64_t(n.x * n.y));
    big.leaves[uint(old >> 32)] = uvec2(leaf, uint(old));
}
