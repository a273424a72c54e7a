// Resident tiles as shaders read them: the slot table (448-byte records, mirror of
// engine/src/gpu/slots.rs `SlotRecord`), the lookup hash (TileId → slot), the height atlas,
// tile charts (docs/conventions.md "Charts") and tangent-frame math (TERRAIN.md §2).
// Bindings 17–19 are reserved for these in every shader that includes this file.
#ifndef TILES_GLSL
#define TILES_GLSL

#include "common/planet.glsl"
#include "common/frame.glsl"

// SlotRecord::flags (engine/src/atlas/slots.rs): the slot holds a tile; no sample of its
// payload (nor of the one it cross-fades from) is water.
#define SLOT_RESIDENT 1u
#define SLOT_ALL_LAND 2u
#define SLOT_ALL_WATER 4u
#define SLOT_NO_LAKE 8u

#define CHART_EXACT 0u
#define CHART_CUBIC 1u

struct SlotRecord {
    uint level;           // 0
    uint face;            // 4
    uint x;               // 8
    uint y;               // 12
    uint parent;          // 16  parent's slot (NO_SLOT at L0)
    uint page;            // 20  atlas layer holding the payload
    uint flags;           // 24  SLOT_* bits
    float fade;           // 28  arrival fade 0..1
    vec4 origin;          // 32  datum point under the tile centre, camera-relative (m); w unused
    vec4 n;               // 48
    vec4 e1;              // 64
    vec4 e2;              // 80
    uint chart_kind;      // 96
    float chart_scale;    // 100
    float chart_inv_scale;// 104
    float chart_pad;      // 108
    float fwd_u[9];       // 112
    float fwd_v[9];       // 148
    float inv_u[9];       // 184
    float inv_v[9];       // 220
    float edge_w[4];      // 256  spatial weight at the -u, +u, -v, +v edges
    float corner_w[4];    // 272  at corners (s,t) = (0,0), (512,0), (0,512), (512,512)
    float min_h;          // 288  height bounds of the payload (m)
    float max_h;          // 292
    float texel_m;        // 296  texel size (m)
    uint page_from;       // 300  previous payload's page during a cross-fade (NO_SLOT: none)
    float xfade;          // 304  weight of the new payload during a cross-fade
    uint memo_stamp;      // 308  surface clock of the last change a walk from here could see
    uint reserved[34];    // 312 → 448
};

layout(std430, set = 0, binding = 17) readonly buffer SlotBlock { SlotRecord s[]; } slots;
layout(set = 0, binding = 18) uniform sampler2DArray tile_heights;
// Open-addressing table: (key lo, key hi, slot, unused); empty entries have slot NO_SLOT.
layout(std430, set = 0, binding = 19) readonly buffer LookupBlock { uvec4 e[]; } tile_lookup;

uint64_t tile_key(uint level, uint face, uint x, uint y) {
    return (uint64_t(level) << 40) | (uint64_t(face) << 37) | (uint64_t(x) << 18) | uint64_t(y);
}

// Mirror of engine/src/gpu/slots.rs `lookup_hash`.
uint tile_hash(uint64_t key) {
    uint64_t h = key * 0x9E3779B97F4A7C15UL;
    return uint(h >> 32);
}

uint find_slot(uint level, uint face, uint x, uint y) {
    uint64_t key = tile_key(level, face, x, y);
    uint lo = uint(key), hi = uint(key >> 32);
    uint i = tile_hash(key) & frame.lookup_mask;
    for (uint probe = 0u; probe <= frame.lookup_mask; ++probe) {
        uvec4 e = tile_lookup.e[i];
        if (e.z == NO_SLOT) return NO_SLOT;
        if (e.x == lo && e.y == hi) return e.z;
        i = (i + 1u) & frame.lookup_mask;
    }
    return NO_SLOT;
}

// Tile coordinate of a fixed-point position at `level` (the far edge belongs to the last tile).
uvec2 tile_of(uvec2 X, uint level) {
    uint n = 1u << level;
    return min(X >> (FIXED_BITS - level), uvec2(n - 1u));
}

// The binary search of `finest_slot` from a resident tile `best` of level `lo` that holds X
// (residency is closed under ancestors, so every level up to lo is resident there).
uint finest_slot_above(uint face, uvec2 X, uint max_level, uint lo, uint best) {
    uint hi = max_level;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) >> 1;
        uvec2 t = tile_of(X, mid);
        uint s = find_slot(mid, face, t.x, t.y);
        if (s != NO_SLOT) { lo = mid; best = s; } else { hi = mid - 1u; }
    }
    return best;
}

// Deepest resident tile with level ≤ max_level containing X (L0 is always resident; residency
// is closed under ancestors, so a binary search over the level is exact).
uint finest_slot(uint face, uvec2 X, uint max_level) {
    uvec2 t0 = tile_of(X, 0u);
    return finest_slot_above(face, X, max_level, 0u, find_slot(0u, face, t0.x, t0.y));
}

// `finest_slot` given a resident slot `hint` found for a point near X (another corner of the
// same leaf): where the hint's tile holds X too, the search starts at its level and first asks
// whether the next level holds X (most often not: one probe); else the whole search. The same
// slot either way (the deepest resident tile holding X is unique).
uint finest_slot_hinted(uint face, uvec2 X, uint max_level, uint hint) {
    if (hint != NO_SLOT) {
        SlotRecord r = slots.s[hint];
        if (r.face == face && r.level <= max_level && all(equal(tile_of(X, r.level), uvec2(r.x, r.y)))) {
            if (r.level == max_level) return hint;
            uint next = r.level + 1u;
            uvec2 t = tile_of(X, next);
            uint s = find_slot(next, face, t.x, t.y);
            return s == NO_SLOT ? hint : finest_slot_above(face, X, max_level, next, s);
        }
    }
    return finest_slot(face, X, max_level);
}

// Tile-local texel coordinates (sample i at s = i + 0.5) of fixed point X in tile `slot`. Exact
// integer offset, one rounding in the conversion.
vec2 fixed_to_st(uint slot, uvec2 X) {
    SlotRecord r = slots.s[slot];
    uint shift = FIXED_BITS - r.level;
    uvec2 origin = uvec2(r.x, r.y) << shift;
    // X may lie exactly on the far edge or a little outside (re-addressed points): signed.
    vec2 d = vec2(ivec2(X) - ivec2(origin));
    return d * exp2(float(int(r.level)) - 21.0);
}

float chart_poly(float c[9], float x, float y) {
    float xx = x * x, xy = x * y, yy = y * y;
    float m[9] = float[9](x, y, xx, xy, yy, xx * x, xx * y, x * yy, yy * y);
    float s = 0.0;
    for (int k = 0; k < 9; ++k) s += c[k] * m[k];
    return s;
}

// Plane (a, b) → texel (s, t) in tile `r` (ChartGpu::forward).
vec2 chart_forward(SlotRecord r, vec2 ab) {
    if (r.chart_kind == CHART_CUBIC) {
        vec2 xy = ab * r.chart_scale;
        return vec2(256.0 + chart_poly(r.fwd_u, xy.x, xy.y), 256.0 + chart_poly(r.fwd_v, xy.x, xy.y));
    }
    float nu = r.fwd_u[0] * ab.x + r.fwd_u[1] * ab.y, du = 1.0 + r.fwd_u[2] * ab.x + r.fwd_u[3] * ab.y;
    float nv = r.fwd_v[0] * ab.x + r.fwd_v[1] * ab.y, dv = 1.0 + r.fwd_v[2] * ab.x + r.fwd_v[3] * ab.y;
    return vec2(256.0 + r.chart_scale * atan_p(nu / du), 256.0 + r.chart_scale * atan_p(nv / dv));
}

// Texel (s, t) → plane (a, b) in tile `r` (ChartGpu::inverse: fitted inverse + 3 Newton steps).
vec2 chart_inverse(SlotRecord r, vec2 st) {
    if (r.chart_kind == CHART_CUBIC) {
        float sx = st.x - 256.0, ty = st.y - 256.0;
        float X = sx * (1.0 / 256.0), Y = ty * (1.0 / 256.0);
        float x = chart_poly(r.inv_u, X, Y), y = chart_poly(r.inv_v, X, Y);
        for (int k = 0; k < 3; ++k) {
            float xx = x * x, xy = x * y, yy = y * y;
            float mx[9] = float[9](1.0, 0.0, 2.0 * x, y, 0.0, 3.0 * xx, 2.0 * xy, yy, 0.0);
            float my[9] = float[9](0.0, 1.0, 0.0, x, 2.0 * y, 0.0, xx, 2.0 * xy, 3.0 * yy);
            float r0 = chart_poly(r.fwd_u, x, y) - sx;
            float r1 = chart_poly(r.fwd_v, x, y) - ty;
            float j00 = 0.0, j01 = 0.0, j10 = 0.0, j11 = 0.0;
            for (int i = 0; i < 9; ++i) {
                j00 += r.fwd_u[i] * mx[i];
                j01 += r.fwd_u[i] * my[i];
                j10 += r.fwd_v[i] * mx[i];
                j11 += r.fwd_v[i] * my[i];
            }
            float det = j00 * j11 - j01 * j10;
            x -= (j11 * r0 - j01 * r1) / det;
            y -= (j00 * r1 - j10 * r0) / det;
        }
        return vec2(x, y) * r.chart_inv_scale;
    }
    float tu = tan_p((st.x - 256.0) * r.chart_inv_scale);
    float tv = tan_p((st.y - 256.0) * r.chart_inv_scale);
    float Tu = r.fwd_u[4], Tv = r.fwd_v[4];
    float du = tu * (1.0 + Tu * Tu) / (1.0 - Tu * tu);
    float dv = tv * (1.0 + Tv * Tv) / (1.0 - Tv * tv);
    float den = 1.0 + r.inv_u[4] * du + r.inv_u[5] * dv;
    return vec2(r.inv_u[0] * du + r.inv_u[1] * dv, r.inv_u[2] * du + r.inv_u[3] * dv) / den;
}

// Offset from the tile origin of the point at plane (a, b), height h (m), cancellation-free:
// (R+h)/S·(a·e1 + b·e2) + (h − (R+h)(a²+b²)/(S(S+1)))·n with S = √(1+a²+b²).
vec3 plane_to_offset(SlotRecord r, vec2 ab, float h) {
    float R = frame.planet_radius;
    float q = dot(ab, ab);
    float S = sqrt(1.0 + q);
    float Rh = R + h;
    return (Rh / S) * (ab.x * r.e1.xyz + ab.y * r.e2.xyz) + (h - Rh * q / (S * (S + 1.0))) * r.n.xyz;
}

// Camera-relative point → plane (a, b) and height above the datum (TERRAIN.md §2).
vec3 point_to_plane(SlotRecord r, vec3 p) {
    vec3 q = p - r.origin.xyz;
    float qn = dot(q, r.n.xyz), q1 = dot(q, r.e1.xyz), q2 = dot(q, r.e2.xyz);
    float rq = frame.planet_radius + qn;
    float t2 = q1 * q1 + q2 * q2;
    return vec3(q1 / rq, q2 / rq, qn + t2 / (sqrt(t2 + rq * rq) + rq));
}

// The four stored samples around texel position st (sample i at s = i + 0.5) of page `page`,
// and the bilinear fractions: explicit fetches, interpolated by the caller in full precision
// (hardware filtering would quantise the weights to 8 bits — metres of error on steep ground).
// What covers a sample: the two low mantissa bits of its stored f32 height (mirror of
// engine/src/earth/tile.rs `Cover::gpu_bits`; stored levels' heights have those bits zero, so
// clearing them is exact there and ≤ 3 ulp on amplified levels).
#define COVER_LAND 0u
#define COVER_OCEAN 1u
#define COVER_LAKE 2u

struct Quad {
    vec4 h;   // h00, h10, h01, h11 (metres)
    uvec4 c;  // their covers (COVER_*)
    vec2 f;
};

Quad fetch_quad(uint page, vec2 st) {
    vec2 g = st - 0.5;
    ivec2 i = clamp(ivec2(floor(g)), ivec2(-TILE_APRON), ivec2(TILE_STRIDE - TILE_APRON - 2));
    Quad q;
    q.f = g - vec2(i);
    ivec2 b = i + TILE_APRON;
    uvec4 bits = floatBitsToUint(vec4(
        texelFetch(tile_heights, ivec3(b, page), 0).r,
        texelFetch(tile_heights, ivec3(b + ivec2(1, 0), page), 0).r,
        texelFetch(tile_heights, ivec3(b + ivec2(0, 1), page), 0).r,
        texelFetch(tile_heights, ivec3(b + ivec2(1, 1), page), 0).r));
    q.h = uintBitsToFloat(bits & ~3u);
    q.c = bits & 3u;
    return q;
}

// Height (bilinear) and its gradient per texel (d/ds, d/dt).
vec3 gather_height_grad(uint page, vec2 st) {
    Quad q = fetch_quad(page, st);
    return vec3(mix(mix(q.h.x, q.h.y, q.f.x), mix(q.h.z, q.h.w, q.f.x), q.f.y),
                mix(q.h.y - q.h.x, q.h.w - q.h.z, q.f.y),
                mix(q.h.z - q.h.x, q.h.w - q.h.y, q.f.x));
}

// Height and gradient of one tile's payload, cross-faded with the previous payload during a
// replacement.
vec3 tile_height_grad(SlotRecord r, vec2 st) {
    vec3 h = gather_height_grad(r.page, st);
    if (r.page_from != NO_SLOT && r.xfade < 1.0) {
        h = mix(gather_height_grad(r.page_from, st), h, r.xfade);
    }
    return h;
}

float tile_height(SlotRecord r, vec2 st) {
    return tile_height_grad(r, st).x;
}

// Cover at the native level: the binary mask of one cover (the water mask's, carried by the
// samples) interpolated with cubic (smoothstep) weights, so the coastline is continuous and
// rounded, not bilinear-kinked.
float quad_cover_weight(Quad q, bvec4 on) {
    vec2 f = q.f * q.f * (3.0 - 2.0 * q.f);
    vec4 w = vec4(on);
    return mix(mix(w.x, w.y, f.x), mix(w.z, w.w, f.x), f.y);
}

// Weight of the samples covered by `cover` (COVER_LAND: by water, ocean or lake), cross-faded
// with the previous payload's during a replacement.
float cover_weight(SlotRecord r, vec2 st, uint cover) {
    Quad q = fetch_quad(r.page, st);
    bvec4 on = cover == COVER_LAND ? notEqual(q.c, uvec4(COVER_LAND)) : equal(q.c, uvec4(cover));
    float w = quad_cover_weight(q, on);
    if (r.page_from != NO_SLOT && r.xfade < 1.0) {
        Quad p = fetch_quad(r.page_from, st);
        bvec4 was = cover == COVER_LAND ? notEqual(p.c, uvec4(COVER_LAND)) : equal(p.c, uvec4(cover));
        w = mix(quad_cover_weight(p, was), w, r.xfade);
    }
    return w;
}

// A tile's water weight (ocean and lakes): 0 without reading a texel where the tile is all land
// (what cover_weight gives there, to the bit), 1 where it is all water (cover_weight's mix of
// ones, within a rounding of it).
float water_weight(SlotRecord r, vec2 st) {
    if ((r.flags & SLOT_ALL_LAND) != 0u) return 0.0;
    if ((r.flags & SLOT_ALL_WATER) != 0u) return 1.0;
    return cover_weight(r, st, COVER_LAND);
}
float ocean_weight(SlotRecord r, vec2 st) { return cover_weight(r, st, COVER_OCEAN); }
// 0 without reading a texel where the tile has no lake (what cover_weight gives there, to the bit).
float lake_weight(SlotRecord r, vec2 st) { return (r.flags & SLOT_NO_LAKE) != 0u ? 0.0 : cover_weight(r, st, COVER_LAKE); }

// The spatial weight of a tile over its parent (TERRAIN.md §2): 1 inside, fading over a
// 16-texel band toward each edge's weight, with corner weights at the band's ends. Edge and
// corner weights are minima over the tiles sharing them (computed on the CPU), so both sides
// of an edge interpolate identical weights.
#define EDGE_BAND 16.0
float edge_profile(float along, float c0, float e, float c1) {
    if (along < EDGE_BAND) return mix(c0, e, clamp(along / EDGE_BAND, 0.0, 1.0));
    if (along > 512.0 - EDGE_BAND) return mix(e, c1, clamp((along - (512.0 - EDGE_BAND)) / EDGE_BAND, 0.0, 1.0));
    return e;
}

float spatial_weight(SlotRecord r, vec2 st) {
    float inner = r.fade;
    // Past every edge's band each edge's mix is `inner` whole: the tile's arrival fade alone,
    // without the edges' profiles (most points of a walk lie there).
    if (all(greaterThanEqual(st, vec2(EDGE_BAND))) && all(lessThanEqual(st, vec2(512.0 - EDGE_BAND)))) {
        return clamp(inner, 0.0, 1.0);
    }
    // edges: -u (s = 0), +u (s = 512), -v (t = 0), +v (t = 512); corners 00, 10, 01, 11.
    float wl = mix(edge_profile(st.y, r.corner_w[0], r.edge_w[0], r.corner_w[2]), inner, clamp(st.x / EDGE_BAND, 0.0, 1.0));
    float wr = mix(edge_profile(st.y, r.corner_w[1], r.edge_w[1], r.corner_w[3]), inner, clamp((512.0 - st.x) / EDGE_BAND, 0.0, 1.0));
    float wb = mix(edge_profile(st.x, r.corner_w[0], r.edge_w[2], r.corner_w[1]), inner, clamp(st.y / EDGE_BAND, 0.0, 1.0));
    float wt = mix(edge_profile(st.x, r.corner_w[2], r.edge_w[3], r.corner_w[3]), inner, clamp((512.0 - st.y) / EDGE_BAND, 0.0, 1.0));
    return clamp(min(min(wl, wr), min(wb, wt)), 0.0, 1.0);
}

#endif
