#version 460
// raster.unseen: with occlusion stamps alone (`--occlusion stamp`), after publish.resolve has
// restamped the winners: each leaf still stamped unseen this frame (drawn on screen, won no
// pixel) that cbt.decide would split is tested against raster.hiz, the depth pyramid of the
// finished visibility buffer (the farthest winner per 4 px quarter, 8 px tile and 16–128 px
// cell). Its prism — the chord raised and lowered along the local up by `raise_k` times its
// largest edge-midpoint residual, at least a pixel — is what its refinement could become:
// finer chords follow the surface, which the residuals bound within that margin
// (common/raster_shell.glsl). Where every cell that the prism's screen footprint may cover
// holds winners all nearer than the prism's nearest point, no refinement of the leaf can win a
// pixel of this frame's image, and the leaf is restamped hidden; cbt.decide keeps it from
// splitting whatever the view's angle. The others stay unseen: an unseen leaf the view grazes
// still splits (its crest may rise above what hides its chord), as without this pass.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
#include "common/bisector.glsl"
#include "common/frame.glsl"
#include "common/raster.glsl"
#define RASTER_BIG_BINDING 3
#include "common/raster_big.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Pool { Bisector b[]; } pool;
layout(std430, set = 0, binding = 1) readonly buffer DrawList { uint leaves[]; } draw_list;
layout(std430, set = 0, binding = 2) readonly buffer Dispatch { uint args[4]; } dispatch;
layout(std430, set = 0, binding = 5) buffer Seen { uint frame[]; } seen;
layout(std430, set = 0, binding = 6) readonly buffer Hiz { uint far_bits[]; } hiz;

// frame_stamp: this frame's stamp; raise_k: the prism's half-height over the leaf's largest
// edge-midpoint residual (engine/src/publish/options.rs UNSEEN_RAISE); test_cos: only leaves
// the view grazes closer than this are tested (PublishOptions::unseen_cos: cbt.decide keeps
// the others unseen or not).
layout(push_constant) uniform Push { uint frame_stamp; float raise_k; float test_cos; } push;

// Cells of one raster.hiz level a leaf's box is tested over at most.
#define UNSEEN_CELLS 16u

// The prism's screen footprint, convex (its corners share one raise): the supporting lines of
// its six corners, each a point and a unit outward normal. Collinear corners may add lines
// that repeat a side: every one bounds the footprint, so testing more is still exact, and a
// footprint with none (all corners at one point) bounds nothing: every tile counts.
struct Hull {
    vec2 p[8];
    vec2 n[8];
    uint count;
};

Hull hull_of(vec2 s[6]) {
    Hull h;
    h.count = 0u;
    for (uint i = 0u; i < 6u; ++i) {
        for (uint j = 0u; j < 6u; ++j) {
            vec2 d = s[j] - s[i];
            if (i == j || dot(d, d) < 1e-8 || h.count == 8u) continue;
            vec2 n = normalize(vec2(d.y, -d.x));
            bool supports = true;
            for (uint k = 0u; k < 6u; ++k) supports = supports && dot(s[k] - s[i], n) <= 1e-3;
            if (!supports) continue;
            h.p[h.count] = s[i];
            h.n[h.count] = n;
            h.count++;
        }
    }
    return h;
}

// Whether the footprint may hold a pixel centre of the rectangle [a, b] (centres): no
// supporting line has all four corners beyond it by more than the coverage margin.
bool hull_may_cover(Hull h, vec2 a, vec2 b) {
    for (uint e = 0u; e < h.count; ++e) {
        float nearest = 1e30;
        for (uint k = 0u; k < 4u; ++k) {
            vec2 q = vec2((k & 1u) == 0u ? a.x : b.x, (k & 2u) == 0u ? a.y : b.y);
            nearest = min(nearest, dot(q - h.p[e], h.n[e]));
        }
        if (nearest > 1e-2) return false;
    }
    return true;
}

// Whether every cell of the pixel box [lo, hi] that the footprint may cover holds winners all
// nearer than `z_near` (the prism's largest z_ndc), read at the finest raster.hiz level where
// the box spans at most UNSEEN_CELLS cells, so that every leaf costs about the same, and where
// a cell does not, at its four quarters on the level below. A cell the
// footprint cannot reach (a grazing sliver's box is mostly such cells) receives none of its
// refinement's pixels, so what it holds does not matter.
bool hidden_box(Hull f, vec2 lo, vec2 hi, float z_near) {
    uint near_bits = floatBitsToUint((1.0 / z_near) * (1.0 - 1e-3));
    uvec2 tiles = (uvec2(frame.viewport) + RASTER_HIZ_TILE - 1u) / RASTER_HIZ_TILE;
    uint l = 0u;
    uvec2 c0, c1;
    for (;; ++l) {
        if (l > RASTER_HIZ_COARSE + 1u) return false; // spans much of the screen: left to split
        uint side = (RASTER_HIZ_TILE / 2u) << l;
        c0 = uvec2(lo) / side;
        c1 = uvec2(hi) / side;
        if ((c1.x - c0.x + 1u) * (c1.y - c0.y + 1u) <= UNSEEN_CELLS) break;
    }
    float side = float((RASTER_HIZ_TILE / 2u) << l);
    for (uint y = c0.y; y <= c1.y; ++y) {
        for (uint x = c0.x; x <= c1.x; ++x) {
            vec2 a = max(vec2(x, y) * side, lo) + 0.5;
            vec2 b = min(vec2(x, y) * side + side - 1.0, hi) + 0.5;
            if (!hull_may_cover(f, a, b) || hiz.far_bits[hiz_index(l, uvec2(x, y), tiles)] < near_bits) continue;
            // The cell does not hide it: the quarters of it the footprint may cover must, each
            // (a ridge's cell holds the farther ground beside the ridge too).
            if (l == 0u) return false;
            float half_side = side * 0.5;
            for (uint k = 0u; k < 4u; ++k) {
                uvec2 q = 2u * uvec2(x, y) + uvec2(k & 1u, k >> 1u);
                vec2 qa = max(vec2(q) * half_side, lo) + 0.5, qb = min(vec2(q) * half_side + half_side - 1.0, hi) + 0.5;
                if (any(greaterThan(qa, qb)) || !hull_may_cover(f, qa, qb)) continue;
                if (hiz.far_bits[hiz_index(l - 1u, q, tiles)] >= near_bits) return false;
            }
        }
    }
    return true;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= dispatch.args[3]) return;
    uint leaf = draw_list.leaves[i];
    if (seen.frame[leaf] != (push.frame_stamp | CBT_UNSEEN_STAMP)) return;
    vec3 p[3];
    float dmax = 0.0;
    for (uint k = 0u; k < 3u; ++k) {
        p[k] = vec3(pool.b[leaf].positions[3u * k], pool.b[leaf].positions[3u * k + 1u], pool.b[leaf].positions[3u * k + 2u]);
        dmax = max(dmax, length(p[k]));
    }
    if (incidence_cos(p) >= push.test_cos) return; // cbt.decide keeps it unseen or hidden
    // The residuals are screen angles at the midpoints: as metres, at the farthest corner's
    // distance (an over-estimate, the safe side).
    float r_px = max(pool.b[leaf].r_hyp, pool.b[leaf].r_leg);
    float raise = max(push.raise_k * r_px, 1.0) * frame.pixel_angle * dmax;
    vec3 up = normalize((p[0] + p[1] + p[2]) / 3.0 - frame.planet_center) * raise;
    vec2 s[6];
    vec2 smin = vec2(1e30), smax = vec2(-1e30);
    float z_near = 0.0;
    for (uint k = 0u; k < 6u; ++k) {
        vec4 c = frame.view_proj * vec4(p[k % 3u] + (k < 3u ? -up : up), 1.0);
        if (raster_near(c)) return; // near the camera: left to split
        s[k] = raster_screen(c, frame.viewport);
        smin = min(smin, s[k]);
        smax = max(smax, s[k]);
        z_near = max(z_near, c.z / c.w);
    }
    vec2 lo, hi;
    if (!raster_box(smin, smax, frame.viewport, lo, hi)) return;
    if (!hidden_box(hull_of(s), lo, hi, z_near)) return;
    seen.frame[leaf] = push.frame_stamp | CBT_HIDDEN_STAMP;
    atomicAdd(big.occluded, 1u);
}
