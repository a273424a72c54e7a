#version 460
// cbt.frame.args (one thread): iteration 0 always runs, over the whole allocated prefix; the
// frame's counters start from zero. Model: update.rs frame_args.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;

#define CBT_WRITES_CONTROL
#define CBT_WRITES_SWEEPS
#include "common/cbt_buffers.glsl"
#include "common/cbt_args.glsl"

void main() {
    for (uint k = 0u; k < 8u * CBT_MAX_ITERATIONS; ++k) control.c.stats[k] = 0u;
    control.c.fine_split_wishes = 0u;
    control.c.morphing = 0u;
    control.c.hidden_kept = 0u;
    uint hw = control.c.high_water;
    control.c.entry_sweep = sweep_over(hw);
    sweeps.s.entry = control.c.entry_sweep;
    control.c.pending = 1u;
    control.c.iteration = 0u;
    control.c.leaves = 0u;
    control.c.culled = 0u;
    control.c.offscreen = 0u;
    control.c.draw_args[0] = 0u;
    sweeps.s.request = sweep_over(bit_words(hw));
}
