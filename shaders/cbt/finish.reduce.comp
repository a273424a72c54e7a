#version 460
// cbt.finish.reduce: the draw tree over the words of [0, high_water) after FINISH, for the
// compaction's ranks. One dispatch (common/cbt_reduce.glsl), indirect over sweeps.draw; the
// workgroup that completes the tree writes the indirect draw of the leaves FINISH counted
// (3 vertices each) and counts the frame (the model's finish args step).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_WRITES_CONTROL
#include "common/cbt_buffers.glsl"
#define REDUCE_BOUND_ENTRIES (control.c.high_water)
#include "common/cbt_reduce.glsl"

void main() {
    if (reduce_tree() && gl_LocalInvocationID.x == 0u) {
        control.c.draw_args[1] = 1u;
        control.c.draw_args[2] = 0u;
        control.c.draw_args[3] = 0u;
        control.c.frame += 1u;
    }
}
