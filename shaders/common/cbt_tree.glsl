// Rank and select through a sum tree over a bit array (mirror of engine/src/cbt/sumtree.rs):
// node L + w = popcount(word w), node i = node 2i + node 2i+1, root at 1. A kernel instantiates
// the queries it needs for a given (bits, tree) pair of buffers:
//   CBT_DEFINE_PREFIX(request_prefix, request_bits, request_tree)
//   CBT_DEFINE_SELECT(free_select, free_bits, free_tree)
#ifndef CBT_TREE_GLSL
#define CBT_TREE_GLSL

#include "common/cbt_leb.glsl"

// Number of set bits below bit idx: one word popcount plus the left siblings up to the root.
#define CBT_DEFINE_PREFIX(FN, BITS, TREE)                                              \
    uint FN(uint idx) {                                                                \
        uint w = idx >> 6;                                                             \
        uint sum = popcount_below(BITS.w[2u * w], BITS.w[2u * w + 1u], idx & 63u);     \
        uint i = pc.tree_leaves + w;                                                   \
        while (i > 1u) {                                                               \
            if ((i & 1u) == 1u) sum += TREE.n[i - 1u];                                 \
            i >>= 1;                                                                   \
        }                                                                              \
        return sum;                                                                    \
    }

// Index of the rank-th set bit (ascending), or CBT_INVALID when rank >= the root's count.
#define CBT_DEFINE_SELECT(FN, BITS, TREE)                                              \
    uint FN(uint rank) {                                                               \
        if (rank >= TREE.n[1]) return CBT_INVALID;                                     \
        uint i = 1u;                                                                   \
        while (i < pc.tree_leaves) {                                                   \
            uint left = TREE.n[2u * i];                                                \
            if (rank < left) {                                                         \
                i = 2u * i;                                                            \
            } else {                                                                   \
                rank -= left;                                                          \
                i = 2u * i + 1u;                                                       \
            }                                                                          \
        }                                                                              \
        uint w = i - pc.tree_leaves;                                                   \
        return w * 64u + select_in_word(BITS.w[2u * w], BITS.w[2u * w + 1u], rank);   \
    }

#endif
