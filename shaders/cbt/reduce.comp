#version 460
// cbt.reduce: the free tree over the words of [0, max(high_water, alloc_high)) after COMMIT; its
// root is RESERVE's budget. One node per pass (push constant `pass`), indirect over
// sweeps.free[pass].
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_READS_CONTROL
#include "common/cbt_buffers.glsl"
#define REDUCE_BOUND_ENTRIES (max(control.c.high_water, control.c.alloc_high))
#include "common/cbt_reduce.glsl"

void main() { reduce_pass(); }
