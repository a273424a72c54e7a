#version 460
// cbt.finish: evaluate entries created or changed by the last iteration (FLAG_DIRTY), mark drawn
// leaves in the draw bits, count leaves, culled, offscreen and the draw's vertices. Indirect
// over sweeps.finish ([0, high_water)). Kernel: engine/src/cbt/stages/finish.rs.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;

#define CBT_WRITES_POOL
#define CBT_WRITES_CONTROL
#define CBT_WRITES_MEMO
#define CBT_WRITES_DRAW_BITS
#include "common/cbt_buffers.glsl"
#include "common/cbt_eval.glsl"

// This workgroup's two words of draw bits (its 64 entries), built in shared memory and stored
// whole: a free entry's bit is 0 already (COMMIT clears a freed entry's, and nothing sets a free
// one), so the word is the drawn live entries' bits.
shared uint s_draw[2];

// Adds a per-invocation count to a counter: one atomic per subgroup.
#define COUNT(counter, n) { uint c_ = subgroupAdd(n); if (subgroupElect() && c_ != 0u) atomicAdd(counter, c_); }

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint l = gl_LocalInvocationIndex;
    if (l < 2u) s_draw[l] = 0u;
    barrier();
    bool live = i < pc.capacity && pool.b[i].path != 0ul;
    uint flags = 0u;
    bool morphing = false;
    if (live) {
        if ((pool.b[i].flags & CBT_FLAG_DIRTY) != 0u) eval_entry(i);
        flags = pool.b[i].flags;
        morphing = pool.b[i].births != 0u;
    }
    bool draw = live && (flags & CBT_FLAG_DRAW) != 0u;
    if (draw) atomicOr(s_draw[l >> 5u], 1u << (i & 31u));
    COUNT(control.c.draw_args[0], draw ? 3u : 0u);
    COUNT(control.c.leaves, live ? 1u : 0u);
    COUNT(control.c.culled, live && (flags & CBT_FLAG_CULLED) != 0u ? 1u : 0u);
    COUNT(control.c.offscreen, live && (flags & CBT_FLAG_OFFSCREEN) != 0u ? 1u : 0u);
    COUNT(control.c.morphing, live && morphing ? 1u : 0u);
    barrier();
    uint w = gl_WorkGroupID.x * 2u + l;
    if (l < 2u && w * 32u < pc.capacity) draw_bits.w[w] = s_draw[l];
}
