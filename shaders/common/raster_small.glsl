// The compute rasteriser's small-leaf path, one thread per drawn leaf (the larger boxes drawn by
// the workgroup together), in three variants:
// raster.compute (every leaf), and with occlusion culling the two phases
// raster.compute.early (RASTER_EARLY: the leaves that won a pixel in the last frame, as
// publish.resolve stamped them) and raster.compute.late (RASTER_LATE: the others, each tested
// against raster.hiz, the farthest depth the early phase left per 8×8 px tile). A late leaf
// whose nearest corner lies behind that depth over every tile of its pixel box would lose
// every pixel it covers to what is already drawn, so skipping it leaves the visibility buffer
// exactly as drawing it would: the cull is conservative by construction (a margin of 0.1 % of
// the depth covers the coverage rule's extrapolation past the corners). Pixels the early
// phase left empty are at the far value and cull nothing.
#ifndef RASTER_SMALL_GLSL
#define RASTER_SMALL_GLSL
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 64) in;
#include "common/bisector.glsl"
#include "common/frame.glsl"
#include "common/raster.glsl"
#include "common/raster_big.glsl"
#include "common/raster_shell.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer DrawList { uint leaves[]; } draw_list;
layout(std430, set = 0, binding = 2) readonly buffer Dispatch { uint args[4]; } dispatch;
layout(std430, set = 0, binding = 4) buffer Vis { uint64_t v[]; } vis;

#if defined(RASTER_EARLY) || defined(RASTER_LATE)
// Per pool entry, the last frame whose resolve saw the leaf win a pixel (publish.resolve).
layout(std430, set = 0, binding = 5) readonly buffer Seen { uint frame[]; } seen;
#endif
#ifdef RASTER_LATE
layout(std430, set = 0, binding = 6) readonly buffer Hiz { uint far_bits[]; } hiz;
#endif
// The prisms' nearest faces (common/raster_shell.glsl), keyed as the visibility buffer.
layout(std430, set = 0, binding = 7) buffer Shell { uint64_t v[]; } shell;

// mode 0: hand over to raster.hardware, 1: to raster.compute.big; max_box: the largest pixel
// box this kernel rasterises (engine/src/publish.rs RASTER_MAX_BOX_PX); frame_stamp: this
// frame's stamp (the early phase takes the leaves stamped one less); shell_k: the prisms'
// raise over the largest residual (0: no shell); shared_box: boxes over this many pixels are
// drawn by the whole workgroup together (RASTER_SHARED_BOX_PX).
layout(push_constant) uniform Handover { uint mode; float max_box; uint frame_stamp; float shell_k; float shared_box; } handover;

// The workgroup's shared leaves: a thread whose leaf's box is over `shared_box` pixels lists it
// here, and the whole workgroup then walks the listed boxes' pixels together, each thread taking
// every 64th pixel of their concatenation. A warp runs until its slowest lane is done, and one
// thread looping over a 256 px box while its neighbours' boxes hold 2 px made the warp take the
// box's time; shared, a box costs its pixels over 64 threads. The pixels are tested with the same
// raster_covers and keyed with the same atomicMin, so the visibility buffer is the same bits.
// count << 24 | pixels listed so far (a box is at most max_box px, the sum far under 2^24).
shared uint s_listed;
shared uint s_first[64];          // first pixel of listed leaf k in the concatenation
shared vec4 s_tri[64 * 4];        // s0, s1 | s2, inv, z.x | z.yz, eps.xy | eps.z, lo, width
shared uint s_leaf[64];

#ifdef RASTER_LATE
// Whether every RASTER_HIZ_TILE² tile of the pixel box [lo, hi] holds early-phase depths all
// nearer than `z_near` (the leaf's largest z_ndc, its nearest point). Boxes over 16 tiles are
// kept untested (the loop bounds one thread's work).
bool occluded(vec2 lo, vec2 hi, float z_near) {
    uint near_bits = floatBitsToUint((1.0 / z_near) * (1.0 - 1e-3));
    uvec2 t0 = uvec2(lo) / RASTER_HIZ_TILE, t1 = uvec2(hi) / RASTER_HIZ_TILE;
    if ((t1.x - t0.x + 1u) * (t1.y - t0.y + 1u) > 16u) return false;
    uint tw = (uint(frame.viewport.x) + RASTER_HIZ_TILE - 1u) / RASTER_HIZ_TILE;
    for (uint y = t0.y; y <= t1.y; ++y) {
        for (uint x = t0.x; x <= t1.x; ++x) {
            if (hiz.far_bits[y * tw + x] >= near_bits) return false;
        }
    }
    return true;
}
#endif

// The pixels of box [lo, hi] whose centres t covers, walked by rows, keyed by their depth over
// the leaf into the visibility buffer, or into `publish.shell` for a prism's face.
void draw_rows(RasterTri t, vec2 lo, vec2 hi, uint leaf, bool into_shell) {
    uint W = uint(frame.viewport.x);
    for (float y = lo.y; y <= hi.y; y += 1.0) {
        float x0, x1;
        if (!raster_row_span(t, y, lo.x, hi.x, x0, x1)) continue;
        for (float x = x0; x <= x1; x += 1.0) {
            float z;
            if (!raster_covers(t, vec2(x, y) + 0.5, z)) continue;
            uint i = uint(y) * W + uint(x);
            if (into_shell) atomicMin(shell.v[i], raster_key(z, leaf));
            else atomicMin(vis.v[i], raster_key(z, leaf));
        }
    }
}

// The leaf's prism into `publish.shell`: here where its box is one thread's, else handed over
// to raster.compute.big as a SHELL_ENTRY (compute mode; the hardware raster draws no prisms).
void draw_shell(uint leaf, vec3 p[3], vec2 vp) {
    vec4 c[6];
    if (!shell_prism(p, max(pool.b[leaf].r_hyp, pool.b[leaf].r_leg), handover.shell_k, c)) return;
    vec2 lo, hi;
    if (!shell_box(c, vp, lo, hi)) return;
    vec2 box = hi - lo + 1.0;
    if (box.x * box.y <= handover.max_box) {
        ShellFaces f = shell_faces(p, c, vp);
        for (uint i = 0u; i < f.n; ++i) {
            RasterTri t;
            vec2 flo, fhi;
            if (shell_face(f, i, lo, hi, t, flo, fhi)) draw_rows(t, flo, fhi, leaf, true);
        }
        return;
    }
    if (handover.mode == 0u) return;
    uvec2 n = raster_tiles(lo, hi);
    uint64_t old = atomicAdd(big.tally, (uint64_t(1u) << 32) | uint64_t(n.x * n.y));
    big.leaves[uint(old >> 32)] = uvec2(leaf | SHELL_ENTRY, uint(old));
}

// Lists a set-up leaf for the workgroup's shared pass.
void list_shared(RasterTri t, vec2 lo, vec2 hi, uint leaf) {
    uint w = uint(hi.x - lo.x) + 1u;
    uint n = w * (uint(hi.y - lo.y) + 1u);
    uint old = atomicAdd(s_listed, (1u << 24) | n);
    uint k = old >> 24;
    s_first[k] = old & 0xffffffu;
    s_tri[4u * k] = vec4(t.s0, t.s1);
    s_tri[4u * k + 1u] = vec4(t.s2, t.inv, t.z.x);
    s_tri[4u * k + 2u] = vec4(t.z.yz, t.eps.xy);
    s_tri[4u * k + 3u] = vec4(t.eps.z, lo, uintBitsToFloat(w));
    s_leaf[k] = leaf;
}

// The listed boxes' pixels, every 64th of their concatenation from this thread's.
void draw_shared() {
    uint listed = s_listed;
    uint count = listed >> 24, total = listed & 0xffffffu;
    uint W = uint(frame.viewport.x);
    uint k = 0u;
    for (uint j = gl_LocalInvocationIndex; j < total; j += gl_WorkGroupSize.x) {
        while (k + 1u < count && s_first[k + 1u] <= j) ++k;
        vec4 a = s_tri[4u * k], b = s_tri[4u * k + 1u], c = s_tri[4u * k + 2u], e = s_tri[4u * k + 3u];
        RasterTri t = RasterTri(a.xy, a.zw, b.xy, b.z, vec3(b.w, c.xy), vec3(c.zw, e.x));
        uint w = floatBitsToUint(e.w);
        uint off = j - s_first[k];
        uvec2 q = uvec2(e.yz) + uvec2(off % w, off / w);
        float z;
        if (raster_covers(t, vec2(q) + 0.5, z)) atomicMin(vis.v[q.y * W + q.x], raster_key(z, s_leaf[k]));
    }
}

// The thread's leaf: drawn here, listed for the shared pass, or handed over.
void draw_leaf(uint i) {
    if (i >= dispatch.args[3]) return;
    uint leaf = draw_list.leaves[i];
#if defined(RASTER_EARLY)
    if (seen.frame[leaf] + 1u != handover.frame_stamp) return;
    atomicAdd(big.early, 1u);
#elif defined(RASTER_LATE)
    if (seen.frame[leaf] + 1u == handover.frame_stamp) return;
#endif
    vec4 c[3];
    vec3 p[3];
    bool near_plane = false;
    for (uint k = 0u; k < 3u; ++k) {
        p[k] = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
        c[k] = frame.view_proj * vec4(p[k], 1.0);
        near_plane = near_plane || raster_near(c[k]);
    }
    vec2 vp = frame.viewport;
    // Before the occlusion test: a hidden chord's prism may still rise into view.
    if (handover.shell_k > 0.0) draw_shell(leaf, p, vp);
    if (!near_plane) {
        vec2 s0 = raster_screen(c[0], vp), s1 = raster_screen(c[1], vp), s2 = raster_screen(c[2], vp);
        vec2 lo, hi;
        if (!raster_box(min(min(s0, s1), s2), max(max(s0, s1), s2), vp, lo, hi)) return; // off screen
        vec2 box = hi - lo + 1.0;
        if (box.x * box.y <= handover.max_box) {
            vec3 z = vec3(c[0].z / c[0].w, c[1].z / c[1].w, c[2].z / c[2].w);
#ifdef RASTER_LATE
            if (occluded(lo, hi, max(max(z.x, z.y), z.z))) {
                atomicAdd(big.occluded, 1u);
                return;
            }
#endif
            RasterTri t;
            if (!raster_setup(s0, s1, s2, z, t)) return;
            if (box.x * box.y > handover.shared_box) list_shared(t, lo, hi, leaf);
            else draw_rows(t, lo, hi, leaf, false);
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

void main() {
    if (gl_LocalInvocationIndex == 0u) s_listed = 0u;
    barrier();
    draw_leaf(gl_GlobalInvocationID.x);
    barrier();
    draw_shared();
}

#endif
