// Argument-writing steps of the control block's state machine: every sweep's dispatch size is
// derived on the GPU from the control block, so nothing is read back between iterations. Each
// step mirrors its own step of the model (update.rs): frame start (cbt.frame.args), after
// RESERVE (cbt.reserve.args), end of an iteration (the last workgroup of cbt.reduce), end of
// the frame (the last workgroup of cbt.finish.reduce).
#ifndef CBT_ARGS_GLSL
#define CBT_ARGS_GLSL

uint bit_words(uint n) { return (n + 63u) / 64u; }

// A sweep over n items: whole groups covering them (zero groups when n is 0). A reduction over
// `words` bit words is sweep_over(words): one group per 64 words.
uint[3] sweep_over(uint n) { return uint[3](groups_covering(n), 1u, 1u); }

#ifdef CBT_WRITES_SWEEPS
// End of an iteration (the model's `cbt.args` step; `free_count` is the free tree's root just
// built): the new high-water mark, whether another iteration runs, and its dispatch sizes —
// zero after an iteration that neither split nor merged, so the iterations recorded after it
// dispatch nothing. Also the end-of-frame sweeps (FINISH, its reduction). The commit range's
// arguments are cbt.reserve.args's.
void end_iteration(uint free_count) {
    if (control.c.pending == 0u) return;
    uint hw = control.c.next_high_water;
    control.c.high_water = hw;
    control.c.next_high_water = 0u;
    control.c.alloc_high = 0u;
    control.c.free_count = free_count;
    control.c.stats[stat_index(CBT_STAT_HIGH_WATER)] = hw;
    uint pending = iteration_changes() > 0u ? 1u : 0u;
    control.c.pending = pending;
    control.c.entry_sweep = sweep_over(hw * pending);
    if (pending == 0u) {
        control.c.commit_sweep = sweep_over(0u);
        control.c.word_sweep = sweep_over(0u);
    } else if (pc.iteration + 1u < pc.iterations) {
        control.c.iteration = pc.iteration + 1u;
    }
    sweeps.s.entry = control.c.entry_sweep;
    sweeps.s.request = sweep_over(bit_words(hw * pending));
    sweeps.s.finish = sweep_over(hw);
    sweeps.s.draw = sweep_over(bit_words(hw));
}
#endif

#endif
