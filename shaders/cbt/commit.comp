#version 460
// cbt.commit: next becomes current; free, request and draw bits; the next high-water mark.
// Indirect over sweeps.commit ([0, max(high_water, alloc_high)): new children included).
// Kernel: engine/src/cbt/stages/commit.rs. In an iteration that neither splits nor merges
// (quiet) cbt.neighbours did not run: every next state would be the current one, so only the
// iteration's scratch is cleared, to the same bits the whole commit leaves.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_WRITES_FREE_BITS
#define CBT_WRITES_REQUEST_BITS
#define CBT_WRITES_DRAW_BITS
#define CBT_WRITES_SEEN
#include "common/cbt_buffers.glsl"
#include "common/cbt_leb.glsl"

// The next high-water mark: one atomic per subgroup of live entries (the same maximum).
void count_high_water(uint i) {
    uint m = subgroupMax(i + 1u);
    if (subgroupElect()) atomicMax(control.c.next_high_water, m);
}

// A quiet iteration's commit of entry i. The whole commit would write the state neighbours
// copied (the current one), zero next_* (zero already: the last commit left them so and
// nothing has written them since), clear the entry's request bit (only candidates have one,
// and none was granted), and clear wish, pushed, fate and child.
void commit_quiet(uint i) {
    // One lane per 32 entries clears their request word: the bits of entries past the range
    // are zero (no live entry lies there).
    if ((i & 31u) == 0u) request_bits.w[i >> 5] = 0u;
    if (pool.b[i].path == 0ul) return;
    // Written only where not zero already: in a quiet iteration most entries wished nothing and
    // were given nothing, and a store to a few bytes of an entry costs more than their load.
    if (pool.b[i].wish != 0u) pool.b[i].wish = 0u;
    if (pool.b[i].pushed != 0u) pool.b[i].pushed = 0u;
    if (pool.b[i].fate != 0u) pool.b[i].fate = 0u;
    if (pool.b[i].child != 0u) pool.b[i].child = 0u;
    count_high_water(i);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity) return;
    if (iteration_changes() == 0u) {
        commit_quiet(i);
        return;
    }
    uint64_t next = pool.b[i].next_path;
    uint word = i >> 5, bit = 1u << (i & 31u);
    uint zc[6] = uint[6](0u, 0u, 0u, 0u, 0u, 0u);
    uint zn[3] = uint[3](0u, 0u, 0u);
    if (next == 0ul) {
        if (pool.b[i].path == 0ul) return; // free and nobody allocated it: nothing to write
        // Freed (odd child of a merge): all-zero, so a later allocation starts clean.
        pool.b[i].path = 0ul;
        pool.b[i].corners = zc;
        pool.b[i].neighbours = zn;
        pool.b[i].next_corners = zc;
        pool.b[i].next_neighbours = zn;
        for (uint k = 0u; k < 9u; ++k) pool.b[i].positions[k] = 0.0;
        pool.b[i].depth = 0u;
        pool.b[i].flags = 0u;
        pool.b[i].r_hyp = 0.0;
        pool.b[i].r_leg = 0.0;
        pool.b[i].wish = 0u;
        pool.b[i].pushed = 0u;
        pool.b[i].fate = 0u;
        pool.b[i].child = 0u;
        pool.b[i].births = 0u;
        atomicOr(free_bits.w[word], bit);
        atomicAnd(request_bits.w[word], ~bit);
        atomicAnd(draw_bits.w[word], ~bit);
        return;
    }
    // The odd child of a split takes its parent's occlusion stamp (the even child keeps the
    // parent's entry, and so its stamp): a child of a leaf that won a pixel in the last frame
    // is drawn in the next frame's early phase, so the depth that phase leaves covers what the
    // refining mesh shows, and a child of a hidden leaf is hidden too. Without it a new leaf
    // would carry its entry's last occupant's stamp. A merge's parent keeps its even child's.
    if (pool.b[i].fate == CBT_FATE_SPLIT) seen.frame[pool.b[i].child] = seen.frame[i];
    bool changed = pool.b[i].path != next;
    pool.b[i].path = next;
    pool.b[i].corners = pool.b[i].next_corners;
    pool.b[i].neighbours = pool.b[i].next_neighbours;
    pool.b[i].depth = leb_depth(next);
    if (changed) pool.b[i].flags = CBT_FLAG_DIRTY;
    pool.b[i].next_path = 0ul;
    pool.b[i].next_corners = zc;
    pool.b[i].next_neighbours = zn;
    pool.b[i].wish = 0u;
    pool.b[i].pushed = 0u;
    pool.b[i].fate = 0u;
    pool.b[i].child = 0u;
    atomicAnd(free_bits.w[word], ~bit);
    atomicAnd(request_bits.w[word], ~bit);
    count_high_water(i);
}
