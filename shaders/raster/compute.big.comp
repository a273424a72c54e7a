#version 460
// raster.compute.big: the compute raster of the leaves raster.compute hands over (crossing the
// near plane, or with a bounding box over the largest one thread takes), so the publish needs no hardware raster.
// One workgroup per RASTER_TILE² tile of a leaf's pixel box, so one leaf that covers the
// screen is spread over many workgroups rather than serialised on one; the tile's leaf is
// found by a 64-way search over the hand-over list, whose first tiles grow with the slot.
// The leaf is clipped against the near plane in clip space (≤ 4 corners, fanned into ≤ 2
// triangles) and rasterised with raster.compute's coverage, depth and key (common/raster.glsl).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;
#include "common/bisector.glsl"
#include "common/frame.glsl"
#include "common/raster.glsl"
#define RASTER_BIG_ACCESS readonly
#include "common/raster_big.glsl"
#include "common/raster_shell.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 2) readonly buffer Dispatch { uint args[4]; } dispatch;
layout(std430, set = 0, binding = 4) buffer Vis { uint64_t v[]; } vis;
layout(std430, set = 0, binding = 5) buffer Shell { uint64_t v[]; } shell;
// shell_k: the prisms' raise, as raster.compute's (common/raster_shell.glsl).
layout(push_constant) uniform Push { float shell_k; } pc;

shared uint s_lo, s_hi, s_best;

// The slot of `tile`: the last slot whose first tile is ≤ tile (every slot has ≥ 1 tile, slot 0
// starts at tile 0). A 64-way search: each round the workgroup probes 64 evenly spaced slots
// at once, so 500k slots take 4 rounds of one load each rather than 19 dependent loads.
uint find_slot(uint tile) {
    uint lid = gl_LocalInvocationIndex;
    if (lid == 0u) {
        s_lo = 0u;
        s_hi = uint(big.tally >> 32) - 1u;
    }
    barrier();
    while (s_lo < s_hi) { // the same for the whole workgroup
        uint lo = s_lo, hi = s_hi;
        uint step = (hi - lo) / 64u + 1u;
        barrier();
        if (lid == 0u) s_best = 0u;
        barrier();
        uint probe = lo + lid * step;
        if (probe <= hi && big.leaves[probe].y <= tile) atomicMax(s_best, lid);
        barrier();
        if (lid == 0u) {
            s_lo = lo + s_best * step;
            s_hi = min(s_lo + step - 1u, hi);
        }
        barrier();
    }
    return s_lo;
}

void main() {
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (tile >= dispatch.args[3]) return; // the same for the whole workgroup
    uvec2 entry = big.leaves[find_slot(tile)];
    uint leaf = entry.x & ~SHELL_ENTRY;
    vec4 c[3];
    vec3 p[3];
    for (uint k = 0u; k < 3u; ++k) {
        p[k] = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
        c[k] = frame.view_proj * vec4(p[k], 1.0);
    }
    vec2 vp = frame.viewport;
    uint W = uint(vp.x);
    if ((entry.x & SHELL_ENTRY) != 0u) {
        // A prism: the same corners, box and tiles raster.compute found.
        vec4 s[6];
        vec2 lo, hi;
        if (!shell_prism(p, max(pool.b[leaf].r_hyp, pool.b[leaf].r_leg), pc.shell_k, s)) return;
        if (!shell_box(s, vp, lo, hi)) return;
        uvec2 tiles = raster_tiles(lo, hi);
        uint local = tile - entry.y;
        if (local >= tiles.x * tiles.y) return;
        vec2 t_lo = lo + vec2(local % tiles.x, local / tiles.x) * float(RASTER_TILE);
        vec2 t_hi = min(t_lo + float(RASTER_TILE - 1u), hi);
        ShellFaces f = shell_faces(p, s, vp);
        for (uint i = 0u; i < f.n; ++i) {
            RasterTri t;
            vec2 flo, fhi;
            if (!shell_face(f, i, t_lo, t_hi, t, flo, fhi)) continue;
            for (float y = t_lo.y + float(gl_LocalInvocationID.y); y <= fhi.y; y += 8.0) {
                if (y < flo.y) continue;
                for (float x = t_lo.x + float(gl_LocalInvocationID.x); x <= fhi.x; x += 8.0) {
                    float z;
                    if (x >= flo.x && raster_covers(t, vec2(x, y) + 0.5, z)) {
                        atomicMin(shell.v[uint(y) * W + uint(x)], raster_key(z, leaf));
                    }
                }
            }
        }
        return;
    }
    RasterPoly r;
    if (!raster_poly(c, vp, r)) return;
    uvec2 tiles = raster_tiles(r.lo, r.hi);
    uint local = tile - entry.y;
    if (local >= tiles.x * tiles.y) return;
    vec2 t_lo = r.lo + vec2(local % tiles.x, local / tiles.x) * float(RASTER_TILE);
    vec2 t_hi = min(t_lo + float(RASTER_TILE - 1u), r.hi);
    RasterTri t0, t1;
    bool ok0 = raster_setup(r.s[0], r.s[1], r.s[2], vec3(r.z[0], r.z[1], r.z[2]), t0);
    bool ok1 = r.n == 4u && raster_setup(r.s[0], r.s[2], r.s[3], vec3(r.z[0], r.z[2], r.z[3]), t1);
    for (float y = t_lo.y + float(gl_LocalInvocationID.y); y <= t_hi.y; y += 8.0) {
        for (float x = t_lo.x + float(gl_LocalInvocationID.x); x <= t_hi.x; x += 8.0) {
            vec2 q = vec2(x, y) + 0.5;
            float z;
            if (ok0 && raster_covers(t0, q, z)) {
                atomicMin(vis.v[uint(y) * W + uint(x)], raster_key(z, leaf));
            }
            if (ok1 && raster_covers(t1, q, z)) {
                atomicMin(vis.v[uint(y) * W + uint(x)], raster_key(z, leaf));
            }
        }
    }
}
