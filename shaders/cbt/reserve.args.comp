#version 460
// cbt.reserve.args (one thread): COMMIT and the free tree's REDUCE must also cover the children
// RESERVE just allocated: [0, max(high_water, alloc_high)). Nothing after a quiet iteration.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;

#define CBT_WRITES_CONTROL
#define CBT_WRITES_SWEEPS
#include "common/cbt_buffers.glsl"
#include "common/cbt_args.glsl"

void main() {
    if (control.c.pending == 0u) return;
    uint range = max(control.c.high_water, control.c.alloc_high);
    control.c.commit_sweep = sweep_over(range);
    sweeps.s.commit = control.c.commit_sweep;
    control.c.word_sweep = sweep_over(bit_words(range));
    CBT_WRITE_REDUCE_ARGS(free, bit_words(range))
}
