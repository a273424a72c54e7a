// A sum-tree build over a prefix of a bit array in one dispatch (REDUCE; mirror of sumtree.rs
// SumTree::build). Each 64-wide workgroup popcounts 64 bit words below the bound into the
// leaves and reduces them CBT_REDUCE_SPAN levels in shared memory, to one node of level 6. The
// workgroup that arrives last (an atomic counter) builds the levels above from those nodes in
// memory, as FidelityFX SPD's last workgroup does the last mips: one dispatch instead of one
// per 6 levels (3 at 2²² entries), each of which cost a node boundary. The dispatch has one
// group per 64 words of the bound (from the high-water mark, not the capacity), and the last
// workgroup rewrites only the in-range nodes above, ≈ one per group.
//
// As in the model, only the nodes covering the bound are rewritten: a node outside it keeps its
// stored value (nothing below it changed since it was last built), and an in-range parent reads
// it from there.
//
// Visibility: `tree` is coherent; each invocation's node writes are followed by
// memoryBarrierBuffer() before the workgroup's arrival (atomicAdd), and the last workgroup
// issues memoryBarrierBuffer() after it before reading the others' level-6 nodes.
// The arrival counter is tree node 0, which the heap layout leaves unused (root at 1): the last
// workgroup puts it back to zero, so between dispatches the tree equals the model's.
//
// The including kernel defines REDUCE_BOUND_ENTRIES (entries whose words are rebuilt, from the
// control block) and binds `bits` (readonly) and `tree`. reduce_tree() returns true in the one
// workgroup that completed the tree (uniformly across it); that workgroup may then write what
// the next nodes need from the root.
#ifndef CBT_REDUCE_GLSL
#define CBT_REDUCE_GLSL

layout(std430, set = 0, binding = 13) readonly buffer ReduceBits { uint w[]; } bits;
layout(std430, set = 0, binding = 14) coherent buffer ReduceTree { uint n[]; } tree;

shared uint s_val[64];
shared bool s_last;

bool reduce_tree() {
    uint bound = (REDUCE_BOUND_ENTRIES + 63u) / 64u; // words
    uint bl = max(bound, 1u);                        // level ranges cover word 0 at least
    uint L = pc.tree_leaves;
    uint t = gl_LocalInvocationID.x, g = gl_WorkGroupID.x;
    uint k = g * 64u + t; // leaf (word) index
    uint v = 0u;
    if (k < bound) {
        v = uint(bitCount(bits.w[2u * k]) + bitCount(bits.w[2u * k + 1u]));
        tree.n[L + k] = v;
    } else if (k < L) {
        v = tree.n[L + k];
    }
    s_val[t] = v;
    barrier();
    uint span = min(CBT_REDUCE_SPAN, pc.tree_levels);
    for (uint j = 1u; j <= span; ++j) {
        uint width = 64u >> j;
        uint val = 0u;
        if (t < width) {
            uint kk = (g << (CBT_REDUCE_SPAN - j)) + t;
            uint nodes = L >> j;
            uint in_range = (bl + (1u << j) - 1u) >> j;
            if (kk < in_range) {
                val = s_val[2u * t] + s_val[2u * t + 1u];
                tree.n[nodes + kk] = val;
            } else if (kk < nodes) {
                val = tree.n[nodes + kk];
            }
        }
        barrier();
        if (t < width) s_val[t] = val;
        barrier();
    }
    // A tree of ≤ 2⁶ leaves is one workgroup's: the root is written.
    if (pc.tree_levels <= CBT_REDUCE_SPAN) return true;

    memoryBarrierBuffer();
    barrier();
    if (t == 0u) s_last = atomicAdd(tree.n[0], 1u) == gl_NumWorkGroups.x - 1u;
    barrier();
    if (!s_last) return false;
    memoryBarrierBuffer();
    for (uint j = CBT_REDUCE_SPAN + 1u; j <= pc.tree_levels; ++j) {
        uint nodes = L >> j;
        uint in_range = (bl + (1u << j) - 1u) >> j;
        for (uint kk = t; kk < in_range; kk += 64u) {
            uint i = nodes + kk;
            tree.n[i] = tree.n[2u * i] + tree.n[2u * i + 1u];
        }
        memoryBarrierBuffer();
        barrier();
    }
    if (t == 0u) tree.n[0] = 0u;
    return true;
}

#endif
