#version 460
// cbt.args (one thread, end of an iteration): the new high-water mark, whether another
// iteration runs, and its dispatch sizes — zero after an iteration that neither split nor
// merged, so the iterations recorded after it dispatch nothing and the frame's iteration count
// is decided on the GPU. Also the end-of-frame sweeps (FINISH, its reduction). Nothing when this
// iteration did not run. Model: update.rs run_topology's args step.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;

#define CBT_WRITES_CONTROL
#define CBT_WRITES_SWEEPS
#define CBT_READS_FREE_TREE
#include "common/cbt_buffers.glsl"
#include "common/cbt_args.glsl"

void main() {
    if (control.c.pending == 0u) return;
    uint hw = control.c.next_high_water;
    control.c.high_water = hw;
    control.c.next_high_water = 0u;
    control.c.alloc_high = 0u;
    control.c.free_count = free_tree.n[1];
    control.c.stats[stat_index(CBT_STAT_HIGH_WATER)] = hw;
    uint changed = control.c.stats[stat_index(CBT_STAT_SPLITS)] + control.c.stats[stat_index(CBT_STAT_MERGES)];
    uint pending = changed > 0u ? 1u : 0u;
    control.c.pending = pending;
    control.c.entry_sweep = sweep_over(hw * pending);
    if (pending == 0u) {
        control.c.commit_sweep = sweep_over(0u);
        control.c.word_sweep = sweep_over(0u);
    } else if (pc.iteration + 1u < pc.iterations) {
        control.c.iteration = pc.iteration + 1u;
    }
    sweeps.s.entry = control.c.entry_sweep;
    sweeps.s.commit = sweep_over(0u); // the next cbt.reserve.args sets it if that iteration runs
    CBT_WRITE_REDUCE_ARGS(request, bit_words(hw * pending))
    CBT_WRITE_REDUCE_ARGS(free, 0u)
    sweeps.s.finish = sweep_over(hw);
    CBT_WRITE_REDUCE_ARGS(draw, bit_words(hw))
}
