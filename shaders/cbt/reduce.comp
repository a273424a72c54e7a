#version 460
// cbt.reduce: the free tree over the words of [0, max(high_water, alloc_high)) after COMMIT; its
// root is RESERVE's budget. One dispatch (common/cbt_reduce.glsl), indirect over
// commit_sweeps.free; the workgroup that completes the tree ends the iteration (the model's
// args step: high-water mark, whether another iteration runs, its sweeps), which would
// otherwise take a one-thread node of its own.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_CONTROL
#define CBT_WRITES_SWEEPS
#include "common/cbt_buffers.glsl"
#include "common/cbt_args.glsl"
#define REDUCE_BOUND_ENTRIES (max(control.c.high_water, control.c.alloc_high))
#include "common/cbt_reduce.glsl"

void main() {
    if (reduce_tree() && gl_LocalInvocationID.x == 0u) end_iteration(tree.n[1]);
}
