// EVAL of one entry: corner positions (morphed while young), midpoint residuals, flags, births (mirror of
// engine/src/cbt/stages/eval.rs). Shared by cbt.eval and cbt.finish (entries created by the
// last iteration). Needs the pool and the memo (CBT_WRITES_MEMO) writable and the surface
// bindings 16–19.
#ifndef CBT_EVAL_GLSL
#define CBT_EVAL_GLSL

#include "common/surface.glsl"
#include "common/cbt_criterion.glsl"
#include "common/cbt_pool.glsl"

// The memo of an entry's six points (three corners, then the hypotenuse and leg midpoints):
// seven words each (SurfaceMemo: fs | level << 24 | rest_read << 31, a, b, h0, first, ws,
// rest), the corners' in memo_corners and the midpoints' in memo_mids, and in memo_corners'
// word 21 the surface clock (pc.memo_now) when the entry last wrote any of them. A point's memo
// holds while its entry's geometry has not changed (not DIRTY), it was kept at or after
// pc.memo_since, and nothing its walk reads has changed since: the slot record's memo_stamp
// (TileAtlas: the clock at which that slot, an ancestor of it, or its set of children last
// changed) is not newer than the entry's clock.
#define MEMO_WORDS 7u
#define MEMO_CLOCK_WORD 21u

uint memo_at(uint k, uint q, uint i) { return ((k % 3u) * MEMO_WORDS + q) * pc.capacity + i; }
uint memo_get(uint k, uint q, uint i) {
    uint at = memo_at(k, q, i);
    return k < 3u ? memo_corners.w[at] : memo_mids.w[at];
}
void memo_set(uint k, uint q, uint i, uint v) {
    uint at = memo_at(k, q, i);
    if (k < 3u) memo_corners.w[at] = v;
    else memo_mids.w[at] = v;
}
// fs fits 24 bits: a slot is an atlas page, and a device has at most maxImageArrayLayers of
// them (2,048 on the H200 and on lavapipe).
uint memo_head(SurfaceMemo m) {
    return m.fs == NO_SLOT ? 0xffffffffu : (m.fs & 0xffffffu) | (m.level << 24u) | (m.rest_read ? 1u << 31u : 0u);
}

SurfaceMemo memo_load(uint k, uint i, uint kept) {
    SurfaceMemo m = no_memo();
    uint head = memo_get(k, 0u, i);
    uint fs = head & 0xffffffu;
    if (fs >= uint(slots.s.length()) || slots.s[fs].memo_stamp > kept) return m;
    m.fs = fs;
    m.level = (head >> 24u) & 31u;
    m.rest_read = (head >> 31u) != 0u;
    m.ab = vec2(uintBitsToFloat(memo_get(k, 1u, i)), uintBitsToFloat(memo_get(k, 2u, i)));
    m.h0 = uintBitsToFloat(memo_get(k, 3u, i));
    m.first = uintBitsToFloat(memo_get(k, 4u, i));
    m.ws = uintBitsToFloat(memo_get(k, 5u, i));
    m.rest = uintBitsToFloat(memo_get(k, 6u, i));
    return m;
}

void memo_store(uint k, uint i, SurfaceMemo m) {
    memo_set(k, 0u, i, memo_head(m));
    memo_set(k, 1u, i, floatBitsToUint(m.ab.x));
    memo_set(k, 2u, i, floatBitsToUint(m.ab.y));
    memo_set(k, 3u, i, floatBitsToUint(m.h0));
    memo_set(k, 4u, i, floatBitsToUint(m.first));
    memo_set(k, 5u, i, floatBitsToUint(m.ws));
    memo_set(k, 6u, i, floatBitsToUint(m.rest));
}

void eval_entry(uint i) {
    uint face = leb_face(pool.b[i].path);
    uint c[6] = pool.b[i].corners;
    uvec2 v[3] = uvec2[3](corner(c, 0u), corner(c, 1u), corner(c, 2u));
    // Six surface evaluations: three corners (cube-edge corners are named on the lowest face
    // inside surface_at_fixed, so shared corners are bit-identical), then the hypotenuse and
    // the two leg midpoints; two more per morphing corner. One call site in a loop: the surface
    // code is instantiated once.
    // A corner still morphing also needs its birth edge's ends (at[6 + 2k], at[7 + 2k]).
    uint births = pool.b[i].births;
    float w[3];
    bool morph[3];
    uvec2 at[12];
    at[0] = v[0]; at[1] = v[1]; at[2] = v[2];
    at[3] = midpoint_floor(v[0], v[2]); at[4] = midpoint_floor(v[0], v[1]); at[5] = midpoint_floor(v[1], v[2]);
    for (uint k = 0u; k < 3u; ++k) {
        w[k] = cbt_morph_weight(cbt_birth_of(births, k), control.c.frame, pc.morph_updates);
        morph[k] = w[k] < 1.0 && birth_edge(v[k], at[6u + 2u * k], at[7u + 2u * k]);
        if (!morph[k]) births = cbt_with_birth(births, k, 0u);
    }
    vec3 q[12];
    uint slot[3];
    uint kept = memo_corners.w[MEMO_CLOCK_WORD * pc.capacity + i];
    bool memo_holds = (pool.b[i].flags & CBT_FLAG_DIRTY) == 0u && kept != 0u && kept >= pc.memo_since;
    bool wrote = false;
    // Each point's finest slot is searched from the last point's (`finest_slot_hinted`) where
    // its memo does not hold. The morph's birth-edge ends keep no memo.
    uint hint = NO_SLOT;
    for (uint k = 0u; k < 12u; ++k) {
        if (k >= 6u && !morph[(k - 6u) / 2u]) continue;
        SurfaceMemo m = k < 6u && memo_holds ? memo_load(k, i, kept) : no_memo();
        uint head = memo_head(m);
        SurfacePoint sp = surface_at_fixed_memo(face, at[k], hint, m);
        if (k < 6u && memo_head(m) != head) {
            memo_store(k, i, m);
            wrote = true;
        }
        hint = sp.slot;
        q[k] = sp.pos;
        if (k < 3u) slot[k] = sp.slot;
    }
    if (wrote) memo_corners.w[MEMO_CLOCK_WORD * pc.capacity + i] = pc.memo_now;
    vec3 p[3] = vec3[3](q[0], q[1], q[2]);
    float r_hyp = residual_px(q[3], p[0], p[2]);
    float r_leg0 = residual_px(q[4], p[0], p[1]);
    float r_leg1 = residual_px(q[5], p[1], p[2]);

    bool culled = pc.horizon_cull != 0u && horizon_culled(p);
    bool off = offscreen(p);
    // Depth cap: the children's legs (half this hypotenuse) stay >= a quarter of the
    // finest resident texel at the nearest corner (the first of equals, as the model's min_by),
    // or of a coarser level's when the fine-detail gain is below 1 (eval.rs DepthCap): level
    // L > F caps at texel(F)·2^(−g·(L − F)), and a leaf F's cap would stop is FINE.
    float len[3] = float[3](length(p[0]), length(p[1]), length(p[2]));
    uint near = 0u;
    if (len[1] < len[near]) near = 1u;
    if (len[2] < len[near]) near = 2u;
    float texel = slots.s[slot[near]].texel_m;
    uint level = slots.s[slot[near]].level;
    // Outlines keep the finest level's cap (CbtParams::silhouette_cos).
    bool fine_level = level > pc.fine_detail_level && !(incidence_cos(p) < pc.silhouette_cos);
    float fine_texel = texel;
    float cap_texel = texel;
    if (fine_level) {
        float k = float(level - pc.fine_detail_level);
        fine_texel = texel * exp2(k);
        cap_texel = fine_texel * exp2(-pc.fine_detail_gain * k);
    }
    float child_leg = 0.5 * length(p[2] - p[0]);
    bool capped = pool.b[i].depth >= CBT_MAX_DEPTH || !midpoint_exact(v[0], v[2]) || child_leg < pc.depth_cap_texel_fraction * cap_texel;
    bool fine = fine_level && child_leg < pc.depth_cap_texel_fraction * fine_texel;

    uint flags = 0u;
    if (culled) flags |= CBT_FLAG_CULLED;
    if (off) flags |= CBT_FLAG_OFFSCREEN;
    if (capped) flags |= CBT_FLAG_CAPPED;
    if (fine) flags |= CBT_FLAG_FINE;
    if (!culled && !off) flags |= CBT_FLAG_DRAW;
    // Stored (drawn) positions: a corner born less than pc.morph_updates updates ago lies
    // between its birth edge's chord midpoint and the surface (eval.rs `morphed`).
    for (uint k = 0u; k < 3u; ++k) {
        vec3 shown = p[k];
        if (morph[k]) {
            vec3 mid = (q[6u + 2u * k] + q[7u + 2u * k]) * 0.5;
            shown = mid + (p[k] - mid) * w[k];
        }
        pool.b[i].positions[3u * k] = shown.x;
        pool.b[i].positions[3u * k + 1u] = shown.y;
        pool.b[i].positions[3u * k + 2u] = shown.z;
    }
    pool.b[i].births = births;
    pool.b[i].r_hyp = r_hyp;
    pool.b[i].r_leg = max(r_leg0, r_leg1);
    pool.b[i].flags = flags;
}

#endif
