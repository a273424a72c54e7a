// The compute rasteriser's small-leaf path, one thread per drawn leaf, in four variants:
// raster.compute (every leaf), raster.compute.stamped (RASTER_STAMPED: every leaf, each drawn
// on screen stamped unseen for publish.resolve to restamp if it wins a pixel, so the mesh
// learns which leaves showed nothing at one write per leaf), and with occlusion culling the
// two phases
// raster.compute.early (RASTER_EARLY: the leaves that won a pixel in the last frame, as
// publish.resolve stamped them) and raster.compute.late (RASTER_LATE: the others, each tested
// against raster.hiz, the farthest depth the early phase left per 8×8 px tile and per 4×4
// quarter). A late leaf whose nearest corner lies behind that depth over every tile (or
// quarter) of its pixel box that it may cover would lose every pixel it covers to what is
// already drawn, so skipping it leaves the visibility buffer exactly as drawing it would: the
// cull is conservative by construction (a margin of 0.1 % of the depth covers the coverage
// rule's extrapolation past the corners). Pixels the early phase left empty are at the far
// value and cull nothing.
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

// The occlusion stamps (common/bisector.glsl CBT_HIDDEN_STAMP): every stamping variant stamps
// the leaves it draws on screen as unseen, the late phase those it culls as hidden.
#if defined(RASTER_EARLY) || defined(RASTER_LATE) || defined(RASTER_STAMPED)
layout(std430, set = 0, binding = 5) buffer Seen { uint frame[]; } seen;
#define RASTER_STAMP(leaf, kind) seen.frame[leaf] = handover.frame_stamp | (kind)
#else
#define RASTER_STAMP(leaf, kind)
#endif
#ifdef RASTER_LATE
layout(std430, set = 0, binding = 6) readonly buffer Hiz { uint far_bits[]; } hiz;
#endif
// The prisms' nearest faces (common/raster_shell.glsl), keyed as the visibility buffer.
layout(std430, set = 0, binding = 7) buffer Shell { uint64_t v[]; } shell;

// mode 0: hand over to raster.hardware, 1: to raster.compute.big; max_box: the largest pixel
// box one thread rasterises (engine/src/publish.rs RASTER_MAX_BOX_PX); frame_stamp: this
// frame's stamp (the early phase takes the leaves stamped one less); shell_k: the prisms'
// raise over the largest residual (0: no shell).
layout(push_constant) uniform Handover { uint mode; float max_box; uint frame_stamp; float shell_k; } handover;

#ifdef RASTER_LATE
// Whether t may cover a pixel centre of the rectangle [a, b] (centres): each edge's weight is
// affine, so over the rectangle it peaks at a corner; ten times the coverage margin to spare
// against the corners' rounding, so the test is conservative.
bool may_cover(RasterTri t, vec2 a, vec2 b) {
    vec3 peak = vec3(-1e30);
    for (uint k = 0u; k < 4u; ++k) {
        vec2 q = vec2((k & 1u) == 0u ? a.x : b.x, (k & 2u) == 0u ? a.y : b.y);
        peak = max(peak, vec3(cross2(t.s1 - q, t.s2 - q), cross2(t.s2 - q, t.s0 - q), cross2(t.s0 - q, t.s1 - q)) * t.inv);
    }
    return all(greaterThanEqual(peak, -10.0 * t.eps));
}

// Whether every RASTER_HIZ_TILE² tile of the pixel box [lo, hi] that t may cover holds
// early-phase depths all nearer than `z_near` (the leaf's largest z_ndc, its nearest point),
// or failing that, each quarter of the tile that t may cover does. A tile of the box the
// triangle cannot reach (a thin grazing triangle's box is mostly such tiles) receives none of
// its pixels, so what it holds (sky, say) does not keep the leaf: the edge test comes first,
// and only the tiles it keeps are read. Boxes over 72 tiles are kept untested: none of one
// thread's boxes (at most 256 px, `handover.max_box`) spans more (33 × 2 for a 256 × 1 px box
// across a tile row), so the bound is there for larger settings.
bool occluded(RasterTri t, vec2 lo, vec2 hi, float z_near) {
    uint near_bits = floatBitsToUint((1.0 / z_near) * (1.0 - 1e-3));
    uvec2 t0 = uvec2(lo) / RASTER_HIZ_TILE, t1 = uvec2(hi) / RASTER_HIZ_TILE;
    if ((t1.x - t0.x + 1u) * (t1.y - t0.y + 1u) > 72u) return false;
    uint tw = (uint(frame.viewport.x) + RASTER_HIZ_TILE - 1u) / RASTER_HIZ_TILE;
    uint th = (uint(frame.viewport.y) + RASTER_HIZ_TILE - 1u) / RASTER_HIZ_TILE;
    const uint h = RASTER_HIZ_TILE / 2u;
    for (uint y = t0.y; y <= t1.y; ++y) {
        for (uint x = t0.x; x <= t1.x; ++x) {
            vec2 a = max(vec2(uvec2(x, y) * RASTER_HIZ_TILE), lo) + 0.5;
            vec2 b = min(vec2(uvec2(x, y) * RASTER_HIZ_TILE + RASTER_HIZ_TILE - 1u), hi) + 0.5;
            if (!may_cover(t, a, b) || hiz.far_bits[hiz_index(1u, uvec2(x, y), uvec2(tw, th))] < near_bits) continue;
            // The tile does not hide it: its quarters the triangle may cover must, each.
            for (uint k = 0u; k < 4u; ++k) {
                uvec2 f = 2u * uvec2(x, y) + uvec2(k & 1u, k >> 1u);
                vec2 qa = max(vec2(f * h), lo) + 0.5, qb = min(vec2(f * h + h - 1u), hi) + 0.5;
                if (any(greaterThan(qa, qb)) || !may_cover(t, qa, qb)) continue;
                if (hiz.far_bits[hiz_index(0u, f, uvec2(tw, th))] >= near_bits) return false;
            }
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

void main() {
    uint i = gl_GlobalInvocationID.x;
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
        RASTER_STAMP(leaf, CBT_UNSEEN_STAMP);
        vec2 box = hi - lo + 1.0;
        if (box.x * box.y <= handover.max_box) {
            vec3 z = vec3(c[0].z / c[0].w, c[1].z / c[1].w, c[2].z / c[2].w);
            RasterTri t;
            if (!raster_setup(s0, s1, s2, z, t)) return; // degenerate: covers no pixel centre
#ifdef RASTER_LATE
            if (occluded(t, lo, hi, max(max(z.x, z.y), z.z))) {
                atomicAdd(big.occluded, 1u);
                RASTER_STAMP(leaf, CBT_HIDDEN_STAMP);
                return;
            }
#endif
            draw_rows(t, lo, hi, leaf, false);
            return;
        }
    } else {
        RASTER_STAMP(leaf, CBT_UNSEEN_STAMP);
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

#endif
