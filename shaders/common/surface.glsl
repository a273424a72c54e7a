// The blended terrain surface (TERRAIN.md §2): level selection from ray distance, the weighted
// parent-chain walk, positions through tile frames. One definition for every pass — the CBT's
// corner evaluation, the publish resolve, probes — mirrored on the CPU by engine/src/surface.rs.
#ifndef SURFACE_GLSL
#define SURFACE_GLSL

#include "common/tiles.glsl"

// Continuous level of detail for ray distance t (m): lc = log2(texel0 / (t·pixelAngle)).
float level_lod(float t) {
    return log2(frame.texel0 / (max(t, 1e-3) * frame.pixel_angle)) + frame.lod_bias;
}

// (s, t) of the same point in the parent tile: children are the 2×2 halves of their parent.
vec2 st_in_parent(SlotRecord r, vec2 st) {
    return (st + 512.0 * vec2(float(r.x & 1u), float(r.y & 1u))) * 0.5;
}

// The chain below `slot` split in two: the first tile's payload (height, d/ds, d/dt) and its
// spatial weight, and the parents' blend — each parent with its own arrival fade and edge band,
// until a weight reaches 1. height(w) = w·ws·first + (1 − w·ws)·rest, w = the level weight.
// Gradients are per texel of the first tile (a parent's texel is two of its child's); the
// spatial weights' own variation is left out (the gradient feeds shading normals).
struct BlendGrad {
    vec3 first;
    float ws;
    vec3 rest;
    uint level;
};

// `w_level`: the level weight the caller blends with; where it and the first tile's spatial
// weight are both 1, the blend is the first tile alone (1·first + 0·rest is first, to the bit),
// so the parents are not read (pass 0 to always read them).
BlendGrad blend_chain_grad(uint slot, vec2 st, float w_level) {
    BlendGrad b;
    SlotRecord r = slots.s[slot];
    b.level = r.level;
    b.first = tile_height_grad(r, st);
    b.ws = r.level == 0u ? 1.0 : spatial_weight(r, st);
    b.rest = b.first;
    if (r.level == 0u || r.parent == NO_SLOT || w_level * b.ws >= 1.0) return b;
    vec3 h = vec3(0.0);
    float rem = 1.0, scale = 0.5;
    st = st_in_parent(r, st);
    uint s = r.parent;
    for (int k = 0; k < int(MAX_LEVEL) + 1; ++k) {
        SlotRecord p = slots.s[s];
        float w = (p.level == 0u || p.parent == NO_SLOT) ? 1.0 : spatial_weight(p, st);
        vec3 hp = tile_height_grad(p, st);
        h += rem * w * vec3(hp.x, hp.yz * scale);
        rem *= 1.0 - w;
        if (rem <= 0.0 || p.parent == NO_SLOT) break;
        st = st_in_parent(p, st);
        s = p.parent;
        scale *= 0.5;
    }
    b.rest = h;
    return b;
}

// Level L and its weight w over the parent for lod lc, given the finest resident level fl.
void select_level(float lc, uint fl, out uint L, out float w) {
    int Lw = int(ceil(lc));
    if (Lw > int(fl)) { L = fl; w = 1.0; }
    else if (Lw <= 0) { L = 0u; w = 1.0; }
    else { L = uint(Lw); w = clamp(lc - float(Lw - 1), 0.0, 1.0); }
}

vec3 blend_height_grad(BlendGrad b, float w) {
    if (b.level == 0u) return b.first;
    float wf = w * b.ws;
    return wf * b.first + (1.0 - wf) * b.rest;
}

// Walk up from `slot` (with point st) to `level`; returns the slot and updates st.
uint ancestor_at(uint slot, inout vec2 st, uint level) {
    for (int k = 0; k < int(MAX_LEVEL) + 1; ++k) {
        SlotRecord r = slots.s[slot];
        if (r.level <= level || r.parent == NO_SLOT) break;
        st = st_in_parent(r, st);
        slot = r.parent;
    }
    return slot;
}

// Water weight seen at ray distance t at (finest slot fs, st): the covers of the level the
// selection chose and its parent, blended by the level weight as the heights are. The covers
// are samples of the water mask at each level's spacing (a coarse level's from its children's
// majority), so a lake smaller than the pixel's footprint is not drawn as a pixel of water
// wherever a finer resident tile happens to hold it: the water follows the same footprint as
// the ground does.
float water_in(SlotRecord r, vec2 st, float w) {
    float ww = water_weight(r, st);
    if (r.level > 0u && r.parent != NO_SLOT) {
        SlotRecord p = slots.s[r.parent];
        // No water here and none in the parent: the blend below is 0 whatever its weight.
        if (ww == 0.0 && (p.flags & SLOT_ALL_LAND) != 0u) return 0.0;
        if (ww == 1.0 && (p.flags & SLOT_ALL_WATER) != 0u) return 1.0;
        // The tile's own edge band fades into the parent too, as its heights do.
        float wf = w * spatial_weight(r, st);
        if (wf < 1.0) ww = mix(water_weight(p, st_in_parent(r, st)), ww, wf);
    }
    return ww;
}

// The tile of the level that ray distance t selects over (finest slot fs, st), st moved into
// it, with that level and its weight over the parent.
uint selected_tile(uint fs, inout vec2 st, float t, out uint level, out float w) {
    select_level(level_lod(t), slots.s[fs].level, level, w);
    return ancestor_at(fs, st, level);
}

float water_at_level(uint fs, vec2 st, float t) {
    uint level;
    float w;
    uint sl = selected_tile(fs, st, t, level, w);
    return water_in(slots.s[sl], st, w);
}

// A pixel's footprint `fp` (m across) at (fs, st, t) as four taps a quarter footprint from the
// centre along each diagonal, a box filter: the tile of the level the selection chose (one
// selection and one walk for all four), st in it, the level's weight over its parent, and the
// taps' offset in its texels.
struct Footprint {
    uint slot;
    vec2 st;
    float w;
    float q;
};

const vec2 FOOTPRINT_TAPS[4] = vec2[4](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0), vec2(1.0, 1.0));

Footprint footprint_at(uint fs, vec2 st, float t, float fp) {
    Footprint f;
    uint level;
    f.st = st;
    f.slot = selected_tile(fs, f.st, t, level, f.w);
    f.q = 0.25 * fp / slots.s[f.slot].texel_m;
    return f;
}

// Water's share of a footprint: `water_at_level` averaged over its taps. The level chosen puts
// one to two of its texels under a pixel, and the covers between samples are a smoothstep: a
// lake held by one sample would read as a whole pixel of water near that sample (a speck);
// averaged over the footprint it weighs its area.
float water_share(Footprint f) {
    SlotRecord r = slots.s[f.slot];
    float share = 0.0;
    for (int i = 0; i < 4; ++i) share += water_in(r, f.st + f.q * FOOTPRINT_TAPS[i], f.w);
    return 0.25 * share;
}

// The selected tile's heights at a footprint's taps (for the shares of what else it holds:
// snow).
vec4 footprint_heights(Footprint f) {
    SlotRecord r = slots.s[f.slot];
    vec4 h;
    for (int i = 0; i < 4; ++i) h[i] = tile_height(r, f.st + f.q * FOOTPRINT_TAPS[i]);
    return h;
}

struct SurfacePoint {
    vec3 pos;      // camera-relative (m)
    float height;  // blended height above the datum (m)
    float lod;     // continuous lod at the point
    uint level;    // level chosen by the level selection
    uint slot;     // finest resident slot at the point
    vec2 st;       // texel coordinates in that slot
};

// Blended height and gradient (per texel of `fs`) for ray distance t at (fs, st), and the
// level the selection chose: one walk gives all three (the walk computes gradients anyway).
vec3 height_grad_level_at(uint fs, vec2 st, float t, out uint level) {
    float lc = level_lod(t);
    float w;
    select_level(lc, slots.s[fs].level, level, w);
    vec2 stl = st;
    uint sl = ancestor_at(fs, stl, level);
    vec3 h = blend_height_grad(blend_chain_grad(sl, stl, w), w);
    // Gradients of the chain are per texel of `sl`, whose texels are 2^(fs.level − level) of fs's.
    return vec3(h.x, h.yz * exp2(float(int(level)) - float(int(slots.s[fs].level))));
}

// Blended height for ray distance t at (finest slot fs, st).
float height_at(uint fs, vec2 st, float t, out uint level) {
    return height_grad_level_at(fs, st, t, level).x;
}

// What a CBT vertex's surface evaluation keeps between frames (`cbt.eval`'s memo): everything
// that does not depend on the eye — the finest resident slot, the point on its plane, the finest
// payload's height there, and the level chain last blended (its first tile's height, spatial
// weight and the parents' blend). A moved eye then re-blends from these instead of searching
// the slot, inverting the chart and walking the chain again; only a level change walks.
#define MEMO_NO_LEVEL 31u
struct SurfaceMemo {
    uint fs;        // finest resident slot; NO_SLOT: nothing kept (search, invert, read h0)
    uint level;     // level whose chain first/ws/rest hold; MEMO_NO_LEVEL: none
    bool rest_read; // rest is the parents' blend (else they were skipped: rest = first)
    vec2 ab;        // plane coordinates in fs's frame
    float h0;       // fs's own payload height (the first distance estimate)
    float first;    // the level's tile height, its spatial weight, the parents' blend
    float ws;
    float rest;
};

SurfaceMemo no_memo() {
    SurfaceMemo m;
    m.fs = NO_SLOT;
    m.level = MEMO_NO_LEVEL;
    m.rest_read = false;
    m.ab = vec2(0.0);
    m.h0 = 0.0;
    m.first = 0.0;
    m.ws = 0.0;
    m.rest = 0.0;
    return m;
}

// The surface at a CBT vertex (fixed-point face coordinates). Two-pass distance ↔ level: the
// finest payload's height gives a first distance; the blend at that distance gives the point;
// its distance re-weights the same chain (walked again only when the level changes, or when
// the new weight needs the parents the first one skipped).
// `hint`: the finest slot of a nearby point, or NO_SLOT (`finest_slot_hinted`: the same slot,
// found with fewer probes where the hint's tile holds X). `m`: what an earlier evaluation of the
// same point kept (`no_memo()`: nothing), updated with what this one walked. One code path
// whether or not the memo held: the same operations give the same bits, so a leaf that
// re-blends and a neighbour that walks put their shared corner at the same point.
SurfacePoint surface_at_fixed_memo(uint face, uvec2 X, uint hint, inout SurfaceMemo m) {
    canonical_vertex(face, X);
    if (m.fs == NO_SLOT) {
        m.fs = finest_slot_hinted(face, X, frame.max_level, hint);
        SlotRecord f = slots.s[m.fs];
        vec2 st0 = fixed_to_st(m.fs, X);
        m.ab = chart_inverse(f, st0);
        m.h0 = tile_height(f, st0);
        m.level = MEMO_NO_LEVEL;
    }
    SlotRecord r = slots.s[m.fs];
    float h = m.h0;
    float lc = 0.0;
    uint L = 0u;
    for (int pass = 0; pass < 2; ++pass) {
        lc = level_lod(length(r.origin.xyz + plane_to_offset(r, m.ab, h)));
        float w;
        select_level(lc, r.level, L, w);
        if (L != m.level || (!m.rest_read && w * m.ws < 1.0)) {
            vec2 stl = fixed_to_st(m.fs, X);
            uint sl = ancestor_at(m.fs, stl, L);
            BlendGrad b = blend_chain_grad(sl, stl, w);
            m.level = L;
            m.first = b.first.x;
            m.ws = b.ws;
            m.rest = b.rest.x;
            // blend_chain_grad skips the parents only where this weight does not need them.
            m.rest_read = b.level == 0u || slots.s[sl].parent == NO_SLOT || w * b.ws < 1.0;
        }
        if (m.level == 0u) {
            h = m.first;
        } else {
            float wf = w * m.ws;
            h = wf * m.first + (1.0 - wf) * m.rest;
        }
    }
    SurfacePoint sp;
    sp.pos = r.origin.xyz + plane_to_offset(r, m.ab, h);
    sp.height = h;
    sp.lod = lc;
    sp.level = L;
    sp.slot = m.fs;
    sp.st = fixed_to_st(m.fs, X);
    return sp;
}

SurfacePoint surface_at_fixed_hinted(uint face, uvec2 X, uint hint) {
    SurfaceMemo m = no_memo();
    return surface_at_fixed_memo(face, X, hint, m);
}

SurfacePoint surface_at_fixed(uint face, uvec2 X) { return surface_at_fixed_hinted(face, X, NO_SLOT); }

// Locate a camera-relative point near fixed-point hint X on `face`: the finest resident slot
// and the point's texel coordinates in it (through that tile's frame and chart, so nothing
// planet-sized is subtracted), with its plane coordinates and height over the plane in that
// tile's frame (abh: callers need no chart inverse). A point past the face edge is read on the
// face that owns it (the slot carries that face: callers take the face from `fs`, not `face`).
void locate_abh(vec3 p, uint face, ivec2 X, out uint fs, out vec2 st, out vec3 abh);

// The finest resident slot at a locating hint: where `locate_abh` starts.
uint hint_slot(uint face, ivec2 X) {
    return finest_slot(face, uvec2(clamp(X, ivec2(0), ivec2(int(FIXED_ONE)))), frame.max_level);
}

// `locate_abh` from its starting slot (`hint_slot` of the hint): callers that locate many points
// from one hint (a search along one ray) find that slot once; the result is the same bits.
void locate_abh_from(vec3 p, uint start, out uint fs, out vec2 st, out vec3 abh) {
    fs = start;
    // Four steps: a hint a tile off, the face edge, and on the owning face the hint from the
    // f32 direction (about 0.5 m on Earth: a few L18 texels, possibly the next tile). Within
    // that 0.5 m of a face edge the direction may name either face: the point then reads the
    // apron, as before.
    for (int k = 0; k < 4; ++k) {
        SlotRecord r = slots.s[fs];
        abh = point_to_plane(r, p);
        st = chart_forward(r, abh.xy);
        // Within half a texel of the tile the gathers read the apron: good enough, and it
        // stops points exactly on an edge from bouncing between the two tiles. Not past a
        // face edge, where half a coarse texel is kilometres of the other face (an L0 texel is
        // 19.5 km on Earth) read at this tile's level: there a hundredth of a texel.
        uint last = (1u << r.level) - 1u;
        vec2 lo = vec2(r.x == 0u ? -0.01 : -0.5, r.y == 0u ? -0.01 : -0.5);
        vec2 hi = vec2(r.x == last ? 512.01 : 512.5, r.y == last ? 512.01 : 512.5);
        if (all(greaterThanEqual(st, lo)) && all(lessThanEqual(st, hi))) return;
        // Outside this tile: find the tile that holds it. (st bounded so that the fixed point
        // fits an int at L0: a tile's width past it is past the face anyway.)
        ivec2 origin = ivec2(uvec2(r.x, r.y) << (FIXED_BITS - r.level));
        ivec2 Xn = origin + ivec2(floor(clamp(st, vec2(-511.0), vec2(1023.0)) * exp2(21.0 - float(r.level))));
        uint f = r.face;
        ivec2 Xa = Xn;
        if (any(lessThan(Xn, ivec2(0))) || any(greaterThan(Xn, ivec2(int(FIXED_ONE))))) {
            // Past the face edge, as this tile's chart has it: the face that owns the point's
            // direction from the planet centre, and where on it (a hint: st comes from the
            // tile's frame). Not the face across that edge: a chart extrapolated far past its
            // tile can put a point inside the face past its edge (measured: 9.5 km inside face
            // 0 read on face 2's L0 apron).
            dir_to_face_fixed(normalize(p - frame.planet_center), f, Xa);
        }
        uint next = finest_slot(f, uvec2(Xa), frame.max_level);
        if (next == fs) return;
        fs = next;
    }
    SlotRecord r = slots.s[fs];
    abh = point_to_plane(r, p);
    st = chart_forward(r, abh.xy);
}

void locate_abh(vec3 p, uint face, ivec2 X, out uint fs, out vec2 st, out vec3 abh) {
    locate_abh_from(p, hint_slot(face, X), fs, st, abh);
}

void locate(vec3 p, uint face, ivec2 X, out uint fs, out vec2 st, out float h_point) {
    vec3 abh;
    locate_abh(p, face, X, fs, st, abh);
    h_point = abh.z;
}

#endif
