// The CBT pool's buffers as every `cbt.*` kernel binds them, and the push constants they share.
// Mirror of engine/src/cbt/gpu/layout.rs. A kernel names the buffers it uses before including:
//   #define CBT_WRITES_<X> for those it writes, CBT_READS_<X> for those it only reads (readonly),
//   X in POOL, CONTROL, SWEEPS, COMMIT_SWEEPS, FREE_BITS, FREE_TREE, REQUEST_BITS, REQUEST_TREE, DRAW_BITS,
//   DRAW_TREE, DRAW_LIST; CBT_WRITES_MEMO declares both memo buffers, CBT_READS_SEEN / CBT_WRITES_SEEN the stamps.
// Only those are declared: glslc -O0 lists every declared global in the entry point's
// interface, and the frame graph binds by instance name, requiring each declared binding to be
// bound, `readonly` ones with `.read` and writable ones with `.write`. CBT_NO_PUSH leaves out the
// push constants (raster stages with their own).
//
// Bit arrays are the model's u64 words stored as uint pairs, little-endian: bit i of the array
// is bit (i & 31) of uint (i >> 5), and u64 word w is uint 2w (low) and 2w + 1 (high).
#ifndef CBT_BUFFERS_GLSL
#define CBT_BUFFERS_GLSL

#include "common/bisector.glsl"

// The dispatch arguments of every indirect sweep (VkDispatchIndirectCommand each), in two
// buffers so that a reduction's last workgroup can write the next sweeps' arguments while its
// own dispatch reads the other buffer (a dispatch must not read its arguments from a buffer it
// writes). `CbtSweeps` is written by cbt.frame.args and at the end of cbt.reduce; `entry`
// repeats the model's control.entry_sweep (the per-entry kernels update control's counters, so
// they cannot dispatch from it). `CbtCommitSweeps` is written by cbt.reserve.args (commit
// repeats control.commit_sweep while the iteration runs; both are zero otherwise). A reduction
// is one dispatch of 64-wide groups, one per 64 bit words below its bound.
// Mirror of `gpu::layout::{Sweeps, CommitSweeps}`.
#define CBT_REDUCE_SPAN 6u   // tree levels one 64-wide workgroup reduces in shared memory
struct CbtSweeps {
    uint entry[3];      // offset 0  per-entry sweeps: [0, high_water); zero after a quiet iteration
    uint request[3];    // offset 12 cbt.reserve.reduce: words of [0, high_water)
    uint finish[3];     // offset 24 cbt.finish, cbt.finish.compact: [0, high_water)
    uint draw[3];       // offset 36 cbt.finish.reduce: words of [0, high_water)
};                      // 48 bytes
struct CbtCommitSweeps {
    uint commit[3];     // offset 0  cbt.commit: [0, max(high_water, alloc_high))
    uint free[3];       // offset 12 cbt.reduce: words of [0, max(high_water, alloc_high))
    uint neighbours[3]; // offset 24 cbt.neighbours: the entry sweep; zero in a quiet iteration
};                      // 36 bytes

#if defined(CBT_WRITES_POOL)
layout(std430, set = 0, binding = 0) buffer PoolBlock { Bisector b[]; } pool;
#elif defined(CBT_READS_POOL)
layout(std430, set = 0, binding = 0) readonly buffer PoolBlock { Bisector b[]; } pool;
#endif
#if defined(CBT_WRITES_CONTROL)
layout(std430, set = 0, binding = 1) buffer ControlBlock { CbtControl c; } control;
#elif defined(CBT_READS_CONTROL)
layout(std430, set = 0, binding = 1) readonly buffer ControlBlock { CbtControl c; } control;
#endif
#if defined(CBT_WRITES_SWEEPS)
layout(std430, set = 0, binding = 2) buffer SweepsBlock { CbtSweeps s; } sweeps;
#elif defined(CBT_READS_SWEEPS)
layout(std430, set = 0, binding = 2) readonly buffer SweepsBlock { CbtSweeps s; } sweeps;
#endif
#if defined(CBT_WRITES_COMMIT_SWEEPS)
layout(std430, set = 0, binding = 3) buffer CommitSweepsBlock { CbtCommitSweeps s; } commit_sweeps;
#elif defined(CBT_READS_COMMIT_SWEEPS)
layout(std430, set = 0, binding = 3) readonly buffer CommitSweepsBlock { CbtCommitSweeps s; } commit_sweeps;
#endif
#if defined(CBT_WRITES_FREE_BITS)
layout(std430, set = 0, binding = 4) buffer FreeBits { uint w[]; } free_bits;
#elif defined(CBT_READS_FREE_BITS)
layout(std430, set = 0, binding = 4) readonly buffer FreeBits { uint w[]; } free_bits;
#endif
#if defined(CBT_WRITES_FREE_TREE)
layout(std430, set = 0, binding = 5) buffer FreeTree { uint n[]; } free_tree;
#elif defined(CBT_READS_FREE_TREE)
layout(std430, set = 0, binding = 5) readonly buffer FreeTree { uint n[]; } free_tree;
#endif
#if defined(CBT_WRITES_REQUEST_BITS)
layout(std430, set = 0, binding = 6) buffer RequestBits { uint w[]; } request_bits;
#elif defined(CBT_READS_REQUEST_BITS)
layout(std430, set = 0, binding = 6) readonly buffer RequestBits { uint w[]; } request_bits;
#endif
#if defined(CBT_WRITES_REQUEST_TREE)
layout(std430, set = 0, binding = 7) buffer RequestTree { uint n[]; } request_tree;
#elif defined(CBT_READS_REQUEST_TREE)
layout(std430, set = 0, binding = 7) readonly buffer RequestTree { uint n[]; } request_tree;
#endif
#if defined(CBT_WRITES_DRAW_BITS)
layout(std430, set = 0, binding = 8) buffer DrawBits { uint w[]; } draw_bits;
#elif defined(CBT_READS_DRAW_BITS)
layout(std430, set = 0, binding = 8) readonly buffer DrawBits { uint w[]; } draw_bits;
#endif
#if defined(CBT_WRITES_DRAW_TREE)
layout(std430, set = 0, binding = 9) buffer DrawTree { uint n[]; } draw_tree;
#elif defined(CBT_READS_DRAW_TREE)
layout(std430, set = 0, binding = 9) readonly buffer DrawTree { uint n[]; } draw_tree;
#endif
#if defined(CBT_WRITES_DRAW_LIST)
layout(std430, set = 0, binding = 10) buffer DrawList { uint i[]; } draw_list;
#elif defined(CBT_READS_DRAW_LIST)
layout(std430, set = 0, binding = 10) readonly buffer DrawList { uint i[]; } draw_list;
#endif
// The surface memo of every entry's six points (`common/cbt_eval.glsl`), word-major (word k
// of entry i at k·capacity + i, so a warp's loads are contiguous): the corners' three points
// and the time they were kept, and the midpoints' three.
#if defined(CBT_WRITES_MEMO)
layout(std430, set = 0, binding = 11) buffer MemoCorners { uint w[]; } memo_corners;
layout(std430, set = 0, binding = 12) buffer MemoMids { uint w[]; } memo_mids;
#endif
// Occlusion culling's stamps (CBT_HIDDEN_STAMP in common/bisector.glsl).
#if defined(CBT_WRITES_SEEN)
layout(std430, set = 0, binding = 13) buffer Seen { uint frame[]; } seen;
#elif defined(CBT_READS_SEEN)
layout(std430, set = 0, binding = 13) readonly buffer Seen { uint frame[]; } seen;
#endif

// Push constants of every cbt.* node (116 bytes): the criterion parameters (engine
// `CbtParams`, as f32) and where in the frame the node runs. Mirror of `gpu::layout::CbtPush`.
#ifndef CBT_NO_PUSH
layout(push_constant) uniform CbtPush {
    float residual_px;
    float edge_px_near;
    float edge_px_far;
    float edge_grow_start_m;
    float edge_grow_end_m;
    float merge_hysteresis;
    float grazing_tighten;
    float grazing_blend_start_m;
    float grazing_blend_end_m;
    float grazing_cos_start;
    float grazing_cos_full;
    float depth_cap_texel_fraction;
    float frustum_inflate;
    uint horizon_cull;      // 0 or 1
    uint fine_detail_level; // levels finer than this are fine detail (CbtParams)
    float fine_detail_gain; // g: their depth cap is that of level F + g·(L − F)
    uint iteration;         // 0..iterations-1 (indexes control.stats)
    uint iterations;        // iterations recorded this frame (1..4)
    uint tree_leaves;       // L: leaves of every sum tree (power of two >= capacity / 64)
    uint tree_levels;       // log2(L)
    uint capacity;          // pool entries (multiple of 64)
    uint morph_updates;     // updates a new vertex takes onto the surface (0: at once)
    float split_min_px;     // the residual splits only leaves whose longest edge is over this
    float silhouette_cos;   // a leaf this near grazing keeps its level's own depth cap, never fine
    float outline_tighten;  // the residual target's further tightening at far outlines …
    float outline_cos_full; // … full at this |cos| of incidence (from grazing_cos_full)
    uint memo_now;          // the surface clock of this frame's slot records (TileAtlas)
    uint memo_since;        // memos kept before this clock are stale (level cap changed, memo off)
    uint hidden_stamp;      // the last frame's stamp and the kinds that keep a leaf from splitting (0: off)
} pc;

uint stat_index(uint k) { return pc.iteration * 8u + k; }

#if defined(CBT_WRITES_CONTROL) || defined(CBT_READS_CONTROL)
// Splits and merges of this iteration, once RESERVE has run (RESOLVE counts the merges, RESERVE
// the splits): where none, every next state is the current one (a quiet iteration).
uint iteration_changes() {
    return control.c.stats[stat_index(CBT_STAT_SPLITS)] + control.c.stats[stat_index(CBT_STAT_MERGES)];
}
#endif
#endif

// Whole groups of 64 covering n items (the model's DispatchArgs::covering).
uint groups_covering(uint n) { return (n + CBT_WORKGROUP_SIZE - 1u) / CBT_WORKGROUP_SIZE; }

#endif
