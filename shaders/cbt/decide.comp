#version 460
// cbt.decide: each leaf's wish; a split wish marks the twin chain (`pushed`). Indirect over
// sweeps.entry. Kernel: engine/src/cbt/stages/decide.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_READS_SEEN
#include "common/cbt_buffers.glsl"
#include "common/cbt_criterion.glsl"
#include "common/cbt_pool.glsl"

// Whether the parent of the pair (even, odd) should exist instead of them, from the children's
// stored values exactly as the parent would compute it (decide.rs parent_wants_merge).
bool parent_wants_merge(uint even, uint odd) {
    vec3 pe[3], po[3];
    load_positions(even, pe);
    load_positions(odd, po);
    // Parent [v0, v1, v2] = [even.v2, even.v0, odd.v0]; its hypotenuse midpoint is the apex.
    vec3 p[3] = vec3[3](pe[2], pe[0], po[0]);
    float r_hyp = residual_px(pe[1], p[0], p[2]);
    float r_leg = max(pool.b[even].r_hyp, pool.b[odd].r_hyp);
    bool hidden = (pc.horizon_cull != 0u && horizon_culled(p)) || offscreen(p);
    return hidden || under_merge_targets(p, r_hyp, r_leg);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].path == 0ul) return;
    vec3 p[3];
    load_positions(i, p);
    bool can_split = (pool.b[i].flags & (CBT_FLAG_CULLED | CBT_FLAG_OFFSCREEN | CBT_FLAG_CAPPED)) == 0u;
    if (can_split && wants_split(p, pool.b[i].r_hyp, pool.b[i].r_leg)) {
        // A leaf the occlusion cull found hidden behind drawn terrain in the last frame (or,
        // as asked, a leaf drawn there that won no pixel) keeps its level: its pixels all went
        // to nearer leaves, so finer chords there would not show. But an unseen leaf the view
        // grazes (an outline's, CbtParams::silhouette_cos) still splits: its crest, which finer
        // chords follow, may rise above what hid its chord. A split's new child carries its
        // parent's stamp (cbt.commit).
        uint stamp = pc.hidden_stamp != 0u ? seen.frame[i] : 0u;
        uint kinds = ((stamp ^ pc.hidden_stamp) & CBT_STAMP_FRAME) == 0u ? stamp & pc.hidden_stamp : 0u;
        if ((kinds & CBT_HIDDEN_STAMP) != 0u || ((kinds & CBT_UNSEEN_STAMP) != 0u && !(incidence_cos(p) < pc.silhouette_cos))) {
            atomicAdd(control.c.hidden_kept, 1u);
        } else {
            push_twin_chain(i);
            pool.b[i].wish = CBT_WISH_SPLIT;
            atomicAdd(control.c.stats[stat_index(CBT_STAT_SPLIT_WISHES)], 1u);
            if ((pool.b[i].flags & CBT_FLAG_FINE) != 0u) atomicAdd(control.c.fine_split_wishes, 1u);
            return;
        }
    }
    uint s = leaf_sibling(i);
    if (s != CBT_INVALID) {
        bool even = leb_is_even(pool.b[i].path);
        // A leaf with a corner still morphing does not merge (decide.rs).
        if (pool.b[i].births == 0u && parent_wants_merge(even ? i : s, even ? s : i)) {
            pool.b[i].wish = CBT_WISH_MERGE;
            atomicAdd(control.c.stats[stat_index(CBT_STAT_MERGE_WISHES)], 1u);
            return;
        }
    }
    // Most leaves keep, and the last commit left their wish KEEP (0): no store then.
    if (pool.b[i].wish != CBT_WISH_KEEP) pool.b[i].wish = CBT_WISH_KEEP;
}
