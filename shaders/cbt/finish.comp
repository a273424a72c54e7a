#version 460
// cbt.finish: evaluate entries created or changed by the last iteration (FLAG_DIRTY), mark drawn
// leaves in the draw bits, count leaves, culled, offscreen and the draw's vertices. Indirect
// over sweeps.finish ([0, high_water)). Kernel: engine/src/cbt/stages/finish.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_WRITES_MEMO
#define CBT_WRITES_DRAW_BITS
#include "common/cbt_buffers.glsl"
#include "common/cbt_eval.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.capacity || pool.b[i].path == 0ul) return;
    if ((pool.b[i].flags & CBT_FLAG_DIRTY) != 0u) eval_entry(i);
    uint flags = pool.b[i].flags;
    uint bit = 1u << (i & 31u);
    bool draw = (flags & CBT_FLAG_DRAW) != 0u;
    if (draw) {
        atomicOr(draw_bits.w[i >> 5], bit);
        atomicAdd(control.c.draw_args[0], 3u);
    } else {
        atomicAnd(draw_bits.w[i >> 5], ~bit);
    }
    atomicAdd(control.c.leaves, 1u);
    if ((flags & CBT_FLAG_CULLED) != 0u) atomicAdd(control.c.culled, 1u);
    if ((flags & CBT_FLAG_OFFSCREEN) != 0u) atomicAdd(control.c.offscreen, 1u);
    if (pool.b[i].births != 0u) atomicAdd(control.c.morphing, 1u);
}
