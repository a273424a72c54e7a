#version 460
// cbt.resolve: which wishes execute this iteration — split candidates (twin at the same depth
// and splitting too) get a request bit; four-leaf merges get MERGE_KEEP / MERGE_FREE. Indirect
// over sweeps.entry. Kernel: engine/src/cbt/stages/resolve.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_WRITES_REQUEST_BITS
#include "common/cbt_buffers.glsl"
#include "common/cbt_pool.glsl"

// The four-leaf rule, evaluated identically from each of the four (resolve.rs merge_ok). The
// entry's own wish first: most entries wish no merge, and then the sibling (a load at another
// entry, after the load of the link to it) is not read.
bool merge_ok(uint i) {
    if (!wants_merge_resolved(i)) return false;
    uint s = leaf_sibling(i);
    if (s == CBT_INVALID) return false;
    if (!wants_merge_resolved(s)) return false;
    bool e = leb_is_even(pool.b[i].path);
    uint even = e ? i : s, odd = e ? s : i;
    // The facing pair: across the even child's edge m→v0 the other parent's odd child, across
    // the odd child's edge v2→m its even child.
    uint a = pool.b[even].neighbours[1], c = pool.b[odd].neighbours[0];
    if (a == CBT_INVALID && c == CBT_INVALID) return true;
    if (a == CBT_INVALID || c == CBT_INVALID) return false;
    return pool.b[a].path == (pool.b[c].path ^ 1ul) && leb_is_even(pool.b[c].path) &&
           pool.b[a].depth == pool.b[i].depth && wants_merge_resolved(a) && wants_merge_resolved(c);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].path == 0ul) return;
    if (wants_split_resolved(i)) {
        uint t = pool.b[i].neighbours[2];
        uint d = pool.b[i].depth;
        bool twin_agrees = t == CBT_INVALID || (pool.b[t].depth == d && wants_split_resolved(t));
        // Same depth on both sides, so the depth limit is symmetric too.
        if (twin_agrees && d < CBT_MAX_DEPTH) {
            pool.b[i].fate = CBT_FATE_CANDIDATE;
            atomicOr(request_bits.w[i >> 5], 1u << (i & 31u));
            atomicAdd(control.c.stats[stat_index(CBT_STAT_CANDIDATES)], 1u);
        } else {
            pool.b[i].fate = CBT_FATE_KEEP;
        }
        return;
    }
    uint fate = CBT_FATE_KEEP;
    if (merge_ok(i)) fate = leb_is_even(pool.b[i].path) ? CBT_FATE_MERGE_KEEP : CBT_FATE_MERGE_FREE;
    // Most entries keep, and the last commit left their fate KEEP (0): no store then.
    if (fate != CBT_FATE_KEEP || pool.b[i].fate != CBT_FATE_KEEP) pool.b[i].fate = fate;
    if (fate == CBT_FATE_MERGE_KEEP) atomicAdd(control.c.stats[stat_index(CBT_STAT_MERGES)], 1u);
}
