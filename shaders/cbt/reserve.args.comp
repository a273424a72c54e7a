#version 460
// cbt.reserve.args (one thread): COMMIT and the free tree's REDUCE must also cover the children
// RESERVE just allocated: [0, max(high_water, alloc_high)). When the iteration does not run,
// both dispatch nothing (they read these arguments, so cbt.reduce cannot reset them itself).
// NEIGHBOURS sweeps the entries only where the iteration splits or merges (RESOLVE has counted
// the merges, RESERVE the splits): in a quiet iteration every next state is the current one.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;

#define CBT_WRITES_CONTROL
#define CBT_WRITES_COMMIT_SWEEPS
#include "common/cbt_buffers.glsl"
#include "common/cbt_args.glsl"

void main() {
    if (control.c.pending == 0u) {
        commit_sweeps.s.commit = sweep_over(0u);
        commit_sweeps.s.free = sweep_over(0u);
        commit_sweeps.s.neighbours = sweep_over(0u);
        return;
    }
    uint range = max(control.c.high_water, control.c.alloc_high);
    control.c.commit_sweep = sweep_over(range);
    control.c.word_sweep = sweep_over(bit_words(range));
    commit_sweeps.s.commit = control.c.commit_sweep;
    commit_sweeps.s.free = sweep_over(bit_words(range));
    // (An if, not a select: glslang's select of two arrays stores the wrong array type.)
    if (iteration_changes() > 0u) {
        commit_sweeps.s.neighbours = control.c.entry_sweep;
    } else {
        commit_sweeps.s.neighbours = sweep_over(0u);
    }
}
