#version 460
// cbt.reserve.reduce: the request tree over the words of [0, high_water) after RESOLVE, for
// RESERVE's ranks. One dispatch (common/cbt_reduce.glsl), indirect over sweeps.request.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

#define CBT_READS_CONTROL
#include "common/cbt_buffers.glsl"
#define REDUCE_BOUND_ENTRIES (control.c.high_water)
#include "common/cbt_reduce.glsl"

void main() { reduce_tree(); }
