// A sum-tree build over a prefix of a bit array (REDUCE; mirror of sumtree.rs SumTree::build):
// pass 0 popcounts the words below the bound into the leaves, and every pass reduces up to
// CBT_REDUCE_SPAN levels in shared memory (64 nodes → 1 per workgroup), so a 2²²-entry pool
// (2¹⁶ words, 16 levels) takes 3 dispatches. As in the model, only the nodes covering the bound
// are rewritten: a node outside it keeps its stored value (nothing below it changed since it
// was last built), and an in-range parent reads it from there.
//
// The including kernel defines REDUCE_BOUND_ENTRIES (entries whose words are rebuilt, from the
// control block) and binds `bits` (readonly) and `tree`.
#ifndef CBT_REDUCE_GLSL
#define CBT_REDUCE_GLSL

layout(std430, set = 0, binding = 10) readonly buffer ReduceBits { uint w[]; } bits;
layout(std430, set = 0, binding = 11) buffer ReduceTree { uint n[]; } tree;

shared uint s_val[64];

void reduce_pass() {
    uint bound = (REDUCE_BOUND_ENTRIES + 63u) / 64u; // words
    uint bl = max(bound, 1u);                        // level ranges cover word 0 at least
    uint L = pc.tree_leaves;
    uint j0 = pc.pass * CBT_REDUCE_SPAN;
    uint t = gl_LocalInvocationID.x, g = gl_WorkGroupID.x;
    uint k = g * 64u + t; // node index within level j0
    uint v = 0u;
    if (pc.pass == 0u) {
        if (k < bound) {
            v = uint(bitCount(bits.w[2u * k]) + bitCount(bits.w[2u * k + 1u]));
            tree.n[L + k] = v;
        } else if (k < L) {
            v = tree.n[L + k];
        }
    } else if (k < (L >> j0)) {
        v = tree.n[(L >> j0) + k];
    }
    s_val[t] = v;
    barrier();
    uint levels = min(CBT_REDUCE_SPAN, pc.tree_levels - j0);
    for (uint l = 1u; l <= levels; ++l) {
        uint j = j0 + l;
        uint width = 64u >> l;
        uint val = 0u;
        if (t < width) {
            uint kk = (g << (CBT_REDUCE_SPAN - l)) + t;
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
}

#endif
