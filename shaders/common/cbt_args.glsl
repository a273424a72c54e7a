// Argument-writing helpers of the one-thread cbt.*args kernels: every sweep's dispatch size is
// derived on the GPU from the control block, so nothing is read back between iterations.
// The kernels stay separate rather than one kernel with a mode: each is a different step of
// the control block's state machine (frame start, after RESERVE, end of an iteration, end of
// the frame; each mirrors its own step of the model), binding different buffers. What they
// share is here.
#ifndef CBT_ARGS_GLSL
#define CBT_ARGS_GLSL

uint bit_words(uint n) { return (n + 63u) / 64u; }

// A sweep over n items: whole groups covering them (zero groups when n is 0).
uint[3] sweep_over(uint n) { return uint[3](groups_covering(n), 1u, 1u); }

// Passes of a sum-tree build: each 64-wide workgroup reduces CBT_REDUCE_SPAN levels in shared
// memory, pass 0 starting from the bit words (popcounts).
uint reduce_passes() { return max(1u, (pc.tree_levels + CBT_REDUCE_SPAN - 1u) / CBT_REDUCE_SPAN); }

// Workgroups of reduction pass p over the first `words` bit words: pass p starts from the
// ceil(words / 64^p) nodes of level 6p that cover them. Zero when there is nothing to do.
uint reduce_groups(uint words, uint p) {
    if (words == 0u || p >= reduce_passes()) return 0u;
    uint shift = CBT_REDUCE_SPAN * p;
    uint nodes = (words + (1u << shift) - 1u) >> shift;
    return (nodes + 63u) / 64u;
}

#define CBT_WRITE_REDUCE_ARGS(ARR, WORDS)                            \
    for (uint p_ = 0u; p_ < CBT_REDUCE_PASSES; ++p_) {               \
        sweeps.s.ARR[3u * p_] = reduce_groups(WORDS, p_);            \
        sweeps.s.ARR[3u * p_ + 1u] = 1u;                             \
        sweeps.s.ARR[3u * p_ + 2u] = 1u;                             \
    }

#endif
