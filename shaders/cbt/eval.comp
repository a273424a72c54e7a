#version 460
// cbt.eval: corner positions, midpoint residuals, screen measure and flags of every live entry
// at iteration 0, of entries whose geometry changed (FLAG_DIRTY) after. Indirect over
// sweeps.entry (whole groups over [0, high_water)). Kernel: engine/src/cbt/stages/eval.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_WRITES_MEMO
#include "common/cbt_buffers.glsl"
#include "common/cbt_eval.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].path == 0ul) return;
    if (pc.iteration > 0u && (pool.b[i].flags & CBT_FLAG_DIRTY) == 0u) return;
    eval_entry(i);
    // One atomic per subgroup of evaluated entries, not one per entry on the same counter.
    uint n = subgroupAdd(1u);
    if (subgroupElect()) atomicAdd(control.c.stats[stat_index(CBT_STAT_EVALUATED)], n);
}
